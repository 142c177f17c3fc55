/**
 * Cancels (docs/engine.md, "Cancels", "Holds and availability", "Events"): cancelOrder,
 * cancelOrders, cancelAll and cancelMarketOrders, their `{canceled, notCanceled}` results,
 * who may cancel what, the reasons for ended orders, holds released exactly, and the
 * orderUpdate / balance / bookLevel events.
 */
import t, { type Test } from 'tap'
import { Harness, addressOf, USDC } from '../../support/harness.js'
import { stateOf, accountOf } from '../../support/engine-checks.js'
import type { ApplyResult } from '../../../src/engine/engine.js'
import { CODE_MESSAGES, type Code } from '../../../src/engine/codes.js'
import type { OrderInput } from '../../../src/engine/command.js'
import type { CancelReason } from '../../../src/engine/event.js'
import { summaryOf } from '../../../src/engine/view.js'


const alice = addressOf(1)
const bob = addressOf(2)
const carol = addressOf(3)
const dave = addressOf(4)

const NOT_FOUND = 'Order not found or already canceled'
const MATCHED = 'Order already matched'
const CANCELED = 'the order is already canceled'

function statusOfOrder(h: Harness, orderId: string): string | undefined {
  return summaryOf(h.engine).orderStatuses.find((x) => x.orderId === orderId)?.status
}

function openIds(h: Harness): string[] {
  return summaryOf(h.engine).openOrders.map((o) => o.orderId)
}

function place(h: Harness, order: OrderInput, expected: 'LIVE' | 'MATCHED' | 'CANCELED'): string {
  const applied = h.place(order)
  const status = (applied.result as { status?: string }).status
  if (status !== expected) throw new Error(`expected ${expected}, got ${JSON.stringify(applied.result)}`)
  return order.orderId
}

function canceledUpdate(orderId: string, maker: string, reason: CancelReason, sizeMatchedMicros = 0) {
  return { type: 'orderUpdate', orderId, maker, status: 'CANCELED', sizeMatchedMicros, remainingMicros: 0, reason }
}

function usdcBalance(address: string, balanceMicros: number, heldMicros: number) {
  return { type: 'balance', address, asset: 'USDC', balanceMicros, heldMicros }
}

function level(marketId: string, tokenId: string, side: 'BUY' | 'SELL', priceMicros: number, sizeMicros: number) {
  return { type: 'bookLevel', marketId, tokenId, side, priceMicros, sizeMicros }
}

/** A command that must leave the state as it was and emit nothing. */
function noEffect(t: Test, h: Harness, run: () => ApplyResult, what: string): ApplyResult {
  const before = stateOf(h)
  const applied = run()
  t.strictSame(applied.events, [], `${what}: no events`)
  t.strictSame(stateOf(h), before, `${what}: state unchanged`)
  return applied
}

t.test('cancelOrder: an own live order, partly filled: result, events, hold released', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(bob, m.marketId, 10 * USDC)
  // alice BUY Yes 0.40 x 10 holds 4 USDC; bob sells 3 into it: alice pays 1.2 from the hold.
  const a1 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }), 'LIVE')
  place(h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 3 * USDC }), 'MATCHED')
  // alice: USDC 100 - 1.2 = 98.8, held 0.40 x 7 = 2.8.
  t.match(accountOf(h, alice), { usdcMicros: 98_800_000, usdcHeldMicros: 2_800_000 })

  const applied = h.apply({ kind: 'cancelOrder', address: alice, orderId: a1 })
  t.strictSame(applied.result, { ok: true, canceled: [a1], notCanceled: [] })
  t.strictSame(applied.events, [
    canceledUpdate(a1, alice, 'owner', 3_000_000),
    usdcBalance(alice, 98_800_000, 0), // 2.8 released
    level(m.marketId, m.yes, 'BUY', 400_000, 0),
  ])
  t.strictSame(openIds(h), [])
  t.equal(statusOfOrder(h, a1), 'CANCELED')
  t.end()
})

