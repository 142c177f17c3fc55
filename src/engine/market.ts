/**
 * A binary market: its terms, its lifecycle, its collateral accounting and its book.
 */
import { Book } from './book.js'
import type { MarketStatus, Outcome } from './command.js'
import type { MarketRecord } from './event.js'
import { MICROS_PER_PIP } from './limits.js'
import type { OrderTable } from './order-table.js'
import type { Touches } from './touches.js'

/** Allowed status changes (docs/engine.md, "Market status"); Resolved comes only by resolving. */
const TRANSITIONS: Readonly<Record<MarketStatus, readonly MarketStatus[]>> = {
  Upcoming: ['Active', 'Closed'],
  Active: ['Paused', 'Closed', 'Resolving'],
  Paused: ['Active', 'Closed', 'Resolving'],
  Closed: ['Resolving'],
  Resolving: ['Closed'],
  Resolved: [],
}

export function isTransitionAllowed(from: MarketStatus, to: MarketStatus): boolean {
  return TRANSITIONS[from].includes(to)
}

/** Statuses in which a market has no resting orders. */
export function isTradingStopped(status: MarketStatus): boolean {
  return status === 'Closed' || status === 'Resolving' || status === 'Resolved'
}

export class Market {
  status: MarketStatus
  tickPips: number
  feeRateBps: number
  winningOutcome: Outcome | null = null
  resolvedMs = 0
  /** USDC locked in full sets of this market. */
  collateralMicros = 0
  mintedMicros = 0
  mergedMicros = 0
  redeemedYesMicros = 0
  redeemedNoMicros = 0
  readonly book: Book
  /** Where the event log last wrote the market's strings (event-log.ts, LogNamed). */
  logBatch = -1
  logIndex = 0

  constructor(
    readonly index: number,
    readonly marketId: string,
    readonly conditionId: string,
    readonly question: string,
    readonly slug: string,
    readonly description: string,
    readonly yesTokenId: string,
    readonly noTokenId: string,
    tickPips: number,
    readonly minOrderSizeMicros: number,
    feeRateBps: number,
    readonly negRisk: boolean,
    readonly endDateMs: number,
    status: MarketStatus,
    readonly createdMs: number,
    touches: Touches,
    orders: OrderTable,
  ) {
    this.status = status
    this.tickPips = tickPips
    this.feeRateBps = feeRateBps
    this.book = new Book(this, tickPips, touches, orders)
  }

  /** The tick in micro-units, as the rulebook and the records speak of it. */
  get tickSizeMicros(): number {
    return this.tickPips * MICROS_PER_PIP
  }

  tokenIdOf(isNo: boolean): string {
    return isNo ? this.noTokenId : this.yesTokenId
  }

  record(): MarketRecord {
    return {
      marketId: this.marketId,
      conditionId: this.conditionId,
      question: this.question,
      slug: this.slug,
      description: this.description,
      yesTokenId: this.yesTokenId,
      noTokenId: this.noTokenId,
      tickSizeMicros: this.tickPips * MICROS_PER_PIP,
      minOrderSizeMicros: this.minOrderSizeMicros,
      feeRateBps: this.feeRateBps,
      negRisk: this.negRisk,
      endDateMs: this.endDateMs,
      status: this.status,
      createdMs: this.createdMs,
      winningOutcome: this.winningOutcome,
      resolvedMs: this.resolvedMs,
    }
  }
}
