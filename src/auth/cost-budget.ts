/**
 * Budgets of work, charged by what a request cost rather than one a request: for reads whose
 * cost is their size (a page of a wallet's history with the positions it shows), so that a few
 * clients reading big pages cannot take the front end's thread from the rest (issue 14, finding
 * 6). A token bucket per key, refilled at `burst` per `burstWindowMs`; a request is let in while
 * the balance is positive and charged what it returned once it knows, which may take the balance
 * below zero by at most one request's cost: the next ones wait until it is paid back.
 *
 * The table of keys is bounded (least recently used goes first), as the rate limiter's; time
 * comes from the caller.
 */
import { ApiCode, PredexError } from '../errors.js'
import { RATE_LIMIT_KEYS_MAX, type RateRule } from '../limits.js'
import { refilledTokens } from '../stdx/token-bucket.js'

interface Bucket {
  tokens: number
  updatedMs: number
}

export class CostBudget {
  private readonly buckets = new Map<string, Bucket>()

  /** `what`: what is counted, for the refusal's message ("history entries read"). */
  constructor(private readonly rule: RateRule, private readonly what: string,
    private readonly keysMax: number = RATE_LIMIT_KEYS_MAX) {}

  /** Throws RATE_LIMITED with the wait when `key`'s balance is not positive; takes nothing. */
  admit(key: string, nowMs: number): void {
    const bucket = this.bucketOf(key, nowMs)
    if (bucket.tokens >= 1) return
    const { burst, burstWindowMs } = this.rule
    const retryAfterSeconds = Math.max(1, Math.ceil(((1 - bucket.tokens) * burstWindowMs) / burst / 1000))
    throw new PredexError(ApiCode.RATE_LIMITED,
      `budget of ${this.what} exceeded (${burst} per ${burstWindowMs / 1000} s): try again in ${retryAfterSeconds} s`,
      { retryAfterSeconds, limit: burst, windowSeconds: burstWindowMs / 1000 })
  }

  /** Charges `cost` to `key` (after admit, once the cost is known). */
  spend(key: string, cost: number, nowMs: number): void {
    this.bucketOf(key, nowMs).tokens -= cost
  }

  get size(): number {
    return this.buckets.size
  }

  /** `key`'s bucket refilled to `nowMs`, moved to the end of the table's order (most recently used). */
  private bucketOf(key: string, nowMs: number): Bucket {
    const { burst, burstWindowMs } = this.rule
    let bucket = this.buckets.get(key)
    if (bucket !== undefined) {
      this.buckets.delete(key)
      bucket.tokens = refilledTokens(bucket.tokens, burst, burstWindowMs, bucket.updatedMs, nowMs)
      bucket.updatedMs = Math.max(bucket.updatedMs, nowMs)
    } else {
      bucket = { tokens: burst, updatedMs: nowMs }
      if (this.buckets.size >= this.keysMax) this.buckets.delete(this.buckets.keys().next().value!)
    }
    this.buckets.set(key, bucket)
    return bucket
  }
}
