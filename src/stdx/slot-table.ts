/**
 * Values waiting under ids handed out in sequence (a host's pending requests): a fixed array of
 * slots, id modulo its capacity, instead of a Map.
 *
 * Why not a Map: a Map that gains and loses an entry for every request rebuilds its hash table
 * every few thousand of them, and V8 keeps the table it left (for live iterators) until the next
 * full collection. That dead table sits in the old generation pointing at the requests in flight
 * when it was left, so the young collector must keep them, and promotes them, and whatever they
 * reach later (a promise's outcome): about 770 bytes a command promoted on the engine host's main
 * thread, and 1.1 µs a command of scavenges, against 50 bytes and 0.25 µs with this table
 * (docs/performance.md, "A Map's old tables, objects tenured too soon, and snapshots off the commit
 * path"). Slots are overwritten in place: nothing is left behind.
 *
 * An id's slot may still hold an older id's value (one that waits longer than `capacity` newer ids
 * took): `isFree` says so, and the caller refuses instead of overwriting. A value is only found
 * under its own id.
 */
import { assert } from './assert.js'

export class SlotTable<T> {
  private readonly values: (T | undefined)[]
  /** Each slot's id, -1 while free: a value is found under its own id only. */
  private readonly ids: Float64Array
  private readonly capacity: number
  private count = 0

  constructor(capacity: number) {
    assert(Number.isSafeInteger(capacity) && capacity > 0, 'the capacity is a whole number of slots')
    this.values = new Array<T | undefined>(capacity).fill(undefined)
    this.ids = new Float64Array(capacity).fill(-1)
    this.capacity = capacity
  }

  get size(): number {
    return this.count
  }

  /** Whether `id` can be given a value now: its slot holds no other id's. */
  isFree(id: number): boolean {
    return this.ids[this.slotOf(id)] === -1
  }

  set(id: number, value: T): void {
    const slot = this.slotOf(id)
    assert(this.ids[slot] === -1, () => `the slot of id ${id} is free`)
    this.ids[slot] = id
    this.values[slot] = value
    this.count++
  }

  /** The value under `id`, removed; undefined when there is none. */
  take(id: number): T | undefined {
    const slot = this.slotOf(id)
    if (this.ids[slot] !== id) return undefined
    const value = this.values[slot]
    this.ids[slot] = -1
    this.values[slot] = undefined
    this.count--
    return value
  }

  /** Every value, removed (a host failing: each waiter is told). */
  drain(): T[] {
    const drained: T[] = []
    for (let slot = 0; slot < this.values.length; slot++) {
      if (this.ids[slot] === -1) continue
      drained.push(this.values[slot]!)
      this.ids[slot] = -1
      this.values[slot] = undefined
    }
    this.count = 0
    return drained
  }

  private slotOf(id: number): number {
    assert(Number.isSafeInteger(id) && id >= 0, 'an id is a whole number')
    // `%`, not a mask: ids pass 2^31 on a long-running host, where a bitwise and would wrap.
    return id % this.capacity
  }
}
