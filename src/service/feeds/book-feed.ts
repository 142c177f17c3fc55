/**
 * The book feed: per token, a snapshot of its own book, then every durable change to it (the
 * levels a command changed, the trades it printed), each numbered with the token's next sequence
 * number. The feed numbers an update once and hands the same update to every subscriber of the
 * token, so all subscribers see one numbering; a subscriber that sees a jump lost something and
 * subscribes again for a new snapshot. Every face's market data stream renders it: gRPC's book
 * stream, and the WebSocket market channel (which numbers its own messages, Polymarket's `seq`).
 *
 * Consistency: the fan-out gives a durable batch to the read model and then, synchronously, to
 * this feed. A subscription takes its snapshots from the read model in the same tick as it
 * registers, so the snapshot holds exactly the changes numbered up to the seq it carries, and
 * the updates that follow it are exactly those numbered after it.
 *
 * Numbering counts the updates of a token while someone follows it (nobody needs the others; a
 * snapshot carries the count it continues from), and continues from where it was when the token
 * is followed again. Within one command, the trades and tick size changes come first (in the
 * engine's order), then one `levels` update with every level of the token the command changed
 * (the engine reports levels after the steps of a command); a level's size is its new total, 0
 * when it is gone; then the markets' lifecycle (a market created, a market resolved), to the
 * lifecycle's followers (`followMarkets`).
 *
 * A tick size change is not numbered (a stream that does not show it must see no gap): it
 * carries the token's current number, as a snapshot does. The feed remembers each market's tick
 * size and status to tell a change (the read model is already at the end of the batch).
 */
import { Code, CODE_MESSAGES } from '../../engine/codes.js'
import type { MarketStatus, Outcome as Winner, Side } from '../../engine/command.js'
import type { EngineEvent, MarketRecord, MarketUpdated, Trade } from '../../engine/event.js'
import type { BookView } from '../../engine/view.js'
import { ApiCode, PredexError } from '../../errors.js'
import type { Outcome } from '../../host/messages.js'
import { BOOK_STREAM_TOKENS_MAX } from '../../limits.js'
import type { ServiceContext } from '../context.js'
import { bookOf } from '../market-data/market-data.js'
import { isKnownToken } from '../market-data/markets.js'

export interface LevelChange {
  readonly side: Side
  readonly priceMicros: number
  /** The level's new total; 0: the level is gone. */
  readonly sizeMicros: number
}

interface Numbered {
  readonly tokenId: string
  readonly marketId: string
  /** The token's sequence number of this update. */
  readonly seq: number
  /** The journal sequence number of the command behind it. */
  readonly engineSeq: number
  /** The command's time. */
  readonly timeMs: number
}

export interface LevelsUpdate extends Numbered {
  readonly kind: 'levels'
  readonly changes: readonly LevelChange[]
}

/** A trade on the token: its price on this token, the side of the order of this token, shares. */
export interface TradePrint extends Numbered {
  readonly kind: 'trade'
  readonly priceMicros: number
  readonly sizeMicros: number
  readonly side: Side
  readonly feeRateBps: number
}

/** The token's market changed its tick size. Not numbered: `seq` is the token's current number. */
export interface TickChange extends Numbered {
  readonly kind: 'tick'
  readonly oldTickSizeMicros: number
  readonly tickSizeMicros: number
}

export type BookUpdate = LevelsUpdate | TradePrint | TickChange

/** A market's lifecycle: created, or resolved now (with the read model's record of it). */
export type MarketChange =
  | { readonly kind: 'created'; readonly market: MarketRecord; readonly timeMs: number }
  | { readonly kind: 'resolved'; readonly market: MarketRecord; readonly winningOutcome: Winner;
      readonly timeMs: number }

export interface BookSnapshot {
  readonly tokenId: string
  /** The token's current sequence number: the next update carries this plus one. */
  readonly seq: number
  /** The journal sequence number of the last command in the read model. */
  readonly engineSeq: number
  readonly book: BookView
  readonly market: MarketRecord
}

