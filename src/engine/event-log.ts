/**
 * The engine's events, written as they happen (issue 30, "events written, not built"): numbers and
 * codes as words, strings by reference. The host ships a batch's words as they are and its
 * strings in one native copy each (host/outcome-codec.ts); event-reader.ts turns them back into
 * EngineEvent objects for whoever reads them. Before, every event was built as an object, encoded
 * generically by the worker and decoded generically by the main thread. Writing the log costs the
 * engine about what building the objects did; the path behind it costs two to three times less,
 * and the engine allocates less than half as much (docs/performance.md, "Issue 30, first step").
 *
 * Why strings by reference: the ids and addresses already exist as strings (they came with the
 * commands), and copying them char by char in JavaScript cost 4-6 ns a char here, several times
 * a native copy of the whole batch's strings at once.
 *
 * A log holds one batch: the events of the commands since the last `clear` or `take`. Within a
 * batch, the strings of an account (its address), a market (its id and two token ids) and an
 * order (its id and owner) are listed once, at the first event that names the entity, and named
 * by the index of the first of them afterwards. The entity carries the batch it was last listed in
 * (`logBatch`) and that index (`logIndex`), so the check is a field compare, not a lookup.
 *
 * Layout of one event: its kind, then its fields in a fixed order, one word each; a string or an
 * entity is the index of its (first) string in the batch's list. A word is a float64 slot, which
 * holds any safe integer exactly: it is how JavaScript holds the engine's integers anyway, so a
 * word is one store and one load, with no conversion (variable-length integers written a byte at
 * a time cost more than building the event objects had). The rare kinds (markets, ledger,
 * allowances, API keys) are one JSON string: their shapes are wide and their rate is low.
 */
import type { Account, ShareBalance } from './account.js'
import type { CancelReason, EngineEvent, MatchType, OrderStatus } from './event.js'
import type { Market } from './market.js'
import { TIF_FAK, TIF_FOK, TIF_GTC, TIF_GTD, type OrderRow, type OrderTable } from './order-table.js'
import type { TimeInForce } from './command.js'
import type { CommandResult, ContextValue, KeptQuote, NotCanceled } from './result.js'
import { assert } from '../stdx/assert.js'

export const enum EventKind {
  OrderAccepted = 1,
  OrderRejected = 2,
  OrderUpdate = 3,
  Trade = 4,
  Balance = 5,
  BookLevel = 6,
  /** Any other kind, as JSON. */
  Other = 7,
  // Results: one per command (a batch placement's holds one per order after it), never counted
  // as a change. They are records of the log, so the host ships them with the events as written.
  /** A command done, with nothing to tell. */
  ResultDone = 8,
  /**
   * A refusal: code, message, order id (0 = none, else index + 1), context entries (0 = null,
   * else count + 1), then each entry: key, type (CONTEXT_*), value.
   */
  ResultRejection = 9,
  /** An order placed: id, status, making, taking, fee, then seq, first trade index and trade count (the ids follow). */
  ResultPlaced = 10,
  /** A batch placement: the count of orders; each order's own result record follows. */
  ResultBatch = 11,
  /** Cancels: the count cancelled and not, each cancelled id, then each (id, reason) not cancelled. */
  ResultCanceled = 12,
  /** An amend: the order's id, then its matched, remaining and reduced-by sizes in micro-shares. */
  ResultAmended = 13,
  /** A cancel-replace: the old order's id and remaining micro-shares; the new order's own result record follows. */
  ResultReplaced = 14,
  /**
   * A mass quote: the counts cancelled, kept and placed; each cancelled id; each kept id with its
   * reason (0: it still rests, else the reason's index + 1); then each placement's own result record.
   */
  ResultQuotes = 15,
}

/** A batch as it leaves the log: the events' words and the strings they name by index. */
export interface LoggedBatch {
  readonly words: Float64Array
  readonly strings: readonly string[]
}

