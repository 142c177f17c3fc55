/**
 * The typed door to the engine: the result type of each command kind, so that a caller that
 * submits a `placeOrder` gets `OrderPlaced | OrderRejection` back, and no caller casts. The map
 * follows the engine's own functions (their return types, below), the ones `Engine.dispatch`
 * calls for each kind: change one and the door's type changes with it. The three hot ones
 * (placing one or a batch, cancelling one, cancel-replace) write their results straight into the event log
 * rather than return them (docs/engine.md, "Results"), so their types are named here.
 */
import type { registerApiKey, revokeApiKey } from '../engine/api-key.js'
import type { cancelAll, cancelByClientOrderId, cancelMarketOrders, cancelOrders } from '../engine/cancel.js'
import type { CommandKind, UnstampedCommand } from '../engine/command.js'
import type { approve, credit, merge, redeem, split } from '../engine/ledger.js'
import type { createMarket, resolveMarket, setFeeRate, setMarketStatus, setTickSize } from '../engine/market-admin.js'
import type { relay } from '../engine/relay.js'
import type { chainSync } from '../engine/chain-sync.js'
import type { reverseTrade } from '../engine/trade-reversal.js'
import type { amendOrder } from '../engine/amend.js'
import type { orderGroupCommand } from '../engine/order-group.js'
import type { BatchPlaced, Canceled, Done, PlaceResult, QuotesSet, Rejection, Replaced } from '../engine/result.js'
import type { Outcome } from './messages.js'

export interface ResultOf {
  readonly placeOrder: PlaceResult
  readonly placeOrders: BatchPlaced | Rejection
  readonly cancelOrder: Canceled
  readonly cancelOrders: ReturnType<typeof cancelOrders>
  readonly cancelByClientOrderId: ReturnType<typeof cancelByClientOrderId>
  readonly cancelAll: ReturnType<typeof cancelAll>
  readonly cancelMarketOrders: ReturnType<typeof cancelMarketOrders>
  readonly amendOrder: ReturnType<typeof amendOrder>
  /** Replaced, the old order not live (Rejection), or the new one refused for its terms (OrderRejection). */
  readonly cancelReplace: Replaced | Rejection
  readonly massQuote: QuotesSet | Rejection
  readonly orderGroup: ReturnType<typeof orderGroupCommand>
  readonly expire: Done
  readonly createMarket: ReturnType<typeof createMarket>
  readonly setMarketStatus: ReturnType<typeof setMarketStatus>
  readonly setTickSize: ReturnType<typeof setTickSize>
  readonly setFeeRate: ReturnType<typeof setFeeRate>
  readonly resolveMarket: ReturnType<typeof resolveMarket>
  readonly credit: ReturnType<typeof credit>
  readonly approve: ReturnType<typeof approve>
  readonly split: ReturnType<typeof split>
  readonly merge: ReturnType<typeof merge>
  readonly redeem: ReturnType<typeof redeem>
  readonly registerApiKey: ReturnType<typeof registerApiKey>
  readonly revokeApiKey: ReturnType<typeof revokeApiKey>
  readonly relay: ReturnType<typeof relay>
  readonly chainSync: ReturnType<typeof chainSync>
  readonly reverseTrade: ReturnType<typeof reverseTrade>
}

/** Every command kind has its result type: a new kind without one does not compile. */
type Complete = { readonly [K in CommandKind]: ResultOf[K] }
const _complete: Complete | null = null
void _complete

export type CommandOf<K extends CommandKind> = Extract<UnstampedCommand, { readonly kind: K }>

/** The outcome of a command of kind K: its seq, time, events, and its own result type. */
export interface OutcomeOf<K extends CommandKind> extends Omit<Outcome, 'result'> {
  readonly result: ResultOf[K]
}
