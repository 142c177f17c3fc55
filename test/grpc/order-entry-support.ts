/**
 * A raw order-entry session for tests, on the SDK's transport (GrpcTransport.duplex): send
 * requests with ids, read the answers in the order they come, and the stream's end (null for OK,
 * the catalogue error otherwise). No SDK logic in between, so a test sees exactly what the server
 * sent. Plus signing helpers: a limit order of a test trader as an OrderRequest.
 */
import { create, type MessageInitShape } from '@bufbuild/protobuf'
import { status as GrpcStatus, type CallOptions, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js'
import { callErrorOf, GrpcTransport, type GrpcCallError, type GrpcSigner } from '../../src/client/grpc/transport.js'
import { signLimitOrder, type SignedOrder } from '../../src/client/orders.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { TimeInForce } from '../../src/gen/predex/v1/common_pb.js'
import {
  OrderEntryService, SessionRequestSchema, type SessionRequest, type SessionResponse,
} from '../../src/gen/predex/v1/order_entry_pb.js'
import type { OrderRequestSchema } from '../../src/gen/predex/v1/trading_pb.js'
import { termsOf, type Trader } from '../support/driver.js'
import { Waker } from '../support/waker.js'

export type Action = Exclude<NonNullable<MessageInitShape<typeof SessionRequestSchema>['action']>, { case: undefined }>
export type OrderRequestInit = MessageInitShape<typeof OrderRequestSchema>

export function signerOf(trader: Trader): GrpcSigner {
  return { credentials: trader.credentials, address: trader.address }
}

/** The stream's end: null when it ended OK. */
export type Ending = GrpcCallError | null

export class TestSession {
  readonly call: ClientDuplexStream<SessionRequest, SessionResponse>
  readonly ended: Promise<Ending>
  private readonly received: SessionResponse[] = []
  private readonly waker = new Waker()
  private finished = false
  private requestCount = 0

  constructor(transport: GrpcTransport, signer: GrpcSigner, options: CallOptions = {}) {
    this.call = transport.duplex(OrderEntryService.method.session, signer, options)
    this.call.on('data', (response: SessionResponse) => {
      this.received.push(response)
      this.waker.wake()
    })
    this.ended = new Promise((resolve) => {
      this.call.on('error', (error: ServiceError) => resolve(callErrorOf(error)))
      this.call.on('status', (status) => {
        if (status.code === GrpcStatus.OK) resolve(null)
      })
    }).then((ending) => {
      this.finished = true
      this.waker.wake()
      return ending as Ending
    })
  }

  /** Sends a request; returns its id (the next number unless given). */
  send(action: Action, requestId = String(++this.requestCount)): string {
    this.call.write(create(SessionRequestSchema, { requestId, action }))
    return requestId
  }

  /** The next answer, in the order they came; fails after `timeoutMs` or if the stream ended first. */
  async next(timeoutMs = 10_000): Promise<SessionResponse> {
    const deadline = Date.now() + timeoutMs
    while (this.received.length === 0) {
      if (this.finished) throw new Error('the stream ended before the answer')
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no answer within ${timeoutMs} ms`)
      await this.waker.sleep(left)
    }
    return this.received.shift()!
  }

  /** Sends one request and returns its answer (the next one: earlier requests must have been read). */
  async ask(action: Action, timeoutMs?: number): Promise<SessionResponse> {
    const requestId = this.send(action)
    const response = await this.next(timeoutMs)
    if (response.requestId !== requestId) throw new Error(`answer to ${response.requestId}, not ${requestId}`)
    return response
  }

  /** Opens with options: the `opened` answer. */
  async open(cancelOnDisconnect: number, deadManMs = 0): Promise<SessionResponse> {
    return this.ask({ case: 'open', value: { cancelOnDisconnect, deadManMs } })
  }

  /** `close`, then the stream's end. */
  async close(): Promise<Ending> {
    const response = await this.ask({ case: 'close', value: {} })
    if (response.result.case !== 'closed') throw new Error(`close answered ${response.result.case}`)
    return this.ended
  }

  /** Answers received and not read yet. */
  get pending(): number {
    return this.received.length
  }
}

/** A signed limit order of `trader` on `market` as a session's OrderRequest. */
export function orderRequest(trader: Trader, market: MarketRecord,
  order: { outcome?: 'Yes' | 'No'; side: 'BUY' | 'SELL'; price: string; size: string },
  options: { clientOrderId?: string; orderType?: TimeInForce } = {}): { signed: SignedOrder; request: OrderRequestInit } {
  const tokenId = order.outcome === 'No' ? market.noTokenId : market.yesTokenId
  const signed = signLimitOrder(trader.wallet, termsOf(market),
    { tokenId, side: order.side, price: order.price, size: order.size })
  return { signed, request: requestOf(signed, options) }
}

export function requestOf(signed: SignedOrder, options: { clientOrderId?: string; orderType?: TimeInForce } = {}):
  OrderRequestInit {
  const o = signed.order
  return {
    order: { salt: o.salt, maker: o.maker, signer: o.signer, taker: o.taker, tokenId: o.tokenId,
      makerAmount: o.makerAmount, takerAmount: o.takerAmount, expiration: o.expiration, nonce: o.nonce,
      feeRateBps: o.feeRateBps, side: o.side, signatureType: o.signatureType, signature: signed.signature },
    orderType: options.orderType ?? TimeInForce.GTC,
    clientOrderId: options.clientOrderId ?? '',
  }
}