/** What an entity needs to be named by index in a batch: set by the log only. */
export interface LogNamed {
  logBatch: number
  logIndex: number
}

/**
 * Codes of the enumerations, by position; the reader uses the same lists. The writer spells the
 * hot ones out as comparisons (Array.indexOf was a visible share of writing an event): the
 * simulation's comparison with the reference model, event by event, checks that both agree, and
 * test/unit/engine/event-log.test.ts the time in force on its own.
 */
export const ORDER_STATUS_CODES: readonly OrderStatus[] = ['LIVE', 'MATCHED', 'CANCELED']
export const MATCH_TYPE_CODES: readonly MatchType[] = ['normal', 'mint', 'merge']
export const TIME_IN_FORCE_CODES: readonly TimeInForce[] = ['GTC', 'GTD', 'FOK', 'FAK']
/** Index 0 is "no reason" (null). */
export const CANCEL_REASON_CODES: readonly (CancelReason | null)[] = [null, 'owner', 'cancel-all', 'cancel-market',
  'self-trade', 'expired', 'market-closed', 'market-resolved', 'unfilled', 'amended', 'replaced',
  'order-group', 'funds']

export function timeInForceCode(timeInForce: TimeInForce): number {
  switch (timeInForce) {
    case 'GTC': return TIF_GTC
    case 'GTD': return TIF_GTD
    case 'FOK': return TIF_FOK
    case 'FAK': return TIF_FAK
  }
}

/** Flags of an order's side in one word: bit 0 the No token, bit 1 a BUY. */
export const FLAG_NO = 1
export const FLAG_BUY = 2
/** Order accepted: bit 2 post-only, bits 3-4 the time in force. */
export const FLAG_POST_ONLY = 4
export const TIME_IN_FORCE_SHIFT = 3
/** Balance: the asset is USDC, or one of a market's tokens (then the market follows). */
export const ASSET_USDC = 0
export const ASSET_YES = 1
export const ASSET_NO = 2

/** The type of a refusal's context value (EventKind.ResultRejection). */
export const CONTEXT_STRING = 0
export const CONTEXT_NUMBER = 1
export const CONTEXT_FALSE = 2
export const CONTEXT_TRUE = 3

/** The index of '' in every batch's strings: every empty field names it. */
const EMPTY_STRING = 0

/** Words to start with (64 KiB); the log doubles when a batch needs more. */
const INITIAL_WORDS = 1 << 13
/** The most words one event takes (a trade: its kind and 18 fields). */
const EVENT_WORDS_MAX = 19

export class EventLog {
  /** The engine's orders: the log names an order by its row (orderRef). */
  constructor(private readonly orders: OrderTable) {}

  private words = new Float64Array(INITIAL_WORDS)
  /** Words written in this batch. */
  length = 0
  /** Events of the current command that change state: every kind but `orderRejected`. */
  changes = 0
  /**
   * The batch's strings: the first `stringCount` entries (the array is reused; entries past the
   * count are stale references, overwritten by the next batches). Entry 0 is always '', which
   * empty fields (most client order ids) name instead of listing another.
   */
  readonly strings: string[] = ['']
  stringCount = 1
  /** The batch being written; entities listed in an older one are listed again. */
  private batch = 0

  /**
   * The current command's time, which the events that carry one write. A field set once a
   * command, not an argument: a time past 2^31 passed to a call that does not inline is boxed
   * into a new heap number each time.
   */
  timeMs = 0

  /** Starts a command: `changes` counts its events from here. */
  beginCommand(): void {
    this.changes = 0
  }

  /**
   * A change the command made whose event is not written (a balance, when the engine writes no
   * `balance` events): it counts in `changes` all the same, so the command is still journaled.
   */
  changeUnwritten(): void {
    this.changes++
  }

  /** Forgets the batch; the next event starts a new one. */
  clear(): void {
    this.length = 0
    this.stringCount = 1
    this.batch++
  }

