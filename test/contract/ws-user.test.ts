/**
 * The user channel (`/ws/user`) over loopback: authentication by API key, secret and
 * passphrase; a user's own order events (PLACEMENT, UPDATE, CANCELLATION) and trades (as taker
 * and as maker), numbered per socket without gaps; the markets filter; the key's order-group
 * changes (`order_group`, the trigger right after its cancels), to that key's sockets only; and a
 * wrong secret answered with an error event and a closed socket.
 */
import t from 'tap'
import { CHAIN_ID, USDC, l2, nowSec, placeLimit, send, startServer, termsOf, type Trader } from '../support/rest-harness.js'
import { signLimitOrder } from '../../src/client/orders.js'
import { orderRequest } from '../support/driver.js'
import { l1Headers } from '../../src/crypto/request-headers.js'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { TestClock } from '../support/clock.js'
import { WsClient } from '../support/ws-client.js'
import { RATE_RULES, WS_SUBSCRIPTIONS_MAX } from '../../src/limits.js'

// Budgets read the monotonic clock, which stands still unless advanced: the block below comes after
// exactly the failure budget, however slow the machine.
const server = await startServer({ clock: new TestClock() })
t.teardown(() => server.stop())
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const other = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const url = `ws://127.0.0.1:${server.predex.port}/ws/user`
const alice = await server.trader(100 * USDC)
const bob = await server.trader(100 * USDC)

async function subscribe(trader: Trader, markets: string[] = []): Promise<WsClient> {
  const client = await WsClient.open(url)
  client.send({ type: 'user', auth: trader.credentials, markets })
  client.send('PING')
  if ((await client.next()) !== 'PONG') throw new Error('expected PONG after the subscription')
  return client
}

t.test("a user's orders and trades, in order, each with the socket's next seq", async (t) => {
  const aliceSocket = await subscribe(alice)
  const bobSocket = await subscribe(bob)
  const onlyOther = await subscribe(alice, [other.conditionId])
  t.teardown(() => [aliceSocket, bobSocket, onlyOther].forEach((c) => c.socket.close()))
  const resting = await placeLimit(server, alice, market, { side: 'BUY', price: '0.40', size: '10' })
  const placement = await aliceSocket.json()
  t.match(placement, { event_type: 'order', type: 'PLACEMENT', id: resting.signed.orderId, status: 'LIVE', side: 'BUY', price: '0.4',
    original_size: '10', size_matched: '0', market: market.conditionId, seq: 1 })
  t.equal(placement.order_owner, alice.credentials.apiKey)
  // Bob sells 4 Yes? He has none: he buys No at 0.60 instead (a mint), filling 4 of Alice's 10.
  await placeLimit(server, bob, market, { outcome: 'No', side: 'BUY', price: '0.60', size: '4' }, 'FAK')
  const aliceEvents = [await aliceSocket.json(), await aliceSocket.json()]
  t.same(aliceEvents.map((e) => [e.event_type, e.type, e.seq]), [['trade', 'TRADE', 2], ['order', 'UPDATE', 3]], 'maker: the trade, then the fill')
  t.match(aliceEvents[0], { trader_side: 'MAKER', status: 'CONFIRMED', size: '4', market: market.conditionId })
  t.match(aliceEvents[0].transaction_hash, /^0x[0-9a-f]{64}$/)
  t.match(aliceEvents[1], { id: resting.signed.orderId, status: 'LIVE', size_matched: '4' })
  const bobEvents = [await bobSocket.json(), await bobSocket.json(), await bobSocket.json()]
  t.same(bobEvents.map((e) => [e.event_type, e.type, e.seq]), [['order', 'PLACEMENT', 1], ['trade', 'TRADE', 2], ['order', 'UPDATE', 3]])
  t.match(bobEvents[1], { trader_side: 'TAKER', side: 'BUY', price: '0.6' })
  t.match(bobEvents[2], { status: 'MATCHED', size_matched: '4' })
  // Each order event shows the order as that event left it, trades included (issue 32: the
  // placement showed the trade its own command made after it).
  t.same([bobEvents[0].associate_trades, bobEvents[2].associate_trades], [[], [bobEvents[1].id]],
    'the placement before its trade, the fill with it')
  const cancel = await l2(server, alice, 'DELETE', '/order', { orderID: resting.signed.orderId })
  t.same(cancel.body.canceled, [resting.signed.orderId])
  t.match(await aliceSocket.json(), { event_type: 'order', type: 'CANCELLATION', status: 'CANCELED', seq: 4 })
  onlyOther.send('PING')
  t.equal(await onlyOther.next(), 'PONG', 'a socket following another market got none of this')
})

