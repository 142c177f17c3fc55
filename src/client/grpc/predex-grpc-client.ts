/**
 * The SDK's gRPC client: a typed method per unary RPC of TradingService, AccountService and
 * MarketDataService (requests as protobuf-es init shapes, answers as the generated messages),
 * the order-entry session with a promise per request, and the book and user streams as async
 * iterators that resubscribe or resume by themselves. Trading and the caller's balances are L2:
 * the client signs each call (and each stream at its opening) with its `signer`.
 *
 *   const client = new PredexGrpcClient({ target: '127.0.0.1:9090', signer: { credentials, address } })
 *   const session = await client.session({ cancelOnDisconnect: 'session', deadManMs: 5000 })
 *   const { value: ack } = await session.place(signLimitOrder(wallet, terms, order), { clientOrderId: 'q-1' })
 *   for await (const update of client.bookStream([tokenId])) console.log(update.book.bestBid())
 *
 * A failed unary call rejects with a `GrpcCallError` (the catalogue's code and context).
 */
import type { DescMessage, DescMethod, MessageInitShape, MessageShape } from '@bufbuild/protobuf'
import type { CallOptions, ChannelOptions } from '@grpc/grpc-js'
import { AccountService } from '../../gen/predex/v1/account_pb.js'
import { MarketDataService } from '../../gen/predex/v1/market_data_pb.js'
import { OrderEntryService } from '../../gen/predex/v1/order_entry_pb.js'
import type { OrderGroup } from '../../gen/predex/v1/common_pb.js'
import { StreamService } from '../../gen/predex/v1/streams_pb.js'
import {
  TradingService, type CancelReplaceResponse, type MassQuoteResponse, type OrderPlacement, type PlaceOrdersResponse,
} from '../../gen/predex/v1/trading_pb.js'
import { GRPC_SDK_UNARY_DEADLINE_MS_DEFAULT } from '../../limits.js'
import type { SignedOrder } from '../orders.js'
import { BookStream, type BookStreamOptions } from './book-stream.js'
import { OrderEntrySession, type BatchOrder, type SessionOptions } from './order-entry-session.js'
import { orderRequestInit, quoteRequestInit, type OrderRequestOptions, type QuoteOrder } from './order-request.js'
import { StreamQueue } from './stream-queue.js'
import { GrpcTransport, type GrpcSigner } from './transport.js'
import { UserStream, type UserStreamOptions } from './user-stream.js'

export interface GrpcClientOptions {
  /** "127.0.0.1:9090"; or give a `transport`. */
  readonly target?: string
  /** An existing transport (shared, or instrumented by a test); the client closes it on `close()`. */
  readonly transport?: GrpcTransport
  /** Needed for the L2 methods, sessions and user streams. */
  readonly signer?: GrpcSigner
  readonly channelOptions?: ChannelOptions
  /** The deadline of each unary call; 10 s by default. */
  readonly deadlineMs?: number
}

type Method = DescMethod & { input: DescMessage; output: DescMessage }
/** A method's request, as an init shape. */
export type RequestOf<M extends Method> = MessageInitShape<M['input']>
/** A method's answer. */
export type ResponseOf<M extends Method> = MessageShape<M['output']>

const T = TradingService.method
const A = AccountService.method
const M = MarketDataService.method

/** The group of an order-group call's answer (always set by the server). */
function groupOf(answer: { readonly group?: OrderGroup }): OrderGroup {
  if (answer.group === undefined) throw new Error('an order-group call answered without its group')
  return answer.group
}

export class PredexGrpcClient {
  readonly transport: GrpcTransport
  private readonly stopping = new AbortController()
  private readonly sessions = new Set<OrderEntrySession>()

  constructor(private readonly options: GrpcClientOptions) {
    if (options.transport === undefined && options.target === undefined) throw new Error('give a target or a transport')
    this.transport = options.transport ?? new GrpcTransport(options.target!, options.channelOptions)
  }

