/**
 * The market channel (`/ws/market`) over loopback with a real WebSocket client: PING/PONG, the
 * book snapshot on subscription, then price_change, last_trade_price (both tokens of a mint)
 * and tick_size_change, each with its asset's next seq; bad subscriptions answered with an
 * error event on a socket that stays open; unsubscribe; and a reader too slow for its backlog
 * is dropped while others keep their stream.
 */
import t from 'tap'
import WebSocket from 'ws'
import { WsClient } from '../support/ws-client.js'
import { PredexClient } from '../../src/client/predex-client.js'
import { USDC, placeLimit, startServer } from '../support/rest-harness.js'
import { WS_SNAPSHOTS_PER_WINDOW } from '../../src/limits.js'

const server = await startServer()
t.teardown(() => server.stop())
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const yes = market.yesTokenId
const no = market.noTokenId
const wsUrl = `ws://127.0.0.1:${server.predex.port}/ws/market`
const Client = { open: (): Promise<WsClient> => WsClient.open(wsUrl) }

t.test('PING is answered PONG; a subscription gets one book snapshot per asset, best level last', async (t) => {
  const client = await Client.open()
  t.teardown(() => client.socket.close())
  client.send('PING')
  t.equal(await client.next(), 'PONG')
  client.send({ type: 'MARKET', assets_ids: [yes, no] })
  const snapshot = await client.json()
  t.ok(Array.isArray(snapshot), 'the initial dump is an array')
  t.same(snapshot.map((b: any) => [b.event_type, b.asset_id, b.market]), [['book', yes, market.conditionId], ['book', no, market.conditionId]])
  t.same(snapshot[0].bids, [])
  t.equal(snapshot[0].seq, 0, 'nothing published for this asset yet')
})

t.test('events follow in order, each with the next seq of its asset', async (t) => {
  const client = await Client.open()
  t.teardown(() => client.socket.close())
  client.send({ type: 'market', assets_ids: [yes, no] })
  const snapshot = await client.json()
  const seq0 = { [yes]: snapshot[0].seq, [no]: snapshot[1].seq }
  const [alice, bob] = [await server.trader(100 * USDC), await server.trader(100 * USDC)]
  t.equal((await placeLimit(server, alice, market, { side: 'BUY', price: '0.40', size: '10' })).status, 200)
  const placed = await client.json()
  t.match(placed, { event_type: 'price_change', market: market.conditionId, seq: seq0[yes] + 1 })
  const hashOf = (changes: any[]) => changes.map(({ hash }) => hash)
  t.match(hashOf(placed.price_changes), [/^[0-9a-f]{40}$/], 'the hash of the book after the change (ws-market-v2.test.ts)')
  t.same(placed.price_changes, [{ asset_id: yes, price: '0.4', size: '10', side: 'BUY', hash: hashOf(placed.price_changes)[0], best_bid: '0.4', best_ask: '1' }])
  // A mint: Bob buys No at 0.60 against Alice's Yes bid. The Yes level goes, both tokens trade.
  t.equal((await placeLimit(server, bob, market, { outcome: 'No', side: 'BUY', price: '0.60', size: '10' })).body.status, 'matched')
  const events = [await client.json(), await client.json(), await client.json()]
  const byType = (type: string) => events.filter((e) => e.event_type === type)
  t.same(byType('last_trade_price').map((e) => [e.asset_id, e.price, e.size, e.side]).sort(), [[no, '0.6', '10', 'BUY'], [yes, '0.4', '10', 'BUY']].sort())
  t.match(byType('last_trade_price')[0].transaction_hash, /^0x[0-9a-f]{64}$/)
  const [emptied] = byType('price_change')
  t.same(emptied.price_changes, [{ asset_id: yes, price: '0.4', size: '0', side: 'BUY', hash: emptied.price_changes[0].hash, best_bid: '0', best_ask: '1' }])
  t.equal(byType('price_change').length, 1)
  const yesSeqs = events.filter((e) => (e.asset_id ?? e.price_changes?.[0].asset_id) === yes).map((e) => e.seq)
  t.same(yesSeqs, [seq0[yes] + 2, seq0[yes] + 3], 'Yes: no gap, no repeat')
  t.same(events.filter((e) => e.asset_id === no).map((e) => e.seq), [seq0[no] + 1])
  const admin = new PredexClient({ baseUrl: server.base, adminKey: server.predex.adminKey })
  await admin.updateMarket(market.marketId, { tick_size: '0.001' })
  const ticks = [await client.json(), await client.json()]
  t.same(ticks.map((e) => [e.event_type, e.asset_id, e.old_tick_size, e.new_tick_size]).sort(),
    [['tick_size_change', no, '0.01', '0.001'], ['tick_size_change', yes, '0.01', '0.001']].sort())
})

