/**
 * One token's order book kept by the client from a book stream: a snapshot, then level changes
 * (a size of 0 removes the level), each message with the token's next sequence number. Prices
 * and sizes are exact integer micro-units (10^-6 USDC per share, 10^-6 shares), read from the
 * wire's decimal strings without a float.
 */
import type { Book } from '../../gen/predex/v1/common_pb.js'
import { Side } from '../../gen/predex/v1/common_pb.js'
import type { LevelChange } from '../../gen/predex/v1/streams_pb.js'
import { decimalOf, toMicros } from '../decimal.js'

export interface Level {
  readonly priceMicros: bigint
  readonly sizeMicros: bigint
}

/** A wire decimal ("0.52", "100.000000") in micro-units. */
export function microsOf(text: string): bigint {
  return toMicros(decimalOf(text))
}

export class LocalBook {
  /** False until the first snapshot. */
  ready = false
  /** The stream's sequence number of the token's last message applied. */
  seq = 0n
  /** The journal sequence number of the command behind the last message applied. */
  engineSeq = 0n
  /** The market's condition id (from the snapshot). */
  market = ''
  tickSizeMicros = 0n
  lastTradePriceMicros: bigint | null = null
  private readonly bidSizes = new Map<bigint, bigint>()
  private readonly askSizes = new Map<bigint, bigint>()

  constructor(readonly tokenId: string) {}

  /** Replaces everything with a snapshot. */
  reset(book: Book, seq: bigint, engineSeq: bigint): void {
    this.bidSizes.clear()
    this.askSizes.clear()
    for (const level of book.bids) this.bidSizes.set(microsOf(level.price), microsOf(level.size))
    for (const level of book.asks) this.askSizes.set(microsOf(level.price), microsOf(level.size))
    this.market = book.market
    this.tickSizeMicros = book.tickSize === '' ? 0n : microsOf(book.tickSize)
    this.lastTradePriceMicros = book.lastTradePrice === undefined ? null : microsOf(book.lastTradePrice)
    this.ready = true
    this.mark(seq, engineSeq)
  }

  /** Applies the level changes of one message. */
  apply(changes: readonly LevelChange[], seq: bigint, engineSeq: bigint): void {
    for (const change of changes) {
      const levels = change.side === Side.BUY ? this.bidSizes : this.askSizes
      const priceMicros = microsOf(change.price)
      const sizeMicros = microsOf(change.size)
      if (sizeMicros === 0n) levels.delete(priceMicros)
      else levels.set(priceMicros, sizeMicros)
    }
    this.mark(seq, engineSeq)
  }

  /** A trade printed on the token: its price is the last trade price. */
  trade(priceText: string, seq: bigint, engineSeq: bigint): void {
    this.lastTradePriceMicros = microsOf(priceText)
    this.mark(seq, engineSeq)
  }

  /** Bids, the best (highest) first. */
  bids(): Level[] {
    return sorted(this.bidSizes, -1)
  }

  /** Asks, the best (lowest) first. */
  asks(): Level[] {
    return sorted(this.askSizes, 1)
  }

  bestBid(): Level | null {
    return this.bids()[0] ?? null
  }

  bestAsk(): Level | null {
    return this.asks()[0] ?? null
  }

  /** (best bid + best ask) / 2 in micro-units, rounded down; null when a side is empty. */
  midMicros(): bigint | null {
    const bid = this.bestBid()
    const ask = this.bestAsk()
    if (bid === null || ask === null) return null
    return (bid.priceMicros + ask.priceMicros) / 2n
  }

  private mark(seq: bigint, engineSeq: bigint): void {
    this.seq = seq
    this.engineSeq = engineSeq
  }
}

function sorted(levels: ReadonlyMap<bigint, bigint>, direction: 1 | -1): Level[] {
  const list = [...levels].map(([priceMicros, sizeMicros]) => ({ priceMicros, sizeMicros }))
  return list.sort((a, b) => {
    if (a.priceMicros === b.priceMicros) return 0
    return a.priceMicros < b.priceMicros ? -direction : direction
  })
}
