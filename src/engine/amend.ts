/**
 * Amend: a live order's remaining size lowered by its owner, keeping its place in its level's
 * queue (docs/engine.md, "Amend"). Only lowering keeps priority, as at every venue that offers it:
 * more size or another price is a new order (cancel-replace). The holds shrink with the size, and
 * the order's update (LIVE, reason `amended`) and its level's new size are the command's events.
 */
import { notLiveRejection, ownLiveOrder } from './cancel.js'
import type { AmendOrder } from './command.js'
import type { Engine } from './engine.js'
import { emitOrderUpdate, releaseHold } from './lifecycle.js'
import { MICROS_PER_LOT } from './limits.js'
import type { Amended, Rejection } from './result.js'
import { amendedSizeMicros, checkAmendSize } from './rules.js'

export function amendOrder(engine: Engine, command: AmendOrder): Amended | Rejection {
  const shape = checkAmendSize(command.newSizeMicros, command.reduceByMicros)
  if (shape !== null) return shape
  const order = ownLiveOrder(engine, command.address, command.orderId)
  if (typeof order === 'string') return notLiveRejection(order, { orderId: command.orderId })
  const o = engine.orderTable
  const remainingMicros = o.lots[order]! * MICROS_PER_LOT
  const sizeMicros = amendedSizeMicros(remainingMicros, command.newSizeMicros, command.reduceByMicros)
  if (typeof sizeMicros !== 'number') return sizeMicros
  const lots = (remainingMicros - sizeMicros) / MICROS_PER_LOT
  releaseHold(engine, order, lots)
  o.market[order]!.book.reduce(order, lots)
  emitOrderUpdate(engine, order, 'LIVE', 'amended')
  return { ok: true, orderId: command.orderId, sizeMatchedMicros: o.matchedLots[order]! * MICROS_PER_LOT,
    remainingMicros: sizeMicros, reducedByMicros: lots * MICROS_PER_LOT }
}