t.test('a bad subscription gets an error event and the socket stays; unsubscribe stops the stream', async (t) => {
  const client = await Client.open()
  t.teardown(() => client.socket.close())
  client.send('{not json')
  t.match(await client.json(), { event_type: 'error', code: 'BAD_JSON' })
  client.send({ type: 'market', assets_ids: ['999'] })
  t.match(await client.json(), { event_type: 'error', code: 'TOKEN_NOT_FOUND', tokenId: '999' })
  client.send({ type: 'user', assets_ids: [yes] })
  t.match(await client.json(), { event_type: 'error', code: 'BAD_REQUEST', field: 'type' })
  client.send({ type: 'market', assets_ids: [yes], initial_dump: false })
  client.send({ operation: 'unsubscribe', assets_ids: [yes] })
  client.send('PING')
  t.equal(await client.next(), 'PONG', 'no snapshot (initial_dump false), and the socket is alive')
  const trader = await server.trader(100 * USDC)
  await placeLimit(server, trader, market, { side: 'BUY', price: '0.123', size: '5' })
  client.send('PING')
  t.equal(await client.next(), 'PONG', 'nothing published to an unsubscribed socket before the PONG')
})

t.test('a client that stops reading is dropped at the backpressure bound; others keep their stream', async (t) => {
  // A deep book (400 levels on a 0.001 tick), so that each snapshot is over 10 KB: the snapshots
  // of one window's budget (WS_SNAPSHOTS_PER_WINDOW) then outgrow the kernel's buffers.
  const deep = await server.createMarket({ minOrderSizeMicros: 1 * USDC, tickSizeMicros: 1_000 })
  const trader = await server.trader(1_000 * USDC)
  for (let start = 0; start < 400; start += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, i) =>
      placeLimit(server, trader, deep, { side: 'BUY', price: (0.1 + (start + i) / 1000).toFixed(3), size: '1' })))
  }
  const slow = await Client.open()
  const fast = await Client.open()
  t.teardown(() => fast.socket.close())
  fast.send({ type: 'market', assets_ids: [deep.yesTokenId] })
  const snapshotBytes = (await fast.next()).length
  t.ok(snapshotBytes > 10_000, `a snapshot is ${snapshotBytes} bytes`)
  // The slow client stops reading but keeps asking for snapshots: its queue on the server grows
  // past WS_BACKPRESSURE_BYTES_MAX (plus what the kernel buffers), and the server closes it.
  ;(slow.socket as unknown as { _socket: { pause(): void } })._socket.pause()
  const requests = WS_SNAPSHOTS_PER_WINDOW
  for (let i = 0; i < requests && slow.socket.readyState === WebSocket.OPEN; i++) {
    slow.send({ type: 'market', assets_ids: [deep.yesTokenId] })
  }
  ;(slow.socket as unknown as { _socket: { resume(): void } })._socket.resume()
  let timer: NodeJS.Timeout | undefined
  const code = await Promise.race([slow.closed, new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), 30_000) })])
  clearTimeout(timer)
  t.not(code, null, `the slow consumer was closed by the server (code ${code})`)
  t.ok(slow.frames.length < requests, `it got ${slow.frames.length} of ${requests} snapshots, not all`)
  fast.send('PING')
  t.equal(await fast.next(), 'PONG', 'the other client is still served')
})
