/**
 * The resting orders of an order group (order-group.ts), as an intrusive doubly linked list through
 * the order table's groupPrev and groupNext: an order joins its group's list when it rests and
 * leaves it when it stops resting (lifecycle.ts), so a trigger finds every resting order of the
 * group without a scan. Apart from order-group.ts so that lifecycle.ts, which order-group.ts calls
 * to cancel them, needs nothing of that file but its type.
 */
import { assert } from '../stdx/assert.js'
import type { OrderGroup } from './order-group.js'
import { NO_ROW, type OrderRow, type OrderTable } from './order-table.js'

/** Puts a resting order in its group's list (lifecycle.ts, rest). */
export function linkToGroup(o: OrderTable, group: OrderGroup, row: OrderRow): void {
  o.groupPrev[row] = group.tail
  o.groupNext[row] = NO_ROW
  if (group.tail === NO_ROW) group.head = row
  else o.groupNext[group.tail] = row
  group.tail = row
  group.restingCount++
}

/** Takes an order off its group's list (lifecycle.ts, unrest). */
export function unlinkFromGroup(o: OrderTable, group: OrderGroup, row: OrderRow): void {
  const prev = o.groupPrev[row]!
  const next = o.groupNext[row]!
  if (prev === NO_ROW) group.head = next
  else o.groupNext[prev] = next
  if (next === NO_ROW) group.tail = prev
  else o.groupPrev[next] = prev
  o.groupPrev[row] = NO_ROW
  o.groupNext[row] = NO_ROW
  group.restingCount--
  assert(group.restingCount >= 0, 'a group counts its resting orders')
}
