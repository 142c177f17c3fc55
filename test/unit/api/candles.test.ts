/** Candles from ticks: boundaries, empty intervals, exact sums (worked out by hand). */
import t from 'tap'
import { candlesOf, firstTickAtOrAfter } from '../../../src/read/candles.js'

const MINUTE = 60_000
// Minute 0: 0.40 x 1, 0.45 x 2, 0.38 x 3; minute 1: nothing; minute 2: 0.50 x 4 at its very start, 0.49 x 5.
const ticks = [
  { timeMs: 1_000, priceMicros: 400_000, sizeMicros: 1_000_000 },
  { timeMs: 20_000, priceMicros: 450_000, sizeMicros: 2_000_000 },
  { timeMs: 59_999, priceMicros: 380_000, sizeMicros: 3_000_000 },
  { timeMs: 120_000, priceMicros: 500_000, sizeMicros: 4_000_000 },
  { timeMs: 150_000, priceMicros: 490_000, sizeMicros: 5_000_000 },
]

t.test('one candle per interval with trades, open/high/low/close in time order, volume summed', async (t) => {
  t.same(candlesOf(ticks, 0, 10 * MINUTE, MINUTE), [
    { startMs: 0, openMicros: 400_000, highMicros: 450_000, lowMicros: 380_000, closeMicros: 380_000, volumeMicros: 6_000_000 },
    { startMs: 120_000, openMicros: 500_000, highMicros: 500_000, lowMicros: 490_000, closeMicros: 490_000, volumeMicros: 9_000_000 },
  ])
  t.same(candlesOf(ticks, 0, 10 * MINUTE, 5 * MINUTE), [
    { startMs: 0, openMicros: 400_000, highMicros: 500_000, lowMicros: 380_000, closeMicros: 490_000, volumeMicros: 15_000_000 },
  ])
})

t.test('from is inclusive, to exclusive', async (t) => {
  t.same(candlesOf(ticks, 20_000, 120_000, MINUTE).map((c) => c.volumeMicros), [5_000_000], 'from 20 s: two ticks of minute 0; the tick at 120 s is out')
  t.same(candlesOf(ticks, 20_001, 120_001, MINUTE).map((c) => [c.startMs, c.volumeMicros]), [[0, 3_000_000], [120_000, 4_000_000]])
  t.same(candlesOf(ticks, 200_000, 300_000, MINUTE), [])
  t.same(candlesOf([], 0, 1, MINUTE), [])
})

t.test('firstTickAtOrAfter: binary search over time-ordered ticks', async (t) => {
  t.same([0, 1_000, 1_001, 59_999, 60_000, 150_000, 150_001].map((ms) => firstTickAtOrAfter(ticks, ms)), [0, 0, 1, 2, 3, 4, 5])
})
