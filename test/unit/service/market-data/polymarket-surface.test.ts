/**
 * The use cases behind Polymarket's current surface, on a read model fed by hand: price points
 * (every trade or the last of each interval), the price history's windows and refusals, a
 * market's live activity (newest first, bounded, kept up to date), and the fee curve clob-client-v2
 * budgets a BUY with, held against what the engine holds and charges.
 */
import t from 'tap'
import { adjustBuyAmountForFees } from '@polymarket/clob-client-v2'
import type { MarketRecord, Trade } from '../../../../src/engine/event.js'
import { feeBoundOf, feeOf } from '../../../../src/engine/units.js'
import { LIVE_ACTIVITY_TRADES_MAX, PRICES_HISTORY_POINTS_MAX } from '../../../../src/limits.js'
import { pricePointsOf } from '../../../../src/read/candles.js'
import { liveActivityOf } from '../../../../src/service/market-data/market-activity.js'
import { feeCurveOf } from '../../../../src/service/market-data/polymarket-info.js'
import { priceHistoryOf } from '../../../../src/service/market-data/price-history.js'
import { fakeWorld, T0_MS } from '../fake-context.js'

const MINUTE = 60_000
const ticks = [
  { timeMs: 1_000, priceMicros: 400_000, sizeMicros: 1 },
  { timeMs: 20_000, priceMicros: 450_000, sizeMicros: 1 },
  { timeMs: 59_999, priceMicros: 380_000, sizeMicros: 1 },
  { timeMs: 120_000, priceMicros: 500_000, sizeMicros: 1 },
  { timeMs: 150_000, priceMicros: 490_000, sizeMicros: 1 },
]

t.test('pricePointsOf: every tick, or the last price of each interval with trades at its start', async (t) => {
  t.same(pricePointsOf(ticks, 0, 10 * MINUTE, null, 100)!.map((p) => [p.timeMs, p.priceMicros]),
    [[1_000, 400_000], [20_000, 450_000], [59_999, 380_000], [120_000, 500_000], [150_000, 490_000]])
  t.same(pricePointsOf(ticks, 0, 10 * MINUTE, MINUTE, 100), [
    { timeMs: 0, priceMicros: 380_000 }, { timeMs: 120_000, priceMicros: 490_000 }], 'minute 1 had no trade')
  t.same(pricePointsOf(ticks, 0, 10 * MINUTE, 5 * MINUTE, 100), [{ timeMs: 0, priceMicros: 490_000 }])
  t.same(pricePointsOf(ticks, 20_000, 120_000, null, 100)!.map((p) => p.timeMs), [20_000, 59_999],
    'from included, to excluded')
  t.same(pricePointsOf([], 0, 1, MINUTE, 100), [])
})

t.test('pricePointsOf: more points than the bound is null, exactly the bound is not', async (t) => {
  t.equal(pricePointsOf(ticks, 0, 10 * MINUTE, null, 4), null, '5 trades, 4 points allowed')
  t.equal(pricePointsOf(ticks, 0, 10 * MINUTE, null, 5)!.length, 5)
  t.equal(pricePointsOf(ticks, 0, 10 * MINUTE, MINUTE, 1), null, 'two minutes with trades, one point allowed')
  t.same(pricePointsOf(ticks, 0, 10 * MINUTE, MINUTE, 2)!.length, 2, 'a later trade of the last interval replaces it')
})

function market(index: number): MarketRecord {
  return { marketId: `m${index}`, conditionId: `0x${String(index).padStart(64, '0')}`, question: `Q${index}?`,
    slug: `q${index}`, description: '', yesTokenId: `${index}1`, noTokenId: `${index}2`, tickSizeMicros: 10_000,
    minOrderSizeMicros: 5_000_000, feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active', createdMs: T0_MS,
    winningOutcome: null, resolvedMs: 0 }
}

