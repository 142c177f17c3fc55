/**
 * Self-trade prevention modes (docs/engine.md, "Self-trade prevention"): the taker's mode decides
 * what happens when its walk meets a resting order of its own account: cancel that order and go
 * on (cancel-maker, the default), stop and cancel the rest of the taker (cancel-taker), or both.
 */
import t from 'tap'
import { Harness, addressOf, USDC } from '../../support/harness.js'
import type { OrderInput, SelfTradePrevention } from '../../../src/engine/command.js'
import { summaryOf } from '../../../src/engine/view.js'

const alice = addressOf(1)
const bob = addressOf(2)

function setUp() {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(alice, m.marketId, 50 * USDC)
  h.split(bob, m.marketId, 50 * USDC)
  // The asks, best first: bob 0.40 x 2, then alice 0.41 x 3, then bob 0.42 x 4.
  const ask = (maker: string, priceMicros: number, size: number) =>
    h.place(h.order({ maker, tokenId: m.yes, side: 'SELL', priceMicros, sizeMicros: size * USDC })).result as
      { orderId: string }
  const b1 = ask(bob, 400_000, 2)
  const a1 = ask(alice, 410_000, 3)
  const b2 = ask(bob, 420_000, 4)
  const buy = (size: number, mode: SelfTradePrevention | undefined, timeInForce: OrderInput['timeInForce'] = 'GTC'):
    OrderInput => {
    const order = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 420_000, sizeMicros: size * USDC,
      timeInForce })
    return mode === undefined ? order : { ...order, selfTradePrevention: mode }
  }
  return { h, m, b1, a1, b2, buy }
}

function openIds(h: Harness): string[] {
  return summaryOf(h.engine).openOrders.map((o) => o.orderId)
}

t.test('cancel-maker (the default): the own ask is cancelled and the walk goes on', (t) => {
  for (const mode of [undefined, 'cancel-maker'] as const) {
    const { h, b1, a1, b2, buy } = setUp()
    const taker = buy(4, mode)
    const applied = h.place(taker)
    t.match(applied.result, { ok: true, status: 'MATCHED', makingMicros: 2 * 400_000 + 2 * 420_000 }, String(mode))
    t.match(applied.events.filter((e) => e.type === 'orderUpdate' && e.reason === 'self-trade'),
      [{ orderId: a1.orderId }], 'its own ask cancelled')
    t.strictSame(openIds(h), [b2.orderId], 'bob 0.42 has 2 left')
    t.not(openIds(h).includes(b1.orderId), true)
  }
  t.end()
})

t.test('cancel-taker: the walk stops at the own ask, which stays; the rest of the taker is cancelled', (t) => {
  const { h, a1, b2, buy } = setUp()
  const taker = buy(4, 'cancel-taker')
  const applied = h.place(taker)
  t.match(applied.result, { ok: true, status: 'CANCELED', makingMicros: 2 * 400_000 })
  t.match(applied.events.filter((e) => e.type === 'orderUpdate' && e.orderId === taker.orderId),
    [{ status: 'CANCELED', reason: 'self-trade', sizeMatchedMicros: 2 * USDC, remainingMicros: 0 }])
  t.strictSame(openIds(h), [a1.orderId, b2.orderId], 'its own ask and bob 0.42 untouched; nothing of the taker rests')
  t.match(summaryOf(h.engine).accounts.find((a) => a.address === alice), { usdcHeldMicros: 0 })
  t.end()
})

t.test('cancel-both: the own ask and the rest of the taker are cancelled', (t) => {
  const { h, a1, b2, buy } = setUp()
  const taker = buy(4, 'cancel-both')
  const applied = h.place(taker)
  t.match(applied.result, { ok: true, status: 'CANCELED' })
  const cancelled = applied.events.filter((e) => e.type === 'orderUpdate' && e.reason === 'self-trade')
    .map((e) => (e as { orderId: string }).orderId)
  t.strictSame(cancelled, [a1.orderId, taker.orderId])
  t.strictSame(openIds(h), [b2.orderId])
  t.end()
})

t.test('FOK and FAK judge the walk as the mode makes it', (t) => {
  {
    const { h, buy } = setUp()
    // 4 fills with cancel-maker (2 of bob 0.40, then 2 of bob 0.42 past its own ask).
    t.match(h.place(buy(4, 'cancel-maker', 'FOK')).result, { ok: true, status: 'MATCHED' })
  }
  for (const mode of ['cancel-taker', 'cancel-both'] as const) {
    const { h, m, buy } = setUp()
    const before = openIds(h)
    t.match(h.place(buy(4, mode, 'FOK')).result, { ok: false, code: 'FOK_ORDER_NOT_FILLED' }, `${mode}: stops at its own`)
    t.strictSame(openIds(h), before, `${mode}: nothing changed`)
    // An immediate BUY spends a budget: 2 x 0.42 = 0.84 USDC buys 2.1 at 0.40, where bob now offers 3.
    h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: USDC }))
    t.match(h.place(buy(2, mode, 'FOK')).result, { ok: true, status: 'MATCHED', takingMicros: 2_100_000 },
      `${mode}: filled before its own`)
  }
  {
    const { h, m, buy } = setUp()
    // Take bob's 0.40 away: alice's own ask is then the first maker.
    h.fund(addressOf(9), 100 * USDC)
    t.match(h.place(h.order({ maker: addressOf(9), tokenId: m.yes, side: 'BUY', priceMicros: 400_000,
      sizeMicros: 2 * USDC })).result, { ok: true, status: 'MATCHED' })
    t.match(h.place(buy(1, 'cancel-taker', 'FAK')).result, { ok: false, code: 'FAK_ORDER_NOT_FILLED' },
      'its own ask first: no match')
    t.match(h.place(buy(1, 'cancel-maker', 'FAK')).result, { ok: true, status: 'MATCHED' }, 'cancel-maker goes past it')
  }
  t.end()
})

t.test('a FOK budget that still buys a lot at its own order\'s price is not filled (found by the reference model)', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 200 * USDC)
  h.fund(bob, 200 * USDC)
  h.split(alice, m.marketId, 100 * USDC)
  h.split(bob, m.marketId, 100 * USDC)
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 10 * USDC }))
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 550_000, sizeMicros: 10 * USDC }))
  // 5.0057 USDC at up to 0.60: Bob's 10 cost 5, and the 0.0057 left buys a lot at 0.55, Alice's own
  // ask, where cancel-taker stops the walk unfilled: the dry run must say so and place nothing.
  const fok = { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 600_000, sizeMicros: USDC,
    timeInForce: 'FOK' }), makerAmountMicros: 5_005_700, takerAmountMicros: 8_342_833,
  selfTradePrevention: 'cancel-taker' as const }
  const applied = h.place(fok)
  t.match(applied.result, { ok: false, code: 'FOK_ORDER_NOT_FILLED' })
  t.strictSame(applied.events.filter((e) => e.type !== 'orderRejected'), [], 'nothing traded')
  t.end()
})

t.test('an unknown mode is refused at the shape step', (t) => {
  const { h, buy } = setUp()
  const bad = { ...buy(1, undefined), selfTradePrevention: 'cancel-newest' } as unknown as OrderInput
  t.match(h.place(bad).result, { ok: false, code: 'INVALID_ORDER_PAYLOAD', context: { field: 'selfTradePrevention' } })
  t.end()
})