t.test("cancelOrder: another account's order answers like an unknown id and stays untouched", (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  const a1 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }), 'LIVE')
  const other = noEffect(t, h, () => h.apply({ kind: 'cancelOrder', address: bob, orderId: a1 }), "bob cancels alice's order")
  t.strictSame(other.result, { ok: true, canceled: [], notCanceled: [{ orderId: a1, reason: NOT_FOUND }] })
  const unknown = noEffect(t, h, () => h.apply({ kind: 'cancelOrder', address: bob, orderId: 'nope' }), 'unknown id')
  t.strictSame(unknown.result, { ok: true, canceled: [], notCanceled: [{ orderId: 'nope', reason: NOT_FOUND }] })
  t.strictSame((other.result as { notCanceled: unknown }).notCanceled, [{ orderId: a1, reason: NOT_FOUND }], 'same words as unknown')
  // A never-seen address too.
  const stranger = noEffect(t, h, () => h.apply({ kind: 'cancelOrder', address: carol, orderId: a1 }), 'stranger')
  t.strictSame(stranger.result, { ok: true, canceled: [], notCanceled: [{ orderId: a1, reason: NOT_FOUND }] })
  t.strictSame(openIds(h), [a1])
  t.match(accountOf(h, alice), { usdcHeldMicros: 2_000_000 }) // 0.40 x 5
  t.end()
})

t.test('cancelOrder: ended orders give their reason to their owner only', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(bob, m.marketId, 20 * USDC)

  // Canceled by its owner.
  const a1 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 300_000, sizeMicros: USDC }), 'LIVE')
  h.apply({ kind: 'cancelOrder', address: alice, orderId: a1 })
  // Fully matched as a maker.
  const a2 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 2 * USDC }), 'LIVE')
  const b1 = place(h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 2 * USDC }), 'MATCHED')
  // A FAK that filled part and was cancelled (unfilled): bob offers 1 Yes at 0.50, alice FAK-buys
  // 3 at up to 0.50: 1 fills, the rest is cancelled.
  place(h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: USDC }), 'LIVE')
  // FAK BUY: budget 1.5 USDC, 3 shares: limit floor(1.5e6 x 10^4 / 3e6) = 5000 pips.
  const a3 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 3 * USDC, timeInForce: 'FAK' }), 'CANCELED')
  // Cancelled by self-trade prevention: alice's resting SELL is taken out by her own BUY.
  h.split(alice, m.marketId, 2 * USDC)
  const a4 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: USDC }), 'LIVE')
  const a5 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 600_000, sizeMicros: USDC }), 'LIVE')
  t.equal(statusOfOrder(h, a4), 'CANCELED', 'a4 cancelled by self-trade')

  const cases: [string, string, string][] = [
    [a1, alice, CANCELED],
    [a2, alice, MATCHED],
    [a3, alice, CANCELED],
    [a4, alice, CANCELED],
    [b1, bob, MATCHED], // bob's taker order filled entirely on arrival
    // Other accounts: like an unknown id.
    [a1, bob, NOT_FOUND],
    [a2, bob, NOT_FOUND],
    [b1, alice, NOT_FOUND],
    [a3, carol, NOT_FOUND],
  ]
  for (const [orderId, address, reason] of cases) {
    const applied = noEffect(t, h, () => h.apply({ kind: 'cancelOrder', address, orderId }), `${address} cancels ${orderId}`)
    t.strictSame(applied.result, { ok: true, canceled: [], notCanceled: [{ orderId, reason }] }, `${orderId} for ${address}: ${reason}`)
  }
  t.strictSame(openIds(h), [a5])
  t.end()
})

