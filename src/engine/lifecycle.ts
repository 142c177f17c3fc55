/**
 * How an order comes to rest, and how a resting order ends: filled, cancelled or expired. The
 * holds follow the order: resting puts them in place, ending releases what is left.
 */
import type { Account } from './account.js'
import { assert } from '../stdx/assert.js'
import type { Engine } from './engine.js'
import { endedEntry } from './order-index.js'
import type { CancelReason, OrderStatus } from './event.js'
import { MICROS_PER_LOT } from './limits.js'
import type { Order } from './order.js'

/** Puts an accepted GTC/GTD order with lots left on the book, holding what it may spend. */
export function rest(engine: Engine, order: Order): void {
  assert(!order.isImmediate && order.lots > 0, 'only GTC/GTD orders with lots rest')
  const account = order.account
  if (order.isBuy) {
    engine.touches.account(account)
    account.usdcHeldMicros += order.pips * order.lots
  } else {
    engine.touches.shareBalance(order.shares)
    order.shares.heldMicros += order.lots * MICROS_PER_LOT
  }
  order.market.book.insert(order)
  linkToAccount(account, order)
  order.live = true
  engine.openOrderCount++
  if (order.timeInForce === 'GTD') engine.expiry.push(order)
}

/** A resting order whose last lot was just filled (its hold is already consumed). */
export function endFilled(engine: Engine, order: Order): void {
  assert(order.lots === 0, 'a filled order has no lots left')
  unrest(engine, order)
  engine.orders.setEnded(order, endedEntry(order.account.index, 'MATCHED'))
}

/** Cancels a resting order: releases its hold and emits its update. */
export function cancelResting(engine: Engine, order: Order, reason: CancelReason): void {
  assert(order.live, 'only a live order can be cancelled')
  const account = order.account
  if (order.isBuy) {
    engine.touches.account(account)
    account.usdcHeldMicros -= order.pips * order.lots
  } else {
    engine.touches.shareBalance(order.shares)
    order.shares.heldMicros -= order.lots * MICROS_PER_LOT
  }
  unrest(engine, order)
  order.lots = 0
  engine.orders.setEnded(order, endedEntry(account.index, 'CANCELED'))
  emitOrderUpdate(engine, order, 'CANCELED', reason)
}

/** Expires every live GTD order whose time has come (docs/engine.md, "Expiry"). */
export function expireDue(engine: Engine): void {
  for (;;) {
    const order = engine.expiry.popDue(engine.timeMs)
    if (order === null) return
    if (order.live) cancelResting(engine, order, 'expired')
  }
}

export function emitOrderUpdate(
  engine: Engine,
  order: Order,
  status: OrderStatus,
  reason: CancelReason | null,
): void {
  if (engine.recording) engine.log.orderUpdate(order, status, reason)
}

/** Takes an order off the book and its account's open list (holds are the caller's). */
function unrest(engine: Engine, order: Order): void {
  order.market.book.remove(order)
  unlinkFromAccount(order.account, order)
  order.live = false
  engine.openOrderCount--
}

function linkToAccount(account: Account, order: Order): void {
  order.accountPrev = account.openTail
  order.accountNext = null
  if (account.openTail === null) account.openHead = order
  else account.openTail.accountNext = order
  account.openTail = order
}

function unlinkFromAccount(account: Account, order: Order): void {
  if (order.accountPrev === null) account.openHead = order.accountNext
  else order.accountPrev.accountNext = order.accountNext
  if (order.accountNext === null) account.openTail = order.accountPrev
  else order.accountNext.accountPrev = order.accountPrev
  order.accountPrev = null
  order.accountNext = null
}
