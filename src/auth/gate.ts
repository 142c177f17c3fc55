/**
 * The gate: authentication, rate limits and failure blocking, once for every face. A face
 * extracts what the client presented (headers, the signed message, a credential in a first
 * message) and the client's address, and asks the gate; the gate answers with the identity or
 * throws a catalogue error (401 with its AuthCode, 429 RATE_LIMITED with `retryAfterSeconds`).
 * It knows no transport: REST, the WebSocket user channel and gRPC use it.
 *
 * Order of the checks, so that abuse costs the abuser and not the server: a (client address,
 * claimed identity) pair that failed too often is refused before any check; L1 requests count
 * against the client address before the (costly) signature recovery, L2 requests against the
 * API key once it is proven. Both clocks are injected: wall-clock seconds for the signed
 * timestamps, monotonic milliseconds for the budgets.
 */
import { ApiCode, PredexError } from '../errors.js'
import {
  AUTH_CLAIM_CHARS_MAX, AUTH_FAILURE_BLOCK_MS, RATE_LIMIT_SWEEP_INTERVAL_MS, RATE_RULES, type RateClass, type RateRule,
} from '../limits.js'
import { verifyAdmin } from './admin.js'
import type { AuthFailure, TimestampWindow } from './failure.js'
import { claimedSubject, type HeaderGetter } from './headers.js'
import { verifyL1 } from './l1.js'
import { verifyL2Message, type ApiCredential, type L2Message } from './l2.js'
import { authFailureKey, type BudgetState, type RateLimiter } from './rate-limit.js'
import { verifySecret, type SecretCredential } from './secret.js'
import { SweepTimer } from './sweep-timer.js'
import type { Log } from '../log.js'

/** Who passed the gate. */
export interface Identity {
  /** L2 and secret: the API key used; L1: none. */
  readonly apiKey: string | null
  /** Lower-case address of the authenticated wallet. */
  readonly address: string
  /** L1: the nonce signed; otherwise 0. */
  readonly nonce: number
}

export interface GateClock {
  /** Wall-clock unix seconds: signed timestamps are checked against it. */
  readonly nowSec: () => number
  /** Monotonic milliseconds: budgets refill and blocks end on it. */
  readonly nowMs: () => number
}

export interface GateOptions {
  readonly chainId: number
  readonly window: TimestampWindow
  readonly adminKey: string
  readonly lookup: (apiKey: string) => ApiCredential | undefined
  readonly clock: GateClock
  /** Null: no rate limits and no blocking (benchmarks that drive one key far past Polymarket's budgets). */
  readonly limiter: RateLimiter | null
  readonly log: Log
}

/** What the client presented, as the face extracted it. */
export type Credentials =
  | { readonly kind: 'none' }
  | { readonly kind: 'admin'; readonly headers: HeaderGetter }
  | { readonly kind: 'l1'; readonly headers: HeaderGetter }
  /** `message`: what the face's HMAC covers after the timestamp (restL2Message for REST). */
  | { readonly kind: 'l2'; readonly headers: HeaderGetter; readonly message: L2Message }
  | { readonly kind: 'secret'; readonly credential: SecretCredential }

export interface Passage {
  readonly credentials: Credentials
  /** The client's network address: the key of the general, unauthenticated and L1 budgets. */
  readonly remoteAddress: string
  /** The operation's own budget, if it has one; `bucket` names it in keys and messages ("POST /order"). */
  readonly rate: { readonly bucket: string; readonly rule: RateClass } | null
}

/** A stream request's charge: refused (RATE_LIMITED) or not, and the budget left at that instant. */
export interface Charge {
  readonly refusal: PredexError | null
  /** Null when rate limits are off. */
  readonly budget: BudgetState | null
}

export class Gate {
  /** Drops the limiter's entries that are full again (RATE_LIMIT_SWEEP_INTERVAL_MS): memory comes back after floods. */
  private readonly sweeps: SweepTimer | null

  /** The gate's monotonic clock (ms), which the gRPC port's budgets per address read too. */
  monotonicMs(): number {
    return this.options.clock.nowMs()
  }

  constructor(private readonly options: GateOptions) {
    const { limiter, clock } = options
    this.sweeps = limiter === null ? null
      : new SweepTimer(() => limiter.sweep(clock.nowMs()), RATE_LIMIT_SWEEP_INTERVAL_MS)
  }

  /**
   * Takes one request from the client address's general budget, before anything else is read
   * (a client over its budget costs as little as possible); throws RATE_LIMITED.
   */
  admit(remoteAddress: string): void {
    this.limit(GENERAL.bucket, RATE_RULES.general, remoteAddress)
  }

  /** What the client address's general budget allows now (a request without a budget of its own reports it). */
  generalBudgetOf(remoteAddress: string): BudgetState | null {
    return this.budgetOf(GENERAL, remoteAddress)
  }

  /** The identity of `passage` (null without credentials), or throws a 401 or a 429. */
  pass(passage: Passage): Identity | null {
    const { credentials, remoteAddress, rate } = passage
    const rule = rate === null ? null : RATE_RULES[rate.rule]
    const bucket = rate?.bucket ?? ''
    if (credentials.kind === 'none') {
      if (rule !== null) this.limit(bucket, rule, remoteAddress)
      return null
    }
    const failures = authFailureKey(remoteAddress, claimOf(credentials))
    const blockedSec = this.options.limiter?.blockedFor(failures, this.options.clock.nowMs()) ?? null
    if (blockedSec !== null) {
      throw rateLimited(blockedSec, RATE_RULES.authFailure, 'too many failed authentications; blocked for a while')
    }
    if (credentials.kind === 'l1' && rule !== null) this.limit(bucket, rule, remoteAddress)
    const identity = this.verify(credentials)
    if ('ok' in identity) {
      this.countFailure(failures)
      throw new PredexError(identity.code, identity.message, identity.context)
    }
    if (credentials.kind === 'l2' && rule !== null) this.limit(bucket, rule, identity.apiKey!)
    return credentials.kind === 'admin' ? null : identity
  }

