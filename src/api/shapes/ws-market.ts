/**
 * The market channel's messages (`/ws/market`, src/api/ws/market-channel.ts; Polymarket's protocol,
 * clob-compat.md section 8.2): what a client sends, and every event the server sends, as the
 * channel builds them (it is typed with these) and as GET /asyncapi.json documents them (its
 * schemas are generated from these, scripts/gen-schemas.ts). Type-only.
 */
import type { OrderBookSummary } from './book.js'
import type { Decimal, Hash, Outcome, Side, TokenId, UnixMillisText } from './vocabulary.js'
import type { WsError, WsPing, WsPong } from './ws-socket.js'

/**
 * A subscription, or a change of one: the first message and any later one. Without `operation`
 * it subscribes, and `type` must then be "market" (in any case) when given.
 */
export type MarketSubscription = {
  /** "market", in any case; read only when `operation` is absent. */
  readonly type?: string
  /** "subscribe" when absent; in any case. */
  readonly operation?: 'subscribe' | 'unsubscribe'
  /** The token ids to follow (or to stop following); at most 500 on a connection. */
  readonly assets_ids: readonly TokenId[]
  /** A `book` snapshot of each asset subscribed to; true when absent. */
  readonly initial_dump?: boolean
  /** best_bid_ask, new_market and market_resolved for this socket; absent or null: as it was. */
  readonly custom_feature_enabled?: boolean | null
}

/** A `book` snapshot: the REST OrderBookSummary of the asset, with its event type and the asset's seq now. */
export type WsBook = { readonly event_type: 'book' } & OrderBookSummary & {
  /** The asset's event count so far: the next event of the asset carries seq + 1. */
  readonly seq: number
}

/** One level of a price_change, with the hash and best prices of the asset's book after the command. */
export type WsPriceChangeEntry = {
  readonly asset_id: TokenId
  /** USDC per share. */
  readonly price: Decimal
  /** The level's new size in shares; "0": the level is gone. */
  readonly size: Decimal
  readonly side: Side
  /** SHA-1 (hex) of the asset's book after the command, as GET /book and the `book` snapshot hash it. */
  readonly hash: string
  /** "0" when there is no bid. */
  readonly best_bid: Decimal
  /** "1" when there is no ask. */
  readonly best_ask: Decimal
}

/** The level changes of one asset in one command. */
export type WsPriceChange = {
  readonly event_type: 'price_change'
  /** The condition id. */
  readonly market: Hash
  readonly timestamp: UnixMillisText
  readonly price_changes: readonly WsPriceChangeEntry[]
  readonly seq: number
}

/** A trade of the asset (a mint or merge trade sends one per token, each at its own price). */
export type WsLastTradePrice = {
  readonly event_type: 'last_trade_price'
  /** The condition id. */
  readonly market: Hash
  /** Basis points, as a string. */
  readonly fee_rate_bps: string
  /** Shares. */
  readonly size: Decimal
  readonly timestamp: UnixMillisText
  /** The settlement transaction on the test network. */
  readonly transaction_hash: Hash
  readonly asset_id: TokenId
  /** USDC per share, in this asset. */
  readonly price: Decimal
  readonly side: Side
  readonly seq: number
}

export type WsTickSizeChange = {
  readonly event_type: 'tick_size_change'
  readonly asset_id: TokenId
  /** The condition id. */
  readonly market: Hash
  readonly old_tick_size: Decimal
  readonly new_tick_size: Decimal
  readonly timestamp: UnixMillisText
  readonly seq: number
}

/** custom_feature_enabled: the command moved the asset's best bid or best ask. */
export type WsBestBidAsk = {
  readonly event_type: 'best_bid_ask'
  /** The condition id. */
  readonly market: Hash
  readonly asset_id: TokenId
  /** "0" when there is no bid. */
  readonly best_bid: Decimal
  /** "1" when there is no ask. */
  readonly best_ask: Decimal
  /** best_ask - best_bid, of the figures shown. */
  readonly spread: Decimal
  readonly timestamp: UnixMillisText
  /** The seq of the price_change it follows (it takes no number of its own). */
  readonly seq: number
}

/** A market as new_market and market_resolved show it. */
export type WsMarketFields = {
  /** The market id (UUID). */
  readonly id: string
  readonly question: string
  /** The condition id. */
  readonly market: Hash
  readonly slug: string
  readonly description: string
  /** The Yes token, then the No token. */
  readonly assets_ids: readonly [TokenId, TokenId]
  readonly outcomes: readonly ['Yes', 'No']
}

/** custom_feature_enabled: a market was listed (Active or Upcoming). No seq: it belongs to no asset. */
export type WsNewMarket = { readonly event_type: 'new_market' } & WsMarketFields & {
  readonly timestamp: UnixMillisText
}

/** custom_feature_enabled: a market was resolved (after the price_changes of the orders it cancelled). */
export type WsMarketResolved = { readonly event_type: 'market_resolved' } & WsMarketFields & {
  readonly winning_asset_id: TokenId
  readonly winning_outcome: Outcome
  readonly timestamp: UnixMillisText
}

/** The events of one asset's stream, each with that asset's next seq. */
export type WsAssetEvent = WsPriceChange | WsLastTradePrice | WsTickSizeChange

/** What a client sends on /ws/market, by message name (GET /asyncapi.json). */
export type MarketChannelRequests = {
  subscription: MarketSubscription
  ping: WsPing
}

/** What the server sends on /ws/market, by message name (GET /asyncapi.json). */
export type MarketChannelEvents = {
  /** The initial dump: one snapshot per asset subscribed to, in one array. */
  book: readonly WsBook[]
  price_change: WsPriceChange
  last_trade_price: WsLastTradePrice
  tick_size_change: WsTickSizeChange
  best_bid_ask: WsBestBidAsk
  new_market: WsNewMarket
  market_resolved: WsMarketResolved
  error: WsError
  pong: WsPong
}

export type MarketChannelRequest = keyof MarketChannelRequests
export type MarketChannelEvent = keyof MarketChannelEvents
