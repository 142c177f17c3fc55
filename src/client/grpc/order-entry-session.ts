/**
 * An order-entry session (order_entry.proto) with a promise per request. Each request gets the
 * next request id; the server answers every request once, in request order, with that id, so
 * the promises resolve in the order the requests were made.
 *
 * What a refusal does (chosen for a market maker, who usually awaits each request or uses
 * `Promise.allSettled` over a burst): the promise REJECTS with a `SessionRequestError`, the same
 * shape as a unary call's `GrpcCallError` (grpcCode from the catalogue, the stable `code`, its
 * `context`, `retryAfterMs`) plus the request id, so one error handler serves both paths. That
 * covers a request refused as a whole (bad input, rate limit, engine unavailable) and a `place`
 * whose one order was refused. Some answers resolve although they describe a non-placement: a
 * batch and a `massQuote` (each item or level carries its own error, as the unary PlaceOrders and
 * MassQuote do), a `place` with a client order id already in use (`duplicate: true`: the ack
 * describes the live original, which is what a client reconciling after a reconnect wants to
 * know), and a `cancelReplace` whose old order was cancelled but whose new order the book or the
 * funds refused (`order.error`: the cancel happened, and the client must know it). A
 * cancel-replace that changed nothing rejects, as does a mass quote refused whole.
 *
 * Ends: `close()` is the clean end (nothing is cancelled); `disconnect()` drops the stream without
 * `close`, so the server's cancel on disconnect (if the session asked for it) cancels the orders.
 * Whatever ends the stream, every request still waiting rejects with the stream's status, and
 * `ended` resolves with it (null after a clean close). While a dead-man timer is set, the session
 * pings when it has sent nothing for a while, so an idle but healthy client keeps its orders.
 */
import { create, type MessageInitShape } from '@bufbuild/protobuf'
import { status as GrpcStatus, type ClientDuplexStream } from '@grpc/grpc-js'
import type { ErrorDetail } from '../../gen/predex/v1/common_pb.js'
import {
  CancelOnDisconnect, SessionRequestSchema, type BatchAck, type OrderAck, type Pong, type RateLimitState,
  type ReplaceAck, type SessionOpened, type SessionRequest, type SessionResponse,
} from '../../gen/predex/v1/order_entry_pb.js'
import type { AmendOrderResponse, CancelResult, MassQuoteResponse } from '../../gen/predex/v1/trading_pb.js'
import { CATALOGUE, type ErrorCode } from '../../errors.js'
import { GRPC_SDK_PINGS_PER_DEAD_MAN, ORDER_ENTRY_IN_FLIGHT_MAX } from '../../limits.js'
import type { SignedOrder } from '../orders.js'
import { orderRequestInit, quoteRequestInit, type OrderRequestOptions, type QuoteOrder } from './order-request.js'
import { StreamQueue } from './stream-queue.js'
import { GrpcCallError } from './transport.js'

export type CancelOnDisconnectMode = 'none' | 'key' | 'session'

export interface SessionOptions {
  /** What the server cancels when the stream ends without `close()`: nothing (the default), the key's
   * open orders, or this session's. */
  readonly cancelOnDisconnect?: CancelOnDisconnectMode
  /** The dead-man interval (1000..60000 ms; the server's default, 10000, when absent). */
  readonly deadManMs?: number
  /** How often an idle session pings while the dead-man timer is set; a third of the interval by default. */
  readonly pingIntervalMs?: number
}

/** A request's answer, with the journal sequence number of its command and the key's rate-limit state. */
export interface SessionReply<T> {
  readonly value: T
  readonly requestId: string
  /** 0 when the request never reached the engine (a ping). */
  readonly engineSeq: bigint
  readonly rateLimit: RateLimitState | undefined
}

/** An order of a batch: the signed order and what travels beside it. */
export interface BatchOrder extends OrderRequestOptions {
  readonly signed: SignedOrder
}

/** An amend's size in decimal shares ("5.5"), exactly one of the two. */
export type AmendSize = { readonly newSize: string; readonly reduceBy?: never }
  | { readonly reduceBy: string; readonly newSize?: never }

/** A request the server refused (or a single order it refused), as a unary call's error reads. */
export class SessionRequestError extends GrpcCallError {
  constructor(detail: ErrorDetail, readonly requestId: string, readonly engineSeq: bigint) {
    const context: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(detail.context)) context[key] = parseJson(value)
    const entry = CATALOGUE[detail.code as ErrorCode] as (typeof CATALOGUE)[ErrorCode] | undefined
    super(entry?.grpc ?? GrpcStatus.UNKNOWN, detail.message, detail.code, context, retryAfterMsOf(context))
  }
}

const MODES: Readonly<Record<CancelOnDisconnectMode, CancelOnDisconnect>> = {
  none: CancelOnDisconnect.UNSPECIFIED,
  key: CancelOnDisconnect.KEY,
  session: CancelOnDisconnect.SESSION,
}

