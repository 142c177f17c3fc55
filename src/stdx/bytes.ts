/**
 * A minimal binary writer and reader for snapshots and command records: unsigned LEB128
 * integers (exact up to 2^53, using arithmetic rather than 32-bit bit operations), raw float64
 * numbers, one-byte booleans, and UTF-8 strings prefixed by their byte length. The reader checks
 * every bound it reads against.
 */
import { assert } from './assert.js'
import type { StringCache } from './string-cache.js'

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

export class ByteWriter {
  private buffer: Uint8Array
  private view: DataView
  private length = 0

  constructor(initialBytes = 1 << 16) {
    this.buffer = new Uint8Array(initialBytes)
    this.view = new DataView(this.buffer.buffer)
  }

  /** Starts over, keeping the buffer (a writer reused for many small records). */
  reset(): void {
    this.length = 0
  }

  /** Bytes as they are (already encoded elsewhere). */
  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  /** Any number, exactly (8 bytes, little-endian IEEE 754). */
  float64(value: number): void {
    this.reserve(8)
    this.view.setFloat64(this.length, value, true)
    this.length += 8
  }

  uint(value: number): void {
    assert(Number.isSafeInteger(value) && value >= 0, () => `snapshot integer ${value} is a safe unsigned integer`)
    this.reserve(8)
    const buffer = this.buffer
    let rest = value
    // Above 32 bits (a time in ms), seven bits at a time by division: `%` on such a number is a
    // call to fmod, which made a timestamp's six bytes the dearest part of a journal record.
    while (rest > 0xffffffff) {
      const high = Math.floor(rest / 0x80)
      buffer[this.length++] = (rest - high * 0x80) | 0x80
      rest = high
    }
    // Within 32 bits, by shifts.
    let small = rest >>> 0
    while (small >= 0x80) {
      buffer[this.length++] = (small & 0x7f) | 0x80
      small >>>= 7
    }
    buffer[this.length++] = small
  }

  /** How many bytes `uint(value)` writes: a length prefix computed before what it prefixes. */
  static uintLength(value: number): number {
    let bytes = 1
    let rest = value
    for (; rest > 0xffffffff; rest = Math.floor(rest / 0x80)) bytes++
    for (let small = rest >>> 0; small >= 0x80; small >>>= 7) bytes++
    return bytes
  }

  bool(value: boolean): void {
    this.reserve(1)
    this.buffer[this.length++] = value ? 1 : 0
  }

  /** Length-prefixed UTF-8. ASCII (every id and address) is written char by char, no copies. */
  string(value: string): void {
    const length = value.length
    this.reserve(8 + length)
    const start = this.length
    this.uint(length)
    const at = this.length
    const buffer = this.buffer
    for (let i = 0; i < length; i++) {
      const code = value.charCodeAt(i)
      if (code >= 0x80) {
        this.length = start
        this.utf8(value)
        return
      }
      buffer[at + i] = code
    }
    this.length = at + length
  }

  private utf8(value: string): void {
    const bytes = encoder.encode(value)
    this.uint(bytes.length)
    this.reserve(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.length)
  }

  /** How many bytes are written so far. */
  get byteLength(): number {
    return this.length
  }

  /** The bytes written so far, without copying: valid until the next write or reset. */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length)
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return
    this.buffer = grown(this.buffer, this.length, this.length + bytes, (size) => new Uint8Array(size))
    this.view = new DataView(this.buffer.buffer)
  }
}

/**
 * A buffer for at least `needed` bytes in place of `buffer` (too small): twice its size, or more
 * doublings, made by `make`, holding its first `used` bytes. Doubling keeps a writer's copies
 * linear in what it writes.
 */
export function grown<B extends Uint8Array>(buffer: B, used: number, needed: number, make: (size: number) => B): B {
  let size = buffer.length * 2
  while (size < needed) size *= 2
  const bigger = make(size)
  bigger.set(buffer.subarray(0, used))
  return bigger
}

