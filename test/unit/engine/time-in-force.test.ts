/**
 * FOK, FAK, post-only and GTD: what fills, what is rejected with no effect at all, and when GTD
 * orders expire (by command time, deterministically).
 */
import t, { type Test } from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import { summaryOf } from '../../../src/engine/view.js'
import type { OrderInput } from '../../../src/engine/command.js'
import type { OrderPlaced, OrderRejection } from '../../../src/engine/result.js'

const alice = addressOf(1)
const bob = addressOf(2)

function setup(): { h: Harness; m: { marketId: string; yes: string; no: string } } {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 1_000 * USDC)
  h.fund(bob, 1_000 * USDC)
  h.split(bob, m.marketId, 100 * USDC)
  // Asks: 10 @ 0.50 and 10 @ 0.60.
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 10 * USDC }))
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 10 * USDC }))
  return { h, m }
}

/** A market BUY "for $budget" with the limit ratio budget / shares. */
function marketBuy(h: Harness, tokenId: string, budgetMicros: number, sharesMicros: number, timeInForce: 'FOK' | 'FAK'): OrderInput {
  return { ...h.order({ maker: alice, tokenId, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC }),
    makerAmountMicros: budgetMicros, takerAmountMicros: sharesMicros, timeInForce }
}

function expectNoEffect(t: Test, h: Harness, order: OrderInput, code: string): void {
  const before = summaryOf(h.engine)
  const applied = h.place(order)
  t.equal((applied.result as OrderRejection).code, code)
  t.same(applied.events.map((e) => e.type), ['orderRejected'])
  t.same({ ...summaryOf(h.engine), seq: before.seq, timeMs: before.timeMs }, before, 'no effect at all')
}

t.test('FOK BUY spends its budget across levels', (t) => {
  const { h, m } = setup()
  // $8 with limit 8 / 13.333333 = 0.60000001 -> 6000 pips. 10 @ 0.50 = 5.00, then 3.00 buys 5 @ 0.60.
  const order = marketBuy(h, m.yes, 8 * USDC, 13_333_333, 'FOK')
  const applied = h.place(order)
  t.same(applied.result, { ok: true, orderId: order.orderId, status: 'MATCHED', makingMicros: 8 * USDC,
    takingMicros: 15 * USDC, feeMicros: 0, tradeIds: (applied.result as OrderPlaced).tradeIds })
  t.equal((applied.result as OrderPlaced).tradeIds.length, 2)
  const a = summaryOf(h.engine).accounts.find((x) => x.address === alice)!
  t.same([a.usdcMicros, a.shares[0]!.balanceMicros], [992 * USDC, 15 * USDC])
  t.end()
})

t.test('FOK BUY that cannot spend its budget is rejected with no effect', (t) => {
  const { h, m } = setup()
  // $20 at limit 0.60: the book holds only 5 + 6 = 11 USDC of asks.
  expectNoEffect(t, h, marketBuy(h, m.yes, 20 * USDC, 33_333_333, 'FOK'), 'FOK_ORDER_NOT_FILLED')
  // Enough liquidity but beyond the limit: $8 at limit 0.55 reaches only the 0.50 level (5 USDC).
  expectNoEffect(t, h, marketBuy(h, m.yes, 8 * USDC, 14_545_454, 'FOK'), 'FOK_ORDER_NOT_FILLED')
  t.end()
})

t.test('FOK SELL fills entirely or not at all; own orders do not count', (t) => {
  const { h, m } = setup()
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 450_000, sizeMicros: 10 * USDC }))
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 440_000, sizeMicros: 10 * USDC }))
  // bob sells 15 at >= 0.44: alice's 10 @ 0.45 then 5 of... bob's own bid, which does not count.
  const fok = { ...h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 440_000, sizeMicros: 15 * USDC }), timeInForce: 'FOK' as const }
  expectNoEffect(t, h, fok, 'FOK_ORDER_NOT_FILLED')
  const ten = { ...h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 440_000, sizeMicros: 10 * USDC }), timeInForce: 'FOK' as const }
  const applied = h.place(ten)
  t.same([(applied.result as OrderPlaced).status, (applied.result as OrderPlaced).takingMicros], ['MATCHED', 4_500_000])
  t.end()
})

