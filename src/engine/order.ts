/**
 * A resting or arriving order. Prices are pips, quantities lots (limits.ts). An order sits in
 * two intrusive doubly-linked lists: the FIFO queue of its price level, and its account's list of
 * open orders; both make cancel O(1).
 */
import type { Account, ShareBalance } from './account.js'
import type { TimeInForce } from './command.js'
import type { Level } from './book.js'
import type { Market } from './market.js'

export class Order {
  /** Lots still to fill (resting orders: lots on the book). */
  lots = 0
  /** Lots filled so far. */
  matchedLots = 0
  /** Unspent USDC budget of an immediate BUY while it walks the book; 0 otherwise. */
  budgetMicros = 0
  live = false
  /** The order's entry in the engine's order index. */
  indexEntry = -1
  level: Level | null = null
  prev: Order | null = null
  next: Order | null = null
  accountPrev: Order | null = null
  accountNext: Order | null = null
  /** Where the event log last wrote the order's id and owner (event-log.ts, LogNamed). */
  logBatch = -1
  logIndex = 0

  constructor(
    readonly orderId: string,
    readonly orderNumber: number,
    readonly owner: string,
    /** The trader's own name for the order ('' = none): see OrderInput. */
    readonly clientOrderId: string,
    readonly account: Account,
    readonly signer: string,
    readonly market: Market,
    /** The order's token is the No token. */
    readonly isNo: boolean,
    readonly isBuy: boolean,
    /** Native limit price in pips (immediate orders: the worst price they accept). */
    readonly pips: number,
    readonly timeInForce: TimeInForce,
    readonly postOnly: boolean,
    readonly expirationSec: number,
    readonly makerAmountMicros: number,
    readonly takerAmountMicros: number,
    /** The account's balance of this order's token. */
    readonly shares: ShareBalance,
  ) {}

  /** Bid or ask in the market's Yes-space book: BUY Yes and SELL No are bids. */
  get isBid(): boolean {
    return this.isBuy !== this.isNo
  }

  /** The order's price in Yes-space pips. */
  get yesPips(): number {
    return this.isNo ? 10_000 - this.pips : this.pips
  }

  get isImmediate(): boolean {
    return this.timeInForce === 'FOK' || this.timeInForce === 'FAK'
  }

  get tokenId(): string {
    return this.isNo ? this.market.noTokenId : this.market.yesTokenId
  }
}
