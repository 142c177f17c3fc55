/** Hex and 32-byte word helpers for EIP-712 encoding. */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'

export const WORD_BYTES = 32

/** 0x + lower-case hex. */
export function toHex(bytes: Uint8Array): string {
  return '0x' + bytesToHex(bytes)
}

/** Bytes of a 0x-prefixed (or bare) hex string; throws on odd length or bad digits. */
export function fromHex(hex: string): Uint8Array {
  return hexToBytes(hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex)
}

/** Whether `text` is 0x followed by exactly `bytes` bytes of hex. */
export function isHexOfLength(text: string, bytes: number): boolean {
  return text.length === 2 + bytes * 2 && /^0x[0-9a-fA-F]*$/.test(text)
}

/** A uint256 as a 32-byte big-endian word. */
export function wordOfBigInt(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 256n) throw new RangeError('uint256 out of range')
  const word = new Uint8Array(WORD_BYTES)
  let rest = value
  for (let i = WORD_BYTES - 1; i >= 0 && rest > 0n; i--) {
    word[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
  return word
}

/** A uint256 written as a decimal string (as signed orders carry them). */
export function wordOfDecimal(decimal: string): Uint8Array {
  if (!/^[0-9]{1,78}$/.test(decimal)) throw new RangeError('not a decimal uint256')
  return wordOfBigInt(BigInt(decimal))
}

/** An address left-padded into a word. */
export function wordOfAddress(address: string): Uint8Array {
  if (!isHexOfLength(address, 20)) throw new RangeError('not an address')
  const word = new Uint8Array(WORD_BYTES)
  word.set(fromHex(address), 12)
  return word
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0
  for (const part of parts) length += part.length
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/*
 * Writers of 32-byte words straight into a buffer (the keccak module's memory, eip712.ts): no
 * bigint, no intermediate array. Each returns false, having written something or nothing, when
 * its input is not in the one form it takes; the caller then encodes with the functions above,
 * which throw what they always threw.
 */

/** The value of each hex digit's char code, -1 for any other code below 128. */
const NIBBLES = Int8Array.from({ length: 128 }, (_, code) => {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 97 && code <= 102) return code - 87
  if (code >= 65 && code <= 70) return code - 55
  return -1
})

/** Decodes `count` bytes of hex from `text` at `from` into `target` at `at`; false on a non-digit. */
export function writeHexBytes(target: Uint8Array, at: number, text: string, from: number, count: number): boolean {
  if (from + 2 * count > text.length) return false
  for (let i = 0; i < count; i++) {
    const highCode = text.charCodeAt(from + 2 * i)
    const lowCode = text.charCodeAt(from + 2 * i + 1)
    if ((highCode | lowCode) > 0x7f) return false
    const high = NIBBLES[highCode]!
    const low = NIBBLES[lowCode]!
    if ((high | low) < 0) return false
    target[at + i] = (high << 4) | low
  }
  return true
}

/** As wordOfAddress: exactly 0x + 40 hex digits, left-padded into the word at `at`. */
export function writeAddressWord(target: Uint8Array, at: number, address: string): boolean {
  if (typeof address !== 'string' || address.length !== 42 || address.charCodeAt(0) !== 48 ||
    address.charCodeAt(1) !== 120) return false
  target.fill(0, at, at + 12)
  return writeHexBytes(target, at + 12, address, 2, 20)
}

/** As fromHex with a length of 32: 64 hex digits, after 0x or 0X or nothing. */
export function writeBytes32Word(target: Uint8Array, at: number, hex: string): boolean {
  if (typeof hex !== 'string') return false
  const from = hex.length === 66 && hex.charCodeAt(0) === 48 && (hex.charCodeAt(1) | 0x20) === 120 ? 2 : 0
  if (hex.length - from !== 64) return false
  return writeHexBytes(target, at, hex, from, 32)
}

/** As wordOfBigInt for a number: a non-negative safe integer, big-endian into the word at `at`. */
export function writeSmallWord(target: Uint8Array, at: number, value: number): boolean {
  if (!Number.isSafeInteger(value) || value < 0) return false
  target.fill(0, at, at + WORD_BYTES)
  let rest = value
  for (let i = at + WORD_BYTES - 1; rest > 0; i--) {
    target[i] = rest % 256
    rest = Math.floor(rest / 256)
  }
  return true
}

/** Decimal digits that always fit a safe integer (10^15 < 2^53). */
const SAFE_DIGITS_MAX = 15

/** As wordOfDecimal: 1 to 78 decimal digits of a value below 2^256, big-endian into the word at `at`. */
export function writeDecimalWord(target: Uint8Array, at: number, decimal: string): boolean {
  if (typeof decimal !== 'string' || decimal.length === 0 || decimal.length > 78) return false
  let value = 0
  for (let i = 0; i < decimal.length; i++) {
    const digit = decimal.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return false
    value = value * 10 + digit // exact while the digits are few; unused otherwise
  }
  if (decimal.length <= SAFE_DIGITS_MAX) return writeSmallWord(target, at, value)
  const hex = BigInt(decimal).toString(16)
  if (hex.length > 2 * WORD_BYTES) return false
  const padded = hex.length % 2 === 0 ? hex : '0' + hex
  const start = at + WORD_BYTES - padded.length / 2
  target.fill(0, at, start)
  return writeHexBytes(target, start, padded, 0, padded.length / 2)
}
