/**
 * The gRPC driver: the contract cases over Predex's gRPC face. It starts one Predex (the REST
 * driver's server: test/support/rest-harness.ts, gRPC on port 0 beside REST) and speaks gRPC with the
 * SDK's transport for everything the gRPC face offers: trading (order groups too), balances,
 * wallet status, the market listing, a market, and every market-data read. Everything else is the REST driver's
 * on the same server, unchanged: the stage (commands, markets, wallets, the engine's state,
 * restarts, the clock) and what gRPC does not serve (faucet, relay, users, admin, API keys,
 * health and readiness, the compat price history, the upcoming and resolving listings).
 *
 * Requests are the cases' native JSON objects, translated into messages (grpc-native.ts); each
 * answer is the native JSON body, and a failed call `{status: the catalogue's HTTP status, body:
 * {error, code, ...context}}` from the status details. A call is signed with the caller's L2
 * credentials over the exact request bytes; ANONYMOUS sends no metadata; a forged caller sends
 * its credentials with a signature that signs nothing.
 */
import { create, fromBinary, toBinary, type DescMessage, type DescMethod, type MessageInitShape, type MessageShape }
  from '@bufbuild/protobuf'
import { Metadata, type ServiceError } from '@grpc/grpc-js'
import { callErrorOf, fullMethodName, GrpcCallError, GrpcTransport, l2Metadata } from '../../src/client/grpc/transport.js'
import { ApiCode, CATALOGUE, PredexError, type ErrorCode } from '../../src/errors.js'
import { microsOfDecimal, orderIdOf, requireString } from '../../src/api/wire.js'
import { decimalOfMicros } from '../../src/stdx/decimal.js'
import { AccountService } from '../../src/gen/predex/v1/account_pb.js'
import { MarketDataService } from '../../src/gen/predex/v1/market_data_pb.js'
import {
  TradingService, type AmendOrderResponse, type CancelReplaceResponse, type CreateOrderGroupRequestSchema,
  type MassQuoteRequestSchema, type MassQuoteResponse, type OrderRequestSchema, type QuoteLevel,
} from '../../src/gen/predex/v1/trading_pb.js'
import { startServer } from './rest-harness.js'
import {
  RawText, type Caller, type Driver, type OrderGroupCall, type Query, type Reply, type TokenRead, type TokensRead,
} from './driver.js'
import {
  arrayBody, assetTypeOf, balanceJson, batchItemJson, bookJson, cancelJson, candleJson, groupLimitsOf, intervalOf,
  listedJson, marketJson, objectBody, orderGroupJson, orderJson, orderRequestOf, pageOf, placementJson, queryText,
  quoteSideOf, secondsOf, textOf, tradeJson, tradeSideJson, Unexpressible, verifyJson, walletJson,
} from './grpc-native.js'
import { RestDriver } from './rest-driver.js'

/** Every call ends by then, so a case that waits on a dead server fails instead of hanging. */
const CALL_DEADLINE_MS = 30_000

/**
 * Bytes no message decodes from (field 1, length 5, then the end): what a case's `RawText` (a
 * body that is not even the wire's syntax) becomes on this face.
 */
const UNDECODABLE = new Uint8Array([0x0a, 0x05, 0x01])

export async function startGrpcDriver(): Promise<Driver> {
  return new GrpcDriver(await startServer())
}

type Unary<I extends DescMessage, O extends DescMessage> = DescMethod & { input: I; output: O }

class GrpcDriver extends RestDriver {
  private transport = this.connect()

  private connect(): GrpcTransport {
    return new GrpcTransport(`127.0.0.1:${this.server.predex.grpcPort}`)
  }

  override async restart(): Promise<void> {
    this.transport.close()
    await super.restart()
    this.transport = this.connect()
  }

  override stop(): Promise<void> {
    this.transport.close()
    return super.stop()
  }

