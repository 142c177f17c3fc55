/**
 * The order-entry session's messages (order_entry.proto) to and from the session service
 * (src/service/trading/session.ts): a request's action as the service's input, each result as the one
 * SessionResponse that answers it. Translation only; the shared conversions (the order request,
 * placements, cancels, errors) are messages.ts's and status.ts's.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { ApiCode, PredexError, refusalOr } from '../../errors.js'
import type { OrderAckSchema, RateLimitStateSchema, SessionRequest, SessionResponseSchema }
  from '../../gen/predex/v1/order_entry_pb.js'
import { CancelOnDisconnect } from '../../gen/predex/v1/order_entry_pb.js'
import type { AmendOrderRequest, CancelReplaceRequest, MassQuoteRequest, OrderRequest }
  from '../../gen/predex/v1/trading_pb.js'
import type { BudgetState } from '../../auth/rate-limit.js'
import { ORDER_ENTRY_REQUEST_ID_LENGTH_MAX } from '../../limits.js'
import type { QuoteOutcome } from '../../service/trading/quotes.js'
import type { CancelRequest, CancelScope } from '../../service/trading/session.js'
import type { SignedOrder } from '../../service/trading/signed-order.js'
import {
  clientOrderIdDuplicateOf, type AmendOutcome, type AmendSize, type BatchEntry, type BatchOutcome, type CancelOutcome,
  type OrderOutcome, type Replacement, type Trader,
} from '../../service/trading/trading.js'
import { decimalOfMicros, orderIdOf, tokenIdOf } from '../wire.js'
import type { Rate } from './call.js'
import {
  amendedMessage, amendSizeOf, cancelResultMessage, massQuoteOf, placementMessage, quotedMessage, signedOrderOf,
} from './messages.js'
import { errorDetailOf } from './status.js'
import { RATES as TRADING_RATES } from './trading.js'

export type SessionResponseInit = MessageInitShape<typeof SessionResponseSchema>
export type Action = Exclude<SessionRequest['action'], { case: undefined }>
export type TradingAction = Exclude<Action, { case: 'open' | 'ping' | 'close' }>

/** Each trading request draws on the budget of its REST route (the same bucket: one budget for both faces). */
export const RATES: Readonly<Record<TradingAction['case'], Rate>> = {
  place: TRADING_RATES.order,
  placeBatch: TRADING_RATES.batch,
  cancel: TRADING_RATES.cancel,
  cancelMany: TRADING_RATES.cancelMany,
  cancelByClientIds: TRADING_RATES.cancelMany,
  cancelAll: TRADING_RATES.cancelAll,
  cancelMarket: TRADING_RATES.cancelMarket,
  amend: TRADING_RATES.amend,
  cancelReplace: TRADING_RATES.replace,
  massQuote: TRADING_RATES.massQuote,
}

const SCOPES: ReadonlyMap<number, CancelScope> = new Map([
  [CancelOnDisconnect.UNSPECIFIED, 'none'], [CancelOnDisconnect.KEY, 'key'], [CancelOnDisconnect.SESSION, 'session'],
])

const SCOPE_VALUES: Readonly<Record<CancelScope, CancelOnDisconnect>> = {
  none: CancelOnDisconnect.UNSPECIFIED, key: CancelOnDisconnect.KEY, session: CancelOnDisconnect.SESSION,
}

export function scopeOf(value: number): CancelScope {
  const scope = SCOPES.get(value)
  if (scope === undefined) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'cancel_on_disconnect must be UNSPECIFIED, KEY or SESSION',
      { field: 'cancelOnDisconnect' })
  }
  return scope
}

export function scopeValueOf(scope: CancelScope): CancelOnDisconnect {
  return SCOPE_VALUES[scope]
}

/** A request id as the client sent it, within its bound. */
export function checkRequestId(requestId: string): void {
  if (requestId.length > ORDER_ENTRY_REQUEST_ID_LENGTH_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER,
      `request_id must be at most ${ORDER_ENTRY_REQUEST_ID_LENGTH_MAX} characters`,
      { field: 'requestId', max: ORDER_ENTRY_REQUEST_ID_LENGTH_MAX })
  }
}

/** An order request parsed, or its parse error (the service answers it in the order's place). */
export function orderOrError(request: OrderRequest, trader: Trader): SignedOrder | PredexError {
  return refusalOr(() => signedOrderOf(request, trader))
}

/** The order id and sizes of an amend (the id first, as REST checks them), named as the session names fields. */
export function amendOf(request: AmendOrderRequest): { readonly orderId: string; readonly size: AmendSize } {
  const orderId = orderIdOf(request.orderId, 'orderId')
  return { orderId, size: amendSizeOf(request.newSize, request.reduceBy, { newSize: 'newSize', reduceBy: 'reduceBy' }) }
}

/**
 * A cancel-replace's old order id (checked first, as REST checks it) and its new order parsed, or
 * that order's parse error (the session answers it in its turn).
 */
export function replaceOf(request: CancelReplaceRequest, trader: Trader):
  { readonly orderId: string; readonly order: SignedOrder | PredexError } {
  const orderId = orderIdOf(request.orderId, 'orderId')
  const order = request.order === undefined
    ? new PredexError(ApiCode.INVALID_PARAMETER, 'order is required', { field: 'order' })
    : orderOrError(request.order, trader)
  return { orderId, order }
}

