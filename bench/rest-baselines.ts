/**
 * The HTTP layer's ceilings for the REST benchmark, each in its own process: uWS answering a
 * constant JSON body on every path, and, for context, node:http doing the same. Prints
 * `port <n>` once listening on 127.0.0.1 (port chosen by the OS); stops on SIGTERM.
 *
 *   node dist/bench/rest-baselines.js uws|http
 */
import { createServer } from 'node:http'
import uWS from 'uWebSockets.js'

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
else if (kind === 'http') nodeServer()
else {
  console.error('usage: rest-baselines.js uws|http')
  process.exit(2)
}
process.on('SIGTERM', () => process.exit(0))