  /** One unary call as `caller` (null: public), its answer shaped by `json`; a refusal as the catalogue's reply. */
  private async unary<I extends DescMessage, O extends DescMessage>(method: Unary<I, O>, caller: Caller | null,
    request: () => MessageInitShape<I> | RawText, json: (answer: MessageShape<O>) => unknown): Promise<Reply> {
    let message: MessageInitShape<I> | RawText
    try {
      message = request()
    } catch (error) {
      if (error instanceof Unexpressible) return { status: error.error.status, body: error.error.body() }
      throw error
    }
    if (message instanceof RawText) return this.undecodable(method, caller)
    try {
      const answer = await this.send(method, toBinary(method.input, create(method.input, message)), caller)
      return { status: 200, body: json(answer) }
    } catch (error) {
      return replyOf(error)
    }
  }

  /**
   * A body that is not the wire's syntax: the face gets bytes that do not decode, and its refusal
   * (INVALID_ARGUMENT, BAD_REQUEST) is what JSON's BAD_JSON is to REST, so it is answered as that.
   * Any other answer is passed on as it is, for the case to see.
   */
  private async undecodable(method: Unary<DescMessage, DescMessage>, caller: Caller | null): Promise<Reply> {
    try {
      await this.send(method, UNDECODABLE, caller)
      return { status: 200, body: 'the face accepted bytes that are no message' }
    } catch (error) {
      if (error instanceof GrpcCallError && error.code === ApiCode.BAD_REQUEST) {
        const refusal = new PredexError(ApiCode.BAD_JSON, 'the body is not valid JSON')
        return { status: refusal.status, body: refusal.body() }
      }
      return replyOf(error)
    }
  }

  private send<O extends DescMessage>(method: DescMethod & { output: O }, bytes: Uint8Array,
    caller: Caller | null): Promise<MessageShape<O>> {
    const metadata = metadataOf(caller, method, bytes)
    const deadline = Date.now() + CALL_DEADLINE_MS
    return new Promise((resolve, reject) => {
      this.transport.client.makeUnaryRequest(fullMethodName(method), (b: Uint8Array) => Buffer.from(b),
        (b: Buffer) => fromBinary(method.output, b), bytes, metadata, { deadline },
        (error: ServiceError | null, answer?: MessageShape<O>) => (error ? reject(callErrorOf(error)) : resolve(answer!)))
    })
  }

  // --- Trading.