  /**
   * Takes one request from `apiKey`'s budget for `rate` (the same bucket as the REST route of the
   * use case), for the requests of a stream authenticated once at open: the RATE_LIMITED refusal
   * if spent, and the budget left, both at one reading of the clock (read twice, a refusal could
   * report a request left that refilled in between).
   */
  charge(rate: NonNullable<Passage['rate']>, apiKey: string): Charge {
    const nowMs = this.options.clock.nowMs()
    let refusal: PredexError | null = null
    try {
      this.limit(rate.bucket, RATE_RULES[rate.rule], apiKey, nowMs)
    } catch (error) {
      if (!(error instanceof PredexError)) throw error
      refusal = error
    }
    return { refusal, budget: this.budgetAt(rate, apiKey, nowMs) }
  }

  /**
   * What `subject`'s budget for `rate` allows now (read only): an API key's, or a client address's
   * for requests without credentials or with L1 ones; null when rate limits are off.
   */
  budgetOf(rate: NonNullable<Passage['rate']>, subject: string): BudgetState | null {
    return this.budgetAt(rate, subject, this.options.clock.nowMs())
  }

  private budgetAt(rate: NonNullable<Passage['rate']>, subject: string, nowMs: number): BudgetState | null {
    const limiter = this.options.limiter
    return limiter === null ? null : limiter.peek(budgetKey(rate.bucket, subject), RATE_RULES[rate.rule], nowMs)
  }

  /** Checks the credentials alone: the identity, or the failed check. */
  private verify(credentials: Exclude<Credentials, { kind: 'none' }>): Identity | AuthFailure {
    const { chainId, window, adminKey, lookup, clock } = this.options
    switch (credentials.kind) {
      case 'admin': {
        const result = verifyAdmin(credentials.headers, adminKey)
        return result.ok ? { apiKey: null, address: '', nonce: 0 } : result
      }
      case 'l1': {
        const result = verifyL1(credentials.headers, chainId, clock.nowSec(), window)
        return result.ok ? { apiKey: null, address: result.address, nonce: result.nonce } : result
      }
      case 'l2': {
        const result = verifyL2Message(credentials.headers, credentials.message, lookup, clock.nowSec(), window)
        return result.ok ? { apiKey: result.apiKey, address: result.address, nonce: 0 } : result
      }
      case 'secret': {
        const result = verifySecret(credentials.credential, lookup)
        return result.ok ? { apiKey: result.credential.apiKey, address: result.credential.address, nonce: 0 } : result
      }
    }
  }

  /** Takes one request from `subject`'s budget for `bucket`, or throws RATE_LIMITED. */
  private limit(bucket: string, rule: RateRule, subject: string, nowMs = this.options.clock.nowMs()): void {
    const waitSec = this.options.limiter?.take(budgetKey(bucket, subject), rule, nowMs) ?? null
    this.sweeps?.arm()
    if (waitSec === null) return
    throw rateLimited(waitSec, rule, `rate limit of ${bucket === 'general' ? 'all requests' : bucket} exceeded`)
  }

  /** Counts a failed authentication; exhausting the budget blocks the pair for AUTH_FAILURE_BLOCK_MS. */
  private countFailure(failures: string): void {
    const blocked = this.options.limiter?.recordAuthFailure(failures, this.options.clock.nowMs()) === true
    this.sweeps?.arm()
    if (blocked) {
      this.options.log.warn('rate limit: blocked after repeated authentication failures',
        { claim: failures, blockedSeconds: AUTH_FAILURE_BLOCK_MS / 1000 })
    }
  }
}

/** The claim that all of a client address's claims longer than AUTH_CLAIM_CHARS_MAX are counted under. */
const OVERSIZED_CLAIM = '(oversized)'

/**
 * Who the credentials claim to be, before any check: failures are counted per (client address,
 * claim), so one client guessing cannot block another, nor one key's owner elsewhere. A claim
 * longer than any key or address can never pass, and is not kept: all of them count as one.
 */
function claimOf(credentials: Exclude<Credentials, { kind: 'none' }>): string {
  const claim = presentedClaimOf(credentials)
  return claim.length > AUTH_CLAIM_CHARS_MAX ? OVERSIZED_CLAIM : claim
}

function presentedClaimOf(credentials: Exclude<Credentials, { kind: 'none' }>): string {
  switch (credentials.kind) {
    case 'admin': return 'admin'
    case 'secret': return credentials.credential.apiKey ?? ''
    default: return claimedSubject(credentials.headers)
  }
}

/** Every request's budget, per client address (RATE_RULES.general). */
const GENERAL = { bucket: 'general', rule: 'general' } as const

/** The limiter's key of `subject`'s budget for `bucket`. */
function budgetKey(bucket: string, subject: string): string {
  return `${bucket} ${subject}`
}

function rateLimited(retryAfterSeconds: number, rule: RateRule, message: string): PredexError {
  const windowSeconds = rule.burstWindowMs / 1000
  return new PredexError(ApiCode.RATE_LIMITED, message, { retryAfterSeconds, limit: rule.burst, windowSeconds })
}
