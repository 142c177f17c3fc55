/**
 * A market as each surface shows it. Natively: the seed's record with the UUID as `id`, prices as
 * decimal strings or null. Under /compat: Polymarket's Market object (reference section 5.1),
 * with numbers where clob-client expects numbers and fixed values for what Predex does not have.
 */
import type { Decimal, Hash, IsoTime, MarketStatus, Outcome, TokenId } from './vocabulary.js'

export type NativeMarketToken = {
  readonly token_id: TokenId
  readonly outcome: Outcome
  /** The last trade price of this token; null before its first trade. */
  readonly price: Decimal | null
}

export type MarketResolution = {
  readonly outcome: Outcome
  readonly resolved_at: IsoTime
}

/** GET /markets/:id (and items of the lists, and the admin routes' answers), native. */
export type NativeMarket = {
  /** The market's UUID. */
  readonly id: string
  readonly condition_id: Hash
  readonly question: string
  readonly slug: string
  readonly description: string
  readonly status: MarketStatus
  readonly yes_token_id: TokenId
  readonly no_token_id: TokenId
  /** Yes first, then No. */
  readonly tokens: readonly [NativeMarketToken, NativeMarketToken]
  /** USDC per share: "0.01". */
  readonly tick_size: Decimal
  /** Shares. */
  readonly min_order_size: Decimal
  /** Basis points. */
  readonly fee_rate_bps: number
  readonly neg_risk: boolean
  /** null: no end date. */
  readonly end_date: IsoTime | null
  readonly created_at: IsoTime
  readonly resolution: MarketResolution | null
  /** Best Yes bid a taker can sell into, the implied liquidity of No included (as GET /price). */
  readonly best_bid: Decimal | null
  /** Best Yes ask a taker can buy from, the implied liquidity of No included. */
  readonly best_ask: Decimal | null
  /** The Yes token's last trade price. */
  readonly last_trade_price: Decimal | null
  /** USDC traded on both tokens. */
  readonly volume: Decimal
}

export type CompatMarketToken = {
  readonly token_id: TokenId
  readonly outcome: Outcome
  /** The last trade price as a number, 0 before the first trade. */
  readonly price: number
  readonly winner: boolean
}

export type CompatRewards = {
  readonly rates: null
  readonly min_size: number
  readonly max_spread: number
}

/** Polymarket's Market object (GET /compat/markets/:id and items of /compat/markets). */
export type CompatMarket = {
  readonly enable_order_book: true
  readonly active: boolean
  readonly closed: boolean
  readonly archived: false
  readonly accepting_orders: boolean
  readonly accepting_order_timestamp: IsoTime
  /** Shares, as a number. */
  readonly minimum_order_size: number
  /** USDC per share, as a number: 0.01. */
  readonly minimum_tick_size: number
  readonly condition_id: Hash
  /** The condition id again (Predex has no separate question id). */
  readonly question_id: Hash
  readonly question: string
  readonly description: string
  readonly market_slug: string
  readonly end_date_iso: IsoTime | null
  readonly game_start_time: null
  readonly seconds_delay: 0
  readonly fpmm: ''
  /** Basis points (one fee rate for makers and takers). */
  readonly maker_base_fee: number
  readonly taker_base_fee: number
  readonly notifications_enabled: false
  readonly neg_risk: boolean
  readonly neg_risk_market_id: ''
  readonly neg_risk_request_id: ''
  readonly icon: ''
  readonly image: ''
  readonly rewards: CompatRewards
  readonly is_50_50_outcome: false
  readonly tokens: readonly [CompatMarketToken, CompatMarketToken]
  readonly tags: readonly never[]
}
