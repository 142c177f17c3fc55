/**
 * Polymarket's OrderBookSummary (reference section 5.1), on both surfaces: GET /book,
 * GET /book/unified, items of POST /books, and the WebSocket `book` event's fields.
 */
import type { Decimal, Hash, TokenId, UnixMillisText } from './vocabulary.js'

export type BookLevel = {
  /** USDC per share. */
  readonly price: Decimal
  /** Shares resting at this price. */
  readonly size: Decimal
}

/**
 * Keys in this order: `hash` is the SHA-1 (hex) of the JSON of this object with `hash` empty, as
 * clob-client computes it, so the order is part of the contract.
 */
export type OrderBookSummary = {
  /** The market's condition id (on both surfaces). */
  readonly market: Hash
  readonly asset_id: TokenId
  readonly timestamp: UnixMillisText
  readonly hash: string
  /** Ascending: the best bid last. */
  readonly bids: readonly BookLevel[]
  /** Descending: the best ask last. */
  readonly asks: readonly BookLevel[]
  /** Shares. */
  readonly min_order_size: Decimal
  /** USDC per share, one of "0.1", "0.01", "0.001", "0.0001". */
  readonly tick_size: Decimal
  readonly neg_risk: boolean
  /** "" before the token's first trade. */
  readonly last_trade_price: Decimal | ''
}