/** Where a subscription's updates go (a stream); it must not throw and must not block. */
export interface BookSink {
  update(update: BookUpdate): void
}

export interface BookSubscription {
  /** One per token, in the order asked (duplicates removed). */
  readonly snapshots: readonly BookSnapshot[]
  /** Stops the updates (idempotent). */
  readonly unsubscribe: () => void
}

interface TokenFeed {
  seq: number
  readonly sinks: Set<BookSink>
}

/** What the feed remembers of a market, to tell a change of tick size or a resolution. */
interface MarketState {
  readonly tickSizeMicros: number
  readonly status: MarketStatus
}

/** TOKEN_NOT_FOUND, naming the first of `tokenIds` no market has: one check, one wording, for every face. */
export function checkTokensKnown(context: ServiceContext, tokenIds: Iterable<string>): void {
  for (const tokenId of tokenIds) {
    if (!isKnownToken(context, tokenId)) {
      throw new PredexError(Code.TOKEN_NOT_FOUND, CODE_MESSAGES.TOKEN_NOT_FOUND, { tokenId })
    }
  }
}

export class BookFeed {
  private readonly tokens = new Map<string, TokenFeed>()
  private readonly marketStates = new Map<string, MarketState>()
  private readonly lifecycle = new Set<(change: MarketChange) => void>()

  /** Made between two batches (the markets' states are read from the read model), then registered with the fan-out. */
  constructor(private readonly context: ServiceContext) {
    for (const market of context.read.markets.values()) this.rememberMarket(market.marketId, market)
  }

  /**
   * Follows `tokenIds` (1..BOOK_STREAM_TOKENS_MAX, known tokens): their snapshots now, then
   * their updates to `sink`. Refuses (INVALID_PARAMETER, TOKEN_NOT_FOUND) before registering.
   */
  subscribe(tokenIds: readonly string[], sink: BookSink): BookSubscription {
    const tokens = [...new Set(tokenIds)]
    if (tokens.length === 0 || tokens.length > BOOK_STREAM_TOKENS_MAX) {
      throw new PredexError(ApiCode.INVALID_PARAMETER,
        `a book stream follows 1 to ${BOOK_STREAM_TOKENS_MAX} tokens (${tokens.length} asked)`,
        { field: 'token_ids', max: BOOK_STREAM_TOKENS_MAX })
    }
    checkTokensKnown(this.context, tokens)
    const snapshots = tokens.map((tokenId) => {
      const feed = this.feedOf(tokenId)
      feed.sinks.add(sink)
      const { book, market } = bookOf(this.context, tokenId, false)
      return { tokenId, seq: feed.seq, engineSeq: this.context.read.seq, book, market }
    })
    const unsubscribe = (): void => {
      for (const tokenId of tokens) this.tokens.get(tokenId)?.sinks.delete(sink)
    }
    return { snapshots, unsubscribe }
  }

  /** Follows the markets' lifecycle (every market's creation and resolution); returns the unfollow. */
  followMarkets(listener: (change: MarketChange) => void): () => void {
    this.lifecycle.add(listener)
    return () => void this.lifecycle.delete(listener)
  }

  /** Subscribers of `tokenId` now (for tests and metrics). */
  subscribersOf(tokenId: string): number {
    return this.tokens.get(tokenId)?.sinks.size ?? 0
  }

  /** Numbers and hands out the updates of durable commands (the fan-out calls it after the read model). */
  publish(outcomes: readonly Outcome[]): void {
    for (const outcome of outcomes) this.publishCommand(outcome.seq, outcome.timeMs, outcome.events)
  }

