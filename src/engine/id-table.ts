/**
 * A table of string ids, each with a mutable int32 value: the engine's memory of the orders it
 * accepted (live, or ended and not yet forgotten: order-index.ts), for duplicate detection, which
 * Polymarket users rely on after a timeout. It holds millions of entries, where V8's Map costs
 * several cache misses per lookup and rehashes every entry on growth. This is open addressing
 * with linear probing over one Int32Array of (hash, entry) pairs, so a probe sequence reads
 * consecutive memory and strings are compared only when the full 32-bit hashes match.
 *
 * Keys are deleted by backward-shift deletion (no tombstones, so lookups never slow down with
 * churn), and a deleted key's entry index is handed to a later key: entries are slots of the
 * parallel key and value arrays, which therefore stay as large as the most keys ever held at once.
 *
 * The hash is seeded (by the host, at start) so that nobody can craft ids that collide on
 * purpose; the seed decides only where keys sit and which entry index a key gets, never what the
 * engine does or writes: callers keep their own order of entries (order-index.ts).
 */
import { assert } from '../stdx/assert.js'

/**
 * Slots to start with: 256 Ki slots (2 MiB of slots), enough for 128 k ids before the first
 * doubling. A table is only as large as its ids need: the slots an id lands in are random, so a
 * sparse table spreads its lookups over more pages and the lookups miss the TLB. Starting at 1 Mi
 * slots (8 MiB) cost `npm run bench:engine` 7 % (CPU time, five alternating process pairs) over
 * this size, rehashing included. A doubling rehashes every entry at once: about 30 ms at 512 k
 * ids, 100 ms at 2 M and 360 ms at 4 M on this machine (docs/performance.md, "Issue 30, second
 * step"), whatever the size it starts at.
 */
const CAPACITY_MIN = 1 << 18

export class IdTable {
  /** Per entry: its key ('' when free). */
  private keys: string[] = []
  private values = new Int32Array(CAPACITY_MIN / 2)
  /** Per slot: [hash, entry index + 1]; entry 0 means empty. At most half the slots are used. */
  private slots = new Int32Array(CAPACITY_MIN * 2)
  private capacity = CAPACITY_MIN
  private count = 0
  /** Entry indices freed by `delete`, handed out again by `add` (last freed first). */
  private readonly freeEntries: number[] = []

  constructor(private readonly seed: number) {
    assert(Number.isInteger(seed), 'hash seed is an integer')
  }

  get size(): number {
    return this.count
  }

  /** The entry index of `key`, or -1. */
  find(key: string): number {
    const hash = this.hashOf(key)
    const mask = this.capacity - 1
    const slots = this.slots
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot * 2 + 1]!
      if (entry === 0) return -1
      if (slots[slot * 2] === hash && this.keys[entry - 1] === key) return entry - 1
    }
  }

  /** Adds a key that is not in the table yet; returns its entry index. */
  add(key: string, value: number): number {
    assert(key !== '', 'id table keys are not empty')
    if ((this.count + 1) * 2 > this.capacity) this.grow()
    const hash = this.hashOf(key)
    const mask = this.capacity - 1
    const slots = this.slots
    let slot = hash & mask
    while (slots[slot * 2 + 1] !== 0) {
      assert(!(slots[slot * 2] === hash && this.keys[slots[slot * 2 + 1]! - 1] === key), 'id table keys are unique')
      slot = (slot + 1) & mask
    }
    const entry = this.freeEntries.length > 0 ? this.freeEntries.pop()! : this.newEntry()
    this.keys[entry] = key
    this.values[entry] = value
    this.count++
    slots[slot * 2] = hash
    slots[slot * 2 + 1] = entry + 1
    return entry
  }

  /**
   * Removes the key at `entry` and frees the entry index. Backward-shift deletion: each later key
   * of the probe run that may move into the hole does, so every remaining key stays reachable
   * from its home slot without passing an empty one.
   */
  delete(entry: number): void {
    const key = this.keyAt(entry)
    assert(key !== '', 'a deleted entry holds a key')
    const mask = this.capacity - 1
    const slots = this.slots
    let hole = this.hashOf(key) & mask
    while (slots[hole * 2 + 1] !== entry + 1) hole = (hole + 1) & mask
    for (let slot = (hole + 1) & mask; slots[slot * 2 + 1] !== 0; slot = (slot + 1) & mask) {
      const home = slots[slot * 2]! & mask
      // The key at `slot` may fill the hole unless its home lies cyclically in (hole, slot].
      const stays = hole <= slot ? hole < home && home <= slot : hole < home || home <= slot
      if (stays) continue
      slots[hole * 2] = slots[slot * 2]!
      slots[hole * 2 + 1] = slots[slot * 2 + 1]!
      hole = slot
    }
    slots[hole * 2] = 0
    slots[hole * 2 + 1] = 0
    this.keys[entry] = ''
    this.freeEntries.push(entry)
    this.count--
  }

  keyAt(entry: number): string {
    assert(entry >= 0 && entry < this.keys.length, 'entry exists')
    return this.keys[entry]!
  }

  valueAt(entry: number): number {
    return this.values[entry]!
  }

  /** The caller knows the entry is in use (order-index.ts asserts its live value first). */
  setValueAt(entry: number, value: number): void {
    assert(entry >= 0 && entry < this.keys.length, 'entry exists')
    this.values[entry] = value
  }

  /**
   * FNV-1a over the last 16 UTF-16 code units and the length, seeded, then the murmur3 finaliser
   * to mix the low bits. Order ids are keccak hashes in hex, so their last 16 digits are 64
   * random bits: hashing the whole string would cost four times as much for nothing.
   */
  private hashOf(key: string): number {
    let hash = Math.imul((0x811c9dc5 ^ this.seed) | 0, 0x01000193) ^ key.length
    for (let i = Math.max(0, key.length - 16); i < key.length; i++) {
      hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
    }
    hash ^= hash >>> 16
    hash = Math.imul(hash, 0x85ebca6b)
    hash ^= hash >>> 13
    hash = Math.imul(hash, 0xc2b2ae35)
    return hash ^ (hash >>> 16)
  }

  /** A never used entry index, at the end of the key and value arrays. */
  private newEntry(): number {
    const entry = this.keys.length
    if (entry === this.values.length) {
      const values = new Int32Array(this.values.length * 2)
      values.set(this.values)
      this.values = values
    }
    this.keys.push('')
    return entry
  }

  /** Doubles the slots and re-places every entry by its stored hash. */
  private grow(): void {
    const capacity = this.capacity * 2
    const slots = new Int32Array(capacity * 2)
    const old = this.slots
    const mask = capacity - 1
    for (let i = 0; i < this.capacity; i++) {
      const entry = old[i * 2 + 1]!
      if (entry === 0) continue
      const hash = old[i * 2]!
      let slot = hash & mask
      while (slots[slot * 2 + 1] !== 0) slot = (slot + 1) & mask
      slots[slot * 2] = hash
      slots[slot * 2 + 1] = entry
    }
    this.slots = slots
    this.capacity = capacity
  }
}
