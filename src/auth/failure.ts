/**
 * Authentication failures: one code per check, so a client learns which check failed (clock
 * skew, unknown key, wrong passphrase, wrong address, bad signature) instead of one opaque
 * "Unauthorized/Invalid api key". All of them answer 401; an admin check that fails, 401 too.
 * The codes are the catalogue's (src/errors.ts, AuthCode).
 */
import { AuthCode } from '../errors.js'

export interface AuthFailure {
  readonly ok: false
  readonly code: AuthCode
  readonly message: string
  readonly context: Readonly<Record<string, string | number | boolean>> | null
}

export function authFailure(code: AuthCode, message: string,
  context: Readonly<Record<string, string | number | boolean>> | null = null): AuthFailure {
  return { ok: false, code, message, context }
}

export interface TimestampWindow {
  /** Seconds a request may be older than the server clock (default 60). */
  readonly pastSec: number
  /** Seconds a request may be ahead of the server clock (default 10). */
  readonly futureSec: number
}

export const DEFAULT_WINDOW: TimestampWindow = { pastSec: 60, futureSec: 10 }

/** Checks a request timestamp (unix seconds, decimal) against the server clock. */
export function checkTimestamp(timestamp: string, nowSec: number, window: TimestampWindow): AuthFailure | null {
  if (!/^[0-9]{1,12}$/.test(timestamp)) {
    return authFailure(AuthCode.AUTH_TIMESTAMP, 'the timestamp must be unix seconds', { serverTime: nowSec })
  }
  const delta = Number(timestamp) - nowSec
  if (delta < -window.pastSec || delta > window.futureSec) {
    return authFailure(AuthCode.AUTH_TIMESTAMP,
      `the timestamp is outside the window (${window.pastSec} s past, ${window.futureSec} s ahead): ` +
      `server time ${nowSec}, ` +
      `delta ${delta} s; check the client clock or use GET /time`, { serverTime: nowSec, deltaSec: delta })
  }
  return null
}