  /** The batch's words and strings, copied out; the log starts a new batch. */
  take(): LoggedBatch {
    const batch = { words: this.words.slice(0, this.length), strings: this.strings.slice(0, this.stringCount) }
    this.clear()
    return batch
  }

  /** The batch's words so far, without a copy: valid until the next write. */
  view(): Float64Array {
    return this.words.subarray(0, this.length)
  }

  // The writers below store their words through a local array and index, and name entities by
  // functions that return an index: one method call per word measured about 0.5 us a command more
  // than building the event objects had, since V8 stops inlining calls that many deep.

  orderAccepted(order: OrderRow): void {
    const words = this.begin(true)
    const o = this.orders
    const orderIndex = this.orderRef(order)
    const marketIndex = this.marketRef(o.market[order]!)
    const account = o.account[order]!
    const accountIndex = this.accountRef(account)
    // Most orders are signed by their maker, and most have no client order id: both name a string
    // listed already, so the host ships, and the reader makes, two strings fewer an order.
    const signer = o.signer[order]!
    const signerIndex = signer === account.address ? accountIndex : this.stringRef(signer)
    const clientOrderId = o.clientOrderId[order]!
    const clientOrderIdIndex = this.stringRef(clientOrderId)
    let n = this.length
    words[n++] = EventKind.OrderAccepted
    words[n++] = orderIndex
    words[n++] = marketIndex
    words[n++] = accountIndex
    words[n++] = (o.isNo[order] === 1 ? FLAG_NO : 0) | (o.isBuy[order] === 1 ? FLAG_BUY : 0)
      | (o.postOnly[order] === 1 ? FLAG_POST_ONLY : 0) | (o.timeInForce[order]! << TIME_IN_FORCE_SHIFT)
    words[n++] = signerIndex
    words[n++] = o.pips[order]!
    words[n++] = o.makerAmountMicros[order]!
    words[n++] = o.takerAmountMicros[order]!
    words[n++] = o.expirationSec[order]!
    words[n++] = clientOrderIdIndex
    words[n++] = this.timeMs
    this.length = n
  }

  orderRejected(orderId: string, maker: string, code: string, message: string): void {
    const words = this.begin(false)
    const orderIdIndex = this.stringRef(orderId)
    const makerIndex = this.stringRef(maker)
    const codeIndex = this.stringRef(code)
    const messageIndex = this.stringRef(message)
    let n = this.length
    words[n++] = EventKind.OrderRejected
    words[n++] = orderIdIndex
    words[n++] = makerIndex
    words[n++] = codeIndex
    words[n++] = messageIndex
    this.length = n
  }

  orderUpdate(order: OrderRow, status: OrderStatus, reason: CancelReason | null): void {
    const words = this.begin(true)
    const o = this.orders
    const orderIndex = this.orderRef(order)
    const accountIndex = this.accountRef(o.account[order]!)
    let n = this.length
    words[n++] = EventKind.OrderUpdate
    words[n++] = orderIndex
    words[n++] = accountIndex
    words[n++] = status === 'LIVE' ? 0 : status === 'MATCHED' ? 1 : 2
    words[n++] = o.matchedLots[order]!
    words[n++] = status === 'LIVE' ? o.lots[order]! : 0
    words[n++] = reason === null ? 0 : CANCEL_REASON_CODES.indexOf(reason)
    this.length = n
  }

