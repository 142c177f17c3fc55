/**
 * A table of string ids, each with a mutable int32 value: the engine's memory of the orders it
 * accepted (live, or ended and not yet forgotten: order-index.ts), for duplicate detection, which
 * Polymarket users rely on after a timeout. It holds millions of entries, where V8's Map costs
 * several cache misses per lookup and rehashes every entry on growth. This is open addressing
 * with linear probing, so a probe sequence reads consecutive memory: a compact array of 16-bit
 * tags, with a string compared only when the tag matches.
 *
 * Keys are deleted by backward-shift deletion (no tombstones, so lookups never slow down with
 * churn), and a deleted key's entry index is handed to a later key: entries are slots of the
 * parallel per-entry arrays, which therefore stay as large as the most keys ever held at once.
 *
 * Growth does not stop the engine: the slots double, and the keys move from the old slots to the
 * new ones a few at a time, with each add (Slots and `migrate` below). A doubling that rehashed
 * every key at once stopped the engine for about 120 ms at 2 Mi ids and 325 ms at 4 Mi here, the
 * rehash alone (`node scripts/id-table-stall.mjs` gives the slowest adds; docs/performance.md).
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
 * `npm run bench:engine` 7 % (CPU time, five alternating process pairs) over this size.
 */
const CAPACITY_MIN = 1 << 18
/**
 * Old slots looked at per add while keys move to doubled slots. The move must end before the new
 * slots are half full: they start a quarter full (the old ones were half full), so the adds that
 * fill the next quarter, as many as half the old slots, must cover all of the old slots: two an
 * add would do; eight ends the move sooner, since lookups probe both slot arrays until it ends.
 */
const MIGRATE_SLOTS_PER_ADD = 8

/**
 * One open-addressing array of slots: per slot, a 16-bit tag of its key's hash (0 = empty) and
 * its entry index + 1. A probe reads only tags until one matches, so a lookup of an id that is not
 * there (every new order's duplicate check) touches 2 bytes a slot, not 8: the tags of 512 k slots
 * fit in this machine's L2 cache, where (hash, entry) pairs did not, and that miss was the
 * engine's largest single cost. At most half the slots are used.
 */
class Slots {
  readonly tags: Uint16Array
  readonly entries: Int32Array
  readonly mask: number
  used = 0

  constructor(readonly capacity: number) {
    this.tags = new Uint16Array(capacity)
    this.entries = new Int32Array(capacity)
    this.mask = capacity - 1
  }

  /**
   * The slot holding `key`, or -1 - the empty slot that ends its probe run. A matching tag goes
   * straight to the key: tags of different keys match once in 65 535 probes, and reading the
   * entry's full hash first was one more cache miss on every hit (a cancel's lookup).
   */
  probe(key: string, hash: number, keys: readonly string[]): number {
    const tag = tagOf(hash)
    const tags = this.tags
    const mask = this.mask
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const slotTag = tags[slot]!
      if (slotTag === 0) return -1 - slot
      if (slotTag === tag) {
        if (keys[this.entries[slot]! - 1] === key) return slot
      }
    }
  }

  put(slot: number, hash: number, entry: number): void {
    this.tags[slot] = tagOf(hash)
    this.entries[slot] = entry + 1
    this.used++
  }

  /** Places an entry known to be absent at the end of its probe run. */
  insert(hash: number, entry: number): void {
    const tags = this.tags
    const mask = this.mask
    let slot = hash & mask
    while (tags[slot] !== 0) slot = (slot + 1) & mask
    this.put(slot, hash, entry)
  }

  /** The slot of `entry`, or -1 when it is not here. */
  slotOf(entry: number, hashes: Int32Array): number {
    const mask = this.mask
    for (let slot = hashes[entry]! & mask; this.tags[slot] !== 0; slot = (slot + 1) & mask) {
      if (this.entries[slot] === entry + 1) return slot
    }
    return -1
  }

  /**
   * Empties a slot by backward-shift deletion: each later key of the probe run that may move into
   * the hole does, so every remaining key stays reachable from its home slot without passing an
   * empty one (no tombstones, so lookups never slow down with churn). Keys move only within
   * their run, toward its start.
   */
  remove(slot: number, hashes: Int32Array): void {
    const tags = this.tags
    const entries = this.entries
    const mask = this.mask
    let hole = slot
    for (let next = (hole + 1) & mask; tags[next] !== 0; next = (next + 1) & mask) {
      const home = hashes[entries[next]! - 1]! & mask
      // The key at `next` may fill the hole unless its home lies cyclically in (hole, next].
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next
      if (stays) continue
      tags[hole] = tags[next]!
      entries[hole] = entries[next]!
      hole = next
    }
    tags[hole] = 0
    entries[hole] = 0
    this.used--
  }

  /** The first empty slot (there is one: at most half are used). */
  firstEmpty(): number {
    let slot = 0
    while (this.tags[slot] !== 0) slot++
    return slot
  }
}