t.test('authentication: a wrong secret or an unknown key is an error event and a closed socket', async (t) => {
  for (const [label, auth, code] of [
    ['wrong secret', { ...alice.credentials, secret: Buffer.alloc(32, 1).toString('base64url') }, 'AUTH_PASSPHRASE'],
    ['unknown key', { ...alice.credentials, apiKey: '00000000-0000-4000-8000-000000000000' }, 'AUTH_UNKNOWN_KEY'],
    ['no auth', undefined, 'AUTH_HEADERS_MISSING'],
  ] as const) {
    const client = await WsClient.open(url)
    client.send({ type: 'user', auth, markets: [] })
    t.match(await client.json(), { event_type: 'error', code }, label)
    t.equal(await client.closed, 1008, `${label}: closed`)
  }
  const client = await WsClient.open(url)
  client.send({ type: 'market', assets_ids: [] })
  t.match(await client.json(), { event_type: 'error', code: 'BAD_REQUEST', field: 'type' })
  t.equal(await client.closed, 1008)
})

t.test('revoking the key ends its sessions: an error event, the socket closed, nothing more sent', async (t) => {
  const carol = await server.trader(100 * USDC)
  // Another key of the same wallet (nonce 1).
  const second = await send(server, 'POST', '/auth/api-key', '', l1Headers(carol.wallet, CHAIN_ID, nowSec(), 1))
  t.equal(second.status, 200)
  const keep = { ...carol, credentials: second.body as ApiCredentials }
  const revokedSocket = await subscribe(carol)
  const keptSocket = await subscribe(keep)
  t.teardown(() => keptSocket.socket.close())
  const revoked = await l2(server, carol, 'DELETE', '/auth/api-key')
  t.same(revoked.body, { deleted: true })
  t.match(await revokedSocket.json(), { event_type: 'error', code: 'AUTH_UNKNOWN_KEY' }, 'told why')
  t.equal(await revokedSocket.closed, 1008, 'closed')
  await placeLimit(server, keep, market, { side: 'BUY', price: '0.10', size: '10' })
  t.match(await keptSocket.json(), { event_type: 'order', type: 'PLACEMENT' }, 'the wallet\'s other key keeps its session')
})

t.test("order_group and group_triggered events: the key's group changes, the trigger right after its cancels, to that key only",
  async (t) => {
    const dave = await server.trader(100 * USDC)
    const taker = await server.trader(100 * USDC)
    const second = await send(server, 'POST', '/auth/api-key', '', l1Headers(dave.wallet, CHAIN_ID, nowSec(), 1))
    t.equal(second.status, 200)
    const daveOther = { ...dave, credentials: second.body as ApiCredentials }
    const socket = await subscribe(dave)
    const otherMarketOnly = await subscribe(dave, [other.conditionId])
    const otherKey = await subscribe(daveOther)
    t.teardown(() => [socket, otherMarketOnly, otherKey].forEach((c) => c.socket.close()))
    const created = await l2(server, dave, 'POST', '/order-groups', { group_id: 'mmp', contracts_limit: '2',
      window_ms: 10_000 })
    t.equal(created.status, 201)
    const createdEvent = await socket.json()
    t.match(createdEvent, { event_type: 'order_group', action: 'created', seq: 1, group: { group_id: 'mmp',
      contracts_limit: '2', notional_limit: '0', window_ms: 10_000, freeze_ms: 0, triggered: false,
      triggered_at: null } })
    t.match(createdEvent.timestamp, /^\d+$/)
    const inGroup = async (price: string, size: string) => {
      const signed = signLimitOrder(dave.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price,
        size })
      const placed = await l2(server, dave, 'POST', '/order', { ...(orderRequest(signed, dave.credentials.apiKey) as
        object), orderGroupId: 'mmp' })
      t.equal(placed.status, 200)
      return signed.orderId
    }
    const b1 = await inGroup('0.40', '2')
    const b2 = await inGroup('0.39', '5')
    t.same([(await socket.json()).type, (await socket.json()).type], ['PLACEMENT', 'PLACEMENT'])
    // A mint: the taker's No bid at 0.60 meets the 0.40 Yes bid; 2 shares reach the limit of 2.
    await placeLimit(server, taker, market, { outcome: 'No', side: 'BUY', price: '0.60', size: '2' }, 'FAK')
    const events = [await socket.json(), await socket.json(), await socket.json(), await socket.json()]
    t.same(events.map((e) => [e.event_type, e.type ?? e.action, e.event_type === 'trade' ? null
      : e.id ?? e.group?.group_id, e.seq]), [['trade', 'TRADE', null, 4], ['order', 'UPDATE', b1, 5], ['order', 'CANCELLATION', b2, 6],
        ['group_triggered', 'triggered', 'mmp', 7]], 'the fill, the group\'s other order cancelled, then the trigger')
    const triggered = events[3]
    t.equal(triggered.group.triggered, true)
    t.equal(triggered.group.triggered_at, Number(triggered.timestamp), 'triggered_at: the command\'s time')
    t.equal(triggered.timestamp, events[2].timestamp, 'in the same command as the cancel')
    const rest = (await l2(server, dave, 'GET', '/order-groups')).body.data[0]
    t.match(rest, { group_id: 'mmp', triggered: true, triggered_at: triggered.group.triggered_at, resting_orders: 0 })
    t.match(await otherMarketOnly.json(), { event_type: 'order_group', action: 'created', seq: 1 },
      'a socket following another market: the group\'s changes all the same (a group spans markets)')
    t.match(await otherMarketOnly.json(), { event_type: 'group_triggered', action: 'triggered', seq: 2 })
    t.same((await l2(server, dave, 'POST', '/order-groups/mmp/reset')).status, 200)
    t.match(await socket.json(), { event_type: 'order_group', action: 'reset', seq: 8,
      group: { triggered: false, triggered_at: null } })
    const otherKeyEvents = [await otherKey.json(), await otherKey.json(), await otherKey.json(), await otherKey.json(),
      await otherKey.json()]
    t.same(otherKeyEvents.map((e) => e.event_type), ['order', 'order', 'trade', 'order', 'order'],
      'another key of the wallet: the orders and trades, none of the group\'s changes')
    otherKey.send('PING')
    t.equal(await otherKey.next(), 'PONG', 'and nothing after them')
  })