  /** One fill; `k` is the trade's index in its command (the id is tradeIdOf(seq, k)). */
  trade(seq: number, k: number, taker: OrderRow, maker: OrderRow, matchType: MatchType, lots: number,
    takerPips: number, feeMicros: number): void {
    const words = this.begin(true)
    const o = this.orders
    const market = o.market[taker]!
    const marketIndex = this.marketRef(market)
    const takerIndex = this.orderRef(taker)
    const takerAccountIndex = this.accountRef(o.account[taker]!)
    const makerIndex = this.orderRef(maker)
    const makerAccountIndex = this.accountRef(o.account[maker]!)
    let n = this.length
    words[n++] = EventKind.Trade
    words[n++] = seq
    words[n++] = k
    words[n++] = marketIndex
    words[n++] = matchType === 'normal' ? 0 : matchType === 'mint' ? 1 : 2
    words[n++] = takerIndex
    words[n++] = takerAccountIndex
    words[n++] = (o.isNo[taker] === 1 ? FLAG_NO : 0) | (o.isBuy[taker] === 1 ? FLAG_BUY : 0)
    words[n++] = takerPips
    words[n++] = lots
    words[n++] = feeMicros
    words[n++] = market.feeRateBps
    words[n++] = makerIndex
    words[n++] = makerAccountIndex
    words[n++] = (o.isNo[maker] === 1 ? FLAG_NO : 0) | (o.isBuy[maker] === 1 ? FLAG_BUY : 0)
    words[n++] = o.pips[maker]!
    words[n++] = this.timeMs
    this.length = n
  }

  // The two balance writers read the amounts from the balance itself: passed as arguments, amounts
  // past 2^31 were boxed into a heap number each (a fifth of what the engine allocated a command).

  /** An account's USDC. */
  usdcBalance(account: Account): void {
    const words = this.begin(true)
    const accountIndex = this.accountRef(account)
    let n = this.length
    words[n++] = EventKind.Balance
    words[n++] = accountIndex
    words[n++] = ASSET_USDC
    words[n++] = account.usdcMicros
    words[n++] = account.usdcHeldMicros
    this.length = n
  }

  /** An account's balance of one of a market's tokens. */
  shareBalance(shares: ShareBalance, market: Market): void {
    const words = this.begin(true)
    const accountIndex = this.accountRef(shares.account)
    const marketIndex = this.marketRef(market)
    let n = this.length
    words[n++] = EventKind.Balance
    words[n++] = accountIndex
    words[n++] = (shares.tokenIndex & 1) === 1 ? ASSET_NO : ASSET_YES
    words[n++] = marketIndex
    words[n++] = shares.balanceMicros
    words[n++] = shares.heldMicros
    this.length = n
  }

  /** A level of one token's own book: its native side and price, in pips, and its size in lots. */
  bookLevel(market: Market, isNo: boolean, isBuy: boolean, pips: number, lots: number): void {
    const words = this.begin(true)
    const marketIndex = this.marketRef(market)
    let n = this.length
    words[n++] = EventKind.BookLevel
    words[n++] = marketIndex
    words[n++] = (isNo ? FLAG_NO : 0) | (isBuy ? FLAG_BUY : 0)
    words[n++] = pips
    words[n++] = lots
    this.length = n
  }

  /** A result built as an object (the rarer commands'); the hot ones use the writers below. */
  result(result: CommandResult): void {
    if (!result.ok) {
      const orderId = 'orderId' in result ? result.orderId : null
      return this.resultRejection(result.code, result.message, result.context, orderId)
    }
    if ('canceled' in result) return this.resultCanceled(result.canceled, result.notCanceled)
    if ('reducedByMicros' in result) {
      return this.resultAmended(result.orderId, result.sizeMatchedMicros, result.remainingMicros,
        result.reducedByMicros)
    }
    assert(Object.keys(result).length === 1, 'a result written as an object is a refusal, cancels or done')
    this.resultDone()
  }

  /** A command's result with nothing to tell. */
  resultDone(): void {
    const words = this.begin(false)
    words[this.length++] = EventKind.ResultDone
  }