/**
 * A mass quote's market and orders, checked as REST checks them (the market, then the count before
 * any order is parsed); each order parsed, or its parse error (the level's refusal, in its place).
 */
export function quoteOf(request: MassQuoteRequest, trader: Trader):
  { readonly market: string; readonly orders: readonly (SignedOrder | PredexError)[] } {
  return massQuoteOf(request, (order) => orderOrError(order, trader))
}

/** The session actions that are cancels. */
export type CancelAction =
  Exclude<TradingAction, { case: 'place' | 'placeBatch' | 'amend' | 'cancelReplace' | 'massQuote' }>

/** The service's cancel request of a cancel action (ids checked as REST checks them). */
export function cancelRequestOf(action: CancelAction): CancelRequest {
  switch (action.case) {
    case 'cancel': return { kind: 'cancel', orderId: orderIdOf(action.value.orderId, 'orderId') }
    case 'cancelMany':
      return { kind: 'cancelMany', orderIds: action.value.orderIds.map((id) => orderIdOf(id, 'orderIds')) }
    case 'cancelByClientIds': return { kind: 'cancelByClientIds', clientOrderIds: action.value.clientOrderIds }
    case 'cancelAll': return { kind: 'cancelAll' }
    case 'cancelMarket': {
      const { market, assetId } = action.value
      return { kind: 'cancelMarket', market: market === '' ? null : market,
        tokenId: assetId === '' ? null : tokenIdOf(assetId, 'assetId') }
    }
  }
}

/** The acknowledgement of one order: placed, a repeat of a live client order id, or refused. */
export function orderAckOf(entry: BatchEntry, seq: number,
  clientOrderId: string): MessageInitShape<typeof OrderAckSchema> {
  if (entry.ok) {
    const placement = placementMessage(entry.placement, seq)
    return { orderId: placement.orderId, clientOrderId: placement.clientOrderId, status: placement.status,
      makingAmount: placement.makingAmount, takingAmount: placement.takingAmount, fee: placement.fee,
      tradeIds: placement.tradeIds }
  }
  const duplicate = clientOrderIdDuplicateOf(entry.error)
  if (duplicate !== null) {
    return { orderId: duplicate.orderId, clientOrderId: duplicate.clientOrderId, status: duplicate.status,
      duplicate: true, error: errorDetailOf(entry.error) }
  }
  return { orderId: entry.orderId, clientOrderId, error: errorDetailOf(entry.error) }
}

export function placedResponse(requestId: string, outcome: OrderOutcome, clientOrderId: string,
  rateLimit: RateLimitInit | undefined): SessionResponseInit {
  return { requestId, engineSeq: BigInt(outcome.seq), rateLimit,
    result: { case: 'order', value: orderAckOf(outcome.entry, outcome.seq, clientOrderId) } }
}

export function batchResponse(requestId: string, outcome: BatchOutcome, clientOrderIds: readonly string[],
  rateLimit: RateLimitInit | undefined): SessionResponseInit {
  const orders = outcome.entries.map((entry, i) => orderAckOf(entry, outcome.seq, clientOrderIds[i] ?? ''))
  return { requestId, engineSeq: BigInt(outcome.seq), rateLimit, result: { case: 'batch', value: { orders } } }
}

export function canceledResponse(requestId: string, outcome: CancelOutcome,
  rateLimit: RateLimitInit | undefined): SessionResponseInit {
  return { requestId, engineSeq: BigInt(outcome.seq), rateLimit,
    result: { case: 'canceled', value: cancelResultMessage(outcome, outcome.seq) } }
}

export function amendedResponse(requestId: string, outcome: AmendOutcome,
  rateLimit: RateLimitInit | undefined): SessionResponseInit {
  return { requestId, engineSeq: BigInt(outcome.seq), rateLimit,
    result: { case: 'amended', value: amendedMessage(outcome) } }
}

/** A cancel-replace that cancelled: the old order's remaining size, the new order's ack (placed or refused). */
export function replacedResponse(requestId: string, outcome: Replacement, clientOrderId: string,
  rateLimit: RateLimitInit | undefined): SessionResponseInit {
  return { requestId, engineSeq: BigInt(outcome.seq), rateLimit, result: { case: 'replaced', value: {
    canceledOrderId: outcome.canceledOrderId, canceledSizeRemaining: decimalOfMicros(outcome.canceledRemainingMicros),
    order: orderAckOf(outcome.entry, outcome.seq, clientOrderId) } } }
}

/** What a mass quote did: the orders cancelled, each level kept, gone, placed or refused, in the request's order. */
export function quotedResponse(requestId: string, outcome: QuoteOutcome,
  rateLimit: RateLimitInit | undefined): SessionResponseInit {
  return { requestId, engineSeq: BigInt(outcome.seq), rateLimit,
    result: { case: 'quoted', value: quotedMessage(outcome) } }
}

export function errorResponse(requestId: string, error: PredexError,
  rateLimit: RateLimitInit | undefined = undefined): SessionResponseInit {
  return { requestId, rateLimit, result: { case: 'error', value: errorDetailOf(error) } }
}

export type RateLimitInit = MessageInitShape<typeof RateLimitStateSchema>

export function rateLimitOf(budget: BudgetState | null): RateLimitInit | undefined {
  return budget === null ? undefined : { remaining: budget.remaining, limit: budget.limit, resetMs: budget.resetMs }
}
