/**
 * A table of string ids, each with a mutable int32 value: the engine's memory of the orders it
 * accepted (live, or ended and not yet forgotten: order-index.ts), for duplicate detection, which
 * Polymarket users rely on after a timeout. It holds millions of entries, where V8's Map costs
 * several cache misses per lookup and rehashes every entry on growth. This is open addressing
 * with linear probing, so a probe sequence reads consecutive memory: a compact array of 16-bit
 * tags, with a string compared only when the tag and then the full 32-bit hash match.
 *
 * Keys are deleted by backward-shift deletion (no tombstones, so lookups never slow down with
 * churn), and a deleted key's entry index is handed to a later key: entries are slots of the
 * parallel per-entry arrays, which therefore stay as large as the most keys ever held at once.
 *
 * The hash is seeded (by the host, at start) so that nobody can craft ids that collide on
 * purpose; the seed decides only where keys sit and which entry index a key gets, never what the
 * engine does or writes: callers keep their own order of entries (order-index.ts).
 */
import { assert } from '../stdx/assert.js'

/**
 * Slots to start with: 256 Ki slots, enough for 128 k ids before the first doubling. A table is
 * only as large as its ids need: the slots an id lands in are random, so a sparse table spreads
 * its lookups over more pages and the lookups miss the TLB. Starting at 1 Mi slots cost
 * `npm run bench:engine` 7 % (CPU time, five alternating process pairs) over this size, rehashing
 * included. A doubling rehashes every entry at once: about 30 ms at 512 k ids, 100 ms at 2 M and
 * 360 ms at 4 M on this machine (docs/performance.md, "Issue 30, second step"), whatever the size
 * it starts at.
 */
const CAPACITY_MIN = 1 << 18

export class IdTable {
  /** Per entry: its key ('' when free), its value and its full hash (for growth and deletion). */
  private keys: string[] = []
  private values: Int32Array
  private hashes: Int32Array
  /**
   * Per slot: a 16-bit tag of its key's hash (0 = empty), and its entry index + 1. A probe reads
   * only tags until one matches, so a lookup of an id that is not there (every new order's
   * duplicate check) touches 2 bytes a slot, not 8: the tags of 512 k slots fit in this
   * machine's L2 cache, where (hash, entry) pairs did not, and that miss was the engine's
   * largest single cost. At most half the slots are used.
   */
  private tags: Uint16Array
  private slots: Int32Array
  private capacity: number
  private count = 0
  /** Entry indices freed by `delete`, handed out again by `add` (last freed first). */
  private readonly freeEntries: number[] = []
  /**
   * Where the last `find` that missed ended: `add` of the same key right after (a placement's
   * duplicate check, then its indexing) takes that slot without probing again. Any change of
   * the slots forgets it (`missKey` back to '').
   */
  private missKey = ''
  private missSlot = 0
  private missHash = 0

  constructor(private readonly seed: number, capacityMin = CAPACITY_MIN) {
    assert(Number.isInteger(seed), 'hash seed is an integer')
    assert(capacityMin >= 2 && (capacityMin & (capacityMin - 1)) === 0, 'capacity is a power of two')
    this.capacity = capacityMin
    this.values = new Int32Array(capacityMin / 2)
    this.hashes = new Int32Array(capacityMin / 2)
    this.tags = new Uint16Array(capacityMin)
    this.slots = new Int32Array(capacityMin)
  }

  get size(): number {
    return this.count
  }

  /** The entry index of `key`, or -1. */
  find(key: string): number {
    const hash = this.hashOf(key)
    const tag = tagOf(hash)
    const mask = this.capacity - 1
    const tags = this.tags
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const slotTag = tags[slot]!
      if (slotTag === 0) {
        this.missKey = key
        this.missSlot = slot
        this.missHash = hash
        return -1
      }
      if (slotTag === tag) {
        const entry = this.slots[slot]! - 1
        if (this.hashes[entry] === hash && this.keys[entry] === key) return entry
      }
    }
  }

  /** Adds a key that is not in the table yet; returns its entry index. */
  add(key: string, value: number): number {
    assert(key !== '', 'id table keys are not empty')
    if ((this.count + 1) * 2 > this.capacity) this.grow()
    let slot: number
    let hash: number
    if (key === this.missKey) {
      slot = this.missSlot
      hash = this.missHash
    } else {
      hash = this.hashOf(key)
      slot = this.emptySlotFor(key, hash)
    }
    this.missKey = ''
    const entry = this.freeEntries.length > 0 ? this.freeEntries.pop()! : this.newEntry()
    this.keys[entry] = key
    this.values[entry] = value
    this.hashes[entry] = hash
    this.count++
    this.tags[slot] = tagOf(hash)
    this.slots[slot] = entry + 1
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
    this.missKey = ''
    const mask = this.capacity - 1
    const slots = this.slots
    const tags = this.tags
    let hole = this.hashes[entry]! & mask
    while (slots[hole] !== entry + 1) hole = (hole + 1) & mask
    for (let slot = (hole + 1) & mask; tags[slot] !== 0; slot = (slot + 1) & mask) {
      const home = this.hashes[slots[slot]! - 1]! & mask
      // The key at `slot` may fill the hole unless its home lies cyclically in (hole, slot].
      const stays = hole <= slot ? hole < home && home <= slot : hole < home || home <= slot
      if (stays) continue
      tags[hole] = tags[slot]!
      slots[hole] = slots[slot]!
      hole = slot
    }
    tags[hole] = 0
    slots[hole] = 0
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

  /** The empty slot that ends `key`'s probe run (the key is not in the table). */
  private emptySlotFor(key: string, hash: number): number {
    const mask = this.capacity - 1
    const tags = this.tags
    const tag = tagOf(hash)
    let slot = hash & mask
    while (tags[slot] !== 0) {
      assert(!(tags[slot] === tag && this.keys[this.slots[slot]! - 1] === key), 'id table keys are unique')
      slot = (slot + 1) & mask
    }
    return slot
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

  /** A never used entry index, at the end of the per-entry arrays. */
  private newEntry(): number {
    const entry = this.keys.length
    if (entry === this.values.length) {
      this.values = doubled(this.values)
      this.hashes = doubled(this.hashes)
    }
    this.keys.push('')
    return entry
  }

  /** Doubles the slots and re-places every entry by its stored hash. */
  private grow(): void {
    this.missKey = ''
    const capacity = this.capacity * 2
    const tags = new Uint16Array(capacity)
    const slots = new Int32Array(capacity)
    const oldSlots = this.slots
    const mask = capacity - 1
    for (let i = 0; i < this.capacity; i++) {
      const entryPlusOne = oldSlots[i]!
      if (entryPlusOne === 0) continue
      const hash = this.hashes[entryPlusOne - 1]!
      let slot = hash & mask
      while (tags[slot] !== 0) slot = (slot + 1) & mask
      tags[slot] = tagOf(hash)
      slots[slot] = entryPlusOne
    }
    this.tags = tags
    this.slots = slots
    this.capacity = capacity
  }
}

/**
 * A slot's tag: 16 bits of the hash that the home slot does not use (its low bits), never 0. A
 * multiply spreads the high bits so that tags differ even when a large table's mask reaches them.
 */
function tagOf(hash: number): number {
  return (Math.imul(hash, 0x9e3779b1) >>> 16) | 1
}

function doubled(values: Int32Array): Int32Array {
  const grown = new Int32Array(values.length * 2)
  grown.set(values)
  return grown
}
