/**
 * Orders as rows of typed arrays (a struct of arrays), not objects: an order is a row number, and
 * each field is one array indexed by it (docs/engine.md, "Orders in typed arrays"). Rows hold the
 * live orders and, while a placement runs, its taker; a row freed by an order that ended is handed
 * to a later one (last freed first), and the arrays double when every row is taken. So placing,
 * resting, filling and cancelling allocate nothing, and the collector has no orders to trace.
 *
 * Prices are pips, quantities lots (limits.ts). A resting order sits in two intrusive
 * doubly-linked lists, through `prev`/`next` (the FIFO queue of its price level) and
 * `accountPrev`/`accountNext` (its account's open orders), which make cancel O(1); NO_ROW ends a
 * list. Strings and the entities an order points at stay JavaScript values, in arrays of their
 * own; a freed row drops its strings so that the table does not keep them alive.
 *
 * Invariants (checked by invariants.ts between commands): a row is in use exactly when it is live
 * (no taker is in flight then), so `inUse` equals the engine's open order count; a row in use is
 * never on the free list.
 *
 * The arrays are replaced when the table grows, and only `allocate` grows it: code holds the
 * table, never one of its arrays, across a call that may allocate.
 */
import type { Account, ShareBalance } from './account.js'
import { assert } from '../stdx/assert.js'
import type { Level } from './book.js'
import type { OrderGroup } from './order-group.js'
import { ORDER_LOTS_MAX, ORDER_ROWS_MAX, PIPS_PER_UNIT } from './limits.js'
import type { Market } from './market.js'

/** A row of the table: an order while it lives. */
export type OrderRow = number
/** No order: the end of a list, an empty level, an account without open orders. */
export const NO_ROW = -1

/** Self-trade prevention as the table keeps it (command.ts, SelfTradePrevention); only a taker's matters. */
export const STP_CANCEL_MAKER = 0
export const STP_CANCEL_TAKER = 1
export const STP_CANCEL_BOTH = 2

/** Why a taker's walk stopped early (`stopped`): not, its own order, its order group's trigger. */
export const STOP_NONE = 0
export const STOP_SELF_TRADE = 1
export const STOP_ORDER_GROUP = 2

/** Time in force as the table keeps it: the event log's codes (event-log.ts, TIME_IN_FORCE_CODES). */
export const TIF_GTC = 0
export const TIF_GTD = 1
export const TIF_FOK = 2
export const TIF_FAK = 3

assert(ORDER_LOTS_MAX < 2 ** 31, 'lots fit in an Int32Array')

/**
 * Rows to start with (about 400 KiB of arrays); the table doubles when they are all taken, up to
 * the doubling that holds ORDER_ROWS_MAX (limits.ts).
 */
const ROWS_INITIAL = 1 << 12

export class OrderTable {
  private capacity = ROWS_INITIAL
  /** Rows handed out at least once: rows at and above it were never used. */
  private top = 0
  /** Freed rows, a stack: the last freed is handed out first (its cache lines are warm). */
  private free = new Int32Array(ROWS_INITIAL)
  private freeCount = 0
  /** Rows in use: the live orders, and a placement's taker while it runs. */
  inUse = 0

