/**
 * Per-connection backpressure on the REST face (issue 14, finding 3): a client that pipelines
 * requests and never reads its replies made the server buffer every reply in memory (+5.5 to
 * 7.7 MB/s per connection) and was never closed. Now a reply the socket cannot take whole is
 * finished as the socket drains; while it waits uWS reads nothing more from that connection, and
 * past its small stash of unread input, or REST_WRITE_STALL_MS, the connection is closed. A probe
 * on another connection keeps being answered meanwhile. A reply of bytes (a file of the web page)
 * that waits is finished byte for byte.
 */
import t from 'tap'
import { connect } from 'node:net'
import { startServer } from '../support/rest-harness.js'
import { Gate } from '../../src/auth/gate.js'
import { RestServer } from '../../src/api/rest/server.js'
import { Metrics } from '../../src/metrics.js'
import { SILENT_LOG } from '../../src/log.js'

/** Bounds with room for a loaded 2-core machine; the fix closes the flood in well under a second. */
const CLOSED_WITHIN_MS = 15_000
const PROBE_MS_MAX = 3_000

t.test('a client that pipelines requests and never reads is closed; others are answered', async (t) => {
  const server = await startServer()
  t.teardown(() => server.stop())
  const socket = connect(Number(new URL(server.base).port), '127.0.0.1')
  socket.pause() // never reads a reply
  socket.on('error', () => undefined) // the server's close resets our writes
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())))
  await new Promise((resolve) => socket.once('connect', resolve))
  const startedMs = performance.now()
  const chunk = 'GET /markets HTTP/1.1\r\nHost: predex\r\n\r\n'.repeat(200)
  let probeMsMax = 0
  let requests = 0
  while (!socket.destroyed && performance.now() - startedMs < CLOSED_WITHIN_MS) {
    if (!socket.write(chunk)) {
      await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed,
        new Promise((resolve) => setTimeout(resolve, 200))])
    }
    requests += 200
    if (requests % 10_000 === 0) {
      const probeStarted = performance.now()
      const probe = await fetch(`${server.base}/time`)
      await probe.text()
      probeMsMax = Math.max(probeMsMax, performance.now() - probeStarted)
    }
  }
  t.ok(socket.destroyed, `the server closed the connection (after ${requests} requests written)`)
  if (socket.destroyed) t.ok((await closed) - startedMs < CLOSED_WITHIN_MS, 'within the bound')
  t.ok(probeMsMax < PROBE_MS_MAX, `a probe on another connection was answered in at most ${probeMsMax.toFixed(0)} ms`)
  socket.destroy()
  const after = await fetch(`${server.base}/health`)
  t.equal(after.status, 200, 'the server is alive and answering')
})

/** Bytes no socket takes at once (loopback buffers hold a few MiB), from an offset into a larger buffer. */
const LARGE_BYTES = 24 * 1024 * 1024

t.test('a reply of bytes the socket cannot take whole is finished, byte for byte, as the client reads', async (t) => {
  const whole = new Uint8Array(LARGE_BYTES + 7).map((_, i) => (i * 31 + 7) & 0xff)
  const bytes = whole.subarray(7) // a view: the stalled reply's offsets must count from its own start
  const metrics = new Metrics()
  const gate = new Gate({ chainId: 137, window: { pastSec: 60, futureSec: 10 }, adminKey: 'k'.repeat(40),
    log: SILENT_LOG, lookup: () => undefined, clock: { nowSec: () => 0, nowMs: () => 0 }, limiter: null })
  const server = new RestServer({ context: {}, gate, metrics, log: SILENT_LOG, routes: [{ method: 'GET', path: '/large',
    auth: 'none', bodyMax: 0, openapi: { tag: 'health', summary: 'large', response: 'bytes' },
    handler: () => ({ body: null, bytes, contentType: 'application/octet-stream' }) }] })
  const port = await server.listen('127.0.0.1', 0)
  t.teardown(() => server.close())
  const socket = connect(port, '127.0.0.1')
  socket.pause()
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write('GET /large HTTP/1.1\r\nHost: predex\r\nConnection: close\r\n\r\n')
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.match(await metrics.text(), /^predex_rest_stalled_replies 1$/m, 'the reply waits for its client')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.resume()
  await new Promise((resolve) => socket.once('close', resolve))
  const answer = Buffer.concat(chunks)
  const head = answer.indexOf('\r\n\r\n')
  t.match(answer.subarray(0, head).toString('latin1'), `Content-Length: ${LARGE_BYTES}`)
  t.ok(answer.subarray(head + 4).equals(bytes), `the ${LARGE_BYTES} bytes as the handler gave them`)
  t.match(await metrics.text(), /^predex_rest_stalled_replies 0$/m, 'and none waits any more')
})
