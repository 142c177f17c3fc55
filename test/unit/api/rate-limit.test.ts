/**
 * The token buckets of the REST rate limits, on an injected clock: burst, refill, the sustained
 * budget, Retry-After, blocking, and the bound on remembered keys.
 */
import t from 'tap'
import { authFailureKey, RateLimiter } from '../../../src/auth/rate-limit.js'
import { AUTH_FAILURE_BLOCK_MS, RATE_RULES, type RateRule } from '../../../src/limits.js'

const BURST_3_PER_SEC: RateRule = { burst: 3, burstWindowMs: 1_000 }
const WITH_SUSTAINED: RateRule = { burst: 3, burstWindowMs: 1_000, sustained: 4, sustainedWindowMs: 60_000 }

t.test('a burst is allowed, the next request waits for one token', async (t) => {
  const limiter = new RateLimiter()
  for (let i = 0; i < 3; i++) t.equal(limiter.take('k', BURST_3_PER_SEC, 0), null, `request ${i + 1} of the burst`)
  t.equal(limiter.take('k', BURST_3_PER_SEC, 0), 1, 'the fourth waits; Retry-After is at least one second')
  t.equal(limiter.take('k', BURST_3_PER_SEC, 300), 1, 'still under one token after 300 ms (0.9 token)')
  t.equal(limiter.take('k', BURST_3_PER_SEC, 334), null, 'one token back after a third of the window')
  t.equal(limiter.take('k', BURST_3_PER_SEC, 334), 1, 'and it was taken')
})

t.test('a refused request takes nothing', async (t) => {
  const limiter = new RateLimiter()
  for (let i = 0; i < 3; i++) limiter.take('k', BURST_3_PER_SEC, 0)
  for (let i = 0; i < 100; i++) limiter.take('k', BURST_3_PER_SEC, 0)
  t.equal(limiter.take('k', BURST_3_PER_SEC, 1_000), null, 'after one window the full burst is back')
  t.equal(limiter.take('k', BURST_3_PER_SEC, 1_000), null)
  t.equal(limiter.take('k', BURST_3_PER_SEC, 1_000), null)
  t.equal(limiter.take('k', BURST_3_PER_SEC, 1_000), 1)
})

t.test('keys and rules do not share budgets', async (t) => {
  const limiter = new RateLimiter()
  for (let i = 0; i < 3; i++) limiter.take('a', BURST_3_PER_SEC, 0)
  t.equal(limiter.take('a', BURST_3_PER_SEC, 0), 1)
  t.equal(limiter.take('b', BURST_3_PER_SEC, 0), null, 'another key has its own bucket')
})

t.test('the sustained budget limits past the burst refills, with its own Retry-After', async (t) => {
  const limiter = new RateLimiter()
  for (let i = 0; i < 3; i++) t.equal(limiter.take('k', WITH_SUSTAINED, 0), null)
  t.equal(limiter.take('k', WITH_SUSTAINED, 1_000), null, 'the burst refilled; the fourth of the sustained 4')
  const wait = limiter.take('k', WITH_SUSTAINED, 1_000)
  // The sustained bucket holds 4 - 4 + 1 000 ms x 4/60 000 ms = 0.0667 tokens: 0.933 x 15 s = 14 s.
  t.equal(wait, 14, 'the burst has tokens, but the sustained budget is spent: wait for it')
  t.equal(limiter.take('k', WITH_SUSTAINED, 15_000), null, 'one sustained token back after 15 s')
})

t.test('blocking: every take answers the time left, then the budget is as before', async (t) => {
  const limiter = new RateLimiter()
  t.equal(limiter.blockedFor('k', 0), null)
  limiter.block('k', BURST_3_PER_SEC, 60_000, 0)
  t.equal(limiter.blockedFor('k', 0), 60)
  t.equal(limiter.take('k', BURST_3_PER_SEC, 30_500), 30, 'blocked: the rest of the block, rounded up')
  t.equal(limiter.blockedFor('k', 60_000), null, 'the block ends')
  t.equal(limiter.take('k', BURST_3_PER_SEC, 60_000), null)
})

