/**
 * Order groups over gRPC, through the SDK (src/client/grpc). The translations (messages.ts) give
 * REST's values, and an order's order_group_id parses as REST's orderGroupId. The six unary calls
 * answer REST's group field for field (GET /order-groups beside ListOrderGroups), an update keeps
 * what it leaves unset, and each refusal carries its catalogue code and gRPC status with nothing journaled. An
 * order joins a group by its OrderRequest's `order_group_id` (unary and in a session); a fill that
 * brings the window to the limit cancels the group's other resting orders in the same engine step
 * and the group refuses orders until reset. The key's user stream gets each change as an
 * `order_group` update (TRIGGERED right after the cancels of the same command), at the wallet's
 * current number: the numbered updates run on without a gap, a resume replays only them, another
 * key of the same wallet gets none of the group's changes, and the SDK's UserStream yields the
 * change without moving its cursor. The calls draw on their REST routes' budgets.
 */
import t from 'tap'
import { PredexGrpcClient } from '../../src/client/grpc/predex-grpc-client.js'
import { GrpcTransport } from '../../src/client/grpc/transport.js'
import { l1Headers } from '../../src/crypto/request-headers.js'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { orderBody, signLimitOrder, type SignedOrder } from '../../src/client/orders.js'
import type { ErrorCode } from '../../src/errors.js'
import { OrderGroupAction, StreamService, type UserStreamResponse } from '../../src/gen/predex/v1/streams_pb.js'
import { TradingService } from '../../src/gen/predex/v1/trading_pb.js'
import { RATES } from '../../src/api/grpc/trading.js'
import {
  groupLimitsOf, orderGroupMessage, orderGroupUpdateMessage, signedOrderOf,
} from '../../src/api/grpc/messages.js'
import { parseWireOrder } from '../../src/api/order-wire.js'
import { orderRequestOf } from '../../src/client/grpc/order-request.js'
import { Wallet } from '../../src/crypto/wallet.js'
import type { PredexError } from '../../src/errors.js'
import { orderGroupRoutes } from '../../src/api/rest/routes/order-groups.js'
import { ORDER_GROUPS_PER_KEY_MAX, RATE_RULES } from '../../src/limits.js'
import { orderGroupJson } from '../support/grpc-native.js'
import { CHAIN_ID, l2, nowSec, send, startServer, termsOf, USDC, type Trader } from '../support/rest-harness.js'
import { TestClock } from '../support/clock.js'
import { Reader, signerOf } from './streams-support.js'
import { refusalOf, isRefusal, WAIT_MS } from './refusals.js'

// Budgets read the monotonic clock, which stands still here: both faces' counts are exact however
// slow the machine is (a budget that refilled between the two calls read one more, under load).
const server = await startServer({ clock: new TestClock() })
const target = `127.0.0.1:${server.predex.grpcPort}`
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const grpc = new GrpcTransport(target)
const clients: PredexGrpcClient[] = []
t.teardown(async () => {
  for (const client of clients) client.close()
  grpc.close()
  await server.stop()
})

interface Party {
  readonly trader: Trader
  readonly client: PredexGrpcClient
}

function clientOf(trader: Trader): PredexGrpcClient {
  const client = new PredexGrpcClient({ target, signer: signerOf(trader) })
  clients.push(client)
  return client
}

/** A funded trader with its own SDK client; with `shares`, Yes and No shares to sell too. */
async function party(shares = 0): Promise<Party> {
  const trader = await server.trader(1_000 * USDC)
  if (shares > 0) {
    await server.command({ kind: 'split', address: trader.address, marketId: market.marketId,
      amountMicros: shares * USDC })
  }
  return { trader, client: clientOf(trader) }
}

/** Another API key of `who`'s wallet (nonce 1), with its own client. */
async function secondKey(who: Party): Promise<Party> {
  const answer = await send(server, 'POST', '/auth/api-key', '', l1Headers(who.trader.wallet, CHAIN_ID, nowSec(), 1))
  if (answer.status !== 200) throw new Error(`a second key: ${answer.status}`)
  const trader = { ...who.trader, credentials: answer.body as ApiCredentials }
  return { trader, client: clientOf(trader) }
}

function limit(who: Party, side: 'BUY' | 'SELL', price: string, size: string): SignedOrder {
  return signLimitOrder(who.trader.wallet, termsOf(market), { tokenId: market.yesTokenId, side, price, size })
}

async function engineState(): Promise<unknown> {
  return server.predex.context.host.query({ kind: 'stateHash' })
}

