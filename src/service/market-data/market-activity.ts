/** A market's live activity: its newest trades (at most LIVE_ACTIVITY_TRADES_MAX), newest first. */
import type { MarketRecord } from '../../engine/event.js'
import type { TradeRecord } from '../../read/read-model.js'
import type { ServiceContext } from '../context.js'
import { marketById } from './markets.js'

/** A market (by condition id, UUID or slug) and its newest trades, newest first; MARKET_NOT_FOUND otherwise. */
export function liveActivityOf(context: ServiceContext, id: string): { market: MarketRecord; trades: TradeRecord[] } {
  const market = marketById(context, id)
  return { market, trades: context.read.recentTradesOf(market.marketId) }
}
