/**
 * The one set of validators and formatters for the wire: exact decimal strings to micro-units
 * and back, addresses, token ids, cursors, and the JSON body rules (no `__proto__`,
 * `constructor` or `prototype` keys, bounded depth). REST, WebSocket and gRPC all use these.
 */
import { ApiCode, PredexError } from '../errors.js'
import { isAddress } from '../crypto/address.js'
import { JSON_DEPTH_MAX, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../limits.js'

const MICROS = 1_000_000n
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** Parses a JSON body: BAD_JSON for anything that is not JSON, FORBIDDEN_KEY for prototype keys. */
export function parseJsonBody(body: Uint8Array): unknown {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'))
  } catch {
    throw new PredexError(ApiCode.BAD_JSON, 'the body is not valid JSON')
  }
  checkKeys(value, 0)
  return value
}

function checkKeys(value: unknown, depth: number): void {
  if (value === null || typeof value !== 'object') return
  if (depth > JSON_DEPTH_MAX) {
    throw new PredexError(ApiCode.BAD_JSON, `the body nests deeper than ${JSON_DEPTH_MAX} levels`)
  }
  if (Array.isArray(value)) {
    for (const item of value) checkKeys(item, depth + 1)
    return
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) {
      throw new PredexError(ApiCode.FORBIDDEN_KEY, `the key "${key}" is not allowed`, { key })
    }
    checkKeys((value as Record<string, unknown>)[key], depth + 1)
  }
}

/**
 * An exact non-negative decimal string ("0.55", "10", "10.5") to micro-units. More than 6
 * decimals is an error, never a rounding; so is anything that is not a plain decimal.
 */
export function microsOfDecimal(text: unknown, field: string): number {
  if (typeof text === 'number' && Number.isFinite(text)) text = String(text)
  if (typeof text !== 'string' || !/^\d{1,15}(\.\d+)?$/.test(text)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} must be a decimal number such as "0.55"`, { field })
  }
  const [whole, fraction = ''] = text.split('.')
  if (fraction.length > 6) {
    throw new PredexError(ApiCode.INVALID_PARAMETER,
      `${field} has more than 6 decimal places`, { field, decimalsMax: 6 })
  }
  const micros = BigInt(whole!) * MICROS + BigInt(fraction.padEnd(6, '0'))
  if (micros > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} is too large`, { field })
  }
  return Number(micros)
}

/** A 6-decimal integer string (as signed orders and balances carry amounts) to a number. */
export function integerOf(text: unknown, field: string, max: number = Number.MAX_SAFE_INTEGER): number {
  if (typeof text === 'number' && Number.isSafeInteger(text) && text >= 0) text = String(text)
  if (typeof text !== 'string' || !/^\d{1,20}$/.test(text)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} must be a non-negative integer`, { field })
  }
  const value = BigInt(text)
  if (value > BigInt(max)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} is larger than ${max}`, { field, max })
  }
  return Number(value)
}

/** A query integer that may be absent (unix seconds and the like); malformed is a 400. */
export function optionalInteger(text: string | null, field: string): number | null {
  return text === null || text === '' ? null : integerOf(text, field)
}

const UINT256_DIGITS_MAX = 78
const UINT256_LIMIT = 1n << 256n

/**
 * A uint256 as the wire carries it: a decimal string, or a safe JSON integer (clob-client sends
 * the salt as a number). Parsed once, to a BigInt; null when it is not one, so that each format
 * refuses it with its own code and words.
 */
export function uint256Of(value: unknown): bigint | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null
  if (typeof value !== 'string' || value.length > UINT256_DIGITS_MAX || !/^\d+$/.test(value)) return null
  const parsed = BigInt(value)
  return parsed < UINT256_LIMIT ? parsed : null
}

export { decimalOfMicros } from '../stdx/decimal.js'


export function addressOf(text: unknown, field: string): string {
  if (!isAddress(text)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} must be an address (0x and 40 hex digits)`, { field })
  }
  return text.toLowerCase()
}

/** An order id (its hash: 0x and 64 hex digits), lower case; INVALID_PARAMETER naming `field` otherwise. */
export function orderIdOf(value: unknown, field = 'orderID'): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid orderID', { field })
  }
  return value.toLowerCase()
}

/** A token id: a decimal uint256 (or, for markets created by tests, any short id). */
export function tokenIdOf(text: unknown, field = 'token_id'): string {
  if (typeof text !== 'string' || text.length === 0 || text.length > 128 || !/^[0-9A-Za-z_-]+$/.test(text)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} must be a token id`, { field })
  }
  return text
}

export function requireString(value: unknown, field: string, lengthMax = 256): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > lengthMax) {
    throw new PredexError(ApiCode.INVALID_PARAMETER,
      `${field} must be a non-empty string of at most ${lengthMax} characters`, { field })
  }
  return value
}

/**
 * An optional filter: absent, null or "" is no filter (null); a string is the filter; anything else
 * is refused, never read as "no filter" (a cancel by market with {"market": 123} must not cancel all).
 */
export function optionalFilter(value: unknown, field: string, lengthMax = 256): string | null {
  if (value === undefined || value === null || value === '') return null
  return requireString(value, field, lengthMax)
}

export function requireObject(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} must be an object`, { field })
  }
  return value as Record<string, unknown>
}

/** Polymarket's cursor: base64 of a decimal offset; "MA==" is the start, "LTE=" the end. */
export const CURSOR_START = 'MA=='
export const CURSOR_END = 'LTE='

export function offsetOfCursor(cursor: string | null): number {
  if (cursor === null || cursor === '') return 0
  const text = Buffer.from(cursor, 'base64').toString('utf8')
  if (!/^\d{1,9}$/.test(text)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER,
      'next_cursor is not a cursor of this API', { field: 'next_cursor' })
  }
  return Number(text)
}

export function cursorOfOffset(offset: number | null): string {
  return offset === null ? CURSOR_END : Buffer.from(String(offset)).toString('base64')
}

/** A page of `items` from a cursor: at most `limit`, and the next cursor (LTE= at the end). */
export function page<T>(items: readonly T[], cursor: string | null, limit: number): { data: T[]; nextCursor: string } {
  const offset = offsetOfCursor(cursor)
  const data = items.slice(offset, offset + limit)
  const next = offset + limit < items.length ? offset + limit : null
  return { data, nextCursor: cursorOfOffset(next) }
}

/** The page size from a `limit` query parameter: PAGE_LIMIT_DEFAULT when absent, at most PAGE_LIMIT_MAX. */
export function limitOf(text: string | null, fallback = PAGE_LIMIT_DEFAULT, max = PAGE_LIMIT_MAX): number {
  if (text === null || text === '') return fallback
  if (!/^\d{1,4}$/.test(text) || Number(text) < 1) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `limit must be 1..${max}`, { field: 'limit' })
  }
  return Math.min(Number(text), max)
}
