/**
 * A first-in first-out queue of int32s (id-table entry indices) in a ring that doubles when
 * full: the order in which orders ended, which decides which ended id the engine forgets first
 * (order-index.ts). Pushing and shifting cost O(1) and allocate nothing until the ring grows.
 */
import { assert } from '../stdx/assert.js'

const CAPACITY_MIN = 1 << 10

export class EntryQueue {
  private ring = new Int32Array(CAPACITY_MIN)
  private head = 0
  private count = 0

  get length(): number {
    return this.count
  }

  push(entry: number): void {
    if (this.count === this.ring.length) this.grow()
    this.ring[(this.head + this.count) & (this.ring.length - 1)] = entry
    this.count++
  }

  /** Removes and returns the oldest entry. */
  shift(): number {
    assert(this.count > 0, 'the queue is not empty')
    const entry = this.ring[this.head]!
    this.head = (this.head + 1) & (this.ring.length - 1)
    this.count--
    return entry
  }

  /** The i-th oldest entry (0 is the oldest). */
  at(i: number): number {
    assert(i >= 0 && i < this.count, 'index within the queue')
    return this.ring[(this.head + i) & (this.ring.length - 1)]!
  }

  private grow(): void {
    const ring = new Int32Array(this.ring.length * 2)
    for (let i = 0; i < this.count; i++) ring[i] = this.at(i)
    this.ring = ring
    this.head = 0
  }
}
