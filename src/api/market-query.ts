/**
 * The market-data reads as every face answers them: the token a read names (required, well formed,
 * known), the side of a quote, the bound on a batch, and the services' micro-units as decimal text
 * or null ("none": an empty side, no trade yet). REST writes null; gRPC leaves the optional field
 * out. Both faces call these, so they give the same values and the same refusals, in the same order.
 */
import type { MarketRecord } from '../engine/event.js'
import { ApiCode, PredexError } from '../errors.js'
import { REST_BATCH_ITEMS_MAX } from '../limits.js'
import type { ServiceContext } from '../service/context.js'
import * as marketData from '../service/market-data/market-data.js'
import { marketOfToken } from '../service/market-data/markets.js'
import type { LastTradePrice } from './shapes/price.js'
import { decimalOfMicros, tokenIdOf } from './wire.js'

/** The interval of a candle query that names none. */
export const CANDLE_INTERVAL_DEFAULT = '1h'

/** The token a market-data read names (`token_id`, required), and its market. */
export function tokenOf(context: ServiceContext, raw: string | null | undefined):
  { tokenId: string; market: MarketRecord } {
  if (raw === null || raw === undefined || raw === '') {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid token id: token_id is required', { field: 'token_id' })
  }
  const tokenId = tokenIdOf(raw)
  return { tokenId, market: marketOfToken(context, tokenId) }
}

/** A batch of market-data reads may name at most REST_BATCH_ITEMS_MAX tokens. */
export function checkBatchLength(count: number): void {
  if (count > REST_BATCH_ITEMS_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `Payload exceeds the limit: at most ${REST_BATCH_ITEMS_MAX} items`,
      { max: REST_BATCH_ITEMS_MAX })
  }
}

/** The side of a quote ("buy", "SELL": any case); anything else is refused. */
export function quoteSideOf(text: string | null | undefined): marketData.Side {
  const side = (text ?? '').toUpperCase()
  if (side !== 'BUY' && side !== 'SELL') {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid side: use BUY or SELL', { field: 'side' })
  }
  return side
}

export function priceText(micros: number | null): string | null {
  return micros === null ? null : decimalOfMicros(micros)
}

export function midpointText(context: ServiceContext, tokenId: string): string | null {
  return priceText(marketData.midpointMicrosOf(marketData.quoteOf(context, tokenId)))
}

export function spreadText(context: ServiceContext, tokenId: string): string | null {
  return priceText(marketData.spreadMicrosOf(marketData.quoteOf(context, tokenId)))
}

/** The last trade's price and the taker's side ('BUY' or 'SELL'), both null before the first trade. */
export function lastTradeText(context: ServiceContext, tokenId: string): LastTradePrice {
  const last = marketData.lastTradeOf(context, tokenId)
  return { price: priceText(last.priceMicros), side: last.side }
}

/** One candle as the faces send it: `t` in unix seconds (the interval's start), the rest decimal text. */
export interface CandleRow {
  readonly t: number
  readonly open: string
  readonly high: string
  readonly low: string
  readonly close: string
  /** Shares. */
  readonly volume: string
}

export interface CandleRequest {
  /** A token id, or a market's slug (its Yes token). */
  readonly symbol: string
  readonly interval: string
  readonly fromSec: number | null
  readonly toSec: number | null
}

/** The candles of a token id or a market's slug. */
export function candleRows(context: ServiceContext, request: CandleRequest): CandleRow[] {
  const tokenId = marketData.yesTokenOfSlug(context, request.symbol) ?? tokenIdOf(request.symbol, 'symbol')
  const candles = marketData.candles(context,
    { tokenId, interval: request.interval, fromSec: request.fromSec, toSec: request.toSec })
  return candles.map((c) => ({ t: c.startMs / 1000, open: decimalOfMicros(c.openMicros),
    high: decimalOfMicros(c.highMicros), low: decimalOfMicros(c.lowMicros), close: decimalOfMicros(c.closeMicros),
    volume: decimalOfMicros(c.volumeMicros) }))
}