function userStream(who: Party, fromSeq = 0n, epoch = ''): Reader<UserStreamResponse> {
  return new Reader(grpc.serverStream(StreamService.method.userStream, { fromSeq, epoch }, signerOf(who.trader)))
}

/** The messages of a user stream as short lines: `seq kind ...`. */
function lineOf(message: UserStreamResponse): string {
  const update = message.update
  switch (update.case) {
    case 'order': return `${message.seq} order ${update.value.id.slice(0, 10)} ${update.value.status}`
    case 'trade': return `${message.seq} trade ${update.value.id}`
    case 'orderGroup': return `${message.seq} group ${update.value.group?.groupId} ${OrderGroupAction[update.value.action]}`
    default: return `${message.seq} ${update.case}`
  }
}

const numbered = (messages: readonly UserStreamResponse[]): UserStreamResponse[] =>
  messages.filter((m) => m.update.case === 'order' || m.update.case === 'trade')

/** The next `count` messages of an SDK user stream (each within WAIT_MS). */
async function take(stream: AsyncIterator<UserStreamResponse>, count: number): Promise<UserStreamResponse[]> {
  const messages: UserStreamResponse[] = []
  while (messages.length < count) {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no user-stream message within ${WAIT_MS} ms`)), WAIT_MS)
    })
    const next = await Promise.race([stream.next(), timeout]).finally(() => clearTimeout(timer))
    if (next.done === true) throw new Error('the user stream ended')
    messages.push(next.value)
  }
  return messages
}

t.test('the translations: REST\'s group and order field; the stream\'s change, without the window', async (t) => {
  const view = { groupId: 'g', contractsLimitMicros: 5_000_000, notionalLimitMicros: 0, windowMs: 15_000, freezeMs: 0,
    triggered: true, triggeredMs: 1_700_000_000_123, windowContractsMicros: 1_500_000, windowNotionalMicros: 600_000,
    restingOrders: 2 }
  t.same(orderGroupMessage(view), { groupId: 'g', contractsLimit: '5', notionalLimit: '0', windowMs: 15_000,
    freezeMs: 0, triggered: true, triggeredAt: 1_700_000_000_123n, windowContracts: '1.5', windowNotional: '0.6',
    restingOrders: 2 })
  t.notOk('triggeredAt' in orderGroupMessage({ ...view, triggered: false, triggeredMs: -1 }), 'never triggered: absent')
  const change = { type: 'orderGroup', owner: 'key-1', groupId: 'g', action: 'triggered', contractsLimitMicros: 5_000_000,
    notionalLimitMicros: 0, windowMs: 15_000, freezeMs: 0, triggered: true, timeMs: 1_700_000_000_500 } as const
  t.same(orderGroupUpdateMessage(change), { action: OrderGroupAction.TRIGGERED, timeMs: 1_700_000_000_500n,
    group: { groupId: 'g', contractsLimit: '5', notionalLimit: '0', windowMs: 15_000, freezeMs: 0, triggered: true,
      triggeredAt: 1_700_000_000_500n } })
  t.notOk('triggeredAt' in orderGroupUpdateMessage({ ...change, action: 'updated' }).group!,
    'another change: triggered_at absent')
  t.same(groupLimitsOf({ contractsLimit: '', notionalLimit: '2.5', windowMs: undefined, freezeMs: 0 }),
    { notionalLimitMicros: 2_500_000, freezeMs: 0 }, '"" and unset: not given')
  const refused = ((): PredexError | null => {
    try {
      groupLimitsOf({ contractsLimit: 'x', notionalLimit: '' })
      return null
    } catch (error) {
      return error as PredexError
    }
  })()
  t.match(refused, { code: 'INVALID_PARAMETER', context: { field: 'contracts_limit' } }, 'REST\'s refusal and field')
  const wallet = Wallet.random()
  const signed = signLimitOrder(wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.40',
    size: '1' })
  const trader = { apiKey: 'key-1', address: wallet.address.toLowerCase() }
  const body = JSON.parse(orderBody(signed, trader.apiKey, 'GTC', false))
  const message = orderRequestOf(signed, { owner: trader.apiKey, orderGroupId: 'g-1' })
  t.same(signedOrderOf(message, trader), { ...parseWireOrder({ ...body, orderGroupId: 'g-1' }), clientOrderId: '' },
    'order_group_id: REST\'s orderGroupId')
  t.equal(signedOrderOf(orderRequestOf(signed), trader).orderGroupId, undefined, '"": no group')
})

t.test('the unary calls: create, list, update, trigger, reset, delete, each answering REST\'s group', async (t) => {
  const alice = await party()
  const created = await alice.client.createOrderGroup({ groupId: 'mmp-1', contractsLimit: '5', windowMs: 15_000 })
  t.match(created, { groupId: 'mmp-1', contractsLimit: '5', notionalLimit: '0', windowMs: 15_000, freezeMs: 0,
    triggered: false, windowContracts: '0', windowNotional: '0', restingOrders: 0 })
  t.equal(created.triggeredAt, undefined, 'never triggered: triggered_at absent')
  const listed = await alice.client.listOrderGroups()
  const rest = await l2(server, alice.trader, 'GET', '/order-groups')
  t.same(listed.map(orderGroupJson), rest.body.data, 'ListOrderGroups is GET /order-groups, field for field')
  t.match(await alice.client.updateOrderGroup({ groupId: 'mmp-1', notionalLimit: '100', freezeMs: 30_000 }),
    { contractsLimit: '5', notionalLimit: '100', windowMs: 15_000, freezeMs: 30_000 }, 'what is unset keeps its value')
  t.match(await alice.client.updateOrderGroup({ groupId: 'mmp-1', contractsLimit: '0', windowMs: 20_000 }),
    { contractsLimit: '0', notionalLimit: '100', windowMs: 20_000, freezeMs: 30_000 }, '"0" removes a limit')
  const triggered = await alice.client.triggerOrderGroup('mmp-1')
  t.match(triggered, { triggered: true, restingOrders: 0 })
  t.type(triggered.triggeredAt, 'bigint', 'triggered_at: when')
  const restTriggered = (await l2(server, alice.trader, 'GET', '/order-groups')).body.data[0]
  t.same(orderGroupJson(triggered), restTriggered, 'as REST reads it after')
  const reset = await alice.client.resetOrderGroup('mmp-1')
  t.match(reset, { triggered: false, windowContracts: '0' })
  t.equal(reset.triggeredAt, undefined, 'reset: triggered_at absent again')
  await alice.client.deleteOrderGroup('mmp-1')
  t.same(await alice.client.listOrderGroups(), [], 'deleted')
  t.same((await l2(server, alice.trader, 'GET', '/order-groups')).body.data, [])
})

t.test('refusals: the catalogue\'s code and gRPC status, nothing journaled', async (t) => {
  const alice = await party()
  const bob = await party()
  await alice.client.createOrderGroup({ groupId: 'g', notionalLimit: '50', windowMs: 5_000 })
  const before = await engineState()
  const cases: [string, () => Promise<unknown>, ErrorCode, Record<string, unknown>?][] = [
    ['no limit', () => alice.client.createOrderGroup({ groupId: 'h', windowMs: 15_000 }), 'ORDER_GROUP_INVALID'],
    ['a window too long', () => alice.client.createOrderGroup({ groupId: 'h', contractsLimit: '1',
      windowMs: 120_000 }), 'ORDER_GROUP_INVALID', { field: 'windowMs' }],
    ['a window off the 100 ms grid', () => alice.client.createOrderGroup({ groupId: 'h', contractsLimit: '1',
      windowMs: 1_050 }), 'ORDER_GROUP_INVALID', { field: 'windowMs' }],
    ['no group id', () => alice.client.createOrderGroup({ contractsLimit: '1', windowMs: 15_000 }),
      'INVALID_PARAMETER', { field: 'group_id' }],
    ['a limit that is no decimal', () => alice.client.createOrderGroup({ groupId: 'h', contractsLimit: 'five',
      windowMs: 15_000 }), 'INVALID_PARAMETER', { field: 'contracts_limit' }],
    ['an id the key has', () => alice.client.createOrderGroup({ groupId: 'g', contractsLimit: '1',
      windowMs: 15_000 }), 'ORDER_GROUP_EXISTS'],
    ['an unknown group', () => alice.client.updateOrderGroup({ groupId: 'nope', contractsLimit: '1' }),
      'ORDER_GROUP_NOT_FOUND'],
    ['another key\'s group', () => bob.client.triggerOrderGroup('g'), 'ORDER_GROUP_NOT_FOUND'],
    ['an update that leaves no limit', () => alice.client.updateOrderGroup({ groupId: 'g', notionalLimit: '0' }),
      'ORDER_GROUP_INVALID'],
    ['an empty id', () => alice.client.resetOrderGroup(''), 'INVALID_PARAMETER', { field: 'group_id' }],
    ['a delete of an unknown group', () => alice.client.deleteOrderGroup('nope'), 'ORDER_GROUP_NOT_FOUND'],
  ]
  for (const [what, call, code, context] of cases) {
    const error = await refusalOf(call())
    isRefusal(t, error, code, what)
    if (context !== undefined) t.match(error.context, context, `${what}: its context`)
  }
  t.same(await engineState(), before, 'nothing journaled')
  for (let i = 1; i < ORDER_GROUPS_PER_KEY_MAX; i++) {
    await alice.client.createOrderGroup({ groupId: `g-${i}`, contractsLimit: '1', windowMs: 1_000 })
  }
  isRefusal(t, await refusalOf(alice.client.createOrderGroup({ groupId: 'one-more', contractsLimit: '1',
    windowMs: 1_000 })), 'ORDER_GROUPS_FULL', `a key with ${ORDER_GROUPS_PER_KEY_MAX} groups`)
  const stranger = signLimitOrder(bob.trader.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY',
    price: '0.10', size: '1' })
  isRefusal(t, await refusalOf(bob.client.placeSigned(stranger, { orderGroupId: 'g' })), 'ORDER_GROUP_NOT_FOUND',
    'an order cannot join another key\'s group')
})

t.test('a fill that reaches the limit cancels the group\'s orders; its key\'s user stream gets the trigger',
  async (t) => {
    const alice = await party()
    const bob = await party(100)
    const other = await secondKey(alice)
    const stream = userStream(alice)
    const otherStream = userStream(other)
    const snapshot = await stream.next()
    t.equal(snapshot.update.case, 'snapshot')
    await otherStream.next()
    const sdk = alice.client.userStream()
    const sdkIterator = sdk[Symbol.asyncIterator]()
    t.equal((await take(sdkIterator, 1))[0]!.update.case, 'snapshot', 'the SDK\'s stream: its snapshot')

    await alice.client.createOrderGroup({ groupId: 'mmp', contractsLimit: '5', windowMs: 15_000 })
    const b1 = await alice.client.placeSigned(limit(alice, 'BUY', '0.45', '4'), { orderGroupId: 'mmp' })
    const session = await alice.client.session()
    const b2 = (await session.place(limit(alice, 'BUY', '0.44', '4'), { orderGroupId: 'mmp' })).value
    await session.close()
    const outside = await alice.client.placeSigned(limit(alice, 'BUY', '0.43', '4'))
    t.match(await alice.client.listOrderGroups(), [{ groupId: 'mmp', restingOrders: 2 }],
      'two orders joined: one by PlaceOrder, one in a session')
    // Bob sells 6: 4 of b1 and 2 of b2 make 6 >= 5 in the window; the rest of b2 is cancelled in the same step.
    const sold = await bob.client.placeSigned(limit(bob, 'SELL', '0.44', '6'))
    t.equal(sold.status, 'matched')
    const statusOf = async (orderId: string) => (await alice.client.getOrder({ orderId })).order
    t.match(await statusOf(b1.orderId), { status: 'MATCHED' })
    t.match(await statusOf(b2.orderId), { status: 'CANCELED', sizeMatched: '2' })
    t.match(await statusOf(outside.orderId), { status: 'LIVE' }, 'an order outside the group stays')
    const [group] = await alice.client.listOrderGroups()
    t.match(group, { triggered: true, restingOrders: 0, windowContracts: '0' })
    isRefusal(t, await refusalOf(alice.client.placeSigned(limit(alice, 'BUY', '0.40', '1'), { orderGroupId: 'mmp' })),
      'ORDER_GROUP_TRIGGERED', 'the group refuses orders')

    const messages = await stream.drain()
    const lines = messages.map(lineOf)
    const groups = messages.filter((m) => m.update.case === 'orderGroup')
    t.same(groups.map((m) => m.update.case === 'orderGroup' ? m.update.value.action : null),
      [OrderGroupAction.CREATED, OrderGroupAction.TRIGGERED], `the key's stream: created, then triggered (${lines})`)
    const counted = numbered(messages)
    t.same(counted.map((m) => m.seq), counted.map((_, i) => BigInt(i + 1)), 'the numbered updates: 1, 2, 3... no gap')
    t.equal(groups[0]!.seq, 0n, 'the creation came before any numbered update: the wallet\'s current number, 0')
    const triggerAt = messages.indexOf(groups[1]!)
    const before = messages[triggerAt - 1]!
    t.match(lineOf(before), new RegExp(`order ${b2.orderId.slice(0, 10)} CANCELED$`),
      'the trigger right after the cancel of the group\'s last resting order')
    t.equal(groups[1]!.seq, before.seq, 'not numbered: the number of the update before it')
    t.equal(groups[1]!.engineSeq, before.engineSeq, 'in the same command')
    t.equal(groups[1]!.epoch, before.epoch)
    const change = groups[1]!.update.case === 'orderGroup' ? groups[1]!.update.value : undefined
    t.match(change?.group, { groupId: 'mmp', contractsLimit: '5', notionalLimit: '0', windowMs: 15_000, freezeMs: 0,
      triggered: true })
    t.equal(change?.group?.triggeredAt, change?.timeMs, 'triggered_at: the change\'s time')
    t.equal(change?.group?.triggeredAt, group!.triggeredAt, 'as ListOrderGroups says')
    t.equal(change?.group?.windowContracts, undefined, 'no window sums on the stream')
    t.equal(change?.group?.restingOrders, undefined, 'no resting count on the stream')

    const otherMessages = await otherStream.drain()
    t.same(otherMessages.map(lineOf), counted.map(lineOf),
      'another key of the wallet: the same numbered updates, none of the group\'s changes')

    const resumed = userStream(alice, before.seq - 2n, before.epoch)
    const replay = await resumed.drain()
    t.same(replay.map(lineOf), counted.filter((m) => m.seq > before.seq - 2n).map(lineOf),
      'a resume replays the numbered updates only')
    resumed.cancel()

    const reset = await alice.client.resetOrderGroup('mmp')
    t.equal(reset.triggered, false)
    const again = await alice.client.placeSigned(limit(alice, 'BUY', '0.40', '1'), { orderGroupId: 'mmp' })
    t.equal(again.status, 'live', 'taken again after the reset')
    const after = await stream.drain()
    t.same(after.map(lineOf), [`${before.seq} group mmp RESET`, `${before.seq + 1n} order ${again.orderId.slice(0, 10)} LIVE`],
      'the reset at the current number; the next order update numbered on, one past it')

    // The SDK's iterator: every message the raw stream had, the group's changes too, its cursor on the numbered ones.
    const expected = [...messages, ...after].map(lineOf)
    const seen = (await take(sdkIterator, expected.length)).map(lineOf)
    t.same(seen, expected, 'the SDK\'s UserStream yields the group\'s changes in their place')
    t.same(sdk.cursor, { epoch: before.epoch, seq: before.seq + 1n }, 'its cursor: the last numbered update')
    for (const reader of [stream, otherStream]) reader.cancel()
    await sdkIterator.return?.()
  })

