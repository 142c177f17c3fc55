/**
 * A set of string ids, each with a small integer value, that only grows: the engine's memory of
 * every order that ever ended (for duplicate detection, which Polymarket users rely on after a
 * timeout). It holds millions of entries, where V8's Map costs several cache misses and a
 * rehash of every entry on growth; this is open addressing over typed arrays: one probe sequence
 * in an Int32Array, the strings compared only on a hash match.
 *
 * The hash is seeded (by the host, at start) so that nobody can craft ids that collide on
 * purpose; the seed does not affect the engine's state, snapshots or events, only this layout.
 * Entries keep their insertion order, which is what snapshots write.
 */
import { assert } from './assert.js'

const SLOTS_MIN = 1 << 16

export class IdTable {
  private keys: string[] = []
  private values = new Int32Array(SLOTS_MIN / 2)
  private hashes = new Int32Array(SLOTS_MIN / 2)
  /** Entry index + 1 per slot, 0 for empty; at most half full. */
  private slots = new Int32Array(SLOTS_MIN)
  private count = 0

  constructor(private readonly seed: number) {
    assert(Number.isInteger(seed), 'hash seed is an integer')
  }

  get size(): number {
    return this.count
  }

  /** The value stored for `key`, or -1. */
  get(key: string): number {
    const hash = this.hashOf(key)
    const mask = this.slots.length - 1
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!
      if (entry === 0) return -1
      if (this.hashes[entry - 1] === hash && this.keys[entry - 1] === key) return this.values[entry - 1]!
    }
  }

  /** Adds a key that is not in the table yet. */
  add(key: string, value: number): void {
    assert(value >= 0 && value <= 0x7fffffff, 'id table values are non-negative int32')
    if ((this.count + 1) * 2 > this.slots.length) this.grow()
    const hash = this.hashOf(key)
    const mask = this.slots.length - 1
    let slot = hash & mask
    while (this.slots[slot] !== 0) {
      const entry = this.slots[slot]! - 1
      assert(!(this.hashes[entry] === hash && this.keys[entry] === key), 'id table keys are unique')
      slot = (slot + 1) & mask
    }
    if (this.count === this.values.length) this.growEntries()
    this.keys.push(key)
    this.values[this.count] = value
    this.hashes[this.count] = hash
    this.count++
    this.slots[slot] = this.count
  }

  keyAt(index: number): string {
    return this.keys[index]!
  }

  valueAt(index: number): number {
    return this.values[index]!
  }

  /**
   * FNV-1a over the last 16 UTF-16 code units and the length, seeded, then the murmur3 finaliser
   * to mix the low bits. Order ids are keccak hashes in hex, so their last 16 digits are 64
   * random bits: hashing the whole string would cost four times as much for nothing.
   */
  private hashOf(key: string): number {
    let hash = Math.imul((0x811c9dc5 ^ this.seed) | 0, 0x01000193) ^ key.length
    for (let i = Math.max(0, key.length - 16); i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
    hash ^= hash >>> 16
    hash = Math.imul(hash, 0x85ebca6b)
    hash ^= hash >>> 13
    hash = Math.imul(hash, 0xc2b2ae35)
    return hash ^ (hash >>> 16)
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2)
    const mask = slots.length - 1
    for (let entry = 0; entry < this.count; entry++) {
      let slot = this.hashes[entry]! & mask
      while (slots[slot] !== 0) slot = (slot + 1) & mask
      slots[slot] = entry + 1
    }
    this.slots = slots
  }

  private growEntries(): void {
    const values = new Int32Array(this.values.length * 2)
    values.set(this.values)
    const hashes = new Int32Array(this.hashes.length * 2)
    hashes.set(this.hashes)
    this.values = values
    this.hashes = hashes
  }
}
