/**
 * A market's order book in Yes-space (docs/engine.md, "Markets and the unified book"): bids are
 * BUY Yes and SELL No orders, asks are SELL Yes and BUY No orders, each priced in Yes pips. One
 * FIFO queue per price level serves both tokens, which is what gives price-time priority across
 * the Yes and No books.
 *
 * Levels live in arrays indexed by the tick grid (price / tick), so a market with a 0.01 tick
 * keeps 2 x 101 slots. The best bid and ask are tracked; when a best level empties, the next one
 * is found by stepping along the grid (at most 10 000 steps, usually a few).
 */
import { assert } from '../stdx/assert.js'
import { PIPS_PER_UNIT } from './limits.js'
import type { Market } from './market.js'
import { NO_ROW, type OrderRow, type OrderTable } from './order-table.js'
import type { Touches } from './touches.js'

export class Level {
  /** The oldest and newest order at this price (rows of the order table), or NO_ROW. */
  head: OrderRow = NO_ROW
  tail: OrderRow = NO_ROW
  /** Lots of all orders at this level, and of the No orders among them. */
  lots = 0
  noLots = 0
  orderCount = 0
  stamp = 0
  yesLotsBefore = 0
  noLotsBefore = 0
  /**
   * For queue positions (queue.ts): lots filled at this level since it was made, and removals that
   * were not fills (cancels, amends, expiries). Counters only grow; an order remembers them as it
   * joins, so the lots ahead of it are known without a walk while no removal but fills happened.
   */
  filledLots = 0
  otherRemovals = 0

  constructor(
    readonly market: Market,
    readonly isBid: boolean,
    /** Yes-space price in pips. */
    readonly pips: number,
  ) {}
}

export class Book {
  private tickPips: number
  private bids: (Level | null)[]
  private asks: (Level | null)[]
  /** Grid index of the best bid (0 when there is none) and best ask (the top index when none). */
  private bestBidIndex = 0
  private bestAskIndex: number
  /**
   * Non-empty levels of each side: a walk of a side stops after its last one instead of stepping
   * to the end of the grid (10 001 slots at a 0.0001 tick), which book views and the invariant
   * check did on every call.
   */
  private bidLevelCount = 0
  private askLevelCount = 0

  constructor(
    private readonly market: Market,
    tickPips: number,
    private readonly touches: Touches,
    private readonly orders: OrderTable,
  ) {
    this.tickPips = tickPips
    const slots = PIPS_PER_UNIT / tickPips + 1
    this.bids = new Array<Level | null>(slots).fill(null)
    this.asks = new Array<Level | null>(slots).fill(null)
    this.bestAskIndex = slots - 1
  }

  bestBid(): Level | null {
    return this.bestBidIndex === 0 ? null : this.bids[this.bestBidIndex]!
  }

  bestAsk(): Level | null {
    return this.bestAskIndex === this.asks.length - 1 ? null : this.asks[this.bestAskIndex]!
  }

  /** Appends a resting order to the tail of its level. */
  insert(order: OrderRow): void {
    const o = this.orders
    assert(o.lots[order]! > 0, 'a resting order has lots')
    assert(o.level[order] === null, 'order is not on a book yet')
    const isBid = o.isBid(order)
    const yesPips = o.yesPips(order)
    const index = this.indexOf(yesPips)
    const levels = isBid ? this.bids : this.asks
    let level = levels[index]!
    if (level === null) {
      level = new Level(this.market, isBid, yesPips)
      levels[index] = level
    }
    this.touches.level(level)
    if (level.head === NO_ROW) this.countLevel(isBid, 1)
    o.level[order] = level
    o.queueAheadLots[order] = level.lots
    o.queueFilledMark[order] = level.filledLots
    o.queueOtherMark[order] = level.otherRemovals
    o.queueLots[order] = o.lots[order]!
    o.prev[order] = level.tail
    o.next[order] = NO_ROW
    if (level.tail === NO_ROW) level.head = order
    else o.next[level.tail] = order
    level.tail = order
    const lots = o.lots[order]!
    level.lots += lots
    if (o.isNo[order] === 1) level.noLots += lots
    level.orderCount++
    if (isBid && index > this.bestBidIndex) this.bestBidIndex = index
    if (!isBid && index < this.bestAskIndex) this.bestAskIndex = index
  }

  /** Takes `lots` off a resting order by a fill (the order may then have none left: the caller ends it). */
  fill(order: OrderRow, lots: number): void {
    this.takeLots(order, lots)
    this.orders.level[order]!.filledLots += lots
  }

  /** Takes `lots` off a resting order that stays on the book, not by a fill (an amend). */
  reduce(order: OrderRow, lots: number): void {
    assert(lots < this.orders.lots[order]!, 'an order reduced keeps lots')
    this.takeLots(order, lots)
    this.orders.level[order]!.otherRemovals++
  }

  private takeLots(order: OrderRow, lots: number): void {
    const o = this.orders
    const level = o.level[order]!
    assert(lots > 0 && lots <= o.lots[order]!, 'reduce by at most the order')
    this.touches.level(level)
    o.lots[order] -= lots
    level.lots -= lots
    if (o.isNo[order] === 1) level.noLots -= lots
  }

