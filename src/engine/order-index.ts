/**
 * The index of every order the engine ever accepted: live orders map to their object (a small,
 * hot Map), ended ones to a small number in an IdTable (large, cold): `account index * 4 +
 * status`. Duplicates are detected against both, and cancels of ended orders answer from it.
 * Live orders that carry a client order id are also found by (owner, client order id): an
 * entry comes with `setLive` and goes with `setEnded`, the only two ways an order starts and
 * stops living, so the index holds exactly the live orders with a client id, and is rebuilt by
 * whatever rebuilds the live orders (a snapshot load, a replay).
 */
import { assert } from '../stdx/assert.js'
import type { OrderStatus } from './event.js'
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
  /** Every accepted order id, in acceptance order. */
  readonly table: IdTable
  /** Live orders by entry index (ended ones are dropped so that they can be collected). */
  private readonly liveByEntry: (Order | undefined)[] = []
  private liveCount = 0
  /** clientKeyOf(owner, client order id) -> the live order that has it. */
  private readonly liveByClientKey = new Map<string, Order>()

  constructor(hashSeed: number) {
    this.table = new IdTable(hashSeed)
  }

  get size(): number {
    return this.table.size
  }

  get live(): number {
    return this.liveCount
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

  /** Records that an accepted order ended. */
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
  }

  /** Restores an ended order's entry from a snapshot. */
  addEnded(orderId: string, ended: number): void {
    assert(ended >= 0, 'an ended entry is not live')
    this.table.add(orderId, ended)
  }

  /** Calls `visit` for every accepted order, in acceptance order: the live order or its ended entry. */
  forEach(visit: (orderId: string, entry: OrderEntry) => void): void {
    for (let index = 0; index < this.table.size; index++) {
      const value = this.table.valueAt(index)
      visit(this.table.keyAt(index), value === LIVE ? this.liveByEntry[index]! : value)
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