t.test('the calls draw on their REST routes\' budgets; ListOrderGroups on none of its own', async (t) => {
  const byName = new Map(orderGroupRoutes.map((route) => [`${route.method} ${route.path}`, route.rate]))
  const methods = TradingService.method
  const pairs: [string, { bucket: string; rule: string }][] = [['CreateOrderGroup', RATES.createGroup],
    ['UpdateOrderGroup', RATES.updateGroup], ['TriggerOrderGroup', RATES.triggerGroup],
    ['ResetOrderGroup', RATES.resetGroup], ['DeleteOrderGroup', RATES.deleteGroup]]
  for (const [name, rate] of pairs) {
    t.ok(byName.has(rate.bucket), `${name}: ${rate.bucket} is a REST route`)
    t.equal(rate.rule, byName.get(rate.bucket), `${name}: its rule (${rate.rule})`)
    t.equal(rate.rule, 'cancelAll')
  }
  t.equal(byName.get('GET /order-groups'), undefined, 'GET /order-groups has no budget of its own')
  const alice = await party()
  const rest = await l2(server, alice.trader, 'POST', '/order-groups', { group_id: 'r', contracts_limit: '1',
    window_ms: 1_000 })
  t.equal(rest.status, 201)
  const restRemaining = Number(rest.headers.get('x-ratelimit-remaining'))
  const { trailers } = await grpc.unaryWithTrailers(methods.createOrderGroup,
    { groupId: 'g', contractsLimit: '1', windowMs: 1_000 }, signerOf(alice.trader))
  t.equal(Number(trailers.get('x-ratelimit-remaining')[0]), restRemaining - 1, 'one budget for both faces')
  t.equal(String(trailers.get('x-ratelimit-limit')[0]), rest.headers.get('x-ratelimit-limit'))
  const listed = await grpc.unaryWithTrailers(methods.listOrderGroups, {}, signerOf(alice.trader))
  t.same(listed.trailers.get('x-ratelimit-limit'), [String(RATE_RULES.general.burst)],
    'ListOrderGroups: no budget of its own, so the general one')
  t.same(listed.answer.groups.map((g) => g.groupId), ['g', 'r'])
})