  /** Unlinks an order from its level, with whatever lots it still has. */
  remove(order: OrderRow): void {
    const o = this.orders
    const level = o.level[order]!
    assert(level !== null, 'order is on the book')
    this.touches.level(level)
    const prev = o.prev[order]!
    const next = o.next[order]!
    if (prev === NO_ROW) level.head = next
    else o.next[prev] = next
    if (next === NO_ROW) level.tail = prev
    else o.prev[next] = prev
    const lots = o.lots[order]!
    level.lots -= lots
    if (o.isNo[order] === 1) level.noLots -= lots
    // An order that leaves with lots left was cancelled (or expired), not filled.
    if (lots > 0) level.otherRemovals++
    level.orderCount--
    o.level[order] = null
    o.prev[order] = NO_ROW
    o.next[order] = NO_ROW
    if (level.head === NO_ROW) {
      assert(level.lots === 0 && level.noLots === 0 && level.orderCount === 0, 'empty level')
      this.onLevelEmptied(level)
    }
  }

  /** Whether every resting order's price is a multiple of `tickPips`. */
  isOnGrid(tickPips: number): boolean {
    for (const level of this.levels()) if (level.pips % tickPips !== 0) return false
    return true
  }

  /** Moves the levels onto a new tick grid; every resting price must already lie on it. */
  retick(tickPips: number): void {
    assert(this.isOnGrid(tickPips), 'resting prices lie on the new grid')
    const slots = PIPS_PER_UNIT / tickPips + 1
    const bids = new Array<Level | null>(slots).fill(null)
    const asks = new Array<Level | null>(slots).fill(null)
    for (const level of this.levels()) {
      const index = level.pips / tickPips
      if (level.isBid) bids[index] = level
      else asks[index] = level
    }
    this.tickPips = tickPips
    this.bids = bids
    this.asks = asks
    this.bestBidIndex = this.scanBids(slots - 2)
    this.bestAskIndex = this.scanAsks(1)
  }

  /** How many levels of a side hold orders. */
  levelCount(isBid: boolean): number {
    return isBid ? this.bidLevelCount : this.askLevelCount
  }

  /** Non-empty levels of one side, best first. */
  *side(isBid: boolean): Generator<Level> {
    let left = this.levelCount(isBid)
    if (isBid) {
      for (let index = this.bestBidIndex; index > 0 && left > 0; index--) {
        const level = this.bids[index]!
        if (level !== null && level.head !== NO_ROW) {
          left--
          yield level
        }
      }
    } else {
      for (let index = this.bestAskIndex; index < this.asks.length - 1 && left > 0; index++) {
        const level = this.asks[index]!
        if (level !== null && level.head !== NO_ROW) {
          left--
          yield level
        }
      }
    }
  }

  /** The best non-empty level of a side, or null: with `after`, a walk that allocates nothing. */
  best(isBid: boolean): Level | null {
    return isBid ? this.bestBid() : this.bestAsk()
  }

  /**
   * The next non-empty level of `level`'s side, away from the best, or null. A caller that walks a
   * whole side stops after `levelCount` levels rather than ask past the last (the scan would step
   * to the end of the grid, 10 001 slots at a 0.0001 tick), as `side` does.
   */
  after(level: Level): Level | null {
    const index = level.pips / this.tickPips
    if (level.isBid) {
      for (let i = index - 1; i > 0; i--) {
        const next = this.bids[i]!
        if (next !== null && next.head !== NO_ROW) return next
      }
      return null
    }
    const top = this.asks.length - 1
    for (let i = index + 1; i < top; i++) {
      const next = this.asks[i]!
      if (next !== null && next.head !== NO_ROW) return next
    }
    return null
  }

  /** All non-empty levels: bids best first, then asks best first. */
  *levels(): Generator<Level> {
    yield* this.side(true)
    yield* this.side(false)
  }

  private indexOf(pips: number): number {
    assert(pips > 0 && pips < PIPS_PER_UNIT && pips % this.tickPips === 0, 'price on the grid')
    return pips / this.tickPips
  }

  private countLevel(isBid: boolean, change: 1 | -1): void {
    if (isBid) this.bidLevelCount += change
    else this.askLevelCount += change
  }

  private onLevelEmptied(level: Level): void {
    this.countLevel(level.isBid, -1)
    const index = level.pips / this.tickPips
    if (level.isBid && index === this.bestBidIndex) this.bestBidIndex = this.scanBids(index - 1)
    if (!level.isBid && index === this.bestAskIndex) this.bestAskIndex = this.scanAsks(index + 1)
  }

  /** The highest non-empty bid index at or below `from`, or 0. */
  private scanBids(from: number): number {
    for (let index = from; index > 0; index--) {
      const level = this.bids[index]!
      if (level !== null && level.head !== NO_ROW) return index
    }
    return 0
  }

  /** The lowest non-empty ask index at or above `from`, or the top index. */
  private scanAsks(from: number): number {
    const top = this.asks.length - 1
    for (let index = from; index < top; index++) {
      const level = this.asks[index]!
      if (level !== null && level.head !== NO_ROW) return index
    }
    return top
  }
}
