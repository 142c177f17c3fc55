/**
 * The heartbeats service (src/service/trading/heartbeats.ts) without any face, on a TestClock: a started
 * chain lapses after HEARTBEAT_TIMEOUT_MS + HEARTBEAT_GRACE_MS and not a millisecond before;
 * heartbeats keep it alive; a lapse cancels exactly the open orders of that API key (not another
 * key's, not even another key of the same wallet), in cancelOrders commands of at most
 * CANCEL_IDS_MAX ids, and ends the chain; a key that never started is never cancelled; a
 * revoked key's orders are cancelled as any other's; the number of chains is bounded. Signatures are
 * not the subject: the pool is a stand-in that takes every signature.
 */
import t from 'tap'
import type { OrderStruct } from '../../../../src/crypto/eip712.js'
import { PredexError } from '../../../../src/errors.js'
import { CANCEL_IDS_MAX, HEARTBEAT_GRACE_MS, HEARTBEAT_TIMEOUT_MS } from '../../../../src/limits.js'
import { createMarket } from '../../../../src/service/admin/admin.js'
import type { ServiceContext } from '../../../../src/service/context.js'
import { HEARTBEAT_WINDOW_MS, Heartbeats } from '../../../../src/service/trading/heartbeats.js'
import type { SignedOrder } from '../../../../src/service/trading/order-intake.js'
import { placeOrder, type Trader } from '../../../../src/service/trading/trading.js'
import { TestClock } from '../../../support/clock.js'
import { USDC, fakeWorld, type FakeWorld } from '../fake-context.js'
import { lineLog } from '../../../../src/log.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const alice = '0x' + 'a'.repeat(40)
const bob = '0x' + 'b'.repeat(40)
const aliceKey: Trader = { apiKey: 'key-alice', address: alice }
/** A second API key of Alice's wallet: its orders are not the first key's. */
const aliceOtherKey: Trader = { apiKey: 'key-alice-2', address: alice }
const bobKey: Trader = { apiKey: 'key-bob', address: bob }

interface World {
  readonly w: FakeWorld
  readonly context: ServiceContext
  readonly clock: TestClock
  readonly heartbeats: Heartbeats
  readonly lines: string[]
  /** Keys the credential store no longer knows. */
  readonly revoked: Set<string>
  readonly yes: string
}

