/**
 * One token's own book as the market channel follows it, command by command, for the `hash`
 * and `best_bid`/`best_ask` of each `price_change`. The read model cannot give them: the fan-out
 * applies a whole durable batch (many commands under load) before the channel publishes it, so
 * the read model is at the batch's end while each price_change must describe the book after its
 * own command. The mirror starts as a copy of the read model's book, taken between two batches
 * (when the token gains its first subscriber), and then applies the same events in the same
 * order as the read model does (`bookLevel`, the token's trades, the market's tick size), so at
 * the end of each batch it equals the read model, and in between it is the book after each
 * command. It is kept only while someone subscribes to the token.
 *
 * The hash is the one of the REST book and the `book` snapshot (format.ts `bookSummary`):
 * SHA-1 of the JSON of Polymarket's OrderBookSummary with `hash` empty, keys in that order, the
 * timestamp being the event's. A client holding the summary (snapshot, then each price_change
 * applied, `last_trade_price` and `tick_size_change` followed, timestamp set to the event's)
 * computes the same hash. It is computed for every command that changes the book, on the front
 * end's thread, so the text is not rebuilt from scratch: prices are kept sorted as they come and
 * go, each level's JSON is kept until its size changes, and each side's JSON until that side
 * changes; a hash costs one join of the changed side and one SHA-1 of the text. The text must be
 * what JSON.stringify gives of bookSummary's object: test/unit/api/book-mirror.test.ts compares
 * them on random books, test/contract/ws-market-v2.test.ts with GET /book.
 */
import { createHash } from 'node:crypto'
import type { Side } from '../../engine/command.js'
import type { MarketRecord } from '../../engine/event.js'
import type { BookView } from '../../engine/view.js'
import { tickText } from '../format.js'
import { decimalOfMicros } from '../wire.js'

/** Best bid and ask of the token's own book; null: that side is empty. */
export interface Best {
  readonly bidMicros: number | null
  readonly askMicros: number | null
}

/**
 * One side of the book in the summary's order, best level last: ascending prices for bids,
 * descending for asks. Each level's JSON is kept; the side's JSON too, until a level changes.
 */
class BookSide {
  /** In the summary's order. */
  private readonly prices: number[] = []
  private readonly levelJson = new Map<number, string>()
  private json: string | null = '[]'

  constructor(private readonly ascending: boolean) {}

  set(priceMicros: number, sizeMicros: number): void {
    const had = this.levelJson.has(priceMicros)
    if (sizeMicros === 0) {
      if (!had) return
      this.levelJson.delete(priceMicros)
      this.prices.splice(this.indexOf(priceMicros), 1)
    } else {
      if (!had) this.prices.splice(this.indexOf(priceMicros), 0, priceMicros)
      this.levelJson.set(priceMicros,
        JSON.stringify({ price: decimalOfMicros(priceMicros), size: decimalOfMicros(sizeMicros) }))
    }
    this.json = null
  }

  /** The best price (the last in the summary's order), or null. */
  best(): number | null {
    return this.prices.at(-1) ?? null
  }

  toJson(): string {
    this.json ??= `[${this.prices.map((price) => this.levelJson.get(price)!).join(',')}]`
    return this.json
  }

  /** Where `priceMicros` is, or would be inserted, in the summary's order (binary search). */
  private indexOf(priceMicros: number): number {
    let low = 0
    let high = this.prices.length
    while (low < high) {
      const middle = (low + high) >>> 1
      const before = this.ascending ? this.prices[middle]! < priceMicros : this.prices[middle]! > priceMicros
      if (before) low = middle + 1
      else high = middle
    }
    return low
  }
}

export class BookMirror {
  private readonly bids = new BookSide(true)
  private readonly asks = new BookSide(false)
  /** `{"market":…,"asset_id":…,"timestamp":` — the summary's keys before the timestamp. */
  private readonly head: string
  /** Terms a market never changes (MarketUpdated carries status, tick, fee and outcome only). */
  private readonly minOrderSizeJson: string
  private readonly negRisk: boolean
  private tickSizeMicros: number
  /** The best prices as of the last `takeBestChange` (what best_bid_ask last told). */
  private lastBest: Best

  constructor(
    market: MarketRecord,
    tokenId: string,
    book: BookView,
    private lastTradePriceMicros: number | null,
  ) {
    this.head = `{"market":${JSON.stringify(market.conditionId)},"asset_id":${JSON.stringify(tokenId)},"timestamp":`
    this.minOrderSizeJson = JSON.stringify(decimalOfMicros(market.minOrderSizeMicros))
    this.negRisk = market.negRisk
    this.tickSizeMicros = market.tickSizeMicros
    for (const level of book.bids) this.bids.set(level.priceMicros, level.sizeMicros)
    for (const level of book.asks) this.asks.set(level.priceMicros, level.sizeMicros)
    this.lastBest = this.best()
  }

  /** A `bookLevel` event of this token: the level's new aggregate size (0: gone). */
  level(side: Side, priceMicros: number, sizeMicros: number): void {
    ;(side === 'BUY' ? this.bids : this.asks).set(priceMicros, sizeMicros)
  }

  /** A trade priced this token (as taker's token, or as maker's of a mint or merge). */
  trade(priceMicros: number): void {
    this.lastTradePriceMicros = priceMicros
  }

  tick(tickSizeMicros: number): void {
    this.tickSizeMicros = tickSizeMicros
  }

  best(): Best {
    return { bidMicros: this.bids.best(), askMicros: this.asks.best() }
  }

  /** The best prices if they changed since the last call (or since the mirror began), else null. */
  takeBestChange(): Best | null {
    const best = this.best()
    if (best.bidMicros === this.lastBest.bidMicros && best.askMicros === this.lastBest.askMicros) return null
    this.lastBest = best
    return best
  }

  /** The text the hash is over: the JSON of bookSummary's object stamped `timeMs`, with `hash` empty. */
  hashedText(timeMs: number): string {
    const lastTrade = this.lastTradePriceMicros === null ? '' : decimalOfMicros(this.lastTradePriceMicros)
    return `${this.head}${JSON.stringify(String(timeMs))},"hash":"","bids":${this.bids.toJson()},` +
      `"asks":${this.asks.toJson()},"min_order_size":${this.minOrderSizeJson},` +
      `"tick_size":${JSON.stringify(tickText(this.tickSizeMicros))},"neg_risk":${this.negRisk},` +
      `"last_trade_price":${JSON.stringify(lastTrade)}}`
  }

  /** The hash of the book now, stamped `timeMs`, as Polymarket's clients compute it. */
  hash(timeMs: number): string {
    return createHash('sha1').update(this.hashedText(timeMs)).digest('hex')
  }
}
