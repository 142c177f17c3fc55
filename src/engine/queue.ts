/**
 * Queue position: the lots resting ahead of a live order in its level's FIFO queue, which is what
 * fills before it (issue 31; as Kalshi's queue_position). The level is the unified book's (docs/
 * engine.md, "Markets and the unified book"): a Yes bid at 0.40 and a No ask at 0.60 share a queue.
 *
 * Without a walk in the common case: an order remembers, as it joins, the lots ahead of it and its
 * level's two counters (book.ts: lots filled, removals that were not fills). Fills take from the
 * head, so while no other removal has happened at the level, every lot filled since the order
 * joined was ahead of it, or its own: ahead = ahead then - (filled since - its own filled since).
 * A cancel, amend or expiry at the level since then may have been ahead of it or behind: then the
 * answer is a walk from the head to the order (test/unit/engine/queue.test.ts checks both agree).
 * A read: it changes nothing.
 */
import { assert } from '../stdx/assert.js'
import type { Engine } from './engine.js'
import { MICROS_PER_LOT } from './limits.js'
import { isLiveEntry, rowOfEntry } from './order-index.js'
import { NO_ROW, type OrderRow, type OrderTable } from './order-table.js'

/** The micro-shares resting ahead of live order `orderId` at its price, or null when it is not live. */
export function queueAheadMicros(engine: Engine, orderId: string): number | null {
  const entry = engine.orders.get(orderId)
  if (entry === undefined || !isLiveEntry(entry)) return null
  return queueAheadLots(engine.orderTable, rowOfEntry(entry)) * MICROS_PER_LOT
}

/** The lots ahead of a resting order: from its marks when they still tell, else by a walk. */
export function queueAheadLots(o: OrderTable, order: OrderRow): number {
  const level = o.level[order]!
  assert(level !== null, 'a live order rests on a level')
  if (level.otherRemovals !== o.queueOtherMark[order]) return queueAheadLotsByWalk(o, order)
  const filledSince = level.filledLots - o.queueFilledMark[order]!
  const ownFilled = o.queueLots[order]! - o.lots[order]!
  const ahead = o.queueAheadLots[order]! - (filledSince - ownFilled)
  assert(ahead >= 0 && (ownFilled === 0 || ahead === 0), 'an order is filled only once nothing is ahead of it')
  return ahead
}

/** The lots ahead of a resting order, walked from its level's head. */
export function queueAheadLotsByWalk(o: OrderTable, order: OrderRow): number {
  let ahead = 0
  for (let row = o.level[order]!.head; row !== order; row = o.next[row]!) {
    assert(row !== NO_ROW, 'a resting order is in its level\'s queue')
    ahead += o.lots[row]!
  }
  return ahead
}