t.test('the table of keys is bounded; the least recently used key goes first', async (t) => {
  const limiter = new RateLimiter(3)
  for (const key of ['a', 'b', 'c']) limiter.take(key, { burst: 1, burstWindowMs: 1_000 }, 0)
  limiter.take('a', { burst: 1, burstWindowMs: 1_000 }, 0)
  limiter.take('d', { burst: 1, burstWindowMs: 1_000 }, 0)
  t.equal(limiter.size, 3, 'never more than the bound')
  t.equal(limiter.take('a', { burst: 1, burstWindowMs: 1_000 }, 0), 1, '"a" was used recently: kept, still empty')
  t.equal(limiter.take('b', { burst: 1, burstWindowMs: 1_000 }, 0), null, '"b" was the oldest: forgotten, a fresh bucket')
})

t.test("the rules mirror Polymarket's published limits and are well formed", async (t) => {
  t.equal(RATE_RULES.order.burst, 3_500)
  t.equal(RATE_RULES.order.sustained, 36_000)
  t.equal(RATE_RULES.general.burst, 9_000)
  t.ok(RATE_RULES.cancel.burst >= RATE_RULES.batch.burst, 'single cancels are not starved by the batch budget')
  for (const [name, rule] of Object.entries(RATE_RULES) as [string, RateRule][]) {
    t.ok(rule.burst > 0 && rule.burstWindowMs > 0, `${name}: a positive burst`)
    if (rule.sustained !== undefined) t.ok(rule.sustained / rule.sustainedWindowMs! <= rule.burst / rule.burstWindowMs, `${name}: sustained below burst rate`)
  }
})

t.test('a block of 60 s answers 60 s at its start, whatever the clock reads (no floating-point 61)', (t) => {
  // 12100.274 + 60000 - 12100.274 is 60000.00000000001 in doubles: a seconds ceiling of the raw
  // difference said 61 (test/contract/rest-rate-limits.test.ts saw it under load).
  const nowMs = 12100.274
  const limiter = new RateLimiter()
  const key = authFailureKey('127.0.0.1', 'key')
  limiter.block(key, RATE_RULES.authFailure, nowMs + AUTH_FAILURE_BLOCK_MS, nowMs)
  t.equal(limiter.blockedFor(key, nowMs), AUTH_FAILURE_BLOCK_MS / 1000, 'blockedFor')
  t.equal(limiter.take(key, RATE_RULES.authFailure, nowMs), AUTH_FAILURE_BLOCK_MS / 1000, 'take')
  t.equal(limiter.blockedFor(key, nowMs + 0.5), AUTH_FAILURE_BLOCK_MS / 1000, 'half a millisecond later: still 60')
  t.equal(limiter.blockedFor(key, nowMs + 1_000), AUTH_FAILURE_BLOCK_MS / 1000 - 1, 'a second later: 59')
  t.end()
})

t.test('a whole window on a fractional monotonic clock refills the whole budget (no floating-point 48 of 50)', (t) => {
  // performance.now() is fractional: (t + 10 000) - t is 9 999.999999999998 at this t, and a budget
  // refilled by that read 49.99999999 tokens, 48 after the next request (a CI failure, 2026-12-01).
  const rule = RATE_RULES.balanceUpdate
  const originMs = 12_345.6789
  t.not((originMs + rule.burstWindowMs) - originMs, rule.burstWindowMs, 'this origin shows the rounding')
  const limiter = new RateLimiter()
  while (limiter.take('k', rule, originMs) === null) { /* drain the budget */ }
  const laterMs = originMs + rule.burstWindowMs
  t.equal(limiter.peek('k', rule, laterMs).remaining, rule.burst, 'whole again after the window')
  t.equal(limiter.take('k', rule, laterMs), null)
  t.equal(limiter.peek('k', rule, laterMs).remaining, rule.burst - 1, 'one taken: one fewer')
  t.end()
})
