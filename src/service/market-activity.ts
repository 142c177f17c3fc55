/**
 * A market's live activity: its newest trades (at most LIVE_ACTIVITY_TRADES_MAX), newest first.
 *
 * The read model keeps every trade in one map in projection order, and no index by market. Rather
 * than walk the whole history on every request, each read model gets an index here that reads the
 * map forward from where it stopped: a Map iterator visits entries added after it was made, as
 * long as it has not reported the end, so it is only advanced while entries remain unread (trades
 * are never removed from the map). Each market keeps at most twice the bound, trimmed to the bound
 * when it fills: memory is bounded per market and each trade is handled once.
 */
import type { MarketRecord } from '../engine/event.js'
import { LIVE_ACTIVITY_TRADES_MAX } from '../limits.js'
import type { ReadModel, TradeRecord } from '../read/read-model.js'
import { assert } from '../stdx/assert.js'
import type { ServiceContext } from './context.js'
import { marketById } from './markets.js'

class MarketTradeIndex {
  private readonly unread: Iterator<TradeRecord>
  private readCount = 0
  /** Market id -> its newest trades, oldest first, at most 2 x LIVE_ACTIVITY_TRADES_MAX. */
  private readonly byMarket = new Map<string, TradeRecord[]>()

  constructor(private readonly trades: ReadonlyMap<string, TradeRecord>) {
    this.unread = trades.values()
  }

  /** The market's newest trades, newest first. */
  newest(marketId: string, countMax: number): TradeRecord[] {
    assert(countMax <= LIVE_ACTIVITY_TRADES_MAX, 'the index keeps this many')
    this.catchUp()
    return (this.byMarket.get(marketId) ?? []).slice(-countMax).reverse()
  }

  private catchUp(): void {
    while (this.readCount < this.trades.size) {
      const next = this.unread.next()
      assert(next.done !== true, 'trades are never removed, so unread ones remain')
      this.readCount++
      this.keep(next.value)
    }
  }

  private keep(trade: TradeRecord): void {
    let kept = this.byMarket.get(trade.marketId)
    if (kept === undefined) this.byMarket.set(trade.marketId, kept = [])
    kept.push(trade)
    if (kept.length >= 2 * LIVE_ACTIVITY_TRADES_MAX) kept.splice(0, kept.length - LIVE_ACTIVITY_TRADES_MAX)
  }
}

const indexes = new WeakMap<ReadModel, MarketTradeIndex>()

function indexOf(read: ReadModel): MarketTradeIndex {
  let index = indexes.get(read)
  if (index === undefined) indexes.set(read, index = new MarketTradeIndex(read.trades))
  return index
}

/** A market (by condition id, UUID or slug) and its newest trades, newest first; MARKET_NOT_FOUND otherwise. */
export function liveActivityOf(context: ServiceContext, id: string): { market: MarketRecord; trades: TradeRecord[] } {
  const market = marketById(context, id)
  return { market, trades: indexOf(context.read).newest(market.marketId, LIVE_ACTIVITY_TRADES_MAX) }
}