  override placeOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.unary(TradingService.method.placeOrder, caller,
      () => request instanceof RawText ? request : { order: orderRequestOf(objectBody(request)) },
      (answer) => placementJson(answer.placement!))
  }

  override placeOrders(caller: Caller, requests: unknown): Promise<Reply> {
    return this.unary(TradingService.method.placeOrders, caller,
      () => requests instanceof RawText ? requests
        : { orders: arrayBody(requests, 'the body must be an array of orders').map(orderRequestOf) },
      (answer) => ({ total_successful: answer.totalSuccessful, total_failed: answer.totalFailed,
        results: answer.results.map(batchItemJson) }))
  }

  override verifyOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.unary(TradingService.method.verifyOrder, caller,
      () => request instanceof RawText ? request : { order: orderRequestOf(objectBody(request)) }, verifyJson)
  }

  /** `{orderID}` or `{orderId}`; an id of another JSON type goes as its text, which is no order id either. */
  override cancelOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.unary(TradingService.method.cancelOrder, caller, () => {
      if (request instanceof RawText) return request
      const body = request === null || request === undefined ? {} : objectBody(request)
      return { orderId: textOf(body.orderID ?? body.orderId) }
    }, (answer) => cancelJson(answer.result))
  }

  override cancelOrders(caller: Caller, ids: unknown): Promise<Reply> {
    return this.unary(TradingService.method.cancelOrders, caller,
      () => ids instanceof RawText ? ids
        : { orderIds: arrayBody(ids, 'the body must be an array of order ids').map(textOf) },
      (answer) => cancelJson(answer.result))
  }

  override cancelAll(caller: Caller): Promise<Reply> {
    return this.unary(TradingService.method.cancelAll, caller, () => ({}), (answer) => cancelJson(answer.result))
  }

  /**
   * `{orderID (or orderId), new_size?, reduce_by?}`: a size absent goes as "" (the proto's "not
   * given"); one the proto cannot carry ("", null, a boolean: REST refuses it, where "" would mean
   * absent here) is answered with REST's refusal, unless the order id is refused first.
   */
  override amendOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.unary(TradingService.method.amendOrder, caller, () => {
      if (request instanceof RawText) return request
      const body = objectBody(request)
      const orderId = textOf(body.orderID ?? body.orderId)
      return { orderId, newSize: sizeTextOf(body.new_size, 'new_size', orderId),
        reduceBy: sizeTextOf(body.reduce_by, 'reduce_by', orderId) }
    }, amendedJson)
  }

  /** POST /order's body plus `orderID`: the order to cancel, and the new order as PlaceOrder's. */
  override replaceOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.unary(TradingService.method.cancelReplace, caller, () => {
      if (request instanceof RawText) return request
      const body = objectBody(request)
      const orderId = textOf(body.orderID)
      return { orderId, order: replacementOf(body, orderId) }
    }, replacedJson)
  }

  /** `{market, orders: [POST /order's body]}`: the market and each level as PlaceOrders' OrderRequest. */
  override massQuote(caller: Caller, request: unknown): Promise<Reply> {
    return this.unary(TradingService.method.massQuote, caller,
      () => request instanceof RawText ? request : quoteRequestOf(objectBody(request)), quotedJson)
  }

  /**
   * The order-group calls, REST's JSON in and out: `create` takes POST /order-groups' body and
   * answers 201 as REST does; `update` PATCH's body (what it leaves out goes unset or ""); the
   * others the group id alone (REST's path; `list` nothing). What the proto cannot carry is refused
   * as REST refuses it (grpc-native.ts).
   */
  override async orderGroup(caller: Caller, action: OrderGroupCall, groupId = '', body?: unknown): Promise<Reply> {
    const methods = TradingService.method
    switch (action) {
      case 'list':
        return this.unary(methods.listOrderGroups, caller, () => ({}),
          (answer) => ({ data: answer.groups.map(orderGroupJson) }))
      case 'create': {
        const reply = await this.unary(methods.createOrderGroup, caller,
          () => body instanceof RawText ? body : groupCreateOf(objectBody(body)), (answer) => orderGroupJson(answer.group))
        return reply.status === 200 ? { ...reply, status: 201 } : reply
      }
      case 'update':
        return this.unary(methods.updateOrderGroup, caller, () => body instanceof RawText ? body
          : { groupId, contractsLimit: '', notionalLimit: '', ...groupLimitsOf(objectBody(body), false) },
        (answer) => orderGroupJson(answer.group))
      case 'trigger':
        return this.unary(methods.triggerOrderGroup, caller, () => ({ groupId }), (answer) => orderGroupJson(answer.group))
      case 'reset':
        return this.unary(methods.resetOrderGroup, caller, () => ({ groupId }), (answer) => orderGroupJson(answer.group))
      case 'delete':
        return this.unary(methods.deleteOrderGroup, caller, () => ({ groupId }),
          (answer) => ({ deleted: true, group_id: answer.groupId }))
    }
  }

  override order(caller: Caller, orderId: string): Promise<Reply> {
    return this.unary(TradingService.method.getOrder, caller, () => ({ orderId }), (answer) => orderJson(answer.order!))
  }

  override openOrders(caller: Caller, query: Query = {}): Promise<Reply> {
    return this.unary(TradingService.method.listOpenOrders, caller,
      () => ({ id: queryText(query, 'id'), market: queryText(query, 'market'), assetId: queryText(query, 'asset_id'),
        page: pageOf(query) }),
      (answer) => ({ limit: answer.limit, count: answer.count, next_cursor: answer.nextCursor,
        data: answer.data.map(orderJson), available_usdc: decimalOfMicros(Number(answer.availableUsdcMicros)) }))
  }

  override orders(caller: Caller, query: Query = {}): Promise<Reply> {
    return this.unary(TradingService.method.listOrders, caller,
      () => ({ marketId: queryText(query, 'market_id'), status: queryText(query, 'status'), page: pageOf(query) }),
      (answer) => ({ next_cursor: answer.nextCursor, data: answer.data.map(listedJson) }))
  }

  override trades(caller: Caller, query: Query = {}): Promise<Reply> {
    return this.unary(TradingService.method.listTrades, caller,
      () => ({ id: queryText(query, 'id'), market: queryText(query, 'market'), assetId: queryText(query, 'asset_id'),
        before: secondsOf(query, 'before'), after: secondsOf(query, 'after'), page: pageOf(query) }),
      (answer) => ({ limit: answer.limit, count: answer.count, next_cursor: answer.nextCursor,
        data: answer.data.map(tradeJson) }))
  }

  // --- Account.

  override balance(caller: Caller, query: Query): Promise<Reply> {
    return this.unary(AccountService.method.getBalanceAllowance, caller,
      () => ({ assetType: assetTypeOf(query.asset_type), tokenId: queryText(query, 'token_id') }), balanceJson)
  }

  override walletStatus(address: string): Promise<Reply> {
    return this.unary(AccountService.method.getWalletStatus, null, () => ({ address }), walletJson)
  }

  // --- Markets and market data (public).

  override markets(query: Query = {}): Promise<Reply> {
    return this.unary(MarketDataService.method.listMarkets, null, () => ({ page: pageOf(query) }),
      (answer) => ({ limit: answer.limit, count: answer.count, next_cursor: answer.nextCursor,
        data: answer.data.map(marketJson) }))
  }

  override market(idOrSlug: string): Promise<Reply> {
    return this.unary(MarketDataService.method.getMarket, null, () => ({ market: idOrSlug }),
      (answer) => marketJson(answer.market))
  }

  override tokenRead(read: TokenRead, query: Query): Promise<Reply> {
    const tokenId = queryText(query, 'token_id')
    const methods = MarketDataService.method
    switch (read) {
      case 'book':
        return this.unary(methods.getBook, null, () => ({ tokenId }), (answer) => bookJson(answer.book))
      case 'unifiedBook':
        return this.unary(methods.getUnifiedBook, null, () => ({ tokenId }), (answer) => bookJson(answer.book))
      case 'midpoint':
        return this.unary(methods.getMidpoint, null, () => ({ tokenId }),
          (answer) => ({ mid: answer.mid ?? null, mid_price: answer.mid ?? null }))
      case 'price':
        return this.unary(methods.getPrice, null, () => ({ tokenId, side: quoteSideOf(query.side) }),
          (answer) => ({ price: answer.price ?? null }))
      case 'spread':
        return this.unary(methods.getSpread, null, () => ({ tokenId }), (answer) => ({ spread: answer.spread ?? null }))
      case 'lastTradePrice':
        return this.unary(methods.getLastTradePrice, null, () => ({ tokenId }),
          (answer) => ({ price: answer.price ?? null, side: tradeSideJson(answer.side) }))
      case 'tickSize':
        return this.unary(methods.getTickSize, null, () => ({ tokenId }),
          (answer) => ({ minimum_tick_size: Number(answer.minimumTickSize) }))
      case 'feeRate':
        return this.unary(methods.getFeeRate, null, () => ({ tokenId }), (answer) => ({ base_fee: answer.baseFeeBps }))
    }
  }

  /**
   * The batch reads. Books is one GetBooks call. The proto has no batch midpoint or price: each
   * item is its own GetMidpoint / GetPrice call, in the request's order, and the first refusal is
   * the answer (as REST's batch refuses at its first bad item). An item that is not an object
   * carries no token id: it goes as "" (the face refuses it as REST refuses such an item).
   */
  override async tokensRead(read: TokensRead, items: unknown): Promise<Reply> {
    const methods = MarketDataService.method
    if (items instanceof RawText) {
      const method = read === 'books' ? methods.getBooks : read === 'midpoints' ? methods.getMidpoint : methods.getPrice
      return this.undecodable(method, null)
    }
    let list: readonly unknown[]
    try {
      list = arrayBody(items, 'the body must be an array of {token_id}')
    } catch (error) {
      if (error instanceof Unexpressible) return { status: error.error.status, body: error.error.body() }
      throw error
    }
    const tokenIds = list.map((item) => textOf((item as { token_id?: unknown } | null)?.token_id))
    if (read === 'books') {
      return this.unary(methods.getBooks, null, () => ({ tokenIds }), (answer) => answer.books.map(bookJson))
    }
    const body: Record<string, unknown> = {}
    for (const [i, tokenId] of tokenIds.entries()) {
      const reply = read === 'midpoints'
        ? await this.unary(methods.getMidpoint, null, () => ({ tokenId }), (answer) => answer.mid ?? null)
        : await this.unary(methods.getPrice, null,
          () => ({ tokenId, side: quoteSideOf((list[i] as { side?: unknown } | null)?.side) }),
          (answer) => answer.price ?? null)
      if (reply.status !== 200) return reply
      const side = String((list[i] as { side?: unknown }).side).toUpperCase()
      body[tokenId] = read === 'midpoints' ? reply.body
        : { ...(body[tokenId] as Record<string, unknown> | undefined), [side]: reply.body }
    }
    return { status: 200, body }
  }

  override candles(symbol: string, query: Query = {}): Promise<Reply> {
    return this.unary(MarketDataService.method.getCandles, null,
      () => ({ symbol, interval: intervalOf(query.interval), from: secondsOf(query, 'from'), to: secondsOf(query, 'to') }),
      (answer) => answer.candles.map(candleJson))
  }
}