t.test('cancelOrders: request order, repeats ignored, mixed outcomes', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(bob, m.marketId, 10 * USDC)
  const a1 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: USDC }), 'LIVE')
  const a2 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 410_000, sizeMicros: USDC }), 'LIVE')
  // BUY No 0.04: a Yes-space ask at 0.96, beyond the reach of aX below.
  const a3 = place(h, h.order({ maker: alice, tokenId: m.no, side: 'BUY', priceMicros: 40_000, sizeMicros: USDC }), 'LIVE')
  const a4 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 200_000, sizeMicros: USDC }), 'LIVE')
  const b1 = place(h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 900_000, sizeMicros: USDC }), 'LIVE')
  // aX buys bob's 0.90 offer entirely (at 0.90, the maker's price): aX and b1 are MATCHED.
  const aX = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 950_000, sizeMicros: USDC }), 'MATCHED')
  t.equal(statusOfOrder(h, b1), 'MATCHED')
  // alice: USDC 100 - 0.90 = 99.1; held 0.40 + 0.41 + 0.04 + 0.20 = 1.05.
  t.match(accountOf(h, alice), { usdcMicros: 99_100_000, usdcHeldMicros: 1_050_000 })

  const applied = h.apply({ kind: 'cancelOrders', address: alice, orderIds: [a2, 'nope', a1, a2, b1, aX, a1] })
  t.strictSame(applied.result, {
    ok: true,
    canceled: [a2, a1],
    notCanceled: [
      { orderId: 'nope', reason: NOT_FOUND },
      { orderId: b1, reason: NOT_FOUND }, // bob's (ended) order
      { orderId: aX, reason: MATCHED },
    ],
  })
  t.strictSame(applied.events, [
    canceledUpdate(a2, alice, 'owner'),
    canceledUpdate(a1, alice, 'owner'),
    usdcBalance(alice, 99_100_000, 240_000), // 1.05 - 0.41 - 0.40 = 0.24 (a3 and a4)
    level(m.marketId, m.yes, 'BUY', 400_000, 0),
    level(m.marketId, m.yes, 'BUY', 410_000, 0),
  ])
  t.strictSame(openIds(h), [a3, a4])

  const empty = noEffect(t, h, () => h.apply({ kind: 'cancelOrders', address: alice, orderIds: [] }), 'no ids')
  t.strictSame(empty.result, { ok: true, canceled: [], notCanceled: [] })
  t.end()
})

t.test('cancelOrders: more than CANCEL_IDS_MAX ids is CANCEL_TOO_MANY, nothing cancelled', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  const a1 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: USDC }), 'LIVE')
  const unknown = (n: number) => Array.from({ length: n }, (_, i) => `unknown-${i}`)

  const tooMany = noEffect(t, h, () => h.apply({ kind: 'cancelOrders', address: alice, orderIds: [a1, ...unknown(1_000)] }), '1001 ids')
  t.strictSame(tooMany.result, { ok: false, code: 'CANCEL_TOO_MANY', message: CODE_MESSAGES.CANCEL_TOO_MANY, context: { max: 1_000 } })
  t.strictSame(openIds(h), [a1])

  // Exactly 1000: processed.
  const max = h.apply({ kind: 'cancelOrders', address: alice, orderIds: [a1, ...unknown(999)] })
  t.equal(max.result.ok, true)
  const result = max.result as unknown as { canceled: string[]; notCanceled: { orderId: string; reason: string }[] }
  t.strictSame(result.canceled, [a1])
  t.equal(result.notCanceled.length, 999)
  t.strictSame(result.notCanceled[0], { orderId: 'unknown-0', reason: NOT_FOUND })
  t.strictSame(result.notCanceled[998], { orderId: 'unknown-998', reason: NOT_FOUND })
  t.strictSame(openIds(h), [])
  t.end()
})

t.test('cancelAll: the account\'s orders in acceptance order, others untouched', (t) => {
  const h = new Harness()
  const m1 = h.market()
  const m2 = h.market()
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  h.split(alice, m2.marketId, 2 * USDC) // alice: USDC 8, m2 Yes 2, m2 No 2
  const a1 = place(h, h.order({ maker: alice, tokenId: m1.no, side: 'BUY', priceMicros: 200_000, sizeMicros: 2 * USDC }), 'LIVE') // holds 0.4
  const b1 = place(h, h.order({ maker: bob, tokenId: m1.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC }), 'LIVE')
  const a2 = place(h, h.order({ maker: alice, tokenId: m1.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: USDC }), 'LIVE') // holds 0.4
  const a3 = place(h, h.order({ maker: alice, tokenId: m2.no, side: 'SELL', priceMicros: 550_000, sizeMicros: USDC }), 'LIVE') // holds 1 No
  t.match(accountOf(h, alice), { usdcMicros: 8_000_000, usdcHeldMicros: 800_000 })

  const applied = h.apply({ kind: 'cancelAll', address: alice })
  t.strictSame(applied.result, { ok: true, canceled: [a1, a2, a3], notCanceled: [] })
  t.strictSame(applied.events, [
    canceledUpdate(a1, alice, 'cancel-all'),
    canceledUpdate(a2, alice, 'cancel-all'),
    canceledUpdate(a3, alice, 'cancel-all'),
    usdcBalance(alice, 8_000_000, 0),
    { type: 'balance', address: alice, asset: m2.no, balanceMicros: 2_000_000, heldMicros: 0 },
    // Sorted by token id: m1-no, m1-yes, m2-no.
    level(m1.marketId, m1.no, 'BUY', 200_000, 0),
    level(m1.marketId, m1.yes, 'BUY', 400_000, 0),
    level(m2.marketId, m2.no, 'SELL', 550_000, 0),
  ])
  t.strictSame(openIds(h), [b1])

  const again = noEffect(t, h, () => h.apply({ kind: 'cancelAll', address: alice }), 'nothing left')
  t.strictSame(again.result, { ok: true, canceled: [], notCanceled: [] })
  const stranger = noEffect(t, h, () => h.apply({ kind: 'cancelAll', address: carol }), 'unknown address')
  t.strictSame(stranger.result, { ok: true, canceled: [], notCanceled: [] })
  t.end()
})

