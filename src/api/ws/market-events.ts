/**
 * The market channel's custom-feature events (`custom_feature_enabled: true`), shaped as
 * Polymarket sends them (clob-compat.md section 8.2; the fields of Polymarket's Rust client
 * rs-clob-client `BestBidAsk`, `NewMarket`, `MarketResolved`): numbers as decimal strings,
 * timestamps as millisecond strings. `event_message` (Polymarket's event grouping of markets) is
 * left out: Predex has no events, and clients read it as optional.
 */
import type { Outcome } from '../../engine/command.js'
import type { MarketRecord } from '../../engine/event.js'
import { MICROS_PER_UNIT } from '../../limits.js'
import type { WsBestBidAsk, WsMarketFields, WsMarketResolved, WsNewMarket } from '../shapes/ws-market.js'
import { decimalOfMicros } from '../wire.js'
import type { Best } from './book-mirror.js'

/** Polymarket's binary outcomes, in the order of `assets_ids`. */
const OUTCOMES = ['Yes', 'No'] as const

/**
 * best_bid and best_ask as price_change shows them: an empty side reads "0" (no bid) or "1" (no
 * ask), the sentinels Polymarket sends, so the fields always parse as decimals.
 */
export function bestTexts(best: Best): Pick<WsBestBidAsk, 'best_bid' | 'best_ask'> {
  return { best_bid: decimalOfMicros(best.bidMicros ?? 0),
    best_ask: decimalOfMicros(best.askMicros ?? MICROS_PER_UNIT) }
}

/**
 * After a command moved the token's best bid or best ask; the spread is of the prices shown (sentinels
 * included). Its seq is the price_change's, added by the channel.
 */
export function bestBidAskEvent(conditionId: string, assetId: string, best: Best, timestamp: string):
  Omit<WsBestBidAsk, 'seq'> {
  const spreadMicros = (best.askMicros ?? MICROS_PER_UNIT) - (best.bidMicros ?? 0)
  return { event_type: 'best_bid_ask', market: conditionId, asset_id: assetId, ...bestTexts(best),
    spread: decimalOfMicros(spreadMicros), timestamp }
}

function marketFields(market: MarketRecord): WsMarketFields {
  return { id: market.marketId, question: market.question, market: market.conditionId, slug: market.slug,
    description: market.description, assets_ids: [market.yesTokenId, market.noTokenId], outcomes: [...OUTCOMES] }
}

/** A market was listed (created, Active or Upcoming). */
export function newMarketEvent(market: MarketRecord, timestamp: string): WsNewMarket {
  return { event_type: 'new_market', ...marketFields(market), timestamp }
}

/** A market was resolved (its open orders were cancelled by the same command). */
export function marketResolvedEvent(market: MarketRecord, winner: Outcome, timestamp: string): WsMarketResolved {
  return { event_type: 'market_resolved', ...marketFields(market),
    winning_asset_id: winner === 'Yes' ? market.yesTokenId : market.noTokenId, winning_outcome: winner, timestamp }
}