  // Trading (L2).
  placeOrder(request: RequestOf<typeof T.placeOrder>, options?: CallOptions): Promise<ResponseOf<typeof T.placeOrder>> {
    return this.l2(T.placeOrder, request, options)
  }
  placeOrders(request: RequestOf<typeof T.placeOrders>, options?: CallOptions):
    Promise<ResponseOf<typeof T.placeOrders>> { return this.l2(T.placeOrders, request, options) }
  verifyOrder(request: RequestOf<typeof T.verifyOrder>, options?: CallOptions):
    Promise<ResponseOf<typeof T.verifyOrder>> { return this.l2(T.verifyOrder, request, options) }
  cancelOrder(request: RequestOf<typeof T.cancelOrder>, options?: CallOptions):
    Promise<ResponseOf<typeof T.cancelOrder>> { return this.l2(T.cancelOrder, request, options) }
  cancelOrders(request: RequestOf<typeof T.cancelOrders>, options?: CallOptions):
    Promise<ResponseOf<typeof T.cancelOrders>> { return this.l2(T.cancelOrders, request, options) }
  cancelAll(request: RequestOf<typeof T.cancelAll> = {}, options?: CallOptions):
    Promise<ResponseOf<typeof T.cancelAll>> { return this.l2(T.cancelAll, request, options) }
  cancelMarketOrders(request: RequestOf<typeof T.cancelMarketOrders>, options?: CallOptions):
    Promise<ResponseOf<typeof T.cancelMarketOrders>> { return this.l2(T.cancelMarketOrders, request, options) }
  cancelByClientOrderIds(request: RequestOf<typeof T.cancelByClientOrderIds>, options?: CallOptions):
    Promise<ResponseOf<typeof T.cancelByClientOrderIds>> { return this.l2(T.cancelByClientOrderIds, request, options) }
  /** Lowers a live order's size (`newSize` or `reduceBy`, decimal shares); it keeps its place in the queue. */
  amendOrder(request: RequestOf<typeof T.amendOrder>, options?: CallOptions):
    Promise<ResponseOf<typeof T.amendOrder>> { return this.l2(T.amendOrder, request, options) }
  /** Cancels a live order and places another in its stead, in one engine command. */
  cancelReplace(request: RequestOf<typeof T.cancelReplace>, options?: CallOptions):
    Promise<ResponseOf<typeof T.cancelReplace>> { return this.l2(T.cancelReplace, request, options) }
  getOrder(request: RequestOf<typeof T.getOrder>, options?: CallOptions): Promise<ResponseOf<typeof T.getOrder>> {
    return this.l2(T.getOrder, request, options)
  }
  listOpenOrders(request: RequestOf<typeof T.listOpenOrders> = {}, options?: CallOptions):
    Promise<ResponseOf<typeof T.listOpenOrders>> { return this.l2(T.listOpenOrders, request, options) }
  listOrders(request: RequestOf<typeof T.listOrders> = {}, options?: CallOptions):
    Promise<ResponseOf<typeof T.listOrders>> { return this.l2(T.listOrders, request, options) }
  listTrades(request: RequestOf<typeof T.listTrades> = {}, options?: CallOptions):
    Promise<ResponseOf<typeof T.listTrades>> { return this.l2(T.listTrades, request, options) }

  /** Places an order signed with orders.ts (signLimitOrder, signMarketOrder). */
  async placeSigned(signed: SignedOrder, options: OrderRequestOptions = {}): Promise<OrderPlacement> {
    const { placement } = await this.placeOrder({ order: orderRequestInit(signed, options) })
    if (placement === undefined) throw new Error('PlaceOrder answered without a placement')
    return placement
  }
  /** Places signed orders as one batch (each stands alone: see the results). */
  placeSignedBatch(orders: readonly BatchOrder[]): Promise<PlaceOrdersResponse> {
    return this.placeOrders({ orders: orders.map(({ signed, ...options }) => orderRequestInit(signed, options)) })
  }

  /**
   * Cancels `orderId` and places an order signed with orders.ts in its stead. Rejects when nothing
   * changed (the old order not live, the new one refused by its checks); resolves once the old
   * order is cancelled, with the new one's `placement` placed or refused (funds, post-only, FOK, FAK).
   */
  cancelReplaceSigned(orderId: string, signed: SignedOrder, options: OrderRequestOptions = {}):
    Promise<CancelReplaceResponse> {
    return this.cancelReplace({ orderId, order: orderRequestInit(signed, options) })
  }

