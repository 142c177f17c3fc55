/**
 * The L2 request signature (Polymarket's POLY_SIGNATURE, reference section 2.2):
 * HMAC-SHA256 over `timestamp + METHOD + path + body`, keyed with the base64-decoded secret,
 * written as URL-safe base64 with its `=` padding. The body is the raw bytes as received:
 * re-serialising JSON would change them. Comparisons are constant-time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** The secret's key bytes: base64 or base64url, anything outside the alphabet ignored (as clob-client does). */
export function secretKey(secret: string): Buffer {
  const standard = secret.replace(/-/g, '+').replace(/_/g, '/').replace(/[^A-Za-z0-9+/]/g, '')
  return Buffer.from(standard, 'base64')
}

/**
 * `secret` as the API gave it, or its key bytes decoded once (`secretKey`: a server checks every
 * request of a key with the same secret, and decoding it took a quarter of the check).
 */
export function l2Signature(
  secret: string | Uint8Array,
  timestamp: string,
  method: string,
  path: string,
  body: Uint8Array | string,
): string {
  const hmac = createHmac('sha256', typeof secret === 'string' ? secretKey(secret) : secret)
  hmac.update(timestamp + method.toUpperCase() + path)
  if (body.length > 0) hmac.update(body)
  // 32 bytes: 43 characters of URL-safe base64 and one '=' of padding, as clob-client writes it.
  return hmac.digest('base64url') + '='
}

/** Constant-time equality of two strings (false at once only when their lengths differ). */
export function equalSecrets(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  if (left.length !== right.length) {
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}
