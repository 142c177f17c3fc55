/**
 * The L2 request signature (Polymarket's POLY_SIGNATURE, reference section 2.2):
 * HMAC-SHA256 over `timestamp + METHOD + path + body`, keyed with the base64-decoded secret,
 * written as URL-safe base64 with its `=` padding. The body is the raw bytes as received:
 * re-serialising JSON would change them. Comparisons are constant-time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { HMAC_DECODED_SECRETS_MAX } from '../limits.js'
import { Lru } from '../stdx/lru.js'

/** The secret's key bytes: base64 or base64url, anything outside the alphabet ignored (as clob-client does). */
export function secretKey(secret: string): Buffer {
  const standard = secret.replace(/-/g, '+').replace(/_/g, '/').replace(/[^A-Za-z0-9+/]/g, '')
  return Buffer.from(standard, 'base64')
}

/**
 * The secrets decoded lately: a server checks every request of a key with the same secret, and
 * decoding it took a quarter of the check (docs/performance.md, "A durable write's floor").
 */
const decodedSecrets = new Lru<Buffer>(HMAC_DECODED_SECRETS_MAX)

function keyOf(secret: string): Buffer {
  let key = decodedSecrets.get(secret)
  if (key === undefined) {
    key = secretKey(secret)
    decodedSecrets.set(secret, key)
  }
  return key
}

export function l2Signature(
  secret: string,
  timestamp: string,
  method: string,
  path: string,
  body: Uint8Array | string,
): string {
  const hmac = createHmac('sha256', keyOf(secret))
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