export class IdTable {
  /** Per entry: its key ('' when free), its value and its full hash (for growth and deletion). */
  private keys: string[] = []
  private values: Int32Array
  private hashes: Int32Array
  /** Where keys go. */
  private slots: Slots
  /**
   * While keys move to doubled slots: the old slots, which hold the keys not moved yet. A key is
   * in exactly one of the two. Keys move a whole probe run at a time, in slot order from an empty
   * slot (`migrateFrom`) once around (`migrateNext` counts up to `migrateFrom + capacity`), so
   * the runs left behind are whole and every lookup in them works as before.
   */
  private old: Slots | null = null
  private migrateFrom = 0
  private migrateNext = 0
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
    assert(capacityMin >= 4 && (capacityMin & (capacityMin - 1)) === 0, 'capacity is a power of two')
    this.values = new Int32Array(capacityMin / 2)
    this.hashes = new Int32Array(capacityMin / 2)
    this.slots = new Slots(capacityMin)
  }

  get size(): number {
    return this.count
  }

  /** Whether keys are moving to doubled slots (tests). */
  get migrating(): boolean {
    return this.old !== null
  }

  /** The entry index of `key`, or -1. */
  find(key: string): number {
    const hash = this.hashOf(key)
    const slot = this.slots.probe(key, hash, this.keys)
    if (slot >= 0) return this.slots.entries[slot]! - 1
    if (this.old !== null) {
      const oldSlot = this.old.probe(key, hash, this.keys)
      if (oldSlot >= 0) return this.old.entries[oldSlot]! - 1
    }
    this.missKey = key
    this.missSlot = -1 - slot
    this.missHash = hash
    return -1
  }

  /** Adds a key that is not in the table yet; returns its entry index. */
  add(key: string, value: number): number {
    assert(key !== '', 'id table keys are not empty')
    if ((this.count + 1) * 2 > this.slots.capacity) this.grow()
    let slot: number
    let hash: number
    if (key === this.missKey) {
      slot = this.missSlot
      hash = this.missHash
    } else {
      hash = this.hashOf(key)
      const found = this.slots.probe(key, hash, this.keys)
      assert(found < 0 && (this.old === null || this.old.probe(key, hash, this.keys) < 0),
        'id table keys are unique')
      slot = -1 - found
    }
    this.missKey = ''
    const entry = this.freeEntries.length > 0 ? this.freeEntries.pop()! : this.newEntry()
    this.keys[entry] = key
    this.values[entry] = value
    this.hashes[entry] = hash
    this.count++
    this.slots.put(slot, hash, entry)
    if (this.old !== null) this.migrate()
    return entry
  }

  /** Removes the key at `entry` and frees the entry index. */
  delete(entry: number): void {
    const key = this.keyAt(entry)
    assert(key !== '', 'a deleted entry holds a key')
    this.missKey = ''
    const slot = this.slots.slotOf(entry, this.hashes)
    if (slot >= 0) {
      this.slots.remove(slot, this.hashes)
    } else {
      const oldSlot = this.old === null ? -1 : this.old.slotOf(entry, this.hashes)
      assert(oldSlot >= 0, 'a key in use is in the slots or the old slots')
      this.old!.remove(oldSlot, this.hashes)
    }
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

  /** Doubles the slots; the keys follow a few at a time (`migrate`). */
  private grow(): void {
    assert(this.old === null, 'a move of keys ends before the next doubling')
    this.missKey = ''
    this.old = this.slots
    this.slots = new Slots(this.old.capacity * 2)
    this.migrateFrom = this.old.firstEmpty()
    this.migrateNext = this.migrateFrom
  }

  /**
   * Moves the next probe runs of the old slots, until at least MIGRATE_SLOTS_PER_ADD slots were
   * looked at; drops the old slots once every key moved.
   */
  private migrate(): void {
    const old = this.old!
    const end = this.migrateFrom + old.capacity
    const stop = Math.min(end, this.migrateNext + MIGRATE_SLOTS_PER_ADD)
    let next = this.migrateNext
    while (next < stop) {
      // A run ends at an empty slot, so it is moved whole (and `next` may pass `stop`).
      for (let slot = next & old.mask; old.tags[slot] !== 0; slot = ++next & old.mask) {
        const entry = old.entries[slot]! - 1
        this.slots.insert(this.hashes[entry]!, entry)
        old.tags[slot] = 0
        old.entries[slot] = 0
        old.used--
      }
      next++
    }
    this.migrateNext = next
    if (next >= end) {
      assert(old.used === 0, 'every key moved')
      this.old = null
    }
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
