/**
 * Market data as gRPC messages, made from the REST shapes (src/api/format.ts, market-query.ts)
 * rather than from the records again, so that both faces send the same values: the same decimal
 * strings, the same hash. Where REST writes null (or "" for a book's last trade price), the
 * message leaves its optional field out; timestamps in unix units become int64.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { Side } from '../../gen/predex/v1/common_pb.js'
import type { BookSchema } from '../../gen/predex/v1/common_pb.js'
import { CandleInterval, type CandleSchema, type MarketSchema } from '../../gen/predex/v1/market_data_pb.js'
import { CANDLE_INTERVAL_DEFAULT, type CandleRow } from '../market-query.js'
import type { OrderBookSummary } from '../shapes/book.js'
import type { NativeMarket } from '../shapes/market.js'

/** null (REST's "none") as an absent optional field. */
export function optional(text: string | null): string | undefined {
  return text ?? undefined
}

export function bookMessage(summary: OrderBookSummary): MessageInitShape<typeof BookSchema> {
  return {
    market: summary.market,
    assetId: summary.asset_id,
    timestampMs: BigInt(summary.timestamp),
    hash: summary.hash,
    bids: summary.bids.map((level) => ({ price: level.price, size: level.size })),
    asks: summary.asks.map((level) => ({ price: level.price, size: level.size })),
    minOrderSize: summary.min_order_size,
    tickSize: summary.tick_size,
    negRisk: summary.neg_risk,
    lastTradePrice: summary.last_trade_price === '' ? undefined : summary.last_trade_price,
  }
}

export function marketMessage(market: NativeMarket): MessageInitShape<typeof MarketSchema> {
  return {
    id: market.id,
    conditionId: market.condition_id,
    question: market.question,
    slug: market.slug,
    description: market.description,
    status: market.status,
    yesTokenId: market.yes_token_id,
    noTokenId: market.no_token_id,
    tokens: market.tokens.map((token) => ({ tokenId: token.token_id, outcome: token.outcome,
      price: optional(token.price) })),
    tickSize: market.tick_size,
    minOrderSize: market.min_order_size,
    feeRateBps: market.fee_rate_bps,
    negRisk: market.neg_risk,
    endDate: optional(market.end_date),
    createdAt: market.created_at,
    resolution: market.resolution === null ? undefined
      : { outcome: market.resolution.outcome, resolvedAt: market.resolution.resolved_at },
    bestBid: optional(market.best_bid),
    bestAsk: optional(market.best_ask),
    lastTradePrice: optional(market.last_trade_price),
    volume: market.volume,
  }
}

export function candleMessage(row: CandleRow): MessageInitShape<typeof CandleSchema> {
  return { t: BigInt(row.t), open: row.open, high: row.high, low: row.low, close: row.close, volume: row.volume }
}

const INTERVAL_TEXTS: Readonly<Record<number, string>> = {
  [CandleInterval.CANDLE_INTERVAL_UNSPECIFIED]: CANDLE_INTERVAL_DEFAULT,
  [CandleInterval.CANDLE_INTERVAL_1M]: '1m',
  [CandleInterval.CANDLE_INTERVAL_5M]: '5m',
  [CandleInterval.CANDLE_INTERVAL_1H]: '1h',
  [CandleInterval.CANDLE_INTERVAL_1D]: '1d',
}

/** The interval as the service takes it; a value this proto does not know passes as its number, which it refuses. */
export function intervalText(interval: CandleInterval): string {
  return INTERVAL_TEXTS[interval] ?? String(interval)
}

/** The side of a quote as REST's `side` parameter: "" (refused as REST refuses a bad side) unless BUY or SELL. */
export function quoteSideText(side: Side): string {
  return side === Side.BUY ? 'BUY' : side === Side.SELL ? 'SELL' : ''
}

/** A trade's side ('BUY', 'SELL' or null) as the enum; unspecified for none. */
export function sideMessage(side: string | null): Side {
  return side === 'BUY' ? Side.BUY : side === 'SELL' ? Side.SELL : Side.UNSPECIFIED
}