function trade(m: MarketRecord, n: number, timeMs: number, priceMicros: number): Trade {
  return { type: 'trade', tradeId: `${m.marketId}-t${n}`, marketId: m.marketId, matchType: 'normal',
    takerOrderId: `0x${n}`, takerAddress: '0xtaker', takerOwner: 'k1', tokenId: m.yesTokenId, outcome: 'Yes',
    side: 'BUY', priceMicros, sizeMicros: 1_000_000, feeMicros: 0, feeRateBps: 0, makerOrderId: `0xm${n}`,
    makerAddress: '0xmaker', makerOwner: 'k2', makerTokenId: m.yesTokenId, makerOutcome: 'Yes', makerSide: 'SELL',
    makerPriceMicros: priceMicros, timeMs }
}

t.test('priceHistoryOf: a range (end second included) or a window ending now; refusals name the field', async (t) => {
  const { context } = fakeWorld()
  const m = market(1)
  let seq = 1
  context.read.apply(seq++, [{ type: 'marketCreated', market: m }], T0_MS)
  for (const [minutes, price] of [[-120, 300_000], [-30, 400_000], [-29.5, 450_000], [0, 500_000]] as const) {
    const timeMs = T0_MS + minutes * MINUTE
    context.read.apply(seq++, [trade(m, seq, timeMs, price)], timeMs)
  }
  const history = (query: object) => priceHistoryOf(context, { tokenId: m.yesTokenId, interval: null, startSec: null,
    endSec: null, fidelityMinutes: null, ...query }).map((p) => p.priceMicros)
  t.same(history({}), [300_000, 400_000, 450_000, 500_000], 'no range: every trade')
  t.same(history({ interval: '1h' }), [400_000, 450_000, 500_000], 'the last hour')
  t.same(history({ interval: 'max' }), history({}), 'max is everything')
  t.same(history({ interval: '1h', fidelityMinutes: 60 }).length, 2, 'two hours of the clock had trades in the last hour')
  t.same(history({ fidelityMinutes: 24 * 60 }), [500_000], 'one day: its last price')
  t.same(history({ startSec: (T0_MS - 30 * MINUTE) / 1000, endSec: (T0_MS - 30 * MINUTE) / 1000 }), [400_000],
    'start and end the same second: that second')
  const refusals: [object, string][] = [
    [{ interval: '2h' }, 'interval'], [{ interval: '1h', startSec: 0 }, 'interval'], [{ interval: '1d', endSec: 5 }, 'interval'],
    [{ startSec: 10, endSec: 9 }, 'startTs'], [{ fidelityMinutes: 0 }, 'fidelity'], [{ fidelityMinutes: 525_601 }, 'fidelity'],
  ]
  for (const [query, field] of refusals) {
    t.throws(() => history(query), { code: 'INVALID_PARAMETER', context: { field } }, JSON.stringify(query))
  }
  t.throws(() => priceHistoryOf(context, { tokenId: '999', interval: null, startSec: null, endSec: null,
    fidelityMinutes: null }), { code: 'TOKEN_NOT_FOUND' })
})

t.test('priceHistoryOf: more points than PRICES_HISTORY_POINTS_MAX is refused, not truncated', async (t) => {
  const { context } = fakeWorld()
  const m = market(1)
  context.read.apply(1, [{ type: 'marketCreated', market: m }], T0_MS)
  const events = Array.from({ length: PRICES_HISTORY_POINTS_MAX + 1 }, (_, i) => trade(m, i, T0_MS + i * MINUTE, 500_000))
  context.read.apply(2, events, T0_MS)
  const query = { tokenId: m.yesTokenId, interval: null, startSec: null, endSec: null, fidelityMinutes: null }
  t.throws(() => priceHistoryOf(context, query), { code: 'INVALID_PARAMETER', context: { field: 'fidelity' } })
  t.equal(priceHistoryOf(context, { ...query, fidelityMinutes: 2 }).length, Math.ceil((PRICES_HISTORY_POINTS_MAX + 1) / 2),
    'a coarser fidelity fits')
})

