/**
 * The index of the orders the engine knows: every live order, mapped to its object (a small,
 * hot Map), and the last `endedRetained` orders that ended (ENDED_ORDERS_RETAINED for the
 * server), mapped to a small number in an IdTable (large, cold): `account index * 4 + status`.
 * Duplicates are detected against both, and cancels of ended orders answer from it. When more
 * orders have ended than the bound, the one that ended first is forgotten (its id is then
 * unknown, and new again); a live order is never forgotten. The end order is kept in a queue
 * that depends only on the commands applied, and snapshots write it, so eviction replays exactly.
 * Live orders that carry a client order id are also found by (owner, client order id): an
 * entry comes with `setLive` and goes with `setEnded`, the only two ways an order starts and
 * stops living, so the index holds exactly the live orders with a client id, and is rebuilt by
 * whatever rebuilds the live orders (a snapshot load, a replay).
 */
import { assert } from '../stdx/assert.js'
import type { OrderStatus } from './event.js'
import { EntryQueue } from './entry-queue.js'
import { IdTable } from './id-table.js'
import type { Order } from './order.js'

export type OrderEntry = Order | number

const ENDED_MATCHED = 1
const ENDED_CANCELED = 2

export function endedEntry(accountIndex: number, status: 'MATCHED' | 'CANCELED'): number {
  return accountIndex * 4 + (status === 'MATCHED' ? ENDED_MATCHED : ENDED_CANCELED)
}

export function orderStatusOf(entry: OrderEntry): OrderStatus {
  if (typeof entry !== 'number') return 'LIVE'
  return entry % 4 === ENDED_MATCHED ? 'MATCHED' : 'CANCELED'
}

/** The index of the account that owned an ended order. */
export function endedAccountIndex(entry: number): number {
  return Math.floor(entry / 4)
}

/** The value of a live order's entry; ended entries hold `endedEntry(...)`, which is >= 0. */
const LIVE = -1

export class OrderIndex {
  /** Every live order and the retained ended ones (entry indices are reused: no order of its own). */
  readonly table: IdTable
  /** Live orders by entry index (ended ones are dropped so that they can be collected). */
  private readonly liveByEntry: (Order | undefined)[] = []
  private liveCount = 0
  /** The entries of the retained ended orders, in the order they ended (oldest first). */
  private readonly endedQueue = new EntryQueue()
  /** clientKeyOf(owner, client order id) -> the live order that has it. */
  private readonly liveByClientKey = new Map<string, Order>()

  constructor(hashSeed: number, readonly endedRetained: number) {
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
    if (entry < 0) return undefined
    const value = this.table.valueAt(entry)
    return value === LIVE ? this.liveByEntry[entry]! : value
  }

  /** Live orders that have a client order id. */
  get liveWithClientOrderId(): number {
    return this.liveByClientKey.size
  }

  /** The live order of `owner` with this client order id; undefined for '' or none. */
  liveByClientOrderId(owner: string, clientOrderId: string): Order | undefined {
    if (clientOrderId === '') return undefined
    return this.liveByClientKey.get(clientKeyOf(owner, clientOrderId))
  }

  /** Indexes a newly accepted order as live. */
  setLive(order: Order): void {
    const entry = this.table.add(order.orderId, LIVE)
    order.indexEntry = entry
    this.liveByEntry[entry] = order
    this.liveCount++
    if (order.clientOrderId !== '') {
      const key = clientKeyOf(order.owner, order.clientOrderId)
      assert(!this.liveByClientKey.has(key), 'a client order id names one live order of its owner')
      this.liveByClientKey.set(key, order)
    }
  }

  /** Records that an accepted order ended; forgets the earliest ended one if over the bound. */
  setEnded(order: Order, ended: number): void {
    assert(ended >= 0 && this.table.valueAt(order.indexEntry) === LIVE, 'a live order ends once')
    this.table.setValueAt(order.indexEntry, ended)
    this.liveByEntry[order.indexEntry] = undefined
    this.liveCount--
    if (order.clientOrderId !== '') {
      const key = clientKeyOf(order.owner, order.clientOrderId)
      assert(this.liveByClientKey.get(key) === order, 'an ending order held its client order id')
      this.liveByClientKey.delete(key)
    }
    this.retainEnded(order.indexEntry)
  }

  /** Restores an ended order's entry from a snapshot, oldest first (as `forEachEnded` gives them). */
  addEnded(orderId: string, ended: number): void {
    assert(ended >= 0, 'an ended entry is not live')
    this.retainEnded(this.table.add(orderId, ended))
  }

  /** Calls `visit` for every live order, in acceptance order (order number). */
  forEachLive(visit: (order: Order) => void): void {
    const live: Order[] = []
    for (const order of this.liveByEntry) if (order !== undefined) live.push(order)
    live.sort((a, b) => a.orderNumber - b.orderNumber)
    for (const order of live) visit(order)
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
    this.forEachLive((order) => visit(order.orderId, order))
    this.forEachEnded(visit)
  }

  /** Queues an ended entry and forgets the earliest ended ones beyond the bound. */
  private retainEnded(entry: number): void {
    this.endedQueue.push(entry)
    while (this.endedQueue.length > this.endedRetained) {
      const oldest = this.endedQueue.shift()
      assert(this.table.valueAt(oldest) !== LIVE, 'only ended orders are forgotten')
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
