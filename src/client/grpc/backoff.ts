/**
 * Reconnect pacing for the SDK's streams: exponential delays between a minimum and a maximum,
 * with jitter (many clients dropped by one server restart should not come back in the same
 * millisecond), and a bound on failures in a row so that a stream that cannot come back ends
 * with its last error instead of retrying forever.
 */
import { status as GrpcStatus } from '@grpc/grpc-js'
import { GRPC_SDK_RECONNECT_ATTEMPTS_MAX, GRPC_SDK_RECONNECT_DELAY_MS_MAX, GRPC_SDK_RECONNECT_DELAY_MS_MIN }
  from '../../limits.js'
import type { GrpcCallError } from './transport.js'

/**
 * The ends after which a stream is opened again: the server went away or shed the stream
 * (UNAVAILABLE, CANCELLED by the server, a slow consumer's RESOURCE_EXHAUSTED...), or ended an
 * endless stream with OK (`null`). A refusal of the request itself (INVALID_ARGUMENT, NOT_FOUND,
 * UNAUTHENTICATED, PERMISSION_DENIED...) would be refused again: it ends the iterator.
 */
export function isRetryable(error: GrpcCallError | null): boolean {
  if (error === null) return true
  return RETRYABLE.has(error.grpcCode)
}

const RETRYABLE: ReadonlySet<number> = new Set([GrpcStatus.CANCELLED, GrpcStatus.UNKNOWN,
  GrpcStatus.DEADLINE_EXCEEDED, GrpcStatus.RESOURCE_EXHAUSTED, GrpcStatus.ABORTED, GrpcStatus.INTERNAL,
  GrpcStatus.UNAVAILABLE])

export interface BackoffOptions {
  readonly delayMsMin?: number
  readonly delayMsMax?: number
  /** Failed attempts in a row after which `next()` answers null. */
  readonly attemptsMax?: number
}

export class Backoff {
  private failures = 0
  private readonly delayMsMin: number
  private readonly delayMsMax: number
  private readonly attemptsMax: number

  constructor(options: BackoffOptions = {}) {
    this.delayMsMin = options.delayMsMin ?? GRPC_SDK_RECONNECT_DELAY_MS_MIN
    this.delayMsMax = Math.max(this.delayMsMin, options.delayMsMax ?? GRPC_SDK_RECONNECT_DELAY_MS_MAX)
    this.attemptsMax = options.attemptsMax ?? GRPC_SDK_RECONNECT_ATTEMPTS_MAX
  }

  /** The delay before the next attempt, or null when `attemptsMax` attempts in a row have failed. */
  next(): number | null {
    if (this.failures >= this.attemptsMax) return null
    const delayMs = Math.min(this.delayMsMax, this.delayMsMin * 2 ** this.failures)
    this.failures++
    // Up to a fifth less, never more: the bound stays the bound.
    return Math.round(delayMs * (1 - Math.random() / 5))
  }

  /** The delay before retrying after `error`: at least what the server's retry info asks. */
  after(error: GrpcCallError | null): number | null {
    const delayMs = this.next()
    if (delayMs === null) return null
    return Math.max(delayMs, error?.retryAfterMs ?? 0)
  }

  /** A connection worked (its snapshot arrived): the next failure starts from the minimum again. */
  reset(): void {
    this.failures = 0
  }
}

/** Waits `delayMs`, or less if `signal` aborts first. */
export function sleep(delayMs: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, delayMs)
    signal.addEventListener('abort', done)
  })
}