t.test('liveActivityOf: newest first, per market, bounded, and it sees trades made after it was first asked', async (t) => {
  const { context } = fakeWorld()
  const [a, b] = [market(1), market(2)]
  context.read.apply(1, [{ type: 'marketCreated', market: a }, { type: 'marketCreated', market: b }], T0_MS)
  t.same(liveActivityOf(context, a.conditionId).trades, [], 'no trades yet')
  context.read.apply(2, [trade(a, 1, T0_MS, 400_000), trade(b, 1, T0_MS, 410_000), trade(a, 2, T0_MS, 420_000)], T0_MS)
  const first = liveActivityOf(context, a.conditionId)
  t.equal(first.market, a)
  t.same(first.trades.map((x) => x.tradeId), ['m1-t2', 'm1-t1'], 'the market\'s own, newest first')
  t.same(liveActivityOf(context, b.slug).trades.map((x) => x.tradeId), ['m2-t1'], 'by slug too')
  const many = Array.from({ length: 3 * LIVE_ACTIVITY_TRADES_MAX }, (_, i) => trade(a, 100 + i, T0_MS, 500_000))
  context.read.apply(3, many, T0_MS)
  const after = liveActivityOf(context, a.marketId).trades
  t.equal(after.length, LIVE_ACTIVITY_TRADES_MAX, 'at most the bound')
  t.same([after[0]!.tradeId, after.at(-1)!.tradeId],
    [`m1-t${100 + 3 * LIVE_ACTIVITY_TRADES_MAX - 1}`, `m1-t${100 + 2 * LIVE_ACTIVITY_TRADES_MAX}`], 'the newest ones')
  t.same(liveActivityOf(context, b.conditionId).trades.map((x) => x.tradeId), ['m2-t1'], 'the other market unchanged')
  t.throws(() => liveActivityOf(context, '0xunknown'), { code: 'MARKET_NOT_FOUND' })
})

/**
 * The client's own budget (fees/index.ts) with the curve Predex announces: the BUY it shrinks to
 * fit a balance, plus the fee bound the engine holds beside its cost, never exceeds the balance;
 * and the budget covers the fee charged at the fill price.
 */
function budgetHolds(rate: number, exponent: number, feeRateBps: number, pips: number): boolean {
  const price = pips / 10_000
  const balanceUsdc = 100
  const amountUsdc = adjustBuyAmountForFees(balanceUsdc, price, balanceUsdc, rate, exponent, 0, 0)
  const costMicros = Math.floor(amountUsdc * 1_000_000)
  return costMicros + feeBoundOf(feeRateBps, costMicros) <= balanceUsdc * 1_000_000
}

t.test('feeCurveOf: the client\'s budget covers what the engine holds and charges at every price', async (t) => {
  for (const feeRateBps of [1, 10, 150, 1_000]) {
    const curve = feeCurveOf({ ...market(1), feeRateBps })
    t.same(curve, { rate: feeRateBps / 10_000, exponent: 0 }, `${feeRateBps} bps`)
    const short = []
    for (let pips = 1; pips < 10_000; pips++) {
      if (!budgetHolds(curve.rate, curve.exponent, feeRateBps, pips)) short.push(pips)
      const lots = 10_000 // 100 shares
      const budgetMicros = 100 * curve.rate * ((pips / 10_000) * (1 - pips / 10_000)) ** curve.exponent * 1_000_000
      if (feeOf(feeRateBps, pips, lots) > budgetMicros) short.push(-pips)
    }
    t.same(short, [], `${feeRateBps} bps: no price where the budget falls short`)
  }
  // The curve that only bounds the fee charged (e = 1, r = 2 x bps) falls short of the hold above 0.5.
  const failing = []
  for (let pips = 100; pips < 10_000; pips += 100) if (!budgetHolds(2 * 0.015, 1, 150, pips)) failing.push(pips)
  t.ok(failing.length > 0 && failing.every((pips) => pips > 5_000), `e = 1 falls short at ${failing.length} prices above 0.5`)
})
