/**
 * Rate limits: token buckets per (class, key), a burst bucket and optionally a sustained one,
 * mirroring Polymarket's published limits (reliability-anchors.md, "Rate limiting"), so a client
 * that is too fast gets 429 with `Retry-After` at once rather than silent queueing it cannot tell
 * from slowness. Cancels have their own, larger budgets, so a throttled client can always reduce
 * its risk. Authentication failures have a bucket of their own: exhausting it blocks the claimed
 * key (or address) for a while, so guessing costs the guesser, not the engine.
 *
 * The table of keys is bounded (least recently used goes first), and sweep() drops the entries
 * that are full again and block nothing, so the table of a flood of one-off keys shrinks back
 * after it (issue 27); time comes from the caller.
 */
import { AUTH_FAILURE_BLOCK_MS, RATE_LIMIT_KEYS_MAX, RATE_RULES, type RateRule } from '../limits.js'
import { refilledTokens } from '../stdx/token-bucket.js'

/** The failure budget's key: per client address and claimed identity (an API key, a wallet, "admin"). */
export function authFailureKey(remoteAddress: string, claimed: string): string {
  return `auth-failures ${remoteAddress} ${claimed}`
}

interface Bucket {
  tokens: number
  updatedMs: number
}

interface Entry {
  readonly burst: Bucket
  readonly sustained: Bucket | null
  blockedUntilMs: number
  /** From then on every bucket is full and no block holds: the entry is as good as absent. */
  idleFromMs: number
}

/** Refills `bucket` to `nowMs` at `capacity` per `windowMs`. */
function refill(bucket: Bucket, capacity: number, windowMs: number, nowMs: number): void {
  bucket.tokens = tokensAt(bucket, capacity, windowMs, nowMs)
  bucket.updatedMs = nowMs
}

/** When `entry`'s buckets are all full again, and its block (if any) over. */
function idleFrom(entry: Entry, rule: RateRule): number {
  const fullAt = (bucket: Bucket, capacity: number, windowMs: number): number =>
    bucket.updatedMs + ((capacity - bucket.tokens) * windowMs) / capacity
  let idleFromMs = Math.max(entry.blockedUntilMs, fullAt(entry.burst, rule.burst, rule.burstWindowMs))
  if (entry.sustained !== null) {
    idleFromMs = Math.max(idleFromMs, fullAt(entry.sustained, rule.sustained!, rule.sustainedWindowMs!))
  }
  return idleFromMs
}

/** Milliseconds until `bucket` holds one whole token. */
function waitMs(bucket: Bucket, capacity: number, windowMs: number): number {
  return bucket.tokens >= 1 ? 0 : Math.ceil(((1 - bucket.tokens) * windowMs) / capacity)
}

/** What a budget allows from now: whole requests left, its burst size, and the wait until it is full again. */
export interface BudgetState {
  readonly remaining: number
  readonly limit: number
  /** Milliseconds until `remaining` is back to `limit` if nothing more is taken. */
  readonly resetMs: number
}

/** `bucket`'s tokens at `nowMs`, computed without changing it. */
function tokensAt(bucket: Bucket, capacity: number, windowMs: number, nowMs: number): number {
  return refilledTokens(bucket.tokens, capacity, windowMs, bucket.updatedMs, nowMs)
}

/**
 * Whole seconds from `nowMs` to `untilMs`, rounded up. The difference is rounded to whole
 * milliseconds first: monotonic times are fractional, and (t + 60 000) - t can come out as
 * 60 000.00000000001 in doubles, which a plain ceiling turns into 61 s.
 */
function secondsUntil(untilMs: number, nowMs: number): number {
  return Math.ceil(Math.round(untilMs - nowMs) / 1000)
}