t.test('FAK fills what it can and cancels the rest; nothing to fill is a rejection', (t) => {
  const { h, m } = setup()
  // $10 at limit 0.50: buys the 10 @ 0.50 for 5 USDC; 5 USDC unspent >= 0.50 a share -> CANCELED.
  const order = marketBuy(h, m.yes, 10 * USDC, 20 * USDC, 'FAK')
  const applied = h.place(order)
  const result = applied.result as OrderPlaced
  t.same([result.status, result.makingMicros, result.takingMicros], ['CANCELED', 5 * USDC, 10 * USDC])
  const final = Harness.eventsOf(applied, 'orderUpdate').at(-1)!
  t.same([final.orderId, final.status, final.reason, final.sizeMatchedMicros], [order.orderId, 'CANCELED', 'unfilled', 10 * USDC])
  // Now nothing is left at or below 0.55.
  expectNoEffect(t, h, marketBuy(h, m.yes, 5 * USDC, 9_090_909, 'FAK'), 'FAK_ORDER_NOT_FILLED')
  t.end()
})

t.test('FAK that reaches only its own orders is rejected and cancels nothing', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 100 * USDC)
  h.split(alice, m.marketId, 10 * USDC)
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 10 * USDC }))
  expectNoEffect(t, h, marketBuy(h, m.yes, 5 * USDC, 10 * USDC, 'FAK'), 'FAK_ORDER_NOT_FILLED')
  t.end()
})

t.test('post-only rests when it does not cross and is rejected when it would', (t) => {
  const { h, m } = setup()
  const resting = { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 490_000, sizeMicros: 10 * USDC }), postOnly: true }
  t.same((h.place(resting).result as OrderPlaced).status, 'LIVE')
  expectNoEffect(t, h, { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC }), postOnly: true },
    'INVALID_POST_ONLY_ORDER')
  // Implied liquidity counts: a BUY No at 0.51 is a Yes-space ask at 0.49, crossing alice's bid at 0.49.
  expectNoEffect(t, h, { ...h.order({ maker: bob, tokenId: m.no, side: 'BUY', priceMicros: 510_000, sizeMicros: 10 * USDC }), postOnly: true },
    'INVALID_POST_ONLY_ORDER')
  // Crossing one's own order is rejected too (it would leave a crossed book).
  expectNoEffect(t, h, { ...h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC }), postOnly: true },
    'INVALID_POST_ONLY_ORDER')
  t.end()
})

t.test('GTD orders expire when the command clock passes their expiration', (t) => {
  const { h, m } = setup()
  const nowSec = h.timeMs / 1000
  const early = { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }),
    timeInForce: 'GTD' as const, expirationSec: nowSec + 120 }
  const late = { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 410_000, sizeMicros: 10 * USDC }),
    timeInForce: 'GTD' as const, expirationSec: nowSec + 120 }
  const later = { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 420_000, sizeMicros: 10 * USDC }),
    timeInForce: 'GTD' as const, expirationSec: nowSec + 180 }
  for (const o of [later, early, late]) h.place(o)
  t.equal(summaryOf(h.engine).accounts.find((a) => a.address === alice)!.usdcHeldMicros, 12_300_000)
  // One millisecond before the expiration: nothing happens.
  h.timeMs = (nowSec + 120) * 1000 - 1
  t.same(h.apply({ kind: 'expire' }).events, [])
  // At the expiration, any command expires them first, even one that is itself rejected.
  h.timeMs = (nowSec + 120) * 1000
  const applied = h.place(early)
  t.same(applied.events.map((e) => e.type), ['orderUpdate', 'orderUpdate', 'orderRejected', 'balance', 'bookLevel', 'bookLevel'])
  t.same(Harness.eventsOf(applied, 'orderUpdate').map((u) => [u.orderId, u.status, u.reason]),
    [[early.orderId, 'CANCELED', 'expired'], [late.orderId, 'CANCELED', 'expired']], 'same second: acceptance order')
  t.same((applied.result as OrderRejection).context, { orderId: early.orderId, status: 'CANCELED' })
  t.equal(summaryOf(h.engine).accounts.find((a) => a.address === alice)!.usdcHeldMicros, 4_200_000)
  h.timeMs = (nowSec + 181) * 1000
  t.same(Harness.eventsOf(h.apply({ kind: 'expire' }), 'orderUpdate').map((u) => u.orderId), [later.orderId])
  t.end()
})

t.test('a GTD order filled or cancelled before it expires is not expired again', (t) => {
  const { h, m } = setup()
  const nowSec = h.timeMs / 1000
  const gtd = { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }),
    timeInForce: 'GTD' as const, expirationSec: nowSec + 100 }
  h.place(gtd)
  h.apply({ kind: 'cancelOrder', address: alice, orderId: gtd.orderId })
  h.timeMs += 200_000
  t.same(h.apply({ kind: 'expire' }).events, [])
  t.end()
})