  /**
   * A refusal; `orderId` is set for an order's own refusal (OrderRejection). The context's
   * entries follow, each a key, a type and a value word: a number goes as itself (a refused value
   * may be any number, NaN included), a string by reference, a boolean in its type.
   */
  resultRejection(code: string, message: string, context: Readonly<Record<string, ContextValue>> | null,
    orderId: string | null): void {
    this.begin(false)
    let entries = 0
    if (context !== null) for (const key in context) if (Object.hasOwn(context, key)) entries++
    this.reserve(5 + entries * 3)
    const words = this.words
    const codeIndex = this.stringRef(code)
    const messageIndex = this.stringRef(message)
    const orderIdIndex = orderId === null ? 0 : this.stringRef(orderId) + 1
    words[this.length++] = EventKind.ResultRejection
    words[this.length++] = codeIndex
    words[this.length++] = messageIndex
    words[this.length++] = orderIdIndex
    words[this.length++] = context === null ? 0 : entries + 1
    if (context === null) return
    for (const key in context) {
      if (!Object.hasOwn(context, key)) continue
      const value = context[key]!
      words[this.length++] = this.stringRef(key)
      if (typeof value === 'string') {
        words[this.length++] = CONTEXT_STRING
        words[this.length++] = this.stringRef(value)
      } else if (typeof value === 'number') {
        words[this.length++] = CONTEXT_NUMBER
        words[this.length++] = value
      } else {
        assert(typeof value === 'boolean', 'a context value is a string, a number or a boolean')
        words[this.length++] = value ? CONTEXT_TRUE : CONTEXT_FALSE
        words[this.length++] = 0
      }
    }
  }

  /**
   * An order placed, its id named by `orderIdIndex` (orderRef or stringRef); its trades are
   * `tradeIdOf(seq, firstTrade + i)` for i below `tradeCount`.
   */
  resultPlaced(orderIdIndex: number, status: OrderStatus, makingMicros: number, takingMicros: number,
    feeMicros: number, seq: number, firstTrade: number, tradeCount: number): void {
    const words = this.begin(false)
    let n = this.length
    words[n++] = EventKind.ResultPlaced
    words[n++] = orderIdIndex
    words[n++] = status === 'LIVE' ? 0 : status === 'MATCHED' ? 1 : 2
    words[n++] = makingMicros
    words[n++] = takingMicros
    words[n++] = feeMicros
    words[n++] = seq
    words[n++] = firstTrade
    words[n++] = tradeCount
    this.length = n
  }

  resultBatch(count: number): void {
    const words = this.begin(false)
    words[this.length++] = EventKind.ResultBatch
    words[this.length++] = count
  }

  resultAmended(orderId: string, sizeMatchedMicros: number, remainingMicros: number, reducedByMicros: number): void {
    const words = this.begin(false)
    const orderIdIndex = this.stringRef(orderId)
    let n = this.length
    words[n++] = EventKind.ResultAmended
    words[n++] = orderIdIndex
    words[n++] = sizeMatchedMicros
    words[n++] = remainingMicros
    words[n++] = reducedByMicros
    this.length = n
  }

  /** A cancel-replace's head: the new order's own result (resultPlaced or resultRejection) follows. */
  resultReplaced(canceledOrderId: string, canceledRemainingMicros: number): void {
    const words = this.begin(false)
    const orderIdIndex = this.stringRef(canceledOrderId)
    let n = this.length
    words[n++] = EventKind.ResultReplaced
    words[n++] = orderIdIndex
    words[n++] = canceledRemainingMicros
    this.length = n
  }

  /** A mass quote's head: `placed` result records (resultPlaced or resultRejection) follow. */
  resultQuotes(canceled: readonly string[], kept: readonly KeptQuote[], placed: number): void {
    this.begin(false)
    this.reserve(4 + canceled.length + kept.length * 2)
    const words = this.words
    words[this.length++] = EventKind.ResultQuotes
    words[this.length++] = canceled.length
    words[this.length++] = kept.length
    words[this.length++] = placed
    for (const orderId of canceled) words[this.length++] = this.stringRef(orderId)
    for (const item of kept) {
      words[this.length++] = this.stringRef(item.orderId)
      words[this.length++] = item.reason === null ? 0 : this.stringRef(item.reason) + 1
    }
  }