  /**
   * Sets the key's whole ladder on `market` (UUID, condition id or slug) in one engine command, at
   * most 20 orders a side. Send every level as a signed order (or `{signed, ...options}`), the
   * unchanged ones as they were signed: they keep their place in the queue and cost no signature
   * check. The key's resting orders on the market not sent are cancelled; `[]` pulls them all.
   * Resolves with `canceled` and one level per order, in order: `kept` (its id), `gone` (it had
   * ended), or `placement` (placed, or refused with its error). Rejects when refused whole
   * (MARKET_NOT_FOUND, MASS_QUOTE_INVALID, MASS_QUOTE_TOO_LARGE: nothing changed).
   */
  massQuote(market: string, orders: readonly QuoteOrder[], options?: CallOptions): Promise<MassQuoteResponse> {
    return this.l2(T.massQuote, quoteRequestInit(market, orders), options)
  }

  // Order groups (L2): fill limits that cancel a group's resting orders when reached (docs/grpc.md, "Order groups").
  /** The key's order groups, with their windows now. */
  listOrderGroups(options?: CallOptions): Promise<OrderGroup[]> {
    return this.l2(T.listOrderGroups, {}, options).then((answer) => answer.groups)
  }
  /**
   * Creates an order group of the key: `contractsLimit` (shares) and/or `notionalLimit` (USDC),
   * decimal strings, filled within `windowMs` (1 000 to 60 000, a multiple of 100); `freezeMs`
   * (0: until reset). Orders join it with `orderGroupId` (OrderRequestOptions).
   */
  createOrderGroup(request: RequestOf<typeof T.createOrderGroup>, options?: CallOptions): Promise<OrderGroup> {
    return this.l2(T.createOrderGroup, request, options).then(groupOf)
  }
  /** New limits of a group: what `request` leaves out ("" or unset) keeps its value. */
  updateOrderGroup(request: RequestOf<typeof T.updateOrderGroup>, options?: CallOptions): Promise<OrderGroup> {
    return this.l2(T.updateOrderGroup, request, options).then(groupOf)
  }
  /** Triggers a group now: its resting orders are cancelled; it takes no order until reset (or its freeze ends). */
  triggerOrderGroup(groupId: string, options?: CallOptions): Promise<OrderGroup> {
    return this.l2(T.triggerOrderGroup, { groupId }, options).then(groupOf)
  }
  /** Resets a group: it takes orders again, with an empty window. */
  resetOrderGroup(groupId: string, options?: CallOptions): Promise<OrderGroup> {
    return this.l2(T.resetOrderGroup, { groupId }, options).then(groupOf)
  }
  /** Deletes a group; its resting orders are cancelled. */
  async deleteOrderGroup(groupId: string, options?: CallOptions): Promise<void> {
    await this.l2(T.deleteOrderGroup, { groupId }, options)
  }

  // Account.
  /** The caller's USDC or one outcome token (L2). */
  getBalanceAllowance(request: RequestOf<typeof A.getBalanceAllowance>, options?: CallOptions):
    Promise<ResponseOf<typeof A.getBalanceAllowance>> { return this.l2(A.getBalanceAllowance, request, options) }
  /** Any wallet (public). */
  getWalletStatus(request: RequestOf<typeof A.getWalletStatus>, options?: CallOptions):
    Promise<ResponseOf<typeof A.getWalletStatus>> { return this.open(A.getWalletStatus, request, options) }

