/**
 * Results: what the engine answers to the command's sender. Events say what happened to
 * everybody; a result says what happened to this request.
 */
import type { Code } from './codes.js'
import type { OrderStatus } from './event.js'

export type ContextValue = string | number | boolean

export interface Rejection {
  readonly ok: false
  readonly code: Code
  readonly message: string
  readonly context: Readonly<Record<string, ContextValue>> | null
}

export interface Done {
  readonly ok: true
}

export interface OrderPlaced {
  readonly ok: true
  readonly orderId: string
  readonly status: OrderStatus
  /** What the order gave in its fills on arrival: USDC for a BUY, shares for a SELL. */
  readonly makingMicros: number
  /** What it got: shares for a BUY, USDC (before the fee) for a SELL. */
  readonly takingMicros: number
  readonly feeMicros: number
  readonly tradeIds: readonly string[]
}

export interface OrderRejection extends Rejection {
  readonly orderId: string
}

export type PlaceResult = OrderPlaced | OrderRejection

export interface BatchPlaced {
  readonly ok: true
  readonly results: readonly PlaceResult[]
}

export interface NotCanceled {
  /** The id as the request named it: an order id, or a client order id (cancelByClientOrderId). */
  readonly orderId: string
  readonly reason: string
}

export interface Canceled {
  readonly ok: true
  readonly canceled: readonly string[]
  /** Ids that were not open orders of the requester, each with the reason, in request order. */
  readonly notCanceled: readonly NotCanceled[]
}

/** An amend done: the order's sizes after it (docs/engine.md, "Amend"). */
export interface Amended {
  readonly ok: true
  readonly orderId: string
  readonly sizeMatchedMicros: number
  /** What still rests, after the amend. */
  readonly remainingMicros: number
  /** What the amend took off. */
  readonly reducedByMicros: number
}

/**
 * A cancel-replace whose old order was live: it is cancelled, and the new one was placed, or
 * refused for what only placing it could tell (funds, post-only, FOK, FAK) after the cancel.
 */
export interface Replaced {
  readonly ok: true
  readonly canceledOrderId: string
  /** The size the old order had left when it was cancelled. */
  readonly canceledRemainingMicros: number
  readonly placed: PlaceResult
}

/** A kept order of a mass quote: `reason` null when it still rests as it was, else why it does not (it ended). */
export interface KeptQuote {
  readonly orderId: string
  readonly reason: string | null
}

/** What a mass quote did (docs/engine.md, "Mass quote"). */
export interface QuotesSet {
  readonly ok: true
  /** The key's orders on the market that the quote did not name: cancelled first. */
  readonly canceledQuotes: readonly string[]
  /** Each `keep` id, in order: `reason` null when it still rests as it was, else why it does not (it ended). */
  readonly keptQuotes: readonly KeptQuote[]
  /** Each new order's placement, in order. */
  readonly newQuotes: readonly PlaceResult[]
}

export type CommandResult =
  | Done | OrderPlaced | BatchPlaced | Canceled | Amended | Replaced | QuotesSet | Rejection | OrderRejection
