/**
 * Answers to placing and cancelling orders (reference section 5.3): Polymarket's placement fields
 * plus `order_id`; a batch's orders each stand alone, refused ones carrying the catalogue code.
 */
import type { Decimal, Hash, Side } from './vocabulary.js'

/** POST /order (an order the engine accepted), and accepted items of POST /orders. */
export type OrderPlacement = {
  readonly success: true
  readonly errorMsg: ''
  readonly order_id: Hash
  readonly orderID: Hash
  /** live: resting; matched: filled on entry (fully or partly); unmatched: ended without a fill. */
  readonly status: 'live' | 'matched' | 'unmatched'
  /** What the order gave (USDC for a buy, shares for a sell); "" when nothing matched. */
  readonly makingAmount: Decimal | ''
  /** What the order got; "" when nothing matched. */
  readonly takingAmount: Decimal | ''
  /** USDC paid by the order as taker. */
  readonly fee: Decimal
  readonly side: Side
  /** The settlement transaction when it traded (the command that matched it), else empty. */
  readonly transactionsHashes: readonly Hash[]
  readonly tradeIDs: readonly string[]
}

/**
 * A refused item of POST /orders: the error's message and catalogue code, then its context
 * (the same fields as the error body of a single POST /order, e.g. `required`, `available`).
 * `orderID` is "" when the order was refused before its hash was known.
 */
export type OrderRefusal = {
  readonly success: false
  readonly errorMsg: string
  readonly orderID: Hash | ''
  readonly order_id: Hash | ''
  readonly code: string
  readonly [context: string]: unknown
}

export type PlacementResult = OrderPlacement | OrderRefusal

/** POST /orders, native. */
export type BatchPlacement = {
  readonly total_successful: number
  readonly total_failed: number
  readonly results: readonly PlacementResult[]
}

/** POST /compat/orders: one result per order, in the order sent. */
export type CompatBatchPlacement = readonly PlacementResult[]

/** DELETE /order, /orders, /cancel-all, /compat/cancel-market-orders. */
export type CancelResult = {
  readonly canceled: readonly Hash[]
  /** Order id -> why it was not cancelled (not found, not the caller's, already ended). */
  readonly not_canceled: Readonly<Record<Hash, string>>
}

/** POST /order/amend: the order's sizes after the amend (it kept its place in the queue). */
export type OrderAmended = {
  readonly success: true
  readonly order_id: Hash
  /** Shares filled so far (unchanged by the amend). */
  readonly size_matched: Decimal
  /** Shares still resting, after the amend. */
  readonly size_remaining: Decimal
  /** Shares the amend took off. */
  readonly reduced_by: Decimal
  /** The journal sequence number of the amend's command. */
  readonly engine_seq: number
}

/**
 * POST /order/replace: the old order cancelled, and the new one's placement as POST /order
 * answers it, or its refusal (funds, post-only, FOK, FAK: what only placing it could tell) with
 * `success: false`. When nothing changed (the old order was not live, or the new one failed its
 * checks) the answer is an error instead.
 */
export type OrderReplaced = {
  readonly canceled: {
    readonly order_id: Hash
    /** The shares it had left when it was cancelled. */
    readonly size_remaining: Decimal
  }
  readonly placement: PlacementResult
  /** The journal sequence number of the cancel-replace command. */
  readonly engine_seq: number
}

/** One level of POST /quotes' answer, in the request's order. */
export type QuoteLevelResult =
  /** It rested already and still does: its place in the queue kept, nothing signed checked. */
  | { readonly outcome: 'kept'; readonly order_id: Hash }
  /** It was resting but ended before the quote (filled, cancelled): nothing placed for it. */
  | { readonly outcome: 'gone'; readonly order_id: Hash; readonly reason: string }
  /** A new order, placed: POST /order's answer. */
  | ({ readonly outcome: 'placed' } & OrderPlacement)
  /** A new order, refused: POST /orders' refusal of an item. */
  | ({ readonly outcome: 'refused' } & OrderRefusal)

/** POST /quotes: what became of the key's ladder on the market. */
export type QuotesResult = {
  /** The key's resting orders on the market that the request did not name: cancelled. */
  readonly canceled: readonly Hash[]
  readonly levels: readonly QuoteLevelResult[]
  /** The journal sequence number of the mass quote's command. */
  readonly engine_seq: number
}

/** An order group of the caller's API key (GET /order-groups and the answers of its changes). */
export type OrderGroupInfo = {
  readonly group_id: string
  /** Shares filled in the window that trigger it; "0": no such limit. */
  readonly contracts_limit: Decimal
  /** USDC filled (at the orders' prices) in the window that trigger it; "0": no such limit. */
  readonly notional_limit: Decimal
  readonly window_ms: number
  /** How long it stays triggered on its own; 0: until reset. */
  readonly freeze_ms: number
  /** Refusing orders now: triggered, its freeze not over. */
  readonly triggered: boolean
  /** When it last triggered (unix ms); null: not since it was created or reset. */
  readonly triggered_at: number | null
  /** Shares and USDC filled in the window now. */
  readonly window_contracts: Decimal
  readonly window_notional: Decimal
  readonly resting_orders: number
}

/** GET /order-groups. */
export type OrderGroups = { readonly data: readonly OrderGroupInfo[] }

/** DELETE /order-groups/:id. */
export type OrderGroupDeleted = { readonly deleted: true; readonly group_id: string }
