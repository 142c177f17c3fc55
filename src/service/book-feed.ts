/**
 * The book feed: per token, a snapshot of its own book, then every durable change to it (the
 * levels a command changed, the trades it printed), each numbered with the token's next sequence
 * number. The feed numbers an update once and hands the same update to every subscriber of the
 * token, so all subscribers see one numbering; a subscriber that sees a jump lost something and
 * subscribes again for a new snapshot.
 *
 * Consistency: the fan-out gives a durable batch to the read model and then, synchronously, to
 * this feed. A subscription takes its snapshots from the read model in the same tick as it
 * registers, so the snapshot holds exactly the changes numbered up to the seq it carries, and
 * the updates that follow it are exactly those numbered after it.
 *
 * Numbering counts the updates of a token while someone follows it (nobody needs the others; a
 * snapshot carries the count it continues from), and continues from where it was when the token
 * is followed again. Within one command, the trades come first (in the engine's order), then one
 * `levels` update with every level of the token the command changed (the engine reports levels
 * after the steps of a command); a level's size is its new total, 0 when it is gone.
 */
import { Code, CODE_MESSAGES } from '../engine/codes.js'
import type { Side } from '../engine/command.js'
import type { EngineEvent, MarketRecord } from '../engine/event.js'
import type { BookView } from '../engine/view.js'
import { ApiCode, PredexError } from '../errors.js'
import type { Outcome } from '../host/messages.js'
import { BOOK_STREAM_TOKENS_MAX } from '../limits.js'
import type { ServiceContext } from './context.js'
import { bookOf } from './market-data.js'
import { isKnownToken } from './markets.js'

export interface LevelChange {
  readonly side: Side
  readonly priceMicros: number
  /** The level's new total; 0: the level is gone. */
  readonly sizeMicros: number
}

interface Numbered {
  readonly tokenId: string
  /** The token's sequence number of this update. */
  readonly seq: number
  /** The journal sequence number of the command behind it. */
  readonly engineSeq: number
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
  readonly timeMs: number
}

export type BookUpdate = LevelsUpdate | TradePrint

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

export class BookFeed {
  private readonly tokens = new Map<string, TokenFeed>()

  constructor(private readonly context: ServiceContext) {}

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
    const unknown = tokens.find((tokenId) => !isKnownToken(this.context, tokenId))
    if (unknown !== undefined) {
      throw new PredexError(Code.TOKEN_NOT_FOUND, CODE_MESSAGES.TOKEN_NOT_FOUND, { tokenId: unknown })
    }
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

  /** Subscribers of `tokenId` now (for tests and metrics). */
  subscribersOf(tokenId: string): number {
    return this.tokens.get(tokenId)?.sinks.size ?? 0
  }

  /** Numbers and hands out the updates of durable commands (the fan-out calls it after the read model). */
  publish(outcomes: readonly Outcome[]): void {
    for (const outcome of outcomes) this.publishCommand(outcome.seq, outcome.events)
  }

  private publishCommand(engineSeq: number, events: readonly EngineEvent[]): void {
    let levels: Map<string, LevelChange[]> | null = null
    for (const event of events) {
      if (event.type === 'bookLevel') {
        if (!this.listened(event.tokenId)) continue
        levels ??= new Map()
        let changes = levels.get(event.tokenId)
        if (changes === undefined) levels.set(event.tokenId, changes = [])
        changes.push({ side: event.side, priceMicros: event.priceMicros, sizeMicros: event.sizeMicros })
      } else if (event.type === 'trade') {
        const { sizeMicros, timeMs } = event
        this.send(event.tokenId, (seq) => ({ kind: 'trade', tokenId: event.tokenId, seq, engineSeq,
          priceMicros: event.priceMicros, sizeMicros, side: event.side, timeMs }))
        // A mint or merge also prices the other token, at its maker's price.
        if (event.makerTokenId !== event.tokenId) {
          this.send(event.makerTokenId, (seq) => ({ kind: 'trade', tokenId: event.makerTokenId, seq, engineSeq,
            priceMicros: event.makerPriceMicros, sizeMicros, side: event.makerSide, timeMs }))
        }
      }
    }
    for (const [tokenId, changes] of levels ?? []) {
      this.send(tokenId, (seq) => ({ kind: 'levels', tokenId, seq, engineSeq, changes }))
    }
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
