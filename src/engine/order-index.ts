/**
 * The index of every order the engine ever accepted (`Engine.orders`): a live order maps to its
 * object; an ended one to a small number, `account index * 4 + status`, so that ended orders
 * cost a map entry and no object. Duplicates are detected against it, and cancels of ended
 * orders answer from it.
 */
import type { OrderStatus } from './event.js'
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
