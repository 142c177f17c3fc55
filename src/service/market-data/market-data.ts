/**
 * Market data, all public and read from the read model's books: a token's own book, the unified
 * book (with the implied liquidity of the other token), the quote a taker can trade at (best bid
 * and ask of the unified book), midpoint, spread, last trade, price history and candles. Amounts
 * are micro-units; a side with no orders gives null rather than an error. Faces format them.
 */
import type { MarketRecord } from '../../engine/event.js'
import type { BookView } from '../../engine/view.js'
import { PredexError, ApiCode } from '../../errors.js'
import { CANDLES_MAX } from '../../limits.js'
import { candlesOf, type Candle } from '../../read/candles.js'
import type { ServiceContext } from '../context.js'
import { marketOfToken } from './markets.js'

export type Side = 'BUY' | 'SELL'

export interface Quote {
  readonly bidMicros: number | null
  readonly askMicros: number | null
}

/** A token's book (its own orders, or unified with the other token's), and its market. */
export function bookOf(
  context: ServiceContext,
  tokenId: string,
  unified: boolean,
): { book: BookView; market: MarketRecord } {
  const market = marketOfToken(context, tokenId)
  const book = unified ? context.read.unifiedBook(tokenId)! : context.read.book(tokenId)!
  return { book, market }
}

/**
 * What identifies the current content of a token's book (and of the other token's, for the
 * unified book): while it is unchanged the book is, so a face may reuse an answer it built.
 * Each change of either token adds one to its own version, so the sum of the two moves on every
 * change of the unified book.
 */
export function bookVersionOf(context: ServiceContext, tokenId: string, unified: boolean): number {
  const own = context.read.versionOf(tokenId)
  if (!unified) return own
  const market = marketOfToken(context, tokenId)
  return own + context.read.versionOf(tokenId === market.yesTokenId ? market.noTokenId : market.yesTokenId)
}

/** Best bid and ask of the unified book: the prices a taker can actually trade at. */
export function quoteOf(context: ServiceContext, tokenId: string): Quote {
  const { book } = bookOf(context, tokenId, true)
  return { bidMicros: book.bids[0]?.priceMicros ?? null, askMicros: book.asks[0]?.priceMicros ?? null }
}

/** side BUY gives the best bid, SELL the best ask (Polymarket's GET /price). */
export function priceOf(context: ServiceContext, tokenId: string, side: Side): number | null {
  const quote = quoteOf(context, tokenId)
  return side === 'BUY' ? quote.bidMicros : quote.askMicros
}

export function midpointMicrosOf(quote: Quote): number | null {
  // Both are multiples of 100 micro-USDC, so their half-sum is an exact number of micro-USDC.
  return quote.bidMicros === null || quote.askMicros === null ? null : (quote.bidMicros + quote.askMicros) / 2
}

export function spreadMicrosOf(quote: Quote): number | null {
  return quote.bidMicros === null || quote.askMicros === null ? null : quote.askMicros - quote.bidMicros
}

export interface LastTrade {
  readonly priceMicros: number | null
  readonly side: Side | null
}

export function lastTradeOf(context: ServiceContext, tokenId: string): LastTrade {
  marketOfToken(context, tokenId)
  const stats = context.read.tokenStats.get(tokenId)
  return { priceMicros: stats?.lastTradePriceMicros ?? null, side: stats?.lastTradeSide ?? null }
}

const CANDLE_INTERVALS_SEC: Readonly<Record<string, number>> = { '1m': 60, '5m': 300, '1h': 3_600, '1d': 86_400 }

/** The Yes token of the market with this slug, or null if no market has it. */
export function yesTokenOfSlug(context: ServiceContext, slug: string): string | null {
  return context.read.marketsBySlug.get(slug)?.yesTokenId ?? null
}

export interface CandleQuery {
  readonly tokenId: string
  readonly interval: string
  /** Unix seconds; null: `toSec` minus 500 intervals. */
  readonly fromSec: number | null
  /** Unix seconds; null: now. */
  readonly toSec: number | null
}

/** Candles of a token; at most CANDLES_MAX intervals: a wider range is refused, not truncated. */
export function candles(context: ServiceContext, query: CandleQuery): Candle[] {
  const tokenId = query.tokenId
  marketOfToken(context, tokenId)
  const intervalSec = CANDLE_INTERVALS_SEC[query.interval]
  if (intervalSec === undefined) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'interval must be 1m, 5m, 1h or 1d', { field: 'interval' })
  }
  const toSec = query.toSec ?? Math.floor(context.nowMs() / 1000)
  const fromSec = query.fromSec ?? Math.max(0, toSec - 500 * intervalSec)
  if (fromSec > toSec) throw new PredexError(ApiCode.INVALID_PARAMETER, 'from must not be after to', { field: 'from' })
  if ((toSec - fromSec) / intervalSec > CANDLES_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER,
      `the range spans more than ${CANDLES_MAX} intervals: narrow it or use a longer interval`,
      { field: 'from', candlesMax: CANDLES_MAX })
  }
  return candlesOf(context.read.ticksOf(tokenId), fromSec * 1000, (toSec + 1) * 1000, intervalSec * 1000)
}