/**
 * POST /order-groups' body as CreateOrderGroup: a group id that is no string is refused as REST
 * refuses it; the limits after it (grpc-native.ts), those REST would not reach sent as absent.
 */
function groupCreateOf(body: Record<string, unknown>): MessageInitShape<typeof CreateOrderGroupRequestSchema> {
  const groupId = body.group_id
  if (typeof groupId !== 'string') throw unexpressible(() => requireString(groupId, 'group_id', 64))
  return { groupId, ...groupLimitsOf(body, !isGroupIdText(groupId)) }
}

/** Whether REST takes `groupId` as a new group's id (a non-empty string of at most 64 characters). */
function isGroupIdText(groupId: string): boolean {
  try {
    requireString(groupId, 'group_id', 64)
    return true
  } catch {
    return false
  }
}

/** Whether the face takes `orderId` (a malformed one is refused before anything else of the request). */
function isOrderId(orderId: string): boolean {
  try {
    orderIdOf(orderId)
    return true
  } catch {
    return false
  }
}

/** An amend's size as the proto's text: absent "", else its text, else (no text to send) REST's refusal. */
function sizeTextOf(value: unknown, field: string, orderId: string): string {
  if (value === undefined) return ''
  const text = textOf(value)
  if (text !== '' || !isOrderId(orderId)) return text
  try {
    microsOfDecimal(value, field)
  } catch (error) {
    if (error instanceof PredexError) throw new Unexpressible(error)
    throw error
  }
  throw new Error(`the driver took ${JSON.stringify(value)} for a size REST refuses`)
}

