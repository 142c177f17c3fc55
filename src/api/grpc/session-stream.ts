/**
 * One order-entry session over gRPC (OrderEntryService.Session): the face of the session service
 * (src/service/trading/session.ts). It reads requests, answers each exactly once and in request order
 * (pipelined: a client may send many without waiting), and ends the stream:
 *
 * - `close` request: answered `closed` after every earlier request, then the stream ends OK;
 *   nothing is cancelled, and nothing sent after `close` is read;
 * - the client cancels, its connection drops, its deadline passes, or it half-closes without
 *   `close`: every request read is answered (if anyone listens), then cancel on disconnect (and
 *   after a half-close, the stream ends OK);
 * - the dead-man timer: cancel on disconnect, then UNAVAILABLE (DEAD_MAN_TIMER);
 * - a client that stops reading (more than GRPC_STREAM_BACKLOG_MESSAGES_MAX answers waiting):
 *   RESOURCE_EXHAUSTED (SLOW_CONSUMER); more than ORDER_ENTRY_IN_FLIGHT_MAX requests unanswered:
 *   INVALID_ARGUMENT (SESSION_PROTOCOL); both with cancel on disconnect;
 * - the server stops: cancel on disconnect, then UNAVAILABLE (ENGINE_UNAVAILABLE);
 * - its API key is revoked: cancel on disconnect, then UNAUTHENTICATED (AUTH_UNKNOWN_KEY).
 *
 * Whatever the end, the key's stream slot is given back once, and no timer or listener is left.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { ServerDuplexStream } from '@grpc/grpc-js'
import { ApiCode, PredexError, ServiceCode } from '../../errors.js'
import { AuthCode } from '../../errors.js'
import {
  OrderEntryService, SessionRequestSchema, type SessionOpenedSchema, type SessionOptions,
  type SessionRequest,
} from '../../gen/predex/v1/order_entry_pb.js'
import { GRPC_STREAM_BACKLOG_MESSAGES_MAX, NATIVE_BATCH_ORDERS_MAX, ORDER_ENTRY_IN_FLIGHT_MAX } from '../../limits.js'
import { checkBatchSize, type Trader } from '../../service/trading/trading.js'
import { sessionSettingsOf, TradingSession, type SessionEnd } from '../../service/trading/session.js'
import { admit, decode, type GrpcFace } from './call.js'
import {
  amendedResponse, amendOf, batchResponse, canceledResponse, cancelRequestOf, checkRequestId, errorResponse,
  orderOrError, placedResponse, quotedResponse, quoteOf, RATES, rateLimitOf, replacedResponse, replaceOf, scopeOf,
  scopeValueOf, type RateLimitInit, type SessionResponseInit, type TradingAction,
} from './session-messages.js'
import { asPredexError } from './status.js'
import { StreamWriter } from './stream-writer.js'

/** Requests arrive as bytes; answers go as init shapes, which the method's serializer encodes (definition.ts). */
export type SessionCall = ServerDuplexStream<Buffer, SessionResponseInit>

const CLOSED: SessionEnd = { clean: true, reason: 'closed by the client' }

export class SessionStream {
  private readonly session: TradingSession
  private readonly writer: StreamWriter<SessionResponseInit>
  /** Settles once every answer so far has been written (or dropped): answers go out in request order. */
  private answered: Promise<void> = Promise.resolve()
  private requestCount = 0
  private inFlight = 0
  /** A `close` was read: nothing more is, and however the stream then ends, the end is clean. */
  private closeRead = false
  private ended: Promise<void> | null = null
  private readonly onData = (bytes: Buffer): void => this.read(bytes)
  private readonly onHalfClose = (): void => void this.end({ clean: false, reason: 'half-closed without close' }, null)
  private readonly onCancelled = (): void => void this.end({ clean: false, reason: 'the client went away' }, null)