  /**
   * Lots still to fill (resting orders: lots on the book). Lots fit in 32 bits (ORDER_LOTS_MAX),
   * and int32 elements load as small integers, which the arithmetic on them stays in.
   */
  lots = new Int32Array(ROWS_INITIAL)
  /** Lots filled so far. */
  matchedLots = new Int32Array(ROWS_INITIAL)
  /** Unspent USDC budget of an immediate BUY while it walks the book; 0 otherwise. */
  budgetMicros = new Float64Array(ROWS_INITIAL)
  /** Acceptance order: the engine's order number (numbers stay below 2^53, not 2^31). */
  orderNumber = new Float64Array(ROWS_INITIAL)
  expirationSec = new Float64Array(ROWS_INITIAL)
  makerAmountMicros = new Float64Array(ROWS_INITIAL)
  takerAmountMicros = new Float64Array(ROWS_INITIAL)
  /** Native limit price in pips (immediate orders: the worst price they accept). */
  pips = new Int32Array(ROWS_INITIAL)
  prev = new Int32Array(ROWS_INITIAL)
  next = new Int32Array(ROWS_INITIAL)
  accountPrev = new Int32Array(ROWS_INITIAL)
  accountNext = new Int32Array(ROWS_INITIAL)
  /** The order's entry in the engine's order index (order-index.ts). */
  indexEntry = new Int32Array(ROWS_INITIAL)
  /** Where the event log last wrote the order's id and owner (event-log.ts, LogNamed). */
  logBatch = new Int32Array(ROWS_INITIAL)
  logIndex = new Int32Array(ROWS_INITIAL)
  /**
   * Queue position marks (queue.ts), set when the order joins its level: the lots ahead of it
   * then, its level's filled-lots and other-removals counters then (they grow past 2^31 over a
   * level's life: float64), and its own lots then.
   */
  queueAheadLots = new Float64Array(ROWS_INITIAL)
  queueFilledMark = new Float64Array(ROWS_INITIAL)
  queueOtherMark = new Float64Array(ROWS_INITIAL)
  queueLots = new Int32Array(ROWS_INITIAL)
  /** 1 when the order's token is the No token. */
  isNo = new Uint8Array(ROWS_INITIAL)
  /** 1 for a BUY. */
  isBuy = new Uint8Array(ROWS_INITIAL)
  postOnly = new Uint8Array(ROWS_INITIAL)
  /** 1 while the order rests on its book. */
  live = new Uint8Array(ROWS_INITIAL)
  /** TIF_GTC, TIF_GTD, TIF_FOK or TIF_FAK. */
  timeInForce = new Uint8Array(ROWS_INITIAL)
  /**
   * STP_CANCEL_*: what the order does, while it is the taker, on meeting its own account's resting
   * order. Not state: only the placement in flight reads it (a snapshot keeps none).
   */
  selfTradePrevention = new Uint8Array(ROWS_INITIAL)
  /**
   * Why the taker's walk stopped early (STOP_*): its own order (cancel-taker, cancel-both) or its
   * order group's trigger. It then ends cancelled, for that reason.
   */
  stopped = new Uint8Array(ROWS_INITIAL)
  /** Its order group's list of resting orders (order-group.ts), through these. */
  groupPrev = new Int32Array(ROWS_INITIAL)
  groupNext = new Int32Array(ROWS_INITIAL)

  readonly orderId: string[] = []
  readonly owner: string[] = []
  /** The trader's own name for the order ('' = none): see OrderInput. */
  readonly clientOrderId: string[] = []
  readonly signer: string[] = []
  readonly account: (Account | null)[] = []
  readonly market: (Market | null)[] = []
  /** The account's balance of this order's token. */
  readonly shares: (ShareBalance | null)[] = []
  /** The price level the order rests at; null when it does not rest. */
  readonly level: (Level | null)[] = []
  /** The order group it joined (order-group.ts); null: none. */
  readonly group: (OrderGroup | null)[] = []

  /** A row for a new order, its numbers zero and its links empty; the caller fills the rest. */
  allocate(): OrderRow {
    assert(this.inUse < ORDER_ROWS_MAX, 'order rows are bounded by the open orders and one taker')
    let row: OrderRow
    if (this.freeCount > 0) {
      row = this.free[--this.freeCount]!
    } else {
      if (this.top === this.capacity) this.grow()
      row = this.top++
      this.orderId.push('')
      this.owner.push('')
      this.clientOrderId.push('')
      this.signer.push('')
      this.account.push(null)
      this.market.push(null)
      this.shares.push(null)
      this.level.push(null)
      this.group.push(null)
    }
    this.inUse++
    this.lots[row] = 0
    this.matchedLots[row] = 0
    this.budgetMicros[row] = 0
    this.prev[row] = NO_ROW
    this.next[row] = NO_ROW
    this.accountPrev[row] = NO_ROW
    this.accountNext[row] = NO_ROW
    this.indexEntry[row] = -1
    // A reused row must not inherit its last order's place in the event log's batch.
    this.logBatch[row] = -1
    this.live[row] = 0
    this.selfTradePrevention[row] = STP_CANCEL_MAKER
    this.stopped[row] = STOP_NONE
    this.groupPrev[row] = NO_ROW
    this.groupNext[row] = NO_ROW
    return row
  }

