/**
 * The one refill of every budget kept in time (src/stdx/token-bucket.ts): a whole window refills
 * a whole budget whatever fractional clock reading it starts from, and the time between two
 * readings counts in whole microseconds.
 */
import t from 'tap'
import { elapsedMs, refilledTokens } from '../../../src/stdx/token-bucket.js'

/** A reading of performance.now() at which (t + 10 000) - t is not 10 000 in doubles. */
const FRACTIONAL_MS = 12_345.6789

t.test('a whole window from a fractional reading refills exactly the capacity', async (t) => {
  t.not((FRACTIONAL_MS + 10_000) - FRACTIONAL_MS, 10_000, 'this reading shows the rounding')
  t.equal(elapsedMs(FRACTIONAL_MS, FRACTIONAL_MS + 10_000), 10_000)
  t.equal(refilledTokens(0, 50, 10_000, FRACTIONAL_MS, FRACTIONAL_MS + 10_000), 50)
  t.equal(refilledTokens(0, 100, 10_000, FRACTIONAL_MS, FRACTIONAL_MS + 10_000), 100, 'uncapped: 100 of 100')
})

t.test('part of a window refills its share; never past the capacity; a clock read earlier refills nothing', async (t) => {
  t.equal(refilledTokens(0, 50, 10_000, 0, 2_000), 10)
  t.equal(refilledTokens(-3, 50, 10_000, 0, 2_000), 7, 'a balance below zero is paid back first')
  t.equal(refilledTokens(45, 50, 10_000, 0, 2_000), 50)
  t.equal(refilledTokens(5, 50, 10_000, 2_000, 1_000), 5)
  t.equal(elapsedMs(0, 0.0004), 0, 'under half a microsecond counts as none')
  t.equal(elapsedMs(0, 1.0005), 1.001, 'microseconds round half up')
})
