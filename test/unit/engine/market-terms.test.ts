/**
 * A market's terms changed while it lives (docs/engine.md, "Market status", "Events"): setTickSize
 * (refine, coarsen, invalid ticks, CLOB V2's 0.005 and 0.0025) and setFeeRate, in every status;
 * a rejected admin command emits nothing.
 */
import t from 'tap'
import { Harness, USDC } from '../../support/harness.js'
import { marketOf, isRejected, isRejectedCode, refusedUnchanged, acceptedNoop } from '../../support/engine-checks.js'
import type { MarketStatus } from '../../../src/engine/command.js'
import type { EngineEvent } from '../../../src/engine/event.js'
import { summaryOf } from '../../../src/engine/view.js'
import { alice, bob, carol, inputOf, updated, orderIdOf, statusOf } from './market-lifecycle-support.js'

// ---------------------------------------------------------------------------------------------
// setTickSize
// ---------------------------------------------------------------------------------------------

t.test('setTickSize: refine, then orders on the finer grid rest and match', (t) => {
  const h = new Harness()
  const m = h.market() // tick 0.01
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  const a1 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(a1), 'LIVE')
  // 0.505 is off the 0.01 grid.
  const off = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: 2 * USDC }))
  t.match(off.result, { ok: false, code: 'INVALID_ORDER_MIN_TICK_SIZE', context: { tickSizeMicros: 10_000 } })

  const refine = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 1_000 })
  t.strictSame(refine.result, { ok: true })
  t.strictSame(refine.events, [updated(m.marketId, 'Active', 1_000)])
  t.equal(marketOf(h, m.marketId)?.tickSizeMicros, 1_000)
  acceptedNoop(t, h, () => h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 1_000 }), 'same tick again')

  // BUY Yes 0.505 x 2 now rests above the 0.50 bid.
  const a2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(a2), 'LIVE')
  t.strictSame(Harness.eventsOf(a2, 'bookLevel'), [
    { type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: 2_000_000 },
  ])
  // bob BUY No 0.495 x 2: Yes-space ask 1 - 0.495 = 0.505 meets the 0.505 bid: a mint.
  const b1 = h.place(h.order({ maker: bob, tokenId: m.no, side: 'BUY', priceMicros: 495_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(b1), 'MATCHED')
  t.match(Harness.eventsOf(b1, 'trade'), [{
    matchType: 'mint', takerOrderId: orderIdOf(b1), tokenId: m.no, side: 'BUY', priceMicros: 495_000, sizeMicros: 2_000_000,
    makerOrderId: orderIdOf(a2), makerTokenId: m.yes, makerSide: 'BUY', makerPriceMicros: 505_000, feeMicros: 0,
  }])
  // alice paid 0.505 x 2 = 1.01; bob 0.495 x 2 = 0.99; collateral 2.
  t.match(marketOf(h, m.marketId), { collateralMicros: 2_000_000, mintedMicros: 2_000_000 })
  const s = summaryOf(h.engine)
  t.match(s.accounts.find((a) => a.address === alice), { usdcMicros: 8_990_000, usdcHeldMicros: 1_000_000 }) // 0.50 x 2 still held
  t.match(s.accounts.find((a) => a.address === bob), { usdcMicros: 9_010_000, usdcHeldMicros: 0 })

  // Refine once more to 0.0001: 0.5051 rests; 0.50 still matches.
  t.strictSame(h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 100 }).events, [updated(m.marketId, 'Active', 100)])
  const a3 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_100, sizeMicros: USDC }))
  t.equal(statusOf(a3), 'LIVE')
  h.split(bob, m.marketId, 3 * USDC)
  // bob sells 3 Yes at 0.50: 1 at 0.5051 (a3), then 2 at 0.50 (a1).
  const b2 = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 3 * USDC }))
  t.equal(statusOf(b2), 'MATCHED')
  t.match(Harness.eventsOf(b2, 'trade'), [
    { makerOrderId: orderIdOf(a3), priceMicros: 505_100, sizeMicros: 1_000_000 },
    { makerOrderId: orderIdOf(a1), priceMicros: 500_000, sizeMicros: 2_000_000 },
  ])
  t.strictSame(summaryOf(h.engine).openOrders, [])
  t.end()
})