  // Market data (public).
  listMarkets(request: RequestOf<typeof M.listMarkets> = {}, options?: CallOptions):
    Promise<ResponseOf<typeof M.listMarkets>> { return this.open(M.listMarkets, request, options) }
  getMarket(request: RequestOf<typeof M.getMarket>, options?: CallOptions): Promise<ResponseOf<typeof M.getMarket>> {
    return this.open(M.getMarket, request, options)
  }
  getBook(request: RequestOf<typeof M.getBook>, options?: CallOptions): Promise<ResponseOf<typeof M.getBook>> {
    return this.open(M.getBook, request, options)
  }
  getUnifiedBook(request: RequestOf<typeof M.getUnifiedBook>, options?: CallOptions):
    Promise<ResponseOf<typeof M.getUnifiedBook>> { return this.open(M.getUnifiedBook, request, options) }
  getBooks(request: RequestOf<typeof M.getBooks>, options?: CallOptions): Promise<ResponseOf<typeof M.getBooks>> {
    return this.open(M.getBooks, request, options)
  }
  getMidpoint(request: RequestOf<typeof M.getMidpoint>, options?: CallOptions):
    Promise<ResponseOf<typeof M.getMidpoint>> { return this.open(M.getMidpoint, request, options) }
  getPrice(request: RequestOf<typeof M.getPrice>, options?: CallOptions): Promise<ResponseOf<typeof M.getPrice>> {
    return this.open(M.getPrice, request, options)
  }
  getSpread(request: RequestOf<typeof M.getSpread>, options?: CallOptions): Promise<ResponseOf<typeof M.getSpread>> {
    return this.open(M.getSpread, request, options)
  }
  getLastTradePrice(request: RequestOf<typeof M.getLastTradePrice>, options?: CallOptions):
    Promise<ResponseOf<typeof M.getLastTradePrice>> { return this.open(M.getLastTradePrice, request, options) }
  getTickSize(request: RequestOf<typeof M.getTickSize>, options?: CallOptions):
    Promise<ResponseOf<typeof M.getTickSize>> { return this.open(M.getTickSize, request, options) }
  getFeeRate(request: RequestOf<typeof M.getFeeRate>, options?: CallOptions):
    Promise<ResponseOf<typeof M.getFeeRate>> { return this.open(M.getFeeRate, request, options) }
  getCandles(request: RequestOf<typeof M.getCandles>, options?: CallOptions):
    Promise<ResponseOf<typeof M.getCandles>> { return this.open(M.getCandles, request, options) }

  // Streams.
  /** Opens an order-entry session (L2): resolves once the server has applied its options. */
  async session(options: SessionOptions = {}): Promise<OrderEntrySession> {
    this.checkOpen()
    const session = await OrderEntrySession.open(this.transport.duplex(OrderEntryService.method.session,
      this.signer()), options)
    this.sessions.add(session)
    void session.ended.then(() => this.sessions.delete(session))
    return session
  }

  /** The books of up to 100 tokens, kept current: iterate it with `for await`. */
  bookStream(tokenIds: readonly string[], options: BookStreamOptions = {}): BookStream {
    this.checkOpen()
    const method = StreamService.method.bookStream
    const request = { tokenIds: [...tokenIds] }
    return new BookStream(tokenIds, () => new StreamQueue(this.transport.serverStream(method, request, null)),
      this.stopping.signal, options)
  }

  /** The caller's order updates and fills (L2), resumed after a dropped connection: iterate with `for await`. */
  userStream(options: UserStreamOptions = {}): UserStream {
    this.checkOpen()
    const method = StreamService.method.userStream
    const signer = this.signer()
    return new UserStream((from) => new StreamQueue(this.transport.serverStream(method,
      { fromSeq: from.seq, epoch: from.epoch }, signer)), this.stopping.signal, options)
  }

  /**
   * Ends every iterator cleanly (a `for await` over a stream of this client just finishes),
   * drops every open session (its cancel on disconnect applies; `close()` a session first to keep
   * its orders), and closes the channel.
   */
  close(): void {
    if (this.stopping.signal.aborted) return
    this.stopping.abort()
    for (const session of this.sessions) session.disconnect()
    this.transport.close()
  }

  private l2<I extends DescMessage, O extends DescMessage>(method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>, options: CallOptions | undefined): Promise<MessageShape<O>> {
    return this.transport.unary(method, request, this.signer(), this.callOptions(options))
  }

  private open<I extends DescMessage, O extends DescMessage>(method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>, options: CallOptions | undefined): Promise<MessageShape<O>> {
    return this.transport.unary(method, request, null, this.callOptions(options))
  }

  private callOptions(options: CallOptions | undefined): CallOptions {
    if (options?.deadline !== undefined) return options
    return { ...options, deadline: Date.now() + (this.options.deadlineMs ?? GRPC_SDK_UNARY_DEADLINE_MS_DEFAULT) }
  }

  private signer(): GrpcSigner {
    if (this.options.signer === undefined) throw new Error('this client has no signer: pass { credentials, address }')
    return this.options.signer
  }

  private checkOpen(): void {
    if (this.stopping.signal.aborted) throw new Error('this PredexGrpcClient is closed')
  }
}
