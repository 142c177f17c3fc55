/**
 * GTD expiry: a binary min-heap of resting GTD orders keyed by (expiration, order number), so
 * that orders expiring in the same second go in acceptance order, whatever the heap's layout.
 * Orders that end before they expire stay in the heap and are skipped when they surface.
 */
import type { Order } from './order.js'

export class ExpiryQueue {
  private readonly heap: Order[] = []

  get size(): number {
    return this.heap.length
  }

  push(order: Order): void {
    const heap = this.heap
    heap.push(order)
    let child = heap.length - 1
    while (child > 0) {
      const parent = (child - 1) >> 1
      if (!isEarlier(heap[child]!, heap[parent]!)) break
      swap(heap, child, parent)
      child = parent
    }
  }

  /** The earliest order, if it expires at or before `timeMs`; removed from the queue. */
  popDue(timeMs: number): Order | null {
    const top = this.heap[0]
    if (top === undefined || top.expirationSec * 1000 > timeMs) return null
    this.popTop()
    return top
  }

  private popTop(): void {
    const heap = this.heap
    const last = heap.pop()!
    if (heap.length === 0) return
    heap[0] = last
    let parent = 0
    for (;;) {
      const left = parent * 2 + 1
      const right = left + 1
      let earliest = parent
      if (left < heap.length && isEarlier(heap[left]!, heap[earliest]!)) earliest = left
      if (right < heap.length && isEarlier(heap[right]!, heap[earliest]!)) earliest = right
      if (earliest === parent) return
      swap(heap, parent, earliest)
      parent = earliest
    }
  }
}

function isEarlier(a: Order, b: Order): boolean {
  if (a.expirationSec !== b.expirationSec) return a.expirationSec < b.expirationSec
  return a.orderNumber < b.orderNumber
}

function swap(heap: Order[], i: number, j: number): void {
  const t = heap[i]!
  heap[i] = heap[j]!
  heap[j] = t
}
