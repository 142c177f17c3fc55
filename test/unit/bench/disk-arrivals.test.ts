/**
 * The disk as a steady stream of arrivals sees it (bench/disk-flush.ts arrivalWaitsMs): each
 * arrival waits for the rest of the flush in progress and then a whole flush, so one long flush
 * weighs by its length, where a per-flush percentile counts it once.
 */
import t from 'tap'
import { arrivalWaitsMs } from '../../../bench/disk-flush.js'
import { percentile } from '../../../bench/stats.js'

/** Flushes back to back, each `durations[i]` ms long, from 0. */
function backToBack(durations: readonly number[]): { starts: Float64Array; ends: Float64Array } {
  const starts = new Float64Array(durations.length)
  const ends = new Float64Array(durations.length)
  let at = 0
  durations.forEach((ms, i) => {
    starts[i] = at
    at += ms
    ends[i] = at
  })
  return { starts, ends }
}

t.test('on a steady disk an arrival waits between one flush and two', async (t) => {
  const { starts, ends } = backToBack(Array<number>(100).fill(1))
  const waits = arrivalWaitsMs(starts, ends, 0.25)
  t.equal(waits.length, 397, 'arrivals from the first start to the last, every 0.25 ms')
  t.equal(waits[0], 1, 'at a flush\'s start: that flush')
  t.equal(waits[1], 1.75, 'a quarter into a flush: its rest, then the next')
  t.ok(waits.every((ms) => ms >= 1 && ms <= 2))
})

t.test('one stall of 500 ms among 1 000 flushes of 1 ms: the per-flush p99 misses it, the arrivals do not', async (t) => {
  const durations = Array<number>(1_000).fill(1)
  durations[500] = 500
  const { starts, ends } = backToBack(durations)
  const perFlush = Float64Array.from(durations).sort()
  t.equal(percentile(perFlush, 0.99), 1, 'the per-flush p99: 1 ms')
  const waits = arrivalWaitsMs(starts, ends, 0.5).sort()
  // A third of the time was the stall: an arrival in it waits for its rest and one more flush.
  t.ok(percentile(waits, 0.5) <= 2, `the median arrival: a steady disk (${percentile(waits, 0.5)} ms)`)
  t.ok(percentile(waits, 0.99) > 400, `the p99 arrival waits in the stall (${percentile(waits, 0.99)} ms)`)
  t.equal(waits[waits.length - 1], 500.5, 'the worst: the first arrival after the stall began, its rest and one more flush')
})

t.test('no flushes, no arrivals; mismatched lists are refused', async (t) => {
  t.equal(arrivalWaitsMs(new Float64Array(0), new Float64Array(0), 1).length, 0)
  t.throws(() => arrivalWaitsMs(new Float64Array(1), new Float64Array(0), 1))
})