type Action = Exclude<MessageInitShape<typeof SessionRequestSchema>['action'], { case: undefined } | undefined>
type ResultCase = Exclude<SessionResponse['result']['case'], undefined>
type ResultOf<C extends ResultCase> = Extract<SessionResponse['result'], { case: C }>['value']

interface Pending {
  readonly expect: ResultCase
  resolve(response: SessionResponse): void
  reject(error: Error): void
}

export class OrderEntrySession {
  /** The settings the server applied (the answer to the session's first request). */
  opened: SessionOpened | null = null
  /** The key's rate-limit state from the latest answer that carried one. */
  rateLimit: RateLimitState | undefined
  /** Resolves when the stream has ended: null after `close()`, else the stream's status. */
  readonly ended: Promise<GrpcCallError | null>
  private readonly queue: StreamQueue<SessionResponse>
  private readonly pending = new Map<string, Pending>()
  private readonly unsent: SessionRequest[] = []
  private requestCount = 0
  private sentAtMs = 0
  private pinger: NodeJS.Timeout | null = null
  private endError: GrpcCallError | null | undefined = undefined
  private closing = false

  private constructor(private readonly call: ClientDuplexStream<SessionRequest, SessionResponse>) {
    this.queue = new StreamQueue(call, Number.MAX_SAFE_INTEGER) // answers are few: at most one per request
    this.ended = this.pump()
  }

  /** Opens a session on `call` (sends the options, waits for the server's `opened`). */
  static async open(call: ClientDuplexStream<SessionRequest, SessionResponse>, options: SessionOptions = {}):
    Promise<OrderEntrySession> {
    const session = new OrderEntrySession(call)
    try {
      const reply = await session.request({ case: 'open', value: {
        cancelOnDisconnect: MODES[options.cancelOnDisconnect ?? 'none'], deadManMs: options.deadManMs ?? 0 } },
      'opened')
      session.opened = reply.value
      session.startPinging(options.pingIntervalMs)
    } catch (error) {
      session.disconnect()
      throw error
    }
    return session
  }

  /** Places one signed order. Rejects if it was refused (see the file's comment for duplicates). */
  place(signed: SignedOrder, options: OrderRequestOptions = {}): Promise<SessionReply<OrderAck>> {
    return this.request({ case: 'place', value: orderRequestInit(signed, options) }, 'order')
  }

  /** Places up to BATCH_ORDERS_MAX (10) orders, each on its own: the acks say which were refused. */
  placeBatch(orders: readonly BatchOrder[]): Promise<SessionReply<BatchAck>> {
    const requests = orders.map(({ signed, ...options }) => orderRequestInit(signed, options))
    return this.request({ case: 'placeBatch', value: { orders: requests } }, 'batch')
  }

  cancel(orderId: string): Promise<SessionReply<CancelResult>> {
    return this.request({ case: 'cancel', value: { orderId } }, 'canceled')
  }

  cancelMany(orderIds: readonly string[]): Promise<SessionReply<CancelResult>> {
    return this.request({ case: 'cancelMany', value: { orderIds: [...orderIds] } }, 'canceled')
  }

  /** Every open order of the key's wallet. */
  cancelAll(): Promise<SessionReply<CancelResult>> {
    return this.request({ case: 'cancelAll', value: {} }, 'canceled')
  }

  /** The open orders in a market (UUID, condition id or slug) and/or of one token. */
  cancelMarket(filter: { readonly market?: string; readonly assetId?: string }):
    Promise<SessionReply<CancelResult>> {
    return this.request({ case: 'cancelMarket', value: { market: filter.market ?? '', assetId: filter.assetId ?? '' } },
      'canceled')
  }

  cancelByClientOrderIds(clientOrderIds: readonly string[]): Promise<SessionReply<CancelResult>> {
    return this.request({ case: 'cancelByClientIds', value: { clientOrderIds: [...clientOrderIds] } }, 'canceled')
  }

  /**
   * Lowers a live order's remaining size to `newSize`, or by `reduceBy`; the order keeps its place
   * in the queue. Rejects if refused (AMEND_NOT_REDUCING, ORDER_ALREADY_MATCHED...).
   */
  amend(orderId: string, size: AmendSize): Promise<SessionReply<AmendOrderResponse>> {
    const value = { orderId, newSize: size.newSize ?? '', reduceBy: size.reduceBy ?? '' }
    return this.request({ case: 'amend', value }, 'amended')
  }

  /**
   * Cancels `orderId` and places `signed` in its stead, in one engine command. Rejects when nothing
   * changed; resolves once the old order is cancelled, the new one's refusal (if any) in `order.error`.
   */
  cancelReplace(orderId: string, signed: SignedOrder, options: OrderRequestOptions = {}):
    Promise<SessionReply<ReplaceAck>> {
    return this.request({ case: 'cancelReplace', value: { orderId, order: orderRequestInit(signed, options) } },
      'replaced')
  }