t.test('setTickSize: coarsen, refused off grid, resting orders keep working', (t) => {
  const h = new Harness()
  const m = h.market({ tickSizeMicros: 1_000 }) // 0.001
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  h.split(bob, m.marketId, 5 * USDC)

  // A Yes order at 0.505 is off the 0.01 grid.
  const a1 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: USDC }))
  const r1 = refusedUnchanged(t, h, () => h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 10_000 }), 'Yes order off the new grid')
  isRejectedCode(t, r1, 'MARKET_TICK_SIZE_OFF_GRID', 'Yes order off the new grid')
  h.apply({ kind: 'cancelOrder', address: alice, orderId: orderIdOf(a1) })

  // A No order at 0.455 (Yes-space 0.545) is off the 0.01 grid too.
  const b1 = h.place(h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 455_000, sizeMicros: USDC }))
  const r2 = refusedUnchanged(t, h, () => h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 10_000 }), 'No order off the new grid')
  isRejectedCode(t, r2, 'MARKET_TICK_SIZE_OFF_GRID', 'No order off the new grid')
  h.apply({ kind: 'cancelOrder', address: bob, orderId: orderIdOf(b1) })

  // A level that once held an off-grid order but is empty now does not block the change; neither
  // does a level emptied by a fill (alice 0.507 bought by bob).
  const a2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 507_000, sizeMicros: USDC }))
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 507_000, sizeMicros: USDC }))
  t.equal(summaryOf(h.engine).orderStatuses.find((x) => x.orderId === orderIdOf(a2))?.status, 'MATCHED')

  // On-grid resting orders for 0.1: BUY Yes 0.50 x 2 (alice), SELL Yes 0.70 x 1 (bob), SELL No 0.60
  // x 1 (bob; Yes-space bid 0.40).
  const a3 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 2 * USDC }))
  const b2 = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 700_000, sizeMicros: USDC }))
  const b3 = h.place(h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 600_000, sizeMicros: USDC }))
  const coarsen = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 100_000 })
  t.strictSame(coarsen.result, { ok: true }, 'every resting price is on the 0.1 grid')
  t.strictSame(coarsen.events, [updated(m.marketId, 'Active', 100_000)])
  t.strictSame(summaryOf(h.engine).openOrders.map((o) => o.orderId), [orderIdOf(a3), orderIdOf(b2), orderIdOf(b3)], 'orders kept')

  // 0.55 is off the new grid; 0.60 rests.
  const off = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 550_000, sizeMicros: USDC }))
  t.match(off.result, { ok: false, code: 'INVALID_ORDER_MIN_TICK_SIZE', context: { tickSizeMicros: 100_000 } })
  const a4 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 600_000, sizeMicros: USDC }))
  t.equal(statusOf(a4), 'LIVE')

  // carol sells 4 Yes at 0.40 through the bids: 0.60 x 1 (a4), 0.50 x 2 (a3), then the 0.40 bid
  // is bob's SELL No 0.60: a merge of 1.
  h.fund(carol, 10 * USDC)
  h.split(carol, m.marketId, 4 * USDC)
  const c1 = h.place(h.order({ maker: carol, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 4 * USDC }))
  t.equal(statusOf(c1), 'MATCHED')
  t.match(Harness.eventsOf(c1, 'trade'), [
    { matchType: 'normal', makerOrderId: orderIdOf(a4), priceMicros: 600_000, sizeMicros: 1_000_000 },
    { matchType: 'normal', makerOrderId: orderIdOf(a3), priceMicros: 500_000, sizeMicros: 2_000_000 },
    { matchType: 'merge', makerOrderId: orderIdOf(b3), priceMicros: 400_000, makerPriceMicros: 600_000, sizeMicros: 1_000_000 },
  ])
  // Only bob's SELL Yes 0.70 is left, and asks still work: alice buys it.
  const a5 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 700_000, sizeMicros: USDC }))
  t.equal(statusOf(a5), 'MATCHED')
  t.match(Harness.eventsOf(a5, 'trade'), [{ makerOrderId: orderIdOf(b2), priceMicros: 700_000, sizeMicros: 1_000_000 }])
  t.strictSame(summaryOf(h.engine).openOrders, [])
  t.end()
})

t.test('setTickSize: invalid ticks, every status', (t) => {
  const h = new Harness()
  const m = h.market()
  for (const tick of [0, 7_500, 20_000, 1_000_000, 50, -10_000, 1.5, 10]) {
    const applied = refusedUnchanged(t, h, () => h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: tick }), `tick ${tick}`)
    isRejectedCode(t, applied, 'MARKET_TICK_SIZE_INVALID', `tick ${tick}`)
  }
  // Allowed in every status.
  const steps: [MarketStatus, number][] = [['Paused', 1_000], ['Closed', 100], ['Resolving', 100_000]]
  for (const [status, tick] of steps) {
    h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status })
    const applied = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: tick })
    t.strictSame(applied.events, [updated(m.marketId, status, tick)], `setTickSize when ${status}`)
  }
  h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'Yes' })
  const resolved = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 10_000 })
  t.strictSame(resolved.events, [updated(m.marketId, 'Resolved', 10_000, 0, 'Yes')], 'setTickSize when Resolved')
  t.end()
})

// ---------------------------------------------------------------------------------------------
// setFeeRate
// ---------------------------------------------------------------------------------------------