/** Decodes `bytes[start..end)` as UTF-8; a host may supply a faster one than TextDecoder. */
export type Utf8Decoder = (bytes: Uint8Array, start: number, end: number) => string

/**
 * The reader's float64s go through these 8 bytes rather than a DataView of each record: a reader
 * is made per record (a command in the ring or the journal), and its DataView cost the replay
 * about 3 % of its time. Float64Array reads in the platform's byte order, hence the check.
 */
const float64Scratch = new Float64Array(1)
const float64Bytes = new Uint8Array(float64Scratch.buffer)
assert(new Uint8Array(new Uint16Array([1]).buffer)[0] === 1, 'a little-endian platform (ByteReader.float64)')

export class ByteReader {
  private offset = 0

  constructor(private bytes: Uint8Array, private readonly utf8: Utf8Decoder = decodeUtf8) {}

  /** Starts over on `bytes`: one reader for many small records (the engine worker's requests). */
  reset(bytes: Uint8Array): void {
    this.bytes = bytes
    this.offset = 0
  }

  float64(): number {
    const at = this.offset
    const bytes = this.bytes
    assert(at + 8 <= bytes.length, 'record ends inside a number')
    for (let i = 0; i < 8; i++) float64Bytes[i] = bytes[at + i]!
    this.offset = at + 8
    return float64Scratch[0]!
  }

  uint(): number {
    let value = 0
    let scale = 1
    for (;;) {
      assert(this.offset < this.bytes.length, 'snapshot ends inside an integer')
      const byte = this.bytes[this.offset++]!
      value += (byte & 0x7f) * scale
      if (byte < 0x80) break
      scale *= 0x80
      assert(scale <= 2 ** 49, 'snapshot integer fits in 53 bits')
    }
    assert(Number.isSafeInteger(value), 'snapshot integer is safe')
    return value
  }

  bool(): boolean {
    assert(this.offset < this.bytes.length, 'snapshot ends inside a boolean')
    const byte = this.bytes[this.offset++]!
    assert(byte === 0 || byte === 1, 'snapshot boolean is 0 or 1')
    return byte === 1
  }

  string(): string {
    const length = this.uint()
    const start = this.offset
    assert(start + length <= this.bytes.length, 'record ends inside a string')
    this.offset += length
    return length === 0 ? '' : this.utf8(this.bytes, start, start + length)
  }

  /** A string through `cache` (string-cache.ts): the string decoded before when the bytes repeat. */
  cachedString(cache: StringCache): string {
    const length = this.uint()
    const start = this.offset
    assert(start + length <= this.bytes.length, 'record ends inside a string')
    this.offset += length
    return cache.get(this.bytes, start, length)
  }

  /**
   * A string that is usually one of `known` (short ASCII constants: a side, a time in force): that
   * constant when its bytes are the string's, without a call to the decoder; else decoded.
   */
  knownString(known: readonly string[]): string {
    const length = this.uint()
    const start = this.offset
    const bytes = this.bytes
    assert(start + length <= bytes.length, 'record ends inside a string')
    this.offset += length
    for (let k = 0; k < known.length; k++) {
      const candidate = known[k]!
      if (candidate.length !== length) continue
      let i = 0
      while (i < length && bytes[start + i] === candidate.charCodeAt(i)) i++
      if (i === length) return candidate
    }
    return length === 0 ? '' : this.utf8(bytes, start, start + length)
  }

  /** The next `length` bytes as they are: a view, not a copy. */
  raw(length: number): Uint8Array {
    const start = this.offset
    assert(start + length <= this.bytes.length, 'record ends inside its raw bytes')
    this.offset += length
    return this.bytes.subarray(start, start + length)
  }

  /** Bytes read so far. */
  get position(): number {
    return this.offset
  }

  isAtEnd(): boolean {
    return this.offset === this.bytes.length
  }
}

function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  return decoder.decode(bytes.subarray(start, end))
}