  /**
   * Sets the key's whole ladder on `market` in one engine command, in its turn (as the client's
   * `massQuote`): the levels sent again keep their place, the key's other resting orders on the
   * market are cancelled, the new ones placed. Resolves with every level's outcome (a refused
   * level's error in its `placement`); rejects when refused whole (nothing changed).
   */
  massQuote(market: string, orders: readonly QuoteOrder[]): Promise<SessionReply<MassQuoteResponse>> {
    return this.request({ case: 'massQuote', value: quoteRequestInit(market, orders) }, 'quoted')
  }

  ping(): Promise<SessionReply<Pong>> {
    return this.request({ case: 'ping', value: {} }, 'pong')
  }

  /** The clean end: every earlier request is answered, nothing is cancelled, then the stream ends. */
  async close(): Promise<void> {
    if (this.endError !== undefined) return
    this.closing = true
    this.stopPinging()
    await this.request({ case: 'close', value: {} }, 'closed')
    this.call.end()
    await this.ended
  }

  /**
   * Drops the stream without `close` (what a crash or a lost network does): the server's cancel on
   * disconnect, if the session asked for it, cancels the orders. Waiting requests reject (CANCELLED).
   */
  disconnect(): void {
    this.stopPinging()
    this.queue.cancel()
  }

  private request<C extends ResultCase>(action: Action, expect: C): Promise<SessionReply<ResultOf<C>>> {
    if (this.endError !== undefined) return Promise.reject(this.endError ?? endedError())
    const requestId = String(++this.requestCount)
    const request = create(SessionRequestSchema, { requestId, action })
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, { expect, reject, resolve: (response) => resolve(replyOf(response)) })
      this.unsent.push(request)
      this.sendWhatFits()
    })
  }

  /** Sends queued requests while the server's in-flight bound allows (the rest wait for answers). */
  private sendWhatFits(): void {
    const inFlightMax = this.opened?.inFlightMax || ORDER_ENTRY_IN_FLIGHT_MAX
    while (this.unsent.length > 0 && this.pending.size - this.unsent.length < inFlightMax) {
      this.call.write(this.unsent.shift()!)
      this.sentAtMs = Date.now()
    }
  }

  private async pump(): Promise<GrpcCallError | null> {
    for (;;) {
      const next = await this.queue.next()
      if (next.kind === 'message') {
        this.answer(next.message)
        continue
      }
      const error = next.error ?? (this.closing ? null : endedError())
      this.endError = error
      this.stopPinging()
      for (const waiting of this.pending.values()) waiting.reject(error ?? endedError())
      this.pending.clear()
      this.unsent.length = 0
      return error
    }
  }

  private answer(response: SessionResponse): void {
    const waiting = this.pending.get(response.requestId)
    if (waiting === undefined) return // not ours to answer: nothing waits for it
    this.pending.delete(response.requestId)
    if (response.rateLimit !== undefined) this.rateLimit = response.rateLimit
    const result = response.result
    if (result.case === 'error') {
      waiting.reject(new SessionRequestError(result.value, response.requestId, response.engineSeq))
    } else if (result.case !== waiting.expect) {
      waiting.reject(new Error(`session: answer ${String(result.case)} to a request expecting ${waiting.expect}`))
    } else if (result.case === 'order' && result.value.error !== undefined && !result.value.duplicate) {
      waiting.reject(new SessionRequestError(result.value.error, response.requestId, response.engineSeq))
    } else {
      waiting.resolve(response)
    }
    this.sendWhatFits()
  }

  private startPinging(intervalMsAsked: number | undefined): void {
    const opened = this.opened
    if (opened === null || opened.cancelOnDisconnect === CancelOnDisconnect.UNSPECIFIED) return
    const intervalMs = intervalMsAsked ?? Math.floor(opened.deadManMs / GRPC_SDK_PINGS_PER_DEAD_MAN)
    this.pinger = setInterval(() => {
      // Any request resets the server's timer: ping only when nothing else went out lately.
      if (Date.now() - this.sentAtMs >= intervalMs / 2) this.ping().catch(() => undefined)
    }, intervalMs)
    this.pinger.unref()
  }

  private stopPinging(): void {
    if (this.pinger !== null) clearInterval(this.pinger)
    this.pinger = null
  }
}

function replyOf<T>(response: SessionResponse): SessionReply<T> {
  return { value: response.result.value as T, requestId: response.requestId, engineSeq: response.engineSeq,
    rateLimit: response.rateLimit }
}

function endedError(): GrpcCallError {
  return new GrpcCallError(GrpcStatus.CANCELLED, 'the order-entry session has ended', '', {}, null)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** RESOURCE_EXHAUSTED refusals say when to retry: `retryAfterMs`, or REST's `retryAfterSeconds`. */
function retryAfterMsOf(context: Readonly<Record<string, unknown>>): number | null {
  if (typeof context['retryAfterMs'] === 'number') return context['retryAfterMs']
  if (typeof context['retryAfterSeconds'] === 'number') return context['retryAfterSeconds'] * 1000
  return null
}
