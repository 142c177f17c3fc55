/**
 * A minimal binary writer and reader for snapshots: unsigned LEB128 integers (exact up to
 * 2^53, using arithmetic rather than 32-bit bit operations), one-byte booleans, and UTF-8
 * strings prefixed by their byte length. The reader checks every bound it reads against.
 */
import { assert } from './assert.js'

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

export class ByteWriter {
  private buffer = new Uint8Array(1 << 16)
  private length = 0

  uint(value: number): void {
    assert(Number.isSafeInteger(value) && value >= 0, `snapshot integer ${value} is a safe unsigned integer`)
    this.reserve(8)
    let rest = value
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80
      rest = Math.floor(rest / 0x80)
    }
    this.buffer[this.length++] = rest
  }

  bool(value: boolean): void {
    this.reserve(1)
    this.buffer[this.length++] = value ? 1 : 0
  }

  string(value: string): void {
    const bytes = encoder.encode(value)
    this.uint(bytes.length)
    this.reserve(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.length)
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return
    let size = this.buffer.length * 2
    while (size < this.length + bytes) size *= 2
    const grown = new Uint8Array(size)
    grown.set(this.buffer.subarray(0, this.length))
    this.buffer = grown
  }
}

export class ByteReader {
  private offset = 0

  constructor(private readonly bytes: Uint8Array) {}

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
    assert(this.offset + length <= this.bytes.length, 'snapshot ends inside a string')
    const value = decoder.decode(this.bytes.subarray(this.offset, this.offset + length))
    this.offset += length
    return value
  }

  isAtEnd(): boolean {
    return this.offset === this.bytes.length
  }
}
