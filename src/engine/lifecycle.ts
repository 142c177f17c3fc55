/**
 * How an order comes to rest, and how a resting order ends: filled, cancelled or expired. The
 * holds follow the order: resting puts them in place, ending releases what is left. An order's
 * row goes back to the table (order-table.ts) once its last event is written.
 */
import type { Account } from './account.js'
import { assert } from '../stdx/assert.js'
import type { Engine } from './engine.js'
import { endedEntry } from './order-index.js'
import type { CancelReason, OrderStatus } from './event.js'
import { MICROS_PER_LOT } from './limits.js'
import { NO_ROW, TIF_GTD, type OrderRow, type OrderTable } from './order-table.js'
import { linkToGroup, unlinkFromGroup } from './group-list.js'

/** Puts an accepted GTC/GTD order with lots left on the book, holding what it may spend. */
export function rest(engine: Engine, order: OrderRow): void {
  const o = engine.orderTable
  assert(!o.isImmediate(order) && o.lots[order]! > 0, 'only GTC/GTD orders with lots rest')
  const account = o.account[order]!
  if (o.isBuy[order] === 1) {
    engine.touches.account(account)
    account.usdcHeldMicros += o.pips[order]! * o.lots[order]!
  } else {
    const shares = o.shares[order]!
    engine.touches.shareBalance(shares)
    shares.heldMicros += o.lots[order]! * MICROS_PER_LOT
  }
  o.market[order]!.book.insert(order)
  linkToAccount(o, account, order)
  const group = o.group[order]!
  if (group !== null) linkToGroup(o, group, order)
  o.live[order] = 1
  engine.openOrderCount++
  if (o.timeInForce[order] === TIF_GTD) engine.expiry.push(o, order)
}

/** A resting order whose last lot was just filled (its hold is already consumed); its row is freed. */
export function endFilled(engine: Engine, order: OrderRow): void {
  const o = engine.orderTable
  assert(o.lots[order] === 0, 'a filled order has no lots left')
  unrest(engine, order)
  engine.orders.setEnded(order, endedEntry(o.account[order]!.index, 'MATCHED'))
  emitOrderUpdate(engine, order, 'MATCHED', null)
  o.release(order)
}

/** Cancels a resting order: releases its hold, emits its update and frees its row. */
export function cancelResting(engine: Engine, order: OrderRow, reason: CancelReason): void {
  const o = engine.orderTable
  assert(o.live[order] === 1, 'only a live order can be cancelled')
  const account = o.account[order]!
  releaseHold(engine, order, o.lots[order]!)
  unrest(engine, order)
  o.lots[order] = 0
  engine.orders.setEnded(order, endedEntry(account.index, 'CANCELED'))
  emitOrderUpdate(engine, order, 'CANCELED', reason)
  o.release(order)
}

/**
 * Gives back what `lots` of a resting order hold: USDC at its price for a BUY, shares for a SELL
 * (a cancel gives back all its lots, an amend some).
 */
export function releaseHold(engine: Engine, order: OrderRow, lots: number): void {
  const o = engine.orderTable
  if (o.isBuy[order] === 1) {
    const account = o.account[order]!
    engine.touches.account(account)
    account.usdcHeldMicros -= o.pips[order]! * lots
  } else {
    const shares = o.shares[order]!
    engine.touches.shareBalance(shares)
    shares.heldMicros -= lots * MICROS_PER_LOT
  }
}

/** Expires every live GTD order whose time has come (docs/engine.md, "Expiry"). */
export function expireDue(engine: Engine): void {
  for (;;) {
    const order = engine.expiry.popDue(engine.orderTable, engine.timeMs)
    if (order === NO_ROW) return
    cancelResting(engine, order, 'expired')
  }
}

export function emitOrderUpdate(
  engine: Engine,
  order: OrderRow,
  status: OrderStatus,
  reason: CancelReason | null,
): void {
  if (engine.recording) engine.log.orderUpdate(order, status, reason)
}

/** Takes an order off the book and its account's open list (holds are the caller's). */
function unrest(engine: Engine, order: OrderRow): void {
  const o = engine.orderTable
  o.market[order]!.book.remove(order)
  unlinkFromAccount(o, o.account[order]!, order)
  const group = o.group[order]!
  if (group !== null) unlinkFromGroup(o, group, order)
  o.live[order] = 0
  engine.openOrderCount--
}

function linkToAccount(o: OrderTable, account: Account, order: OrderRow): void {
  o.accountPrev[order] = account.openTail
  o.accountNext[order] = NO_ROW
  if (account.openTail === NO_ROW) account.openHead = order
  else o.accountNext[account.openTail] = order
  account.openTail = order
}

function unlinkFromAccount(o: OrderTable, account: Account, order: OrderRow): void {
  const prev = o.accountPrev[order]!
  const next = o.accountNext[order]!
  if (prev === NO_ROW) account.openHead = next
  else o.accountNext[prev] = next
  if (next === NO_ROW) account.openTail = prev
  else o.accountPrev[next] = prev
  o.accountPrev[order] = NO_ROW
  o.accountNext[order] = NO_ROW
}
