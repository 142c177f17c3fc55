/**
 * The HTTP layer's ceilings for the REST benchmark, each in its own process: uWS answering a
 * constant JSON body on every path, and, for context, node:http doing the same. Prints
 * `port <n>` once listening on 127.0.0.1 (port chosen by the OS); stops on SIGTERM. `uws-durable`
 * answers the same constant after a group flush to a scratch file in `dir` (the durable floor).
 *
 *   node dist/bench/rest-baselines.js uws|uws-durable [dir]|http
 */
import { fdatasync, openSync, write } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import uWS, { type HttpResponse } from 'uWebSockets.js'

/** About the size of a small order book answer. */
const CONSTANT_BODY = JSON.stringify({
  market: '0x' + 'ab'.repeat(32), asset_id: '1'.repeat(77), timestamp: '1700000000000', hash: 'c'.repeat(40),
  bids: [{ price: '0.48', size: '100' }, { price: '0.49', size: '100' }], asks: [{ price: '0.52', size: '100' }, { price: '0.51', size: '100' }],
  tick_size: '0.01', min_order_size: '5', neg_risk: false,
})

function uwsServer(): void {
  const app = uWS.App()
  app.any('/*', (res) => {
    res.cork(() => {
      res.writeHeader('content-type', 'application/json')
      res.end(CONSTANT_BODY)
    })
  })
  app.listen('127.0.0.1', 0, (socket) => {
    if (socket === false) throw new Error('cannot listen')
    console.log(`port ${uWS.us_socket_local_port(socket)}`)
  })
}

/**
 * The least a durable acknowledgement costs over HTTP here: uWS answering the same constant, but
 * only once a group flush that began after the request arrived has returned (a 4 KiB write and
 * fdatasync of a scratch file on libuv's pool, one flush at a time; the requests that arrive
 * meanwhile form the next group). No parsing, no authentication, no engine, no journal format:
 * what every durable write pays on this machine (a thread hand-off, the disk's flush, the answer
 * sent from outside uWS's own callback) and nothing of Predex's. One flush at a time: starting each
 * event-loop turn's group on its own flush, several in flight, read 5-15 % lower here (2026-12-02).
 */
function uwsDurableServer(dir: string): void {
  const fd = openSync(join(dir, 'flushes'), 'w')
  const page = Buffer.alloc(4096, 7)
  let waiting: HttpResponse[] = []
  let flushing = false
  const flush = (): void => {
    if (flushing || waiting.length === 0) return
    flushing = true
    const group = waiting
    waiting = []
    write(fd, page, 0, page.length, 0, (writeError) => {
      if (writeError !== null) throw writeError
      fdatasync(fd, (syncError) => {
        if (syncError !== null) throw syncError
        flushing = false
        for (const res of group) answerLater(res)
        flush()
      })
    })
  }
  const app = uWS.App()
  app.any('/*', (res) => {
    res.onAborted(() => void aborted.add(res))
    waiting.push(res)
    flush()
  })
  app.listen('127.0.0.1', 0, (socket) => {
    if (socket === false) throw new Error('cannot listen')
    console.log(`port ${uWS.us_socket_local_port(socket)}`)
  })
}

/** Responses whose client went away before their flush: uWS forbids writing to them. */
const aborted = new WeakSet<HttpResponse>()

function answerLater(res: HttpResponse): void {
  if (aborted.has(res)) return
  res.cork(() => {
    res.writeHeader('content-type', 'application/json')
    res.end(CONSTANT_BODY)
  })
}

function nodeServer(): void {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(CONSTANT_BODY) })
    response.end(CONSTANT_BODY)
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    console.log(`port ${typeof address === 'object' && address !== null ? address.port : 0}`)
  })
}

const kind = process.argv[2]
if (kind === 'uws') uwsServer()
else if (kind === 'uws-durable') uwsDurableServer(process.argv[3] ?? tmpdir())
else if (kind === 'http') nodeServer()
else {
  console.error('usage: rest-baselines.js uws|uws-durable [dir]|http')
  process.exit(2)
}
process.on('SIGTERM', () => process.exit(0))
