/**
 * A token bucket's refill, the one every budget kept in time uses (the rate limiter and cost
 * budgets of src/auth, a socket's book snapshots, the signer cache's table builds): `tokens` a
 * while later, at `capacity` per `windowMs`, never past `capacity`.
 *
 * The time between two readings is rounded to whole microseconds first. Monotonic times are
 * fractional, and (t + 10 000) - t can come out as 9 999.999999999998 in doubles: a budget drained
 * at t read 49.99999999 tokens of 50 a whole window later, so 48 were left after the next request
 * (test/contract/rest-rate-limits.test.ts failed a CI run on it, 2026-12-01).
 */
export function refilledTokens(tokens: number, capacity: number, windowMs: number, fromMs: number, toMs: number):
  number {
  return Math.min(capacity, tokens + (elapsedMs(fromMs, toMs) * capacity) / windowMs)
}

/** Milliseconds from `fromMs` to `toMs`, rounded to whole microseconds; 0 if the clock read earlier. */
export function elapsedMs(fromMs: number, toMs: number): number {
  return Math.max(0, Math.round((toMs - fromMs) * 1000) / 1000)
}
