/**
 * The gate's per-request charge for streams authenticated once (order-entry sessions): one
 * request from the same budget a REST route of the use case draws on, RATE_LIMITED with
 * retryAfterSeconds when it is spent, and a read-only look at what is left (the session's
 * RateLimitState) that takes nothing and agrees with what the limiter then allows.
 */
import t from 'tap'
import { Gate } from '../../../src/auth/gate.js'
import { RateLimiter } from '../../../src/auth/rate-limit.js'
import { ApiCode, PredexError } from '../../../src/errors.js'
import { RATE_RULES } from '../../../src/limits.js'
import { SILENT_LOG } from '../../../src/log.js'

const API_KEY = '00000000-0000-4000-8000-000000000001'
const CANCEL_ALL = { bucket: 'DELETE /cancel-all', rule: 'cancelAll' } as const

function gateOf(limits = true): { gate: Gate; advanceMs: (ms: number) => void } {
  let nowMs = 1_000
  const gate = new Gate({
    chainId: 137, window: { pastSec: 60, futureSec: 10 }, adminKey: 'k'.repeat(40), log: SILENT_LOG,
    lookup: () => undefined, clock: { nowSec: () => 1_700_000_000, nowMs: () => nowMs },
    limiter: limits ? new RateLimiter() : null,
  })
  return { gate, advanceMs: (ms) => void (nowMs += ms) }
}

function chargeError(gate: Gate): PredexError | null {
  return gate.charge(CANCEL_ALL, API_KEY).refusal
}

t.test('charge takes from the bucket until it is spent, then RATE_LIMITED with the wait', (t) => {
  const { gate, advanceMs } = gateOf()
  const rule = RATE_RULES.cancelAll
  t.same(gate.budgetOf(CANCEL_ALL, API_KEY), { remaining: rule.burst, limit: rule.burst, resetMs: 0 },
    'a key never charged has its whole burst')
  for (let i = 0; i < rule.burst; i++) gate.charge(CANCEL_ALL, API_KEY)
  const spent = gate.budgetOf(CANCEL_ALL, API_KEY)!
  t.equal(spent.remaining, 0, 'nothing left')
  t.equal(spent.resetMs, rule.burstWindowMs, 'the burst window refills in full after its length')
  const error = chargeError(gate)
  t.equal(error?.code, ApiCode.RATE_LIMITED)
  t.ok(typeof error?.context?.['retryAfterSeconds'] === 'number' && error.context['retryAfterSeconds'] >= 1,
    'with retryAfterSeconds')
  t.equal(gate.budgetOf(CANCEL_ALL, API_KEY)!.remaining, 0, 'a refused request takes nothing')
  advanceMs(rule.burstWindowMs / rule.burst)
  t.equal(gate.budgetOf(CANCEL_ALL, API_KEY)!.remaining, 1, 'one token back after its share of the window')
  t.equal(chargeError(gate), null, 'and the limiter agrees: one request passes')
  t.equal(chargeError(gate)?.code, ApiCode.RATE_LIMITED, 'and only one')
  t.end()
})

t.test('the look is read only, per key and per bucket', (t) => {
  const { gate } = gateOf()
  gate.charge(CANCEL_ALL, API_KEY)
  const once = gate.budgetOf(CANCEL_ALL, API_KEY)!
  for (let i = 0; i < 10; i++) gate.budgetOf(CANCEL_ALL, API_KEY)
  t.same(gate.budgetOf(CANCEL_ALL, API_KEY), once, 'looking takes nothing')
  t.equal(once.remaining, RATE_RULES.cancelAll.burst - 1)
  t.equal(gate.budgetOf(CANCEL_ALL, 'another-key')!.remaining, RATE_RULES.cancelAll.burst, 'another key: its own')
  const order = { bucket: 'POST /order', rule: 'order' } as const
  t.equal(gate.budgetOf(order, API_KEY)!.remaining, RATE_RULES.order.burst, 'another bucket: its own')
  t.end()
})

t.test('the sustained budget binds once the bursts have drained it', (t) => {
  const { gate, advanceMs } = gateOf()
  const rule = RATE_RULES.cancelAll
  // A whole burst every burst window: the burst bucket refills each time, the sustained one
  // (6000 per 10 minutes, 100 per window) loses 150 a window until it holds less than a burst.
  for (let window = 0; window < 100; window++) {
    const budget = gate.budgetOf(CANCEL_ALL, API_KEY)!
    if (budget.remaining < rule.burst) {
      t.ok(window > 30, `after ${window} windows, ${budget.remaining} left although the burst bucket is full`)
      const refillMs = ((rule.burst - budget.remaining) * rule.sustainedWindowMs) / rule.sustained
      t.ok(Math.abs(budget.resetMs - refillMs) <= 1,
        `reset when the sustained budget holds a burst again (${budget.resetMs} ms)`)
      for (let i = 0; i < budget.remaining; i++) gate.charge(CANCEL_ALL, API_KEY)
      t.equal(chargeError(gate)?.code, ApiCode.RATE_LIMITED, 'the limiter allows exactly what the look said')
      t.end()
      return
    }
    for (let i = 0; i < rule.burst; i++) gate.charge(CANCEL_ALL, API_KEY)
    advanceMs(rule.burstWindowMs)
  }
  t.fail('the sustained budget never bound')
  t.end()
})

t.test('without a limiter: charges pass and there is no state to show', (t) => {
  const { gate } = gateOf(false)
  for (let i = 0; i < 1_000; i++) gate.charge(CANCEL_ALL, API_KEY)
  t.equal(gate.budgetOf(CANCEL_ALL, API_KEY), null)
  t.end()
})

t.test('a refusal reports the budget of its own instant: nothing left, even if time passes before the answer', (t) => {
  let tickMs = 0
  let nowMs = 1_000
  const gate = new Gate({
    chainId: 137, window: { pastSec: 60, futureSec: 10 }, adminKey: 'k'.repeat(40), log: SILENT_LOG,
    lookup: () => undefined, clock: { nowSec: () => 1_700_000_000, nowMs: () => (nowMs += tickMs) },
    limiter: new RateLimiter(),
  })
  for (let i = 0; i < RATE_RULES.cancelAll.burst; i++) gate.charge(CANCEL_ALL, API_KEY)
  // One token every 40 ms (250 per 10 s). From here each reading of the clock is 10 ms later (a
  // busy machine): the charge reads 36 ms (0.9 of a token: refused); a second reading would see 46.
  nowMs += 26
  tickMs = 10
  const charge = gate.charge(CANCEL_ALL, API_KEY)
  t.equal(charge.refusal?.code, ApiCode.RATE_LIMITED, 'refused short of a token')
  t.equal(charge.budget?.remaining, 0, 'and its budget, read at the same instant, has nothing left')
  t.end()
})