/** A cancel-replace's new order; one the proto cannot carry is refused as REST refuses it, after the order id. */
function replacementOf(body: Record<string, unknown>, orderId: string): MessageInitShape<typeof OrderRequestSchema> {
  try {
    return orderRequestOf(body)
  } catch (error) {
    if (error instanceof Unexpressible && !isOrderId(orderId)) return {}
    throw error
  }
}

function amendedJson(answer: AmendOrderResponse): Record<string, unknown> {
  return { success: true, order_id: answer.orderId, size_matched: answer.sizeMatched,
    size_remaining: answer.sizeRemaining, reduced_by: answer.reducedBy, engine_seq: Number(answer.engineSeq) }
}

function replacedJson(answer: CancelReplaceResponse): Record<string, unknown> {
  if (answer.placement === undefined) throw new Error('a cancel-replace answer without its placement')
  return { canceled: { order_id: answer.canceledOrderId, size_remaining: answer.canceledSizeRemaining },
    placement: batchItemJson(answer.placement), engine_seq: Number(answer.engineSeq) }
}

/**
 * A mass quote's message. What the proto cannot carry is refused as REST refuses it, in REST's
 * order: a market that is no string (REST's refusal), then orders that are no list (REST's
 * refusal, unless the face refuses the market first: "" goes as it is).
 */
