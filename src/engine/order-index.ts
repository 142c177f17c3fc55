/**
 * The index of every order the engine ever accepted: live orders map to their object (a small,
 * hot Map), ended ones to a small number in an IdTable (large, cold): `account index * 4 +
 * status`. Duplicates are detected against both, and cancels of ended orders answer from it.
 */
import { assert } from './assert.js'
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

export class OrderIndex {
  /** Live orders, in acceptance order. */
  readonly live = new Map<string, Order>()
  /** Ended orders, in the order they ended. */
  readonly ended: IdTable

  constructor(hashSeed: number) {
    this.ended = new IdTable(hashSeed)
  }

  get size(): number {
    return this.live.size + this.ended.size
  }

  get(orderId: string): OrderEntry | undefined {
    const order = this.live.get(orderId)
    if (order !== undefined) return order
    const entry = this.ended.get(orderId)
    return entry < 0 ? undefined : entry
  }

  setLive(order: Order): void {
    assert(!this.live.has(order.orderId), 'a live order is indexed once')
    this.live.set(order.orderId, order)
  }

  /** Records that an order ended (it may or may not have been live). */
  setEnded(orderId: string, entry: number): void {
    this.live.delete(orderId)
    this.ended.add(orderId, entry)
  }
}