t.test('cancelMarketOrders: filters by market and token; unknown ids rejected', (t) => {
  const h = new Harness()
  const m1 = h.market()
  const m2 = h.market()
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  const x1 = place(h, h.order({ maker: alice, tokenId: m1.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: USDC }), 'LIVE')
  const x2 = place(h, h.order({ maker: alice, tokenId: m1.no, side: 'BUY', priceMicros: 200_000, sizeMicros: USDC }), 'LIVE')
  const x3 = place(h, h.order({ maker: alice, tokenId: m2.yes, side: 'BUY', priceMicros: 300_000, sizeMicros: USDC }), 'LIVE')
  const x4 = place(h, h.order({ maker: alice, tokenId: m2.no, side: 'BUY', priceMicros: 100_000, sizeMicros: USDC }), 'LIVE')
  const y1 = place(h, h.order({ maker: bob, tokenId: m1.yes, side: 'BUY', priceMicros: 390_000, sizeMicros: USDC }), 'LIVE')
  const x5 = place(h, h.order({ maker: alice, tokenId: m1.yes, side: 'BUY', priceMicros: 350_000, sizeMicros: USDC }), 'LIVE')
  // Held: 0.40 + 0.20 + 0.30 + 0.10 + 0.35 = 1.35.
  t.match(accountOf(h, alice), { usdcHeldMicros: 1_350_000 })

  const rejections: [string, string, Code, Record<string, string>][] = [
    ['nope', '', 'MARKET_NOT_FOUND', { marketId: 'nope' }],
    ['nope', m1.yes, 'MARKET_NOT_FOUND', { marketId: 'nope' }],
    ['', 'nope', 'TOKEN_NOT_FOUND', { tokenId: 'nope' }],
    [m1.marketId, m2.yes, 'TOKEN_NOT_FOUND', { tokenId: m2.yes }],
    [m2.marketId, 'nope', 'TOKEN_NOT_FOUND', { tokenId: 'nope' }],
  ]
  for (const [marketId, tokenId, code, context] of rejections) {
    const applied = noEffect(t, h, () => h.apply({ kind: 'cancelMarketOrders', address: alice, marketId, tokenId }), `market '${marketId}' token '${tokenId}'`)
    t.strictSame(applied.result, { ok: false, code, message: CODE_MESSAGES[code], context }, `market '${marketId}' token '${tokenId}': ${code}`)
  }

  // A token alone: m2-no -> x4.
  const byToken = h.apply({ kind: 'cancelMarketOrders', address: alice, marketId: '', tokenId: m2.no })
  t.strictSame(byToken.result, { ok: true, canceled: [x4], notCanceled: [] })
  t.strictSame(byToken.events, [
    canceledUpdate(x4, alice, 'cancel-market'),
    usdcBalance(alice, 10_000_000, 1_250_000), // 1.35 - 0.10
    level(m2.marketId, m2.no, 'BUY', 100_000, 0),
  ])
  // Market and its token: m1 Yes -> x1, x5 (acceptance order), not bob's y1.
  const both = h.apply({ kind: 'cancelMarketOrders', address: alice, marketId: m1.marketId, tokenId: m1.yes })
  t.strictSame(both.result, { ok: true, canceled: [x1, x5], notCanceled: [] })
  t.strictSame(both.events, [
    canceledUpdate(x1, alice, 'cancel-market'),
    canceledUpdate(x5, alice, 'cancel-market'),
    usdcBalance(alice, 10_000_000, 500_000), // 1.25 - 0.40 - 0.35
    level(m1.marketId, m1.yes, 'BUY', 350_000, 0),
    level(m1.marketId, m1.yes, 'BUY', 400_000, 0),
  ])
  // A market alone: m1 -> x2.
  const byMarket = h.apply({ kind: 'cancelMarketOrders', address: alice, marketId: m1.marketId, tokenId: '' })
  t.strictSame(byMarket.result, { ok: true, canceled: [x2], notCanceled: [] })
  // Neither: everything else of alice -> x3.
  const all = h.apply({ kind: 'cancelMarketOrders', address: alice, marketId: '', tokenId: '' })
  t.strictSame(all.result, { ok: true, canceled: [x3], notCanceled: [] })
  t.strictSame(all.events[0], canceledUpdate(x3, alice, 'cancel-market'))
  t.strictSame(openIds(h), [y1])
  t.match(accountOf(h, alice), { usdcMicros: 10_000_000, usdcHeldMicros: 0 })
  // Nothing left: empty result, no events.
  const none = noEffect(t, h, () => h.apply({ kind: 'cancelMarketOrders', address: alice, marketId: m1.marketId, tokenId: '' }), 'nothing left')
  t.strictSame(none.result, { ok: true, canceled: [], notCanceled: [] })
  t.end()
})