  /**
   * Authenticates the call (L2 over the method name and no request bytes) and takes a stream slot
   * of its key; throws the catalogue error the call ends with.
   */
  static open(face: GrpcFace, call: SessionCall, onEnd: () => void): SessionStream {
    const trader = admit(face, { metadata: call.metadata, peer: call.getPeer() }, OrderEntryService.method.session,
      new Uint8Array(0), 'l2', null)
    if (trader === null) throw new PredexError(ApiCode.INTERNAL, 'no trader after L2')
    const release = face.keyStreams.take(trader.apiKey)
    return new SessionStream(face, call, trader, () => {
      release()
      onEnd()
    })
  }

  private constructor(private readonly face: GrpcFace, private readonly call: SessionCall,
    private readonly trader: Trader, private readonly onEnd: () => void) {
    this.session = new TradingSession(face.context, trader, face.log,
      () => void this.end({ clean: false, reason: 'dead-man timer' }, deadManError(this.session.options.deadManMs)))
    // The writer ends on its own only when the client reads too slowly (it then sends SLOW_CONSUMER);
    // every other end is this class's, or the client's ('cancelled', below).
    this.writer = new StreamWriter<SessionResponseInit>(call, GRPC_STREAM_BACKLOG_MESSAGES_MAX, () => {
      if (!call.cancelled) void this.end({ clean: false, reason: 'the client read too slowly' }, null)
    })
    call.on('data', this.onData)
    call.on('end', this.onHalfClose)
    call.on('cancelled', this.onCancelled)
  }

  /** The API key the session authenticated with. */
  get apiKey(): string {
    return this.trader.apiKey
  }

  /** Ends the session because its key was revoked: cancel on disconnect applies, then UNAUTHENTICATED. */
  revoked(): Promise<void> {
    return this.end({ clean: false, reason: 'its API key was revoked' },
      new PredexError(AuthCode.AUTH_UNKNOWN_KEY, 'the API key of this session was revoked: open one with a valid key'))
  }

  /** Ends the session because the server stops: cancel on disconnect applies, then UNAVAILABLE. */
  shutdown(): Promise<void> {
    return this.end({ clean: false, reason: 'the server is stopping' },
      new PredexError(ServiceCode.ENGINE_UNAVAILABLE, 'the server is stopping: open a new session on a running one'))
  }

  private read(bytes: Buffer): void {
    if (this.closeRead || this.ended !== null) return
    this.session.touch()
    const index = this.requestCount++
    this.inFlight += 1
    if (this.inFlight > ORDER_ENTRY_IN_FLIGHT_MAX) {
      void this.end({ clean: false, reason: 'too many requests in flight' }, new PredexError(ApiCode.SESSION_PROTOCOL,
        `more than ${ORDER_ENTRY_IN_FLIGHT_MAX} requests were waiting for their answers: wait for answers first`,
        { inFlightMax: ORDER_ENTRY_IN_FLIGHT_MAX }))
      return
    }
    let request: SessionRequest
    try {
      request = decode(SessionRequestSchema, bytes)
    } catch (error) {
      return this.queue(Promise.resolve(errorResponse('', asPredexError(error))), false)
    }
    const closing = request.action.case === 'close'
    if (closing) this.closeRead = true
    this.queue(this.answer(request, index).catch((error: unknown) => {
      if (!(error instanceof PredexError)) this.face.log.error('order entry: internal error', { err: error })
      return errorResponse(request.requestId, asPredexError(error))
    }), closing)
  }

  /** Writes `answer` after every earlier one; after the answer to `close`, the clean end. */
  private queue(answer: Promise<SessionResponseInit>, closing: boolean): void {
    this.answered = this.answered.then(() => answer).then((response) => {
      this.inFlight -= 1
      this.writer.write(response)
      if (closing) void this.end(CLOSED, null)
    }).catch((error: unknown) => this.face.log.error('order entry: an answer was lost', { err: error }))
  }

  private async answer(request: SessionRequest, index: number): Promise<SessionResponseInit> {
    const { requestId, action } = request
    checkRequestId(requestId)
    switch (action.case) {
      case 'open': return { requestId, result: { case: 'opened', value: this.open(action.value, index) } }
      case 'ping': return { requestId, result: { case: 'pong', value: {} } }
      case 'close': return { requestId, result: { case: 'closed', value: {} } }
      case undefined: throw new PredexError(ApiCode.BAD_REQUEST, 'the request has no action', { field: 'action' })
      default: return this.trade(requestId, action)
    }
  }

