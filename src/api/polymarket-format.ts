/**
 * Shapes of Polymarket's current surface (src/api/shapes/polymarket.ts) from the read model's
 * records and the services' answers: a market's CLOB info and its token look-up, the simplified
 * market, and a trade as live activity shows it.
 */
import { transactionOf } from '../chain/transaction.js'
import type { MarketRecord } from '../engine/event.js'
import type { ReadModel, TradeRecord } from '../read/read-model.js'
import { acceptsOrders, baseFeesBpsOf, feeCurveOf } from '../service/market-data/polymarket-info.js'
import { compatMarket, tickText } from './format.js'
import type { ClobMarketInfo, MarketByToken, MarketTradeEvent, SimplifiedMarket } from './shapes/polymarket.js'
import { decimalOfMicros } from './wire.js'

/** GET /compat/clob-markets/:condition_id: what clob-client-v2 reads before it builds an order. */
export function clobMarketInfo(market: MarketRecord): ClobMarketInfo {
  const fees = baseFeesBpsOf(market)
  const curve = feeCurveOf(market)
  return {
    c: market.conditionId,
    t: [{ t: market.yesTokenId, o: 'Yes' }, { t: market.noTokenId, o: 'No' }],
    mts: Number(tickText(market.tickSizeMicros)),
    mos: Number(decimalOfMicros(market.minOrderSizeMicros)),
    nr: market.negRisk,
    fd: { r: curve.rate, e: curve.exponent },
    mbf: fees.makerBps,
    tbf: fees.takerBps,
    r: null,
    ao: acceptsOrders(market),
  }
}

export function marketByToken(market: MarketRecord): MarketByToken {
  return { condition_id: market.conditionId, primary_token_id: market.yesTokenId, secondary_token_id: market.noTokenId }
}

/** The simplified market: the Market object's fields a client needs to list and trade it. */
export function simplifiedMarket(read: ReadModel, market: MarketRecord): SimplifiedMarket {
  const full = compatMarket(read, market)
  return { condition_id: full.condition_id, tokens: full.tokens, rewards: full.rewards, active: full.active,
    closed: full.closed, archived: full.archived, accepting_orders: full.accepting_orders }
}

/** A trade of `market` as live activity shows it: from the taker's side (its token, price and address). */
export function marketTradeEvent(market: MarketRecord, trade: TradeRecord, chainId: number): MarketTradeEvent {
  return {
    event_type: 'trade',
    market: { condition_id: market.conditionId, asset_id: trade.tokenId, question: market.question, icon: '',
      slug: market.slug },
    user: { address: trade.takerAddress, username: '', profile_picture: '', optimized_profile_picture: '',
      pseudonym: '' },
    side: trade.side,
    size: decimalOfMicros(trade.sizeMicros),
    fee_rate_bps: String(trade.feeRateBps),
    price: decimalOfMicros(trade.priceMicros),
    outcome: trade.outcome,
    outcome_index: trade.outcome === 'Yes' ? 0 : 1,
    transaction_hash: transactionOf(chainId, trade.seq).transactionHash,
    timestamp: String(Math.floor(trade.timeMs / 1000)),
  }
}
