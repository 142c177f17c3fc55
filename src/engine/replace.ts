/**
 * Cancel-replace (docs/engine.md, "Cancel-replace"): one command cancels a live order and places
 * another in its stead, so a quoter moving a quote never has both live, and never places the new
 * one after the old was filled (its exposure would double).
 *
 * In order: the old order must be live and the requester's (else the command is refused with the
 * cancel's code, and nothing changes); the new order's terms are checked (a refusal there changes
 * nothing either: the old order stays live); then the old order is cancelled (reason `replaced`)
 * and the new one placed as placeOrder places it. What only placing can tell (funds, post-only,
 * FOK, FAK) refuses the new order after the cancel: the result says both.
 */
import { notLiveRejection, ownLiveOrder } from './cancel.js'
import type { CancelReplace } from './command.js'
import type { Engine } from './engine.js'
import { cancelResting } from './lifecycle.js'
import { MICROS_PER_LOT } from './limits.js'
import { placeOne, refusalOfTerms, writePlaceResult } from './placement.js'

export function cancelReplace(engine: Engine, command: CancelReplace): boolean {
  const old = ownLiveOrder(engine, command.address, command.orderId)
  if (typeof old === 'string') {
    return engine.answer(notLiveRejection(old, { orderId: command.orderId, newOrderId: orderIdOf(command) }))
  }
  const refusal = refusalOfTerms(engine, command.order, old)
  if (refusal !== null) return writePlaceResult(engine, refusal)
  const canceledRemainingMicros = engine.orderTable.lots[old]! * MICROS_PER_LOT
  cancelResting(engine, old, 'replaced')
  const outcome = placeOne(engine, command.order)
  if (engine.recording) engine.log.resultReplaced(command.orderId, canceledRemainingMicros)
  writePlaceResult(engine, outcome)
  return true
}

/** The new order's id as sent (a malformed one is the placement's to refuse; here it is context). */
function orderIdOf(command: CancelReplace): string {
  const orderId: unknown = command.order.orderId
  return typeof orderId === 'string' ? orderId : ''
}
