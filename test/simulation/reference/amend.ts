/**
 * Amend and cancel-replace.
 */
import type { AmendOrder, CancelReplace } from '../../../src/engine/command.js'
import type { Amended, CommandResult, Replaced } from '../../../src/engine/result.js'
import { Code } from '../../../src/engine/codes.js'
import { MICROS_PER_LOT } from '../../../src/engine/limits.js'
import { ownLive } from './cancels.js'
import { emitUpdate, end, place, rejectOrder } from './matching.js'
import { ReferenceState, type Step, refuse, rejection } from './state.js'
import { checkTerms, isLotAmount, rawString } from './validation.js'

/**
 * Lowers an open order's lots. The order keeps its number, so its place in its level's queue
 * (priority is by number); its hold shrinks by itself, since holds are derived from the lots.
 * SPEC: like a cancel, an amend is allowed whatever the market's status (it only takes size
 * off), and it may leave less than the market's minimum order size (a rule of placement).
 */
export function amend(r: ReferenceState, c: AmendOrder, step: Step): CommandResult {
  // The sizes first: exactly one a whole number of lots in (0, ORDER_AMOUNT_MICROS_MAX], the
  // other 0. SPEC: "exactly 0" is `=== 0`, so -0 is 0 too (and String(-0) is '0').
  const given = [c.newSizeMicros, c.reduceByMicros].filter(isLotAmount).length
  const zeros = [c.newSizeMicros, c.reduceByMicros].filter((v) => v === 0).length
  if (given !== 1 || zeros !== 1) {
    return rejection(refuse(Code.AMEND_SIZE_INVALID, {
      newSizeMicros: String(c.newSizeMicros),
      reduceByMicros: String(c.reduceByMicros),
    }))
  }
  const o = ownLive(r, c.address, c.orderId)
  if (typeof o === 'string') return rejection(refuse(o, { orderId: c.orderId }))
  const remaining = o.lots * MICROS_PER_LOT
  // SPEC: the size asked for is the new size, or what rests less the reduction (negative when
  // the reduction is larger), and the refusal names it as such.
  const requested = c.newSizeMicros !== 0 ? c.newSizeMicros : remaining - c.reduceByMicros
  if (!(requested > 0 && requested < remaining)) {
    return rejection(refuse(Code.AMEND_NOT_REDUCING, { remainingMicros: remaining, requestedMicros: requested }))
  }
  o.lots = requested / MICROS_PER_LOT
  emitUpdate(o, step, 'amended')
  const result: Amended = {
    ok: true,
    orderId: c.orderId,
    sizeMatchedMicros: o.matchedLots * MICROS_PER_LOT,
    remainingMicros: requested,
    reducedByMicros: remaining - requested,
  }
  return result
}

/**
 * Cancels an open order and places another. The old order is judged first: not the
 * requester's open order, and the whole command is refused (no event, even if the new order is
 * malformed). Then the new order's terms (steps 1 to 13): refused, and the old order stays.
 * Only then is the old order cancelled and the new one placed as placeOrder places it, from
 * step 1 (steps 1 to 13 pass again: the cancel changed none of what they read but the client
 * order id, now free), so only funds and the book (steps 14 to 18) can still refuse it.
 * SPEC: nothing ties the new order's maker or market to the old order's (no rule says so).
 */
export function cancelReplace(r: ReferenceState, c: CancelReplace, step: Step): CommandResult {
  const old = ownLive(r, c.address, c.orderId)
  if (typeof old === 'string') {
    return rejection(refuse(old, { orderId: c.orderId, newOrderId: rawString(c.order, 'orderId') }))
  }
  const terms = checkTerms(r, c.order, old)
  if (terms.refused) return rejectOrder(c.order, terms, step)
  const canceledRemainingMicros = old.lots * MICROS_PER_LOT
  end(r, old, 'CANCELED', 'replaced', step)
  const placed = place(r, c.order, step)
  const result: Replaced = { ok: true, canceledOrderId: c.orderId, canceledRemainingMicros, placed }
  return result
}
