/**
 * GTD expiry: a binary min-heap of resting GTD orders keyed by (expiration, order number), so
 * that orders expiring in the same second go in acceptance order, whatever the heap's layout.
 * Orders that end before they expire stay in the heap and are skipped when they surface.
 *
 * An entry keeps the order's row and its order number: a row is handed to a new order once its
 * order ended (order-table.ts), so an entry names its order only while the row still holds that
 * number. Entries are three parallel arrays, not an object each.
 */
import { NO_ROW, type OrderRow, type OrderTable } from './order-table.js'

export class ExpiryQueue {
  private readonly expirationSec: number[] = []
  private readonly orderNumbers: number[] = []
  private readonly rows: OrderRow[] = []

  get size(): number {
    return this.rows.length
  }

  push(orders: OrderTable, row: OrderRow): void {
    this.expirationSec.push(orders.expirationSec[row]!)
    this.orderNumbers.push(orders.orderNumber[row]!)
    this.rows.push(row)
    let child = this.rows.length - 1
    while (child > 0) {
      const parent = (child - 1) >> 1
      if (!this.isEarlier(child, parent)) break
      this.swap(child, parent)
      child = parent
    }
  }

  /**
   * The row of the earliest live order that expires at or before `timeMs`, removed from the
   * queue; NO_ROW when none is due. Entries of orders that already ended are dropped on the way.
   */
  popDue(orders: OrderTable, timeMs: number): OrderRow {
    while (this.rows.length > 0 && this.expirationSec[0]! * 1000 <= timeMs) {
      const row = this.rows[0]!
      const orderNumber = this.orderNumbers[0]!
      this.popTop()
      if (orders.live[row] === 1 && orders.orderNumber[row] === orderNumber) return row
    }
    return NO_ROW
  }

  private popTop(): void {
    const last = this.rows.length - 1
    this.swap(0, last)
    this.expirationSec.pop()
    this.orderNumbers.pop()
    this.rows.pop()
    let parent = 0
    for (;;) {
      const left = parent * 2 + 1
      const right = left + 1
      let earliest = parent
      if (left < last && this.isEarlier(left, earliest)) earliest = left
      if (right < last && this.isEarlier(right, earliest)) earliest = right
      if (earliest === parent) return
      this.swap(parent, earliest)
      parent = earliest
    }
  }

  private isEarlier(a: number, b: number): boolean {
    const expirations = this.expirationSec
    if (expirations[a] !== expirations[b]) return expirations[a]! < expirations[b]!
    return this.orderNumbers[a]! < this.orderNumbers[b]!
  }

  private swap(i: number, j: number): void {
    swapIn(this.expirationSec, i, j)
    swapIn(this.orderNumbers, i, j)
    swapIn(this.rows, i, j)
  }
}

function swapIn(values: number[], i: number, j: number): void {
  const t = values[i]!
  values[i] = values[j]!
  values[j] = t
}