function quoteRequestOf(body: Record<string, unknown>): MessageInitShape<typeof MassQuoteRequestSchema> {
  const market = body.market
  if (typeof market !== 'string') throw unexpressible(() => requireString(market, 'market'))
  if (Array.isArray(body.orders)) return { market, orders: body.orders.map(orderRequestOf) }
  if (!isMarketText(market)) return { market, orders: [] }
  throw new Unexpressible(new PredexError(ApiCode.INVALID_PARAMETER, 'orders must be an array of orders',
    { field: 'orders' }))
}

/** Whether REST takes `market` as a market's name (a non-empty string within its bound). */
function isMarketText(market: string): boolean {
  try {
    requireString(market, 'market')
    return true
  } catch {
    return false
  }
}

/** The refusal of a shared wire parser that must refuse (it is what the proto cannot carry). */
function unexpressible(parse: () => unknown): Unexpressible {
  try {
    parse()
  } catch (error) {
    if (error instanceof PredexError) return new Unexpressible(error)
    throw error
  }
  throw new Error('the driver took for unexpressible what REST accepts')
}

/** REST's POST /quotes answer: each level's `outcome`, a new one's as POST /orders' item. */
function quotedJson(answer: MassQuoteResponse): Record<string, unknown> {
  return { canceled: answer.canceled, levels: answer.levels.map(levelJson), engine_seq: Number(answer.engineSeq) }
}

function levelJson(level: QuoteLevel): Record<string, unknown> {
  const outcome = level.outcome
  switch (outcome.case) {
    case 'kept': return { outcome: 'kept', order_id: outcome.value }
    case 'gone': return { outcome: 'gone', order_id: outcome.value.orderId, reason: outcome.value.reason }
    case 'placement': {
      const item = batchItemJson(outcome.value)
      return { outcome: item.success === true ? 'placed' : 'refused', ...item }
    }
    case undefined: throw new Error('a mass quote level without its outcome')
  }
}

function metadataOf(caller: Caller | null, method: DescMethod, bytes: Uint8Array): Metadata {
  if (caller === null || 'anonymous' in caller) return new Metadata()
  if ('forged' in caller) {
    const metadata = l2Metadata(caller.forged, method, bytes)
    metadata.set('exchange-signature', 'A'.repeat(43) + '=')
    return metadata
  }
  return l2Metadata(caller, method, bytes)
}

/** A failed call as REST's reply: the catalogue's HTTP status and `{error, code, ...context}`. */
function replyOf(error: unknown): Reply {
  if (!(error instanceof GrpcCallError) || !(error.code in CATALOGUE)) throw error
  return { status: CATALOGUE[error.code as ErrorCode].http, body: error.body() }
}