// Found by the live fuzz (test/fuzz/ws-live.test.ts): a subscribe refused for passing the bound
// used to add its markets all the same, so each refused message grew the socket's set (by up to
// 16 KiB of names a message, without end) and every later subscribe was refused.
t.test('a subscribe past the markets bound is refused whole and changes nothing', async (t) => {
  const tooMany = Array.from({ length: WS_SUBSCRIPTIONS_MAX + 1 }, (_, i) => i.toString(36))
  const client = await subscribe(alice, [market.conditionId])
  t.teardown(() => client.socket.close())
  for (let i = 0; i < 3; i++) {
    client.send({ operation: 'subscribe', markets: tooMany })
    t.match(await client.json(), { event_type: 'error', code: 'INVALID_PARAMETER' }, 'refused')
  }
  client.send({ operation: 'subscribe', markets: [other.conditionId] })
  client.send('PING')
  t.equal(await client.next(), 'PONG', 'a subscribe within the bound is taken: the refused ones added nothing')
  await placeLimit(server, alice, market, { side: 'BUY', price: '0.11', size: '1' })
  t.match(await client.json(), { event_type: 'order', type: 'PLACEMENT', market: market.conditionId }, 'the filter is as it was')
  const first = await WsClient.open(url)
  first.send({ type: 'user', auth: alice.credentials, markets: tooMany })
  t.match(await first.json(), { event_type: 'error', code: 'INVALID_PARAMETER', field: 'markets' })
  t.equal(await first.closed, 1008, 'a first message refused for it authenticates nothing: the socket is closed')
})

// Last: it blocks Bob's key from this address.
t.test('failed WebSocket authentications count against the same budget as REST: then both refuse the key', async (t) => {
  const wrong = { ...bob.credentials, secret: Buffer.alloc(32, 2).toString('base64url') }
  const codes: string[] = []
  for (let i = 0; i < RATE_RULES.authFailure.burst + 5; i++) {
    const client = await WsClient.open(url)
    client.send({ type: 'user', auth: wrong })
    codes.push((await client.json()).code)
    await client.closed
  }
  t.ok(codes.slice(0, RATE_RULES.authFailure.burst).every((code) => code === 'AUTH_PASSPHRASE'), 'each failure answered first')
  t.equal(codes.at(-1), 'RATE_LIMITED', 'then the pair is blocked')
  const right = await WsClient.open(url)
  right.send({ type: 'user', auth: bob.credentials })
  t.match(await right.json(), { event_type: 'error', code: 'RATE_LIMITED' }, 'even the right secret, during the block')
  const rest = await l2(server, bob, 'GET', '/balance-allowance?asset_type=COLLATERAL')
  t.equal(rest.status, 429, 'and the REST face refuses the key from this address too')
  const aliceRest = await l2(server, alice, 'GET', '/balance-allowance?asset_type=COLLATERAL')
  t.equal(aliceRest.status, 200, 'another key is unaffected')
})