export class RateLimiter {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly keysMax: number = RATE_LIMIT_KEYS_MAX) {}

  /**
   * Takes one request from `key`'s budget under `rule`: null when allowed, otherwise the seconds
   * to wait (for `Retry-After`; nothing is taken then).
   */
  take(key: string, rule: RateRule, nowMs: number): number | null {
    const entry = this.entryOf(key, rule, nowMs)
    if (entry.blockedUntilMs > nowMs) return secondsUntil(entry.blockedUntilMs, nowMs)
    refill(entry.burst, rule.burst, rule.burstWindowMs, nowMs)
    let wait = waitMs(entry.burst, rule.burst, rule.burstWindowMs)
    if (entry.sustained !== null) {
      refill(entry.sustained, rule.sustained!, rule.sustainedWindowMs!, nowMs)
      wait = Math.max(wait, waitMs(entry.sustained, rule.sustained!, rule.sustainedWindowMs!))
    }
    if (wait > 0) return Math.max(1, Math.ceil(wait / 1000))
    entry.burst.tokens -= 1
    if (entry.sustained !== null) entry.sustained.tokens -= 1
    entry.idleFromMs = idleFrom(entry, rule)
    return null
  }

  /**
   * What `key`'s budget under `rule` allows now, read only: nothing is taken, and the table's
   * order (least recently used) is left as it is. A key never charged has its full budget.
   */
  peek(key: string, rule: RateRule, nowMs: number): BudgetState {
    const entry = this.entries.get(key)
    if (entry === undefined) return { remaining: rule.burst, limit: rule.burst, resetMs: 0 }
    const burst = tokensAt(entry.burst, rule.burst, rule.burstWindowMs, nowMs)
    let remaining = burst
    // The burst bucket full again, and the sustained one (if any) holding a whole burst again.
    let resetMs = ((rule.burst - burst) * rule.burstWindowMs) / rule.burst
    if (entry.sustained !== null) {
      const sustained = tokensAt(entry.sustained, rule.sustained!, rule.sustainedWindowMs!, nowMs)
      remaining = Math.min(remaining, sustained)
      resetMs = Math.max(resetMs, (Math.max(0, rule.burst - sustained) * rule.sustainedWindowMs!) / rule.sustained!)
    }
    if (entry.blockedUntilMs > nowMs) {
      remaining = 0
      resetMs = Math.max(resetMs, entry.blockedUntilMs - nowMs)
    }
    return { remaining: Math.floor(remaining), limit: rule.burst, resetMs: Math.ceil(resetMs) }
  }

  /** Seconds `key` is still blocked for, or null. */
  blockedFor(key: string, nowMs: number): number | null {
    const entry = this.entries.get(key)
    if (entry === undefined || entry.blockedUntilMs <= nowMs) return null
    return secondsUntil(entry.blockedUntilMs, nowMs)
  }

  /** Blocks `key` until `untilMs` (every take answers with the time left). */
  block(key: string, rule: RateRule, untilMs: number, nowMs: number): void {
    const entry = this.entryOf(key, rule, nowMs)
    entry.blockedUntilMs = untilMs
    entry.idleFromMs = Math.max(entry.idleFromMs, untilMs)
  }

  /**
   * Drops the entries that are as good as absent at `nowMs` (every bucket full, no block): a key
   * seen again starts from a full budget, exactly what the dropped entry held. Answers the
   * entries left.
   */
  sweep(nowMs: number): number {
    for (const [key, entry] of this.entries) {
      if (entry.idleFromMs <= nowMs) this.entries.delete(key)
    }
    return this.entries.size
  }

  /**
   * Counts a failed authentication under `key` (authFailureKey); exhausting RATE_RULES.authFailure
   * blocks the key for AUTH_FAILURE_BLOCK_MS. True when this failure started a block.
   */
  recordAuthFailure(key: string, nowMs: number): boolean {
    if (this.take(key, RATE_RULES.authFailure, nowMs) === null) return false
    this.block(key, RATE_RULES.authFailure, nowMs + AUTH_FAILURE_BLOCK_MS, nowMs)
    return true
  }

  get size(): number {
    return this.entries.size
  }

  private entryOf(key: string, rule: RateRule, nowMs: number): Entry {
    let entry = this.entries.get(key)
    if (entry !== undefined) {
      // Least recently used first: a used key moves to the end of the map's order.
      this.entries.delete(key)
    } else {
      entry = {
        burst: { tokens: rule.burst, updatedMs: nowMs },
        sustained: rule.sustained === undefined ? null : { tokens: rule.sustained, updatedMs: nowMs },
        blockedUntilMs: 0,
        idleFromMs: nowMs,
      }
      if (this.entries.size >= this.keysMax) this.entries.delete(this.entries.keys().next().value!)
    }
    this.entries.set(key, entry)
    return entry
  }
}