async function world(chainsMax?: number): Promise<World> {
  const w = fakeWorld()
  const clock = new TestClock()
  const lines: string[] = []
  const revoked = new Set<string>()
  const pool = {
    verify: async (task: { order: OrderStruct }) =>
      ({ ok: true, orderId: `0x${BigInt(task.order.salt).toString(16).padStart(64, '0')}` }),
  }
  const credentials = { lookup: (apiKey: string) => (revoked.has(apiKey) ? undefined : { apiKey }) }
  const heartbeats: Heartbeats = new Heartbeats({ context: () => context, clock, log: lineLog((line) => lines.push(line)),
    ...(chainsMax === undefined ? {} : { chainsMax }) })
  const context = { ...w.context, pool, credentials, heartbeats } as unknown as ServiceContext
  const market = await createMarket(context, { question: 'Will it beat?', slug: null, description: '',
    tickSizeMicros: 10_000, minOrderSizeMicros: USDC, feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active' })
  for (const address of [alice, bob]) {
    await context.host.submit({ kind: 'credit', address, usdcMicros: 10_000 * USDC, gasMicros: 0 })
    await context.host.submit({ kind: 'approve', address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
  }
  return { w, context, clock, heartbeats, lines, revoked, yes: market.yesTokenId }
}

let salt = 0

/** Places a resting BUY of 10 shares at 0.40 for `trader` (a new salt, so a new order id); its id. */
async function rest(context: ServiceContext, trader: Trader, tokenId: string): Promise<string> {
  const struct: OrderStruct = {
    salt: String(++salt), maker: trader.address, signer: trader.address, taker: '0x' + '0'.repeat(40), tokenId,
    makerAmount: String(4 * USDC), takerAmount: String(10 * USDC), expiration: '0', nonce: '0', feeRateBps: '0',
    side: 0, signatureType: 0,
  }
  const order: SignedOrder = { struct, signature: '0x', orderType: 'GTC', postOnly: false, owner: trader.apiKey,
    amounts: { maker: 4n * BigInt(USDC), taker: 10n * BigInt(USDC), expiration: 0n, feeRateBps: 0n } }
  const placement = await placeOrder(context, order, trader)
  if (placement.result.status !== 'LIVE') throw new Error(`expected a resting order, got ${placement.result.status}`)
  return placement.result.orderId
}

/** The ids among `orderIds` still live in the read model. */
function live(context: ServiceContext, orderIds: readonly string[]): string[] {
  return orderIds.filter((id) => context.read.order(id)?.status === 'LIVE')
}

t.test('the window is the timeout plus the grace', async (t) => {
  t.equal(HEARTBEAT_WINDOW_MS, HEARTBEAT_TIMEOUT_MS + HEARTBEAT_GRACE_MS)
  t.equal(HEARTBEAT_TIMEOUT_MS, 10_000, "Polymarket's 10 s")
  t.ok(HEARTBEAT_GRACE_MS > 0 && HEARTBEAT_GRACE_MS <= 5_000, 'a grace within the documented 5 s buffer')
})

t.test('a started chain lapses after the window and not before; then its orders are cancelled', async (t) => {
  const { context, clock, heartbeats, lines, yes } = await world()
  const orders = [await rest(context, aliceKey, yes), await rest(context, aliceKey, yes)]
  const id = heartbeats.beat(aliceKey, null)
  t.match(id, UUID, 'the id is a UUID')
  t.equal(heartbeats.watched, 1)
  clock.advance(HEARTBEAT_WINDOW_MS - 1)
  t.equal(await heartbeats.sweep(), 0, '1 ms before the window ends: nothing lapses')
  t.same(live(context, orders), orders, 'the orders rest')
  clock.advance(1)
  t.equal(await heartbeats.sweep(), 1, 'at the end of the window the chain lapses')
  t.same(live(context, orders), [], 'both orders cancelled')
  t.equal(heartbeats.watched, 0, 'the chain is over')
  t.same(lines, [`INFO heartbeats: a key stopped sending heartbeats; its open orders are canceled ${JSON.stringify({ apiKey: 'key-alice', silentMs: HEARTBEAT_WINDOW_MS, canceled: 2,
    open: 2 })}`])
})

t.test('heartbeats keep the chain alive, whatever id they carry', async (t) => {
  const { context, clock, heartbeats, lines, yes } = await world()
  const order = await rest(context, aliceKey, yes)
  let id = heartbeats.beat(aliceKey, '')
  const ids = new Set([id])
  for (let i = 0; i < 10; i++) {
    clock.advance(HEARTBEAT_WINDOW_MS - 1)
    t.equal(await heartbeats.sweep(), 0)
    // The previous id, then an unknown one now and then: every well-formed id is accepted.
    id = heartbeats.beat(aliceKey, i % 3 === 2 ? 'not-an-id-we-issued' : id)
    ids.add(id)
  }
  t.equal(ids.size, 11, 'every heartbeat answers a new id')
  t.same(live(context, [order]), [order], 'after 10 windows of heartbeats, the order still rests')
  t.same(lines, [])
  clock.advance(HEARTBEAT_WINDOW_MS)
  t.equal(await heartbeats.sweep(), 1, 'and lapses once they stop')
  t.same(live(context, [order]), [])
})

t.test("a lapse cancels exactly that key's open orders: not another key's, not the same wallet's other key", async (t) => {
  const { context, clock, heartbeats, yes } = await world()
  const aliceOrders = [await rest(context, aliceKey, yes), await rest(context, aliceKey, yes)]
  const otherKeyOrder = await rest(context, aliceOtherKey, yes)
  const bobOrder = await rest(context, bobKey, yes)
  heartbeats.beat(aliceKey, null)
  heartbeats.beat(bobKey, null)
  clock.advance(HEARTBEAT_WINDOW_MS - 1000)
  heartbeats.beat(bobKey, null) // Bob goes on, Alice stops
  clock.advance(1000)
  t.equal(await heartbeats.sweep(), 1, "only Alice's chain lapses")
  t.same(live(context, aliceOrders), [], "Alice's key's orders are cancelled")
  t.same(live(context, [otherKeyOrder]), [otherKeyOrder], "her wallet's other key's order rests")
  t.same(live(context, [bobOrder]), [bobOrder], "Bob's order rests")
  t.equal(heartbeats.watched, 1, "Bob's chain goes on")
})

t.test('a key that never started a chain is never cancelled; a lapsed chain does not come back', async (t) => {
  const { context, clock, heartbeats, yes } = await world()
  const bobOrder = await rest(context, bobKey, yes)
  heartbeats.beat(aliceKey, null)
  clock.advance(HEARTBEAT_WINDOW_MS)
  t.equal(await heartbeats.sweep(), 1, "Alice's chain (no orders) lapses")
  const later = await rest(context, aliceKey, yes)
  for (let i = 0; i < 5; i++) {
    clock.advance(HEARTBEAT_WINDOW_MS * 2)
    t.equal(await heartbeats.sweep(), 0)
  }
  t.same(live(context, [bobOrder, later]), [bobOrder, later],
    "Bob never started; Alice's order placed after her chain ended is not watched")
  heartbeats.beat(aliceKey, 'the-id-of-the-ended-chain')
  clock.advance(HEARTBEAT_WINDOW_MS)
  t.equal(await heartbeats.sweep(), 1, 'a new heartbeat (even with a stale id) starts a new chain')
  t.same(live(context, [later]), [])
})

t.test('a key with more open orders than one cancel takes: commands of at most CANCEL_IDS_MAX ids', async (t) => {
  const { w, context, clock, heartbeats, lines, yes } = await world()
  const count = CANCEL_IDS_MAX + 3
  const orders: string[] = []
  for (let i = 0; i < count; i++) orders.push(await rest(context, aliceKey, yes))
  heartbeats.beat(aliceKey, null)
  const before = w.commands.length
  clock.advance(HEARTBEAT_WINDOW_MS)
  await heartbeats.sweep()
  const cancels = w.commands.slice(before)
  t.same(cancels.map((c) => c.kind), ['cancelOrders', 'cancelOrders'], 'two engine commands')
  const ids = cancels.flatMap((c) => (c.kind === 'cancelOrders' ? [...c.orderIds] : []))
  t.ok(cancels.every((c) => c.kind === 'cancelOrders' && c.orderIds.length <= CANCEL_IDS_MAX))
  t.same([...ids].sort(), [...orders].sort(), 'every open order of the key, once')
  t.same(live(context, orders), [])
  t.match(lines.at(-1), `"canceled":${count},"open":${count}`)
})

t.test('a revoked key: its chain lapses as any other and its orders are cancelled', async (t) => {
  const { context, clock, heartbeats, lines, revoked, yes } = await world()
  const aliceOrder = await rest(context, aliceKey, yes)
  const bobOrder = await rest(context, bobKey, yes)
  heartbeats.beat(aliceKey, null)
  heartbeats.beat(bobKey, null)
  revoked.add(bobKey.apiKey) // Bob can no longer send heartbeats with it: his orders must not outlive the window
  clock.advance(HEARTBEAT_WINDOW_MS - 1)
  heartbeats.beat(aliceKey, null)
  clock.advance(1)
  t.equal(await heartbeats.sweep(), 1, "Bob's chain ends")
  t.same(live(context, [aliceOrder, bobOrder]), [aliceOrder], "Bob's order cancelled, Alice's kept")
  t.match(lines.at(-1), `"apiKey":"${bobKey.apiKey}"`)
})

t.test('a sweep reads chains in the order of their last heartbeat', async (t) => {
  const { context, clock, heartbeats, yes } = await world()
  const aliceOrder = await rest(context, aliceKey, yes)
  const bobOrder = await rest(context, bobKey, yes)
  heartbeats.beat(aliceKey, null) // first in, but...
  clock.advance(1_000)
  heartbeats.beat(bobKey, null)
  clock.advance(1_000)
  heartbeats.beat(aliceKey, null) // ...moved behind Bob by her next heartbeat
  clock.advance(HEARTBEAT_WINDOW_MS - 1_000)
  t.equal(await heartbeats.sweep(), 1, 'Bob lapses, Alice (the newer heartbeat) does not')
  t.same(live(context, [aliceOrder, bobOrder]), [aliceOrder])
  clock.advance(1_000)
  t.equal(await heartbeats.sweep(), 1)
  t.same(live(context, [aliceOrder]), [])
})

t.test('the chains are bounded: a new chain past the bound is RATE_LIMITED, live chains go on', async (t) => {
  const { clock, heartbeats } = await world(2)
  heartbeats.beat(aliceKey, null)
  clock.advance(3_000)
  heartbeats.beat(bobKey, null)
  const error = (() => {
    try {
      heartbeats.beat(aliceOtherKey, null)
      return null
    } catch (e) {
      return e
    }
  })()
  t.ok(error instanceof PredexError, 'refused')
  t.match(error, { code: 'RATE_LIMITED', status: 429,
    context: { retryAfterSeconds: Math.ceil((HEARTBEAT_WINDOW_MS - 3_000) / 1000), limit: 2 } },
    'Retry-After: until the oldest chain must have lapsed')
  t.match(heartbeats.beat(aliceKey, null), UUID, 'a watched key beats on')
  t.equal(heartbeats.watched, 2)
  clock.advance(HEARTBEAT_WINDOW_MS)
  await heartbeats.sweep()
  t.match(heartbeats.beat(aliceOtherKey, null), UUID, 'room again once chains lapsed')
})

t.test('stop: nothing is watched or cancelled any more', async (t) => {
  const { context, clock, heartbeats, yes } = await world()
  const order = await rest(context, aliceKey, yes)
  heartbeats.beat(aliceKey, null)
  await heartbeats.stop()
  clock.advance(HEARTBEAT_WINDOW_MS)
  t.equal(await heartbeats.sweep(), 0)
  t.same(live(context, [order]), [order])
})