  /** Frees the row of an order that ended (or was refused); its strings are dropped. */
  release(row: OrderRow): void {
    assert(this.live[row] === 0 && this.level[row] === null, 'a released order rests nowhere')
    this.inUse--
    this.orderId[row] = ''
    this.owner[row] = ''
    this.clientOrderId[row] = ''
    this.signer[row] = ''
    this.group[row] = null
    this.free[this.freeCount++] = row
  }

  /** Rows at or below this bound may be in use (a walk over every order). */
  get rowsEver(): number {
    return this.top
  }

  /** Bid or ask in the market's Yes-space book: BUY Yes and SELL No are bids. */
  isBid(row: OrderRow): boolean {
    return this.isBuy[row] !== this.isNo[row]
  }

  /** The order's price in Yes-space pips. */
  yesPips(row: OrderRow): number {
    return this.isNo[row] === 1 ? PIPS_PER_UNIT - this.pips[row]! : this.pips[row]!
  }

  isImmediate(row: OrderRow): boolean {
    return this.timeInForce[row]! >= TIF_FOK
  }

  /** An immediate BUY: its size is a USDC budget, spent as it walks (`budgetMicros`). */
  isBudget(row: OrderRow): boolean {
    return this.timeInForce[row]! >= TIF_FOK && this.isBuy[row] === 1
  }

  tokenId(row: OrderRow): string {
    const market = this.market[row]!
    return this.isNo[row] === 1 ? market.noTokenId : market.yesTokenId
  }

  private grow(): void {
    const capacity = this.capacity * 2
    this.lots = grown(this.lots, new Int32Array(capacity))
    this.matchedLots = grown(this.matchedLots, new Int32Array(capacity))
    this.budgetMicros = grown(this.budgetMicros, new Float64Array(capacity))
    this.orderNumber = grown(this.orderNumber, new Float64Array(capacity))
    this.expirationSec = grown(this.expirationSec, new Float64Array(capacity))
    this.makerAmountMicros = grown(this.makerAmountMicros, new Float64Array(capacity))
    this.takerAmountMicros = grown(this.takerAmountMicros, new Float64Array(capacity))
    this.pips = grown(this.pips, new Int32Array(capacity))
    this.prev = grown(this.prev, new Int32Array(capacity))
    this.next = grown(this.next, new Int32Array(capacity))
    this.accountPrev = grown(this.accountPrev, new Int32Array(capacity))
    this.accountNext = grown(this.accountNext, new Int32Array(capacity))
    this.indexEntry = grown(this.indexEntry, new Int32Array(capacity))
    this.logBatch = grown(this.logBatch, new Int32Array(capacity))
    this.logIndex = grown(this.logIndex, new Int32Array(capacity))
    this.queueAheadLots = grown(this.queueAheadLots, new Float64Array(capacity))
    this.queueFilledMark = grown(this.queueFilledMark, new Float64Array(capacity))
    this.queueOtherMark = grown(this.queueOtherMark, new Float64Array(capacity))
    this.queueLots = grown(this.queueLots, new Int32Array(capacity))
    this.isNo = grown(this.isNo, new Uint8Array(capacity))
    this.isBuy = grown(this.isBuy, new Uint8Array(capacity))
    this.postOnly = grown(this.postOnly, new Uint8Array(capacity))
    this.live = grown(this.live, new Uint8Array(capacity))
    this.timeInForce = grown(this.timeInForce, new Uint8Array(capacity))
    this.selfTradePrevention = grown(this.selfTradePrevention, new Uint8Array(capacity))
    this.stopped = grown(this.stopped, new Uint8Array(capacity))
    this.groupPrev = grown(this.groupPrev, new Int32Array(capacity))
    this.groupNext = grown(this.groupNext, new Int32Array(capacity))
    this.free = grown(this.free, new Int32Array(capacity))
    this.capacity = capacity
  }
}

function grown<T extends Float64Array | Int32Array | Uint8Array>(old: T, into: T): T {
  into.set(old)
  return into
}

