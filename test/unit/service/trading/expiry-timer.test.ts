/**
 * GTD expiry on the host's clock (src/service/trading/expiry-timer.ts), without any face: a real engine and
 * read model (fake-context.ts) whose durable outcomes reach the timer as the fan-out sends them,
 * and a clock the test moves. On a quiet market a GTD order expires at its time, by one journaled
 * `expire` command and not a millisecond before; an order that ended first costs no command;
 * orders due together cost one; after a restart the read model's live GTD orders are watched.
 */
import t from 'tap'
import type { Clock } from '../../../../src/clock.js'
import type { OrderStruct } from '../../../../src/crypto/eip712.js'
import type { UnstampedCommand } from '../../../../src/engine/command.js'
import { createMarket } from '../../../../src/service/admin/admin.js'
import type { ServiceContext } from '../../../../src/service/context.js'
import { ExpiryTimer } from '../../../../src/service/trading/expiry-timer.js'
import type { SignedOrder } from '../../../../src/service/trading/order-intake.js'
import { cancelOrder, placeOrder, type Trader } from '../../../../src/service/trading/trading.js'
import type { Outcome } from '../../../../src/host/messages.js'
import { T0_MS, USDC, fakeWorld, type FakeWorld } from '../fake-context.js'
import { SILENT_LOG } from '../../../../src/log.js'

const alice: Trader = { apiKey: 'key-alice', address: '0x' + 'a'.repeat(40) }

interface World {
  readonly w: FakeWorld
  readonly context: ServiceContext
  readonly clock: Clock
  readonly timer: ExpiryTimer
  readonly yes: string
  /** Expire commands submitted so far. */
  expires(): number
}

