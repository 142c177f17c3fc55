/**
 * A trade as Polymarket reports it (reference section 5.3), from the requesting user's point of
 * view (`trader_side`), on both surfaces: only `market` differs (the UUID natively, the condition
 * id under /compat). One trade is one taker order against one maker order, settled at once.
 */
import type { Address, Decimal, Hash, MatchType, Outcome, Side, TokenId, TraderSide, UnixSecondsText }
  from './vocabulary.js'

/** The maker's side of the trade, in the maker's own token. */
export type MakerOrder = {
  readonly order_id: Hash
  /** The maker's API key. */
  readonly owner: string
  readonly maker_address: Address
  /** Shares. */
  readonly matched_amount: Decimal
  /** The maker's price in its own token. */
  readonly price: Decimal
  readonly fee_rate_bps: string
  readonly asset_id: TokenId
  readonly outcome: Outcome
  readonly side: Side
}

/** Items of GET /data/trades (both surfaces) and the WebSocket `trade` event's fields. */
export type Trade = {
  readonly id: string
  readonly taker_order_id: Hash
  /** Natively the market's UUID; under /compat its condition id. */
  readonly market: string
  /** The taker's token. */
  readonly asset_id: TokenId
  /** The taker's side. */
  readonly side: Side
  /** Shares. */
  readonly size: Decimal
  /** Basis points, as a string. */
  readonly fee_rate_bps: string
  /** The taker's price in the taker's token. */
  readonly price: Decimal
  /**
   * Where the trade's settlement is. On the builtin chain a match is final: always CONFIRMED. On a
   * real chain (--chain local): MATCHED (not sent yet), MINED (in a block), CONFIRMED (its block has
   * its confirmations), RETRYING (the node did not answer; it goes again) or FAILED (the exchange
   * refused it).
   */
  readonly status: 'MATCHED' | 'MINED' | 'CONFIRMED' | 'RETRYING' | 'FAILED'
  readonly match_time: UnixSecondsText
  /** The same as match_time (some clients read this spelling). */
  readonly matchtime: UnixSecondsText
  readonly last_update: UnixSecondsText
  readonly outcome: Outcome
  readonly bucket_index: 0
  /** The taker's API key. */
  readonly owner: string
  /** The taker's address. */
  readonly maker_address: Address
  /** The settlement transaction on the test network (the command that matched it). */
  readonly transaction_hash: Hash
  readonly trader_side: TraderSide
  readonly match_type: MatchType
  /** USDC paid by the taker. */
  readonly fee: Decimal
  /** Exactly one maker order. */
  readonly maker_orders: readonly [MakerOrder]
}

/** Items of GET /users/:address/trades: API keys are never public. */
export type PublicTrade = Omit<Trade, 'owner' | 'maker_orders'> & {
  readonly maker_orders: readonly [Omit<MakerOrder, 'owner'>]
}