t.test('setFeeRate: range, no-op, orders must carry the new rate, every status', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  const set = h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 50 })
  t.strictSame(set.result, { ok: true })
  t.strictSame(set.events, [updated(m.marketId, 'Active', 10_000, 50)])
  acceptedNoop(t, h, () => h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 50 }), 'same rate')

  for (const bad of [1_001, -1, 2.5, Number.NaN]) {
    const applied = refusedUnchanged(t, h, () => h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: bad }), `rate ${bad}`)
    isRejected(t, applied, 'MARKET_FEE_RATE_INVALID', { feeRateBps: bad }, `rate ${bad}`)
  }
  // An order signed with the old rate 0.
  const old = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC }))
  t.match(old.result, { ok: false, code: 'INVALID_ORDER_FEE_RATE', context: { feeRateBps: 0, marketFeeRateBps: 50 } })
  const fresh = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC, feeRateBps: 50 }))
  t.equal(statusOf(fresh), 'LIVE')

  // The bounds: 1000 (FEE_RATE_BPS_MAX) and 0.
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 1_000 }).events, [updated(m.marketId, 'Active', 10_000, 1_000)])
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 0 }).events, [updated(m.marketId, 'Active', 10_000, 0)])

  // Status events carry the current tick and rate.
  h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 7 })
  h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 1_000 })
  const paused = h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Paused' })
  t.strictSame(paused.events, [updated(m.marketId, 'Paused', 1_000, 7)])
  // setFeeRate in every status.
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 8 }).events, [updated(m.marketId, 'Paused', 1_000, 8)])
  h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Closed' })
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 9 }).events, [updated(m.marketId, 'Closed', 1_000, 9)])
  h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'No' })
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 10 }).events, [updated(m.marketId, 'Resolved', 1_000, 10, 'No')])
  const upcoming = h.apply({ kind: 'createMarket', market: inputOf('up', { status: 'Upcoming' }) })
  t.equal(upcoming.result.ok, true)
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: 'up', feeRateBps: 11 }).events, [updated('up', 'Upcoming', 10_000, 11)])
  t.end()
})

t.test('events of a rejected admin command: none (only expiry may appear)', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  // A GTD that expires at T0 + 61 s: the clock runs even when the command is then rejected.
  const expSec = Math.floor(h.timeMs / 1000) + 61
  const gtd = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC, timeInForce: 'GTD', expirationSec: expSec }))
  t.equal(statusOf(gtd), 'LIVE')
  h.timeMs = expSec * 1000
  const applied = h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Resolved' })
  isRejected(t, applied, 'MARKET_STATUS_TRANSITION', { from: 'Active', to: 'Resolved' }, 'Active -> Resolved via setMarketStatus')
  const events: EngineEvent[] = applied.events
  t.strictSame(events, [
    { type: 'orderUpdate', orderId: orderIdOf(gtd), maker: alice, status: 'CANCELED', sizeMatchedMicros: 0, remainingMicros: 0, reason: 'expired' },
    { type: 'balance', address: alice, asset: 'USDC', balanceMicros: 10_000_000, heldMicros: 0 },
    { type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 0 },
  ], 'only the expiry')
  t.end()
})

t.test('ticks 0.005 and 0.0025 (CLOB V2): only prices on their grid; coarsening back needs an empty grid', (t) => {
  const h = new Harness()
  const m = h.market() // tick 0.01
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  t.strictSame(h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 5_000 }).result, { ok: true })
  // clob-client-v2 rounds to 3 decimals on a 0.005 market, so 0.503 reaches the server: refused.
  const off = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 503_000, sizeMicros: 2 * USDC }))
  t.match(off.result, { ok: false, code: 'INVALID_ORDER_MIN_TICK_SIZE', context: { tickSizeMicros: 5_000 } })
  const a1 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(a1), 'LIVE', '0.505 rests on the 0.005 grid')
  // The complement of 0.505 is 0.495, on the grid too: a No buy there mints against it.
  const b1 = h.place(h.order({ maker: bob, tokenId: m.no, side: 'BUY', priceMicros: 495_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(b1), 'MATCHED')
  t.strictSame(h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 2_500 }).result, { ok: true })
  const a2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 502_500, sizeMicros: 2 * USDC }))
  t.equal(statusOf(a2), 'LIVE', '0.5025 rests on the 0.0025 grid')
  const off2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 501_000, sizeMicros: 2 * USDC }))
  t.match(off2.result, { ok: false, code: 'INVALID_ORDER_MIN_TICK_SIZE', context: { tickSizeMicros: 2_500 } })
  // 0.5025 is off the 0.005 grid: the tick cannot go back while it rests.
  const back = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 5_000 })
  t.match(back.result, { ok: false, code: 'MARKET_TICK_SIZE_OFF_GRID' })
  t.end()
})
