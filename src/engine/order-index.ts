/**
 * The index of the orders the engine knows, by id: every live order and the last `endedRetained`
 * orders that ended (ENDED_ORDERS_RETAINED for the server), in one IdTable whose value says which:
 * a live order's value names its row of the order table (`liveEntry`), an ended one's is a small
 * number, `account index * 4 + status` (`endedEntry`). Duplicates are detected against both, and
 * cancels of ended orders answer from it. When more orders have ended than the bound, the one that
 * ended first is forgotten (its id is then unknown, and new again); a live order is never
 * forgotten. The end order is kept in a queue that depends only on the commands applied, and
 * snapshots write it, so eviction replays exactly.
 * Live orders that carry a client order id are also found by (owner, client order id): an
 * entry comes with `setLive` and goes with `setEnded`, the only two ways an order starts and
 * stops living, so the index holds exactly the live orders with a client id, and is rebuilt by
 * whatever rebuilds the live orders (a snapshot load, a replay).
 */
import { assert } from '../stdx/assert.js'
import type { OrderStatus } from './event.js'
import { EntryQueue } from './entry-queue.js'
import { IdTable } from './id-table.js'
import { NO_ROW, type OrderRow, type OrderTable } from './order-table.js'

/** An order's value in the index: `liveEntry(row)` (negative) or `endedEntry(...)` (>= 0). */
export type OrderEntry = number

const ENDED_MATCHED = 1
const ENDED_CANCELED = 2

export function endedEntry(accountIndex: number, status: 'MATCHED' | 'CANCELED'): number {
  return accountIndex * 4 + (status === 'MATCHED' ? ENDED_MATCHED : ENDED_CANCELED)
}

/** A live order's entry: its row, as a negative number (-1 for row 0). */
export function liveEntry(row: OrderRow): OrderEntry {
  return -1 - row
}

export function isLiveEntry(entry: OrderEntry): boolean {
  return entry < 0
}

/** The row of a live order's entry. */
export function rowOfEntry(entry: OrderEntry): OrderRow {
  assert(entry < 0, 'only a live entry names a row')
  return -1 - entry
}

export function orderStatusOf(entry: OrderEntry): OrderStatus {
  if (entry < 0) return 'LIVE'
  return entry % 4 === ENDED_MATCHED ? 'MATCHED' : 'CANCELED'
}

/** The index of the account that owned an ended order. */
export function endedAccountIndex(entry: number): number {
  return Math.floor(entry / 4)
}

export class OrderIndex {
  /** Every live order and the retained ended ones (entry indices are reused: no order of its own). */
  readonly table: IdTable
  private liveCount = 0
  /** The entries of the retained ended orders, in the order they ended (oldest first). */
  private readonly endedQueue = new EntryQueue()
  /** clientKeyOf(owner, client order id) -> the row of the live order that has it. */
  private readonly liveByClientKey = new Map<string, OrderRow>()

  constructor(private readonly orders: OrderTable, hashSeed: number, readonly endedRetained: number) {
    assert(Number.isSafeInteger(endedRetained) && endedRetained >= 0, 'ended orders retained is a count')
    this.table = new IdTable(hashSeed)
  }

  /** Orders known: the live ones and the retained ended ones. */
  get size(): number {
    return this.table.size
  }

  get live(): number {
    return this.liveCount
  }

  /** Ended orders retained (at most `endedRetained`). */
  get ended(): number {
    return this.endedQueue.length
  }

  get(orderId: string): OrderEntry | undefined {
    const entry = this.table.find(orderId)
    return entry < 0 ? undefined : this.table.valueAt(entry)
  }

  /** Live orders that have a client order id. */
  get liveWithClientOrderId(): number {
    return this.liveByClientKey.size
  }

  /** The row of the live order of `owner` with this client order id; NO_ROW for '' or none. */
  liveByClientOrderId(owner: string, clientOrderId: string): OrderRow {
    if (clientOrderId === '') return NO_ROW
    return this.liveByClientKey.get(clientKeyOf(owner, clientOrderId)) ?? NO_ROW
  }

  /** Indexes a newly accepted order as live. */
  setLive(row: OrderRow): void {
    const o = this.orders
    o.indexEntry[row] = this.table.add(o.orderId[row]!, liveEntry(row))
    this.liveCount++
    const clientOrderId = o.clientOrderId[row]!
    if (clientOrderId !== '') {
      const key = clientKeyOf(o.owner[row]!, clientOrderId)
      assert(!this.liveByClientKey.has(key), 'a client order id names one live order of its owner')
      this.liveByClientKey.set(key, row)
    }
  }

  /** Records that an accepted order ended; forgets the earliest ended one if over the bound. */
  setEnded(row: OrderRow, ended: number): void {
    const o = this.orders
    const entry = o.indexEntry[row]!
    assert(ended >= 0 && this.table.valueAt(entry) === liveEntry(row), 'a live order ends once')
    this.table.setValueAt(entry, ended)
    this.liveCount--
    const clientOrderId = o.clientOrderId[row]!
    if (clientOrderId !== '') {
      const key = clientKeyOf(o.owner[row]!, clientOrderId)
      assert(this.liveByClientKey.get(key) === row, 'an ending order held its client order id')
      this.liveByClientKey.delete(key)
    }
    this.retainEnded(entry)
  }

  /** Restores an ended order's entry from a snapshot, oldest first (as `forEachEnded` gives them). */
  addEnded(orderId: string, ended: number): void {
    assert(ended >= 0, 'an ended entry is not live')
    this.retainEnded(this.table.add(orderId, ended))
  }

  /** The rows of every live order, in acceptance order (order number). */
  liveRows(): OrderRow[] {
    const o = this.orders
    const rows: OrderRow[] = []
    for (let row = 0; row < o.rowsEver; row++) if (o.live[row] === 1) rows.push(row)
    rows.sort((a, b) => o.orderNumber[a]! - o.orderNumber[b]!)
    return rows
  }

  /** Calls `visit` for every retained ended order, in the order they ended (oldest first). */
  forEachEnded(visit: (orderId: string, ended: number) => void): void {
    for (let i = 0; i < this.endedQueue.length; i++) {
      const entry = this.endedQueue.at(i)
      visit(this.table.keyAt(entry), this.table.valueAt(entry))
    }
  }

  /** Calls `visit` for every known order: the live ones, then the retained ended ones. */
  forEach(visit: (orderId: string, entry: OrderEntry) => void): void {
    for (const row of this.liveRows()) visit(this.orders.orderId[row]!, liveEntry(row))
    this.forEachEnded(visit)
  }

  /** Queues an ended entry and forgets the earliest ended ones beyond the bound. */
  private retainEnded(entry: number): void {
    this.endedQueue.push(entry)
    while (this.endedQueue.length > this.endedRetained) {
      const oldest = this.endedQueue.shift()
      assert(this.table.valueAt(oldest) >= 0, 'only ended orders are forgotten')
      this.table.delete(oldest)
    }
  }
}

/**
 * One string for the pair: the owner's length first, so that no two pairs share a key whatever
 * characters the owner holds (the owner is an API key; the engine only bounds its length).
 */
function clientKeyOf(owner: string, clientOrderId: string): string {
  return `${owner.length}:${owner}${clientOrderId}`
}