async function world(): Promise<World> {
  const w = fakeWorld()
  const pool = {
    verify: async (task: { order: OrderStruct }) =>
      ({ ok: true, orderId: `0x${BigInt(task.order.salt).toString(16).padStart(64, '0')}` }),
  }
  const context = { ...w.context, pool, host: { ...w.context.host } } as unknown as ServiceContext
  // The services' clock is the world's: the engine stamps commands with the same time.
  const clock: Clock = { wallMs: () => context.nowMs(), monotonicMs: () => context.nowMs() }
  const timer = new ExpiryTimer({ context, clock, log: SILENT_LOG })
  t.teardown(() => timer.stop())
  // Every durable outcome reaches the timer, as the fan-out sends it.
  const submit = w.context.host.submit.bind(w.context.host) as (c: UnstampedCommand) => Promise<Outcome>
  ;(context.host as { submit: unknown }).submit = async (command: UnstampedCommand) => {
    const outcome = await submit(command)
    timer.publish([outcome])
    return outcome
  }
  const market = await createMarket(context, { question: 'Will it expire?', slug: null, description: '',
    tickSizeMicros: 10_000, minOrderSizeMicros: USDC, feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active' })
  await context.host.submit({ kind: 'credit', address: alice.address, usdcMicros: 100 * USDC, gasMicros: 0 })
  await context.host.submit({ kind: 'approve', address: alice.address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
  const expires = (): number => w.commands.filter((c) => c.kind === 'expire').length
  return { w, context, clock, timer, yes: market.yesTokenId, expires }
}

let salt = 0

/** A resting GTD BUY of 10 shares at 0.40 expiring at `expirationSec`; its id. */
async function gtd(context: ServiceContext, tokenId: string, expirationSec: number): Promise<string> {
  const struct: OrderStruct = {
    salt: String(++salt), maker: alice.address, signer: alice.address, taker: '0x' + '0'.repeat(40), tokenId,
    makerAmount: String(4 * USDC), takerAmount: String(10 * USDC), expiration: String(expirationSec), nonce: '0',
    feeRateBps: '0', side: 0, signatureType: 0,
  }
  const order: SignedOrder = { struct, signature: '0x', orderType: 'GTD', postOnly: false, owner: alice.apiKey,
    amounts: { maker: 4n * BigInt(USDC), taker: 10n * BigInt(USDC), expiration: BigInt(expirationSec), feeRateBps: 0n } }
  const placement = await placeOrder(context, order, alice)
  if (placement.result.status !== 'LIVE') throw new Error(`expected a resting order, got ${placement.result.status}`)
  return placement.result.orderId
}

const inSec = (seconds: number): number => T0_MS / 1000 + seconds

t.test('on a quiet market a GTD order expires at its time: one expire command, not before', async (t) => {
  const { w, context, timer, yes, expires } = await world()
  const orderId = await gtd(context, yes, inSec(120))
  t.equal(timer.watched, 1)
  w.advance(120_000 - 1)
  await timer.fire()
  t.equal(expires(), 0, '1 ms early: nothing submitted')
  t.equal(context.read.order(orderId)?.status, 'LIVE')
  w.advance(1)
  await timer.fire()
  t.equal(expires(), 1, 'at its time: one expire command, journaled like any command')
  t.match(context.read.order(orderId), { status: 'CANCELED', reason: 'expired' })
  const account = await context.host.query({ kind: 'account', address: alice.address })
  t.equal(account.kind === 'account' ? account.account?.usdcHeldMicros : -1, 0, 'its hold is released')
  await timer.fire()
  t.equal(expires(), 1, 'nothing more to do')
})

t.test('an order that ended before its time costs no command; orders due together cost one', async (t) => {
  const { w, context, timer, yes, expires } = await world()
  const canceled = await gtd(context, yes, inSec(100))
  await cancelOrder(context, alice, canceled)
  const [a, b] = [await gtd(context, yes, inSec(200)), await gtd(context, yes, inSec(200))]
  w.advance(150_000)
  await timer.fire()
  t.equal(expires(), 0, 'the cancelled order\'s time passed: nothing submitted')
  w.advance(50_000)
  await timer.fire()
  t.equal(expires(), 1, 'two orders due together: one command')
  t.same([a, b].map((id) => context.read.order(id)?.status), ['CANCELED', 'CANCELED'])
})

t.test('after a restart: the read model\'s live GTD orders are watched', async (t) => {
  const { w, context, clock, yes, expires } = await world()
  const orderId = await gtd(context, yes, inSec(90))
  const restarted = new ExpiryTimer({ context, clock, log: SILENT_LOG })
  t.teardown(() => restarted.stop())
  restarted.start()
  t.equal(restarted.watched, 1)
  w.advance(90_000)
  await restarted.fire()
  t.equal(expires(), 1)
  t.equal(context.read.order(orderId)?.status, 'CANCELED')
})

t.test('the watched entries of ended orders are swept: bounded by the live orders, not by history', async (t) => {
  const { context, timer, yes } = await world()
  for (let i = 0; i < 3_000; i++) {
    const orderId = await gtd(context, yes, inSec(3_600))
    await cancelOrder(context, alice, orderId)
  }
  t.ok(timer.watched < 2_100, `after 3 000 GTD orders placed and cancelled, ${timer.watched} entries are kept`)
})

t.test('an engine clock behind this one: one retry, once the engine has reached the time', async (t) => {
  const { w, context, clock, yes, expires } = await world()
  const orderId = await gtd(context, yes, inSec(100))
  // This clock runs 30 s ahead of the engine's (a test clock moved forward): at "100 s" the engine stamps 70 s.
  const ahead: Clock = { wallMs: () => clock.wallMs() + 30_000, monotonicMs: () => clock.monotonicMs() + 30_000 }
  const timer = new ExpiryTimer({ context, clock: ahead, log: SILENT_LOG })
  t.teardown(() => timer.stop())
  timer.start()
  w.advance(70_000)
  await timer.fire()
  t.equal(expires(), 1, 'submitted at its time by this clock')
  t.equal(context.read.order(orderId)?.status, 'LIVE', 'the engine, 30 s behind, had nothing to expire')
  w.advance(29_999)
  await timer.fire()
  t.equal(expires(), 1, 'no retry before the engine can have reached the time')
  w.advance(1)
  await timer.fire()
  t.equal(expires(), 2, 'one retry')
  t.equal(context.read.order(orderId)?.status, 'CANCELED')
})
