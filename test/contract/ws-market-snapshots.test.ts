/**
 * Book snapshots on /ws/market are budgeted per socket: each subscribe sends a snapshot of every
 * asset it names, so a client that re-subscribes in a loop would have the server build and send
 * books without end (amplification). Past WS_SNAPSHOTS_PER_WINDOW in WS_SNAPSHOT_WINDOW_MS, a
 * subscribe that asks for snapshots is refused with RATE_LIMITED (retryAfterSeconds), the socket
 * stays open, and the budget comes back with time.
 */
import t from 'tap'
import { WS_SNAPSHOTS_PER_WINDOW, WS_SNAPSHOT_WINDOW_MS } from '../../src/limits.js'
import { USDC, startServer } from '../support/rest-harness.js'
import { WsClient } from '../support/ws-client.js'

const server = await startServer()
t.teardown(() => server.stop())
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const url = `ws://127.0.0.1:${server.predex.port}/ws/market`

t.test('re-subscribing in a loop: snapshots up to the budget, then RATE_LIMITED; the socket stays open', async (t) => {
  const client = await WsClient.open(url)
  t.teardown(() => client.socket.close())
  const messages = WS_SNAPSHOTS_PER_WINDOW + 200
  const started = Date.now()
  for (let i = 0; i < messages; i++) client.send({ type: 'market', assets_ids: [market.yesTokenId] })
  client.send('PING')
  let snapshots = 0
  let refusals = 0
  let refusal: Record<string, unknown> | null = null
  for (;;) {
    const frame = await client.next()
    if (frame === 'PONG') break
    const message = JSON.parse(frame) as unknown
    if (Array.isArray(message)) snapshots++
    else if ((message as { code?: unknown }).code === 'RATE_LIMITED') {
      refusals++
      refusal = message as Record<string, unknown>
    }
  }
  const elapsedMs = Date.now() - started
  // The budget refills as time goes by: what the test's own time can have added.
  const refilled = Math.ceil((elapsedMs * WS_SNAPSHOTS_PER_WINDOW) / WS_SNAPSHOT_WINDOW_MS)
  t.ok(snapshots >= WS_SNAPSHOTS_PER_WINDOW && snapshots <= WS_SNAPSHOTS_PER_WINDOW + refilled,
    `${snapshots} snapshots for ${messages} subscribes in ${elapsedMs} ms`)
  t.equal(snapshots + refusals, messages, 'every subscribe answered: a snapshot or a refusal')
  t.match(refusal, { event_type: 'error', code: 'RATE_LIMITED', retryAfterSeconds: Number })
  client.send('PING')
  t.equal(await client.next(), 'PONG', 'the socket is open')
})

t.test('a subscribe without snapshots (initial_dump false) is not limited', async (t) => {
  const client = await WsClient.open(url)
  t.teardown(() => client.socket.close())
  for (let i = 0; i < WS_SNAPSHOTS_PER_WINDOW + 10; i++) {
    client.send({ type: 'market', assets_ids: [market.yesTokenId], initial_dump: false })
  }
  client.send('PING')
  t.equal(await client.next(), 'PONG', 'nothing but the pong: no snapshot, no refusal')
})