t.test('cancel by signer: cancelOrder(s) yes, cancelAll / cancelMarketOrders no', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  // alice's orders signed by dave (a delegated key).
  const signed = (priceMicros: number): OrderInput => ({ ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros, sizeMicros: USDC }), signer: dave })
  const s1 = place(h, signed(100_000), 'LIVE')
  const s2 = place(h, signed(200_000), 'LIVE')
  const s3 = place(h, signed(300_000), 'LIVE')

  const c1 = h.apply({ kind: 'cancelOrder', address: dave, orderId: s1 })
  t.strictSame(c1.result, { ok: true, canceled: [s1], notCanceled: [] })
  t.strictSame(c1.events, [
    canceledUpdate(s1, alice, 'owner'),
    usdcBalance(alice, 10_000_000, 500_000), // 0.10 + 0.20 + 0.30 - 0.10
    level(m.marketId, m.yes, 'BUY', 100_000, 0),
  ])
  const c2 = h.apply({ kind: 'cancelOrders', address: dave, orderIds: [s2] })
  t.strictSame(c2.result, { ok: true, canceled: [s2], notCanceled: [] })

  // cancelAll and cancelMarketOrders act on the maker's orders: dave has none.
  const all = noEffect(t, h, () => h.apply({ kind: 'cancelAll', address: dave }), 'signer cancelAll')
  t.strictSame(all.result, { ok: true, canceled: [], notCanceled: [] })
  const market = noEffect(t, h, () => h.apply({ kind: 'cancelMarketOrders', address: dave, marketId: m.marketId, tokenId: '' }), 'signer cancelMarketOrders')
  t.strictSame(market.result, { ok: true, canceled: [], notCanceled: [] })
  // Neither maker nor signer.
  const other = noEffect(t, h, () => h.apply({ kind: 'cancelOrder', address: carol, orderId: s3 }), 'third party')
  t.strictSame(other.result, { ok: true, canceled: [], notCanceled: [{ orderId: s3, reason: NOT_FOUND }] })
  // The maker can still cancel its own.
  const mine = h.apply({ kind: 'cancelAll', address: alice })
  t.strictSame(mine.result, { ok: true, canceled: [s3], notCanceled: [] })
  t.match(accountOf(h, alice), { usdcMicros: 10_000_000, usdcHeldMicros: 0 })
  t.end()
})

