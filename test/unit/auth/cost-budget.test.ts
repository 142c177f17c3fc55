/**
 * Budgets charged by cost (src/auth/cost-budget.ts): a key is let in while its balance is
 * positive, charged what its request returned (into debt by at most that), refused with
 * RATE_LIMITED and the seconds until its balance is positive again, refilled with time; the
 * table of keys stays bounded.
 */
import t from 'tap'
import { CostBudget } from '../../../src/auth/cost-budget.js'
import { PredexError } from '../../../src/errors.js'

const RULE = { burst: 1_000, burstWindowMs: 10_000 }

function refusal(run: () => void): PredexError | null {
  try {
    run()
    return null
  } catch (error) {
    if (error instanceof PredexError) return error
    throw error
  }
}

t.test('spent by cost, refused with the wait until the balance is positive, refilled with time', (t) => {
  const budget = new CostBudget(RULE, 'entries read')
  budget.admit('a', 0)
  budget.spend('a', 600, 0)
  budget.admit('a', 0)
  budget.spend('a', 900, 0) // into debt: -500
  const error = refusal(() => budget.admit('a', 0))
  t.equal(error?.code, 'RATE_LIMITED')
  // 501 tokens to refill at 1 000 per 10 s: 5.01 s, rounded up.
  t.equal(error?.context?.retryAfterSeconds, 6, 'the wait until one whole token is back')
  t.match(error?.context, { limit: 1_000, windowSeconds: 10 })
  t.match(error?.message, /entries read/)
  t.equal(refusal(() => budget.admit('b', 0)), null, 'another key is not touched')
  t.not(refusal(() => budget.admit('a', 5_000)), null, 'still refused before the wait')
  t.equal(refusal(() => budget.admit('a', 6_000)), null, 'let in after it')
  budget.spend('a', 0, 1_000_000)
  budget.spend('a', 1_000, 1_000_000)
  t.not(refusal(() => budget.admit('a', 1_000_000)), null, 'refilled to the burst, no more')
  t.end()
})

t.test('a wait is at least a second', (t) => {
  const budget = new CostBudget(RULE, 'entries read')
  budget.spend('a', 1_000, 0)
  t.equal(refusal(() => budget.admit('a', 0))?.context?.retryAfterSeconds, 1)
  t.end()
})

t.test('the table of keys is bounded: the least recently used goes first', (t) => {
  const budget = new CostBudget(RULE, 'entries read', 2)
  budget.spend('a', 5_000, 0)
  budget.spend('b', 5_000, 0)
  budget.admit('c', 0)
  t.equal(budget.size, 2, 'two keys kept')
  t.not(refusal(() => budget.admit('b', 0)), null, 'b, used more recently, is remembered (and refused)')
  t.equal(refusal(() => budget.admit('a', 0)), null, 'a went first: it starts again with a full budget')
  t.end()
})

t.test('a whole window pays back a whole budget on a fractional clock (no 0.99999999 left of 1)', async (t) => {
  // performance.now() is fractional: (t + 10 000) - t is 9 999.999999999998 at this t.
  const originMs = 12_345.6789
  const budget = new CostBudget(RULE, 'entries read')
  budget.spend('k', RULE.burst, originMs)
  const laterMs = originMs + RULE.burstWindowMs
  budget.spend('k', RULE.burst - 1, laterMs)
  t.equal(refusal(() => budget.admit('k', laterMs)), null, 'one of the budget left: let in')
})
