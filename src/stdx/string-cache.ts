/**
 * A small direct-mapped cache of decoded strings, by their bytes: the fields of commands that
 * repeat (an order's owner, maker, signer and token id; a cancel's address) come back as the
 * string decoded last time instead of a new one. Decoding one costs a call into Node's UTF-8
 * decoder and a new heap string that the collector later traces or frees (replay's profile:
 * decoding 11 %, the collector 11 %); and the engine, given the same string object again, finds
 * the account or token in its maps with the hash that string already carries.
 *
 * Only strings of one byte per character are kept, and a hit compares every byte with the cached
 * string's char codes, so a hit is the string the bytes decode to (see `get`). Each slot holds
 * one string; a new one at the same slot replaces it, so the cache stays `slots` strings of at
 * most `lengthMax` characters whatever comes in (the caller's bounds: src/limits.ts). Ids that
 * never repeat (order ids) should not pass through it: they would only evict the others.
 */
import { assert } from './assert.js'
import type { Utf8Decoder } from './bytes.js'

export class StringCache {
  private readonly strings: string[]
  private readonly mask: number

  constructor(private readonly decode: Utf8Decoder, slots: number, private readonly lengthMax: number) {
    assert(slots > 0 && (slots & (slots - 1)) === 0, 'the slots are a power of two')
    assert(Number.isSafeInteger(lengthMax) && lengthMax > 0, 'the longest string kept is a length')
    this.strings = new Array<string>(slots).fill('')
    this.mask = slots - 1
  }

  /**
   * The string that `bytes[start, start + length)` decode to. A cached string was kept only if it
   * has as many characters as its bytes: UTF-8 gives that only when every byte is ASCII or an
   * invalid byte decoded as U+FFFD (a multi-byte character is one character for 2 to 4 bytes).
   * A hit needs each char code equal to its byte, which U+FFFD never is, so a hit's bytes were
   * all ASCII and the same as the cached string's: what a decode would return.
   */
  get(bytes: Uint8Array, start: number, length: number): string {
    if (length === 0) return ''
    if (length > this.lengthMax) return this.decode(bytes, start, start + length)
    const slot = hashOf(bytes, start, length) & this.mask
    const cached = this.strings[slot]!
    if (cached.length === length) {
      let i = 0
      while (i < length && cached.charCodeAt(i) === bytes[start + i]) i++
      if (i === length) return cached
    }
    const decoded = this.decode(bytes, start, start + length)
    if (decoded.length === length) this.strings[slot] = decoded
    return decoded
  }
}

/** FNV-1a over the length and the last 16 bytes (ids and addresses differ most at their ends). */
function hashOf(bytes: Uint8Array, start: number, length: number): number {
  let hash = Math.imul(0x811c9dc5 ^ length, 0x01000193)
  for (let i = Math.max(0, length - 16); i < length; i++) hash = Math.imul(hash ^ bytes[start + i]!, 0x01000193)
  return hash ^ (hash >>> 16)
}