t.test('holds released exactly: BUY at its own price without the fee bound, SELL shares', (t) => {
  const h = new Harness()
  const m = h.market({ feeRateBps: 100 })
  // BUY Yes 0.37 x 3: cost 3700 pips x 300 lots = 1_110_000; feeBound = ceil(100 x 1_110_000 / 10_000)
  // = 11_100; required 1_121_100. Credit exactly that.
  h.fund(alice, 1_121_100)
  const a1 = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 370_000, sizeMicros: 3 * USDC, feeRateBps: 100 }), 'LIVE')
  // Resting hold: pips x lots = 1_110_000 (the fee bound is only checked, not held).
  t.match(accountOf(h, alice), { usdcMicros: 1_121_100, usdcHeldMicros: 1_110_000 })
  t.match(summaryOf(h.engine).openOrders, [{ orderId: a1, heldMicros: 1_110_000, remainingMicros: 3_000_000 }])

  // bob sells 1 into it, paying the taker fee floor(100 x min(3700, 6300) x 100 / 10_000) = 3_700.
  h.fund(bob, 10 * USDC)
  h.split(bob, m.marketId, 5 * USDC)
  const sell = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 370_000, sizeMicros: USDC, feeRateBps: 100 }))
  t.match(sell.result, { ok: true, status: 'MATCHED', makingMicros: 1_000_000, takingMicros: 370_000, feeMicros: 3_700 })
  // alice paid 370_000 out of the hold: USDC 751_100, held 740_000.
  t.match(accountOf(h, alice), { usdcMicros: 751_100, usdcHeldMicros: 740_000 })

  const c1 = h.apply({ kind: 'cancelOrder', address: alice, orderId: a1 })
  t.strictSame(c1.events, [
    canceledUpdate(a1, alice, 'owner', 1_000_000),
    usdcBalance(alice, 751_100, 0),
    level(m.marketId, m.yes, 'BUY', 370_000, 0),
  ])

  // A SELL of 2.5 Yes (250 lots) at 0.80 holds 2_500_000 shares; bob has 5 - 1 = 4 Yes.
  const b1 = place(h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 800_000, sizeMicros: 2_500_000, feeRateBps: 100 }), 'LIVE')
  t.match(accountOf(h, bob)?.shares, [{ tokenId: m.no, balanceMicros: 5_000_000, heldMicros: 0 }, { tokenId: m.yes, balanceMicros: 4_000_000, heldMicros: 2_500_000 }])
  const c2 = h.apply({ kind: 'cancelOrder', address: bob, orderId: b1 })
  t.strictSame(c2.events, [
    canceledUpdate(b1, bob, 'owner'),
    { type: 'balance', address: bob, asset: m.yes, balanceMicros: 4_000_000, heldMicros: 0 },
    level(m.marketId, m.yes, 'SELL', 800_000, 0),
  ])
  t.end()
})

t.test('bookLevel events follow each token\'s native book', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  h.fund(carol, 10 * USDC)
  h.split(bob, m.marketId, 2 * USDC)
  // Yes-space ask 0.70 holds alice BUY No 0.30 x 2, bob SELL Yes 0.70 x 1, carol BUY No 0.30 x 3.
  const a1 = place(h, h.order({ maker: alice, tokenId: m.no, side: 'BUY', priceMicros: 300_000, sizeMicros: 2 * USDC }), 'LIVE')
  const b1 = place(h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 700_000, sizeMicros: USDC }), 'LIVE')
  const c1 = place(h, h.order({ maker: carol, tokenId: m.no, side: 'BUY', priceMicros: 300_000, sizeMicros: 3 * USDC }), 'LIVE')

  // alice's 2 leave the No BUY 0.30 level with carol's 3; the Yes SELL 0.70 level is unchanged.
  const ca = h.apply({ kind: 'cancelOrder', address: alice, orderId: a1 })
  t.strictSame(ca.events, [
    canceledUpdate(a1, alice, 'owner'),
    usdcBalance(alice, 10_000_000, 0), // 0.30 x 2 = 0.6 released
    level(m.marketId, m.no, 'BUY', 300_000, 3_000_000),
  ])
  const cb = h.apply({ kind: 'cancelOrder', address: bob, orderId: b1 })
  t.strictSame(cb.events, [
    canceledUpdate(b1, bob, 'owner'),
    { type: 'balance', address: bob, asset: m.yes, balanceMicros: 2_000_000, heldMicros: 0 },
    level(m.marketId, m.yes, 'SELL', 700_000, 0),
  ])
  t.strictSame(openIds(h), [c1])
  t.end()
})

t.test('the clock runs first: a GTD expiring at the cancel command is already canceled', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  // Expires at T0 + 61 s (the margin is 60 s).
  const expirationSec = h.timeMs / 1000 + 61
  const g = place(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 2 * USDC, timeInForce: 'GTD', expirationSec }), 'LIVE')
  h.timeMs = expirationSec * 1000
  const applied = h.apply({ kind: 'cancelOrder', address: alice, orderId: g })
  t.strictSame(applied.result, { ok: true, canceled: [], notCanceled: [{ orderId: g, reason: CANCELED }] })
  t.strictSame(applied.events, [
    canceledUpdate(g, alice, 'expired'),
    usdcBalance(alice, 10_000_000, 0), // 0.50 x 2 = 1 released
    level(m.marketId, m.yes, 'BUY', 500_000, 0),
  ])
  t.end()
})