  private open(options: SessionOptions, index: number): MessageInitShape<typeof SessionOpenedSchema> {
    if (index !== 0) {
      throw new PredexError(ApiCode.SESSION_PROTOCOL, 'open is only valid as the first request of a session')
    }
    const settings = sessionSettingsOf(scopeOf(options.cancelOnDisconnect), options.deadManMs)
    this.session.configure(settings)
    return { cancelOnDisconnect: scopeValueOf(settings.cancelOnDisconnect), deadManMs: settings.deadManMs,
      inFlightMax: ORDER_ENTRY_IN_FLIGHT_MAX }
  }

  /** A trading request: its budget first (in request order), then the service; refusals as `error`. */
  private async trade(requestId: string, action: TradingAction): Promise<SessionResponseInit> {
    const { refusal, budget } = this.face.gate.charge(RATES[action.case], this.trader.apiKey)
    const rateLimit = rateLimitOf(budget)
    if (refusal !== null) return errorResponse(requestId, refusal, rateLimit)
    try {
      return await this.tradeAnswer(requestId, action, rateLimit)
    } catch (error) {
      if (!(error instanceof PredexError)) throw error
      return errorResponse(requestId, error, rateLimit)
    }
  }

  private tradeAnswer(requestId: string, action: TradingAction,
    rateLimit: RateLimitInit | undefined): Promise<SessionResponseInit> {
    switch (action.case) {
      case 'place': {
        const order = orderOrError(action.value, this.trader)
        return this.session.place(order)
          .then((outcome) => placedResponse(requestId, outcome, action.value.clientOrderId, rateLimit))
      }
      case 'placeBatch': {
        const requests = action.value.orders
        checkBatchSize(requests.length, NATIVE_BATCH_ORDERS_MAX)
        return this.session.placeBatch(requests.map((r) => orderOrError(r, this.trader))).then((outcome) =>
          batchResponse(requestId, outcome, requests.map((r) => r.clientOrderId), rateLimit))
      }
      case 'amend': {
        const { orderId, size } = amendOf(action.value)
        return this.session.amend(orderId, size).then((outcome) => amendedResponse(requestId, outcome, rateLimit))
      }
      case 'cancelReplace': {
        const { orderId, order } = replaceOf(action.value, this.trader)
        return this.session.cancelReplace(orderId, order).then((outcome) =>
          replacedResponse(requestId, outcome, action.value.order?.clientOrderId ?? '', rateLimit))
      }
      case 'massQuote': {
        const { market, orders } = quoteOf(action.value, this.trader)
        return this.session.massQuote(market, orders).then((outcome) => quotedResponse(requestId, outcome, rateLimit))
      }
      default:
        return this.session.cancel(cancelRequestOf(action))
          .then((outcome) => canceledResponse(requestId, outcome, rateLimit))
    }
  }

  /**
   * The end, once: nothing more is read; every answer already owed is written (or dropped if
   * the client is gone); the session ends (cancel on disconnect unless clean); then the stream's
   * status, the slot and the listeners.
   */
  private end(how: SessionEnd, error: PredexError | null): Promise<void> {
    if (this.ended === null) {
      this.ended = this.finish(how, error)
        .catch((failure: unknown) => this.face.log.error('order entry: internal error', { err: failure }))
    }
    return this.ended
  }

  private async finish(how: SessionEnd, error: PredexError | null): Promise<void> {
    this.call.off('data', this.onData)
    this.call.off('end', this.onHalfClose)
    this.call.off('cancelled', this.onCancelled)
    try {
      await this.answered
      await this.session.end(this.closeRead ? CLOSED : how)
    } finally {
      // Whatever happened above, the stream gets its status and the key its slot back.
      if (error !== null && !this.closeRead) this.writer.fail(error)
      else this.writer.end()
      this.onEnd()
    }
  }
}

function deadManError(deadManMs: number): PredexError {
  return new PredexError(ApiCode.DEAD_MAN_TIMER,
    `the dead-man timer fired: no request for ${deadManMs} ms; open orders were canceled as the session asked`,
    { deadManMs })
}
