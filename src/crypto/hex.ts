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