  /** Cancels: the ids cancelled, and those not with why (NotCanceled, in request order). */
  resultCanceled(canceled: readonly string[], notCanceled: readonly NotCanceled[]): void {
    this.begin(false)
    this.reserve(3 + canceled.length + notCanceled.length * 2)
    const words = this.words
    words[this.length++] = EventKind.ResultCanceled
    words[this.length++] = canceled.length
    words[this.length++] = notCanceled.length
    for (const orderId of canceled) words[this.length++] = this.stringRef(orderId)
    for (const item of notCanceled) {
      words[this.length++] = this.stringRef(item.orderId)
      words[this.length++] = this.stringRef(item.reason)
    }
  }

  /** One order cancelled, or not (`reason` set): cancelOrder's result, without lists to build. */
  resultCanceledOne(orderId: string, reason: string | null): void {
    const words = this.begin(false)
    const orderIdIndex = this.stringRef(orderId)
    const reasonIndex = reason === null ? 0 : this.stringRef(reason)
    let n = this.length
    words[n++] = EventKind.ResultCanceled
    words[n++] = reason === null ? 1 : 0
    words[n++] = reason === null ? 0 : 1
    words[n++] = orderIdIndex
    if (reason !== null) words[n++] = reasonIndex
    this.length = n
  }

  /** Any other event, as JSON (exact for the plain values these events hold). */
  other(event: EngineEvent): void {
    const words = this.begin(true)
    const jsonIndex = this.stringRef(JSON.stringify(event))
    words[this.length++] = EventKind.Other
    words[this.length++] = jsonIndex
  }

  /** Starts an event: counts it, and makes room for the largest; returns the words to write to. */
  private begin(changes: boolean): Float64Array {
    if (changes) this.changes++
    if (this.length + EVENT_WORDS_MAX > this.words.length) this.grow()
    return this.words
  }

  // The entity references repeat one pattern on purpose: each reads its own class's fields, so
  // each property access stays monomorphic.

  /** An account: the index of its address in the batch's list, listing it on first use. */
  private accountRef(account: Account & LogNamed): number {
    if (account.logBatch === this.batch) return account.logIndex
    account.logBatch = this.batch
    account.logIndex = this.stringCount
    this.strings[this.stringCount++] = account.address
    return account.logIndex
  }

  /** A market: the index of the first of its id, Yes token id and No token id. */
  private marketRef(market: Market & LogNamed): number {
    if (market.logBatch === this.batch) return market.logIndex
    market.logBatch = this.batch
    market.logIndex = this.stringCount
    this.strings[this.stringCount++] = market.marketId
    this.strings[this.stringCount++] = market.yesTokenId
    this.strings[this.stringCount++] = market.noTokenId
    return market.logIndex
  }

  /**
   * An order: the index of the first of its id and owner (its row carries where, as entities do).
   * Public for a placement's result, which names the id its acceptance listed.
   */
  orderRef(order: OrderRow): number {
    const o = this.orders
    if (o.logBatch[order] === this.batch) return o.logIndex[order]!
    const index = this.stringCount
    o.logBatch[order] = this.batch
    o.logIndex[order] = index
    this.strings[this.stringCount++] = o.orderId[order]!
    this.strings[this.stringCount++] = o.owner[order]!
    return index
  }

  /** A string field: the index it gets in the batch's list ('' is always there, at EMPTY_STRING). */
  stringRef(value: string): number {
    if (value === '') return EMPTY_STRING
    this.strings[this.stringCount] = value
    return this.stringCount++
  }

  /** Makes room for `count` more words (a record longer than EVENT_WORDS_MAX). */
  private reserve(count: number): void {
    while (this.length + count > this.words.length) this.grow()
  }

  private grow(): void {
    const grown = new Float64Array(this.words.length * 2)
    grown.set(this.words.subarray(0, this.length))
    this.words = grown
  }
}
