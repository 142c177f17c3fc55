/**
 * The rate limiter's table shrinks back after a flood (issue 27, finding 9: memory after abuse
 * did not come back). An entry whose budgets are full again and which blocks nothing is as good as
 * absent, so a sweep drops it; an entry still short of tokens, or still blocking, is kept until
 * then; and a dropped entry's budget is what an absent one's is.
 */
import t from 'tap'
import { RateLimiter } from '../../../src/auth/rate-limit.js'
import { AUTH_FAILURE_BLOCK_MS, RATE_RULES, type RateRule } from '../../../src/limits.js'

/** One request per window: an entry that took it is full again a whole window later. */
const ONE: RateRule = { burst: 1, burstWindowMs: 10_000 }
const KEYS = 1_000

t.test('a sweep drops the entries whose budgets are full again, and only those', (t) => {
  const limiter = new RateLimiter()
  for (let i = 0; i < KEYS; i++) limiter.take(`general 10.0.${i >> 8}.${i & 255}`, ONE, 0)
  t.equal(limiter.size, KEYS)
  t.equal(limiter.sweep(ONE.burstWindowMs / 2), KEYS, 'half a window later: each still short of its token, all kept')
  t.equal(limiter.sweep(ONE.burstWindowMs), 0, 'a whole window later: all full again, all dropped')
  t.end()
})

t.test('a blocked entry is kept until its block ends', (t) => {
  const limiter = new RateLimiter()
  const key = 'auth-failures 10.0.0.1 some-key'
  for (let i = 0; i <= RATE_RULES.authFailure.burst; i++) limiter.recordAuthFailure(key, 0)
  t.ok(limiter.blockedFor(key, 0) !== null, 'blocked')
  t.equal(limiter.sweep(RATE_RULES.authFailure.burstWindowMs), 1, 'the budget is full again, but the block holds')
  t.ok(limiter.blockedFor(key, AUTH_FAILURE_BLOCK_MS - 1) !== null, 'still blocked')
  t.equal(limiter.sweep(AUTH_FAILURE_BLOCK_MS), 0, 'dropped when the block ends')
  t.end()
})

t.test('a sustained budget keeps its entry until it is full again too', (t) => {
  const limiter = new RateLimiter()
  const rule = RATE_RULES.order
  for (let i = 0; i < rule.burst; i++) limiter.take('POST /order key', rule, 0)
  t.equal(limiter.sweep(rule.burstWindowMs), 1, 'the burst is full again, the sustained budget is not')
  t.equal(limiter.peek('POST /order key', rule, rule.burstWindowMs).remaining, rule.burst)
  t.equal(limiter.sweep(rule.sustainedWindowMs), 0, 'both full: dropped')
  t.same(limiter.peek('POST /order key', rule, rule.sustainedWindowMs), { remaining: rule.burst, limit: rule.burst, resetMs: 0 },
    'and its budget is an absent key\'s')
  t.end()
})
