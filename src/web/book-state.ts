/**
 * A token's book as the market channel tells it (docs/rest.md, "WebSocket: the market channel"):
 * the `book` snapshot, then `price_change`s, each event of the asset numbered by `seq`. A seq that
 * is not the next one means events were lost: the book can no longer be trusted, and the caller
 * must ask for a fresh snapshot (a resync); events until it arrives are dropped. Pure (no DOM,
 * no socket), so that the rule is tested on its own (test/unit/web/book-state.test.ts).
 */
import type { WsBook, WsLastTradePrice, WsPriceChange } from '../api/shapes/ws-market.js'
import { micros } from './micros.js'

export interface Level {
  readonly priceMicros: bigint
  readonly sizeMicros: bigint
}

export type FeedEvent = WsBook | WsPriceChange | WsLastTradePrice

/** What an event did: applied, ignored (while a resync is awaited) or showed a gap (resync now). */
export type Verdict = 'applied' | 'ignored' | 'gap'

export class BookState {
  readonly bids = new Map<bigint, bigint>()
  readonly asks = new Map<bigint, bigint>()
  /** The seq of the last event applied; null before the first snapshot and while resyncing. */
  seq: number | null = null
  lastTradePriceMicros: bigint | null = null
  /** Gaps seen so far, each answered by a resync. */
  resyncs = 0

  constructor(readonly tokenId: string) {}

  apply(event: FeedEvent): Verdict {
    if (event.event_type === 'book') return this.snapshot(event)
    if (this.seq === null) return 'ignored'
    if (event.seq !== this.seq + 1) {
      this.seq = null
      this.resyncs++
      return 'gap'
    }
    this.seq = event.seq
    if (event.event_type === 'last_trade_price') this.lastTradePriceMicros = micros(event.price)
    else this.priceChange(event)
    return 'applied'
  }

  /** Levels best first: bids by falling price, asks by rising price. */
  levels(side: 'bids' | 'asks'): Level[] {
    const book = side === 'bids' ? this.bids : this.asks
    const levels = [...book].map(([priceMicros, sizeMicros]) => ({ priceMicros, sizeMicros }))
    return levels.sort(bestFirst(side))
  }

  private snapshot(book: WsBook): Verdict {
    this.bids.clear()
    this.asks.clear()
    for (const level of book.bids) this.bids.set(micros(level.price), micros(level.size))
    for (const level of book.asks) this.asks.set(micros(level.price), micros(level.size))
    this.lastTradePriceMicros = book.last_trade_price === '' ? null : micros(book.last_trade_price)
    this.seq = book.seq
    return 'applied'
  }

  private priceChange(change: WsPriceChange): void {
    for (const entry of change.price_changes) {
      if (entry.asset_id !== this.tokenId) continue
      const book = entry.side === 'BUY' ? this.bids : this.asks
      const size = micros(entry.size)
      if (size === 0n) book.delete(micros(entry.price))
      else book.set(micros(entry.price), size)
    }
  }
}

function cmp(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Bids by falling price, asks by rising price. */
function bestFirst(side: 'bids' | 'asks'): (a: Level, b: Level) => number {
  return side === 'bids' ? (a, b) => cmp(b.priceMicros, a.priceMicros) : (a, b) => cmp(a.priceMicros, b.priceMicros)
}

/**
 * The unified Yes book (GET /book/unified's view): the Yes token's own levels plus the No
 * token's mirrored, since a No bid at p is a Yes ask at 1 - p and a No ask at p a Yes bid at
 * 1 - p. Each level says how much of it is implied.
 */
export interface UnifiedLevel extends Level {
  readonly impliedMicros: bigint
}

export function unifiedLevels(yes: BookState, no: BookState, side: 'bids' | 'asks'): UnifiedLevel[] {
  const own = side === 'bids' ? yes.bids : yes.asks
  const mirrored = side === 'bids' ? no.asks : no.bids
  const merged = new Map<bigint, { size: bigint; implied: bigint }>()
  for (const [price, size] of own) merged.set(price, { size, implied: 0n })
  for (const [price, size] of mirrored) {
    const yesPrice = 1_000_000n - price
    const level = merged.get(yesPrice) ?? { size: 0n, implied: 0n }
    merged.set(yesPrice, { size: level.size + size, implied: level.implied + size })
  }
  const levels = [...merged].map(([priceMicros, { size, implied }]) =>
    ({ priceMicros, sizeMicros: size, impliedMicros: implied }))
  return levels.sort(bestFirst(side))
}
