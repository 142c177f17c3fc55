/**
 * Market-data answers other than books: quotes read from the unified book (the prices a taker can
 * actually trade at; null when a side is empty), last trades, the market's terms, price history
 * and candles. Batch forms are maps keyed by token id.
 */
import type { Decimal, Side, TokenId } from './vocabulary.js'

/** GET /midpoint: `mid_price` repeats `mid` (Polymarket's clients read either). */
export type Midpoint = {
  readonly mid: Decimal | null
  readonly mid_price: Decimal | null
}

/** POST /midpoints: token id -> midpoint. */
export type Midpoints = Readonly<Record<TokenId, Decimal | null>>

/** GET /price: side BUY gives the best bid, SELL the best ask. */
export type Price = {
  readonly price: Decimal | null
}

/** POST /prices: token id -> the sides asked for. */
export type Prices = Readonly<Record<TokenId, Readonly<Partial<Record<Side, Decimal | null>>>>>

/** GET /spread: best ask minus best bid. */
export type Spread = {
  readonly spread: Decimal | null
}

/** POST /compat/spreads: token id -> spread. */
export type Spreads = Readonly<Record<TokenId, Decimal | null>>

/** GET /last-trade-price: the price and the taker's side of the token's last trade (null before one). */
export type LastTradePrice = {
  readonly price: Decimal | null
  readonly side: Side | null
}

/** An item of POST /compat/last-trades-prices. */
export type TokenLastTradePrice = LastTradePrice & {
  readonly token_id: TokenId
}

/** GET /tick-size: USDC per share, as a number (clob-client calls toString on it). */
export type TickSize = {
  readonly minimum_tick_size: number
}

/** GET /fee-rate: basis points. */
export type FeeRate = {
  readonly base_fee: number
}

/** GET /neg-risk: whether orders are signed for the neg-risk exchange. */
export type NegRisk = {
  readonly neg_risk: boolean
}

export type PricePoint = {
  /** Unix seconds. */
  readonly t: number
  /** USDC per share, as a number. */
  readonly p: number
}

/**
 * GET /compat/prices-history: every trade that priced the token, in time order; with `fidelity`,
 * the last price of each interval that had a trade.
 */
export type PricesHistory = {
  readonly history: readonly PricePoint[]
}

/** An item of GET /ticks/:symbol: one interval with trades (OHLCV). */
export type Candle = {
  /** Unix seconds, the start of the interval. */
  readonly t: number
  readonly open: Decimal
  readonly high: Decimal
  readonly low: Decimal
  readonly close: Decimal
  /** Shares traded. */
  readonly volume: Decimal
}