  private publishCommand(engineSeq: number, timeMs: number, events: readonly EngineEvent[]): void {
    let levels: Map<string, { marketId: string; changes: LevelChange[] }> | null = null
    let changes: MarketChange[] | null = null
    for (const event of events) {
      switch (event.type) {
        case 'bookLevel': {
          if (!this.listened(event.tokenId)) break
          levels ??= new Map()
          let token = levels.get(event.tokenId)
          if (token === undefined) levels.set(event.tokenId, token = { marketId: event.marketId, changes: [] })
          token.changes.push({ side: event.side, priceMicros: event.priceMicros, sizeMicros: event.sizeMicros })
          break
        }
        case 'trade': this.onTrade(engineSeq, timeMs, event); break
        case 'marketCreated':
          this.rememberMarket(event.market.marketId, event.market)
          ;(changes ??= []).push({ kind: 'created', market: event.market, timeMs })
          break
        case 'marketUpdated': {
          const resolved = this.onMarketUpdated(engineSeq, timeMs, event)
          if (resolved !== null) (changes ??= []).push(resolved)
          break
        }
        default: break
      }
    }
    for (const [tokenId, { marketId, changes }] of levels ?? []) {
      this.send(tokenId, (seq) => ({ kind: 'levels', tokenId, marketId, seq, engineSeq, timeMs, changes }))
    }
    // After the command's book changes: a resolution's cancelled orders first, then the resolution.
    for (const change of changes ?? []) for (const listener of [...this.lifecycle]) listener(change)
  }

  private onTrade(engineSeq: number, timeMs: number, event: Trade): void {
    const { marketId, sizeMicros, feeRateBps } = event
    this.send(event.tokenId, (seq) => ({ kind: 'trade', tokenId: event.tokenId, marketId, seq, engineSeq, timeMs,
      priceMicros: event.priceMicros, sizeMicros, side: event.side, feeRateBps }))
    // A mint or merge also prices the other token, at its maker's price.
    if (event.makerTokenId !== event.tokenId) {
      this.send(event.makerTokenId, (seq) => ({ kind: 'trade', tokenId: event.makerTokenId, marketId, seq, engineSeq,
        timeMs, priceMicros: event.makerPriceMicros, sizeMicros, side: event.makerSide, feeRateBps }))
    }
  }

  /** A tick size change goes to both tokens' subscribers at once; a resolution is returned, told after the levels. */
  private onMarketUpdated(engineSeq: number, timeMs: number, event: MarketUpdated): MarketChange | null {
    const market = this.context.read.markets.get(event.marketId)
    if (market === undefined) return null
    const old = this.marketStates.get(market.marketId)
    this.rememberMarket(market.marketId, event)
    if (old !== undefined && old.tickSizeMicros !== event.tickSizeMicros) {
      for (const tokenId of [market.yesTokenId, market.noTokenId]) {
        const feed = this.tokens.get(tokenId)
        if (feed === undefined || feed.sinks.size === 0) continue
        const update: TickChange = { kind: 'tick', tokenId, marketId: market.marketId, seq: feed.seq, engineSeq, timeMs,
          oldTickSizeMicros: old.tickSizeMicros, tickSizeMicros: event.tickSizeMicros }
        for (const sink of feed.sinks) sink.update(update)
      }
    }
    const resolvedNow = event.status === 'Resolved' && old?.status !== 'Resolved' && event.winningOutcome !== null
    return resolvedNow ? { kind: 'resolved', market, winningOutcome: event.winningOutcome!, timeMs } : null
  }

  private rememberMarket(marketId: string, state: MarketState): void {
    this.marketStates.set(marketId, { tickSizeMicros: state.tickSizeMicros, status: state.status })
  }

  private listened(tokenId: string): boolean {
    return (this.tokens.get(tokenId)?.sinks.size ?? 0) > 0
  }

  /** Numbers one update of `tokenId` and gives it to each subscriber; nothing if nobody follows the token. */
  private send(tokenId: string, updateOf: (seq: number) => BookUpdate): void {
    const feed = this.tokens.get(tokenId)
    if (feed === undefined || feed.sinks.size === 0) return
    feed.seq++
    const update = updateOf(feed.seq)
    for (const sink of feed.sinks) sink.update(update)
  }

  private feedOf(tokenId: string): TokenFeed {
    let feed = this.tokens.get(tokenId)
    if (feed === undefined) this.tokens.set(tokenId, feed = { seq: 0, sinks: new Set() })
    return feed
  }
}
