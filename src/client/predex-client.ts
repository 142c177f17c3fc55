/**
 * The SDK's native REST client: one typed method per endpoint of the native API (api.md), with
 * L1 headers made from the wallet and L2 headers from the API credentials for each request.
 * Orders are signed locally (orders.ts) with the market's tick size, neg-risk flag and fee rate,
 * read from the server once per token and remembered. Errors are `PredexApiError` with the
 * server's stable code and context.
 */
import { signLimitOrder, signMarketOrder, orderBody, type OrderType, type SignedOrder } from './orders.js'
import type { Side, TickSize } from './order-amounts.js'
import { RestTransport, type Auth } from './rest-transport.js'
import type { HeaderFamily } from '../crypto/request-headers.js'
import type { ApiCredentials } from '../api/shapes/credential.js'
import type { Wallet } from '../crypto/wallet.js'
import type { NativeBodies, NativeRoute } from '../api/shapes/bodies.js'
import type { MarketStatus, SelfTradePreventionText } from '../api/shapes/vocabulary.js'
import type { OrderGroupCreate, OrderGroupPatch } from '../api/shapes/requests.js'
import type { Page } from '../api/shapes/page.js'

/** The body route `R` answers with (src/api/shapes/bodies.ts): every method below returns one. */
export type Body<R extends NativeRoute> = NativeBodies[R]

// The shapes, for the SDK's users; and the names this module gave them before they were shared.
export type * from '../api/shapes/account.js'
export type * from '../api/shapes/admin.js'
export type * from '../api/shapes/book.js'
export type * from '../api/shapes/credential.js'
export type * from '../api/shapes/health.js'
export type * from '../api/shapes/market.js'
export type * from '../api/shapes/order.js'
export type * from '../api/shapes/page.js'
export type * from '../api/shapes/placement.js'
export type * from '../api/shapes/price.js'
export type * from '../api/shapes/testnet.js'
export type * from '../api/shapes/trade.js'
export type * from '../api/shapes/user.js'
export type { MarketStatus } from '../api/shapes/vocabulary.js'
export type Market = Body<'GET /markets/:id'>
export type OrderBook = Body<'GET /book'>
export type OrderInfo = Body<'GET /data/order/:id'>
export type OrdersResponse = Body<'GET /data/orders'>
export type Placement = Body<'POST /order'>
export type FaucetResult = Body<'POST /faucet'>
export type RelayResult = Body<'POST /relay'>

export interface LimitOrderRequest {
  readonly tokenId: string
  readonly side: Side
  /** Human units: "0.55". */
  readonly price: string | number
  /** Shares: "10". */
  readonly size: string | number
  readonly orderType?: 'GTC' | 'GTD' | 'FOK' | 'FAK'
  readonly postOnly?: boolean
  /** Unix seconds (GTD). */
  readonly expiration?: number
  /** On meeting a resting order of the same wallet: CANCEL_MAKER (the default), CANCEL_TAKER or CANCEL_BOTH. */
  readonly selfTradePrevention?: SelfTradePreventionText
  /** One of the key's order groups the order joins. */
  readonly orderGroupId?: string
}

export interface MarketOrderRequest {
  readonly tokenId: string
  readonly side: Side
  /** BUY: USDC to spend; SELL: shares to sell. */
  readonly amount: string | number
  /** The worst price accepted. */
  readonly price: string | number
  readonly orderType?: 'FOK' | 'FAK'
}

export interface SignedOrderRequest {
  readonly signed: SignedOrder
  readonly orderType: OrderType
  readonly postOnly?: boolean
  readonly selfTradePrevention?: SelfTradePreventionText
  /** One of the key's order groups the order joins. */
  readonly orderGroupId?: string
}

export interface ClientOptions {
  readonly baseUrl: string
  readonly chainId?: number
  /** Needed for signing orders and for L1 (creating or deriving API credentials). */
  readonly wallet?: Wallet
  /** Needed for L2 (everything of the account). */
  readonly credentials?: ApiCredentials
  /** The credentials' address, when there is no wallet (defaults to the wallet's). */
  readonly address?: string
  readonly headerFamily?: HeaderFamily
  /** Needed for the admin endpoints (`EXCHANGE-ADMIN-KEY`). */
  readonly adminKey?: string
  /** Seconds a relay message stays valid (its deadline from now); 300 by default. */
  readonly relayValidSec?: number
}

export interface NewMarket {
  readonly question: string
  readonly slug?: string
  readonly description?: string
  readonly tick_size?: TickSize
  readonly min_order_size?: string
  readonly fee_rate_bps?: number
  readonly neg_risk?: boolean
  readonly end_date?: string
  readonly status?: 'Active' | 'Upcoming'
}

export interface PageRequest {
  readonly limit?: number
  /** From the previous page (`MA==` or absent: the first). */
  readonly nextCursor?: string
}

export interface OrderFilter {
  /** UUID, condition id or slug. */
  readonly market?: string
  readonly assetId?: string
}

export interface TradeFilter extends OrderFilter, PageRequest {
  readonly id?: string
  /** Unix seconds. */
  readonly before?: number
  readonly after?: number
}

export interface MarketChange {
  readonly status?: Exclude<MarketStatus, 'Resolved'>
  readonly tick_size?: TickSize
  readonly fee_rate_bps?: number
}

const NO_AUTH: Auth = { kind: 'none' }

interface Terms {
  readonly tickSize: TickSize
  readonly negRisk: boolean
  readonly feeRateBps: number
}

const TICK_SIZES: readonly string[] = ['0.1', '0.01', '0.005', '0.0025', '0.001', '0.0001']

export class PredexClient {
  private readonly transport: RestTransport
  private readonly chainId: number
  private credentials: ApiCredentials | undefined
  private readonly terms = new Map<string, Terms>()

  constructor(private readonly options: ClientOptions) {
    this.transport = new RestTransport({ baseUrl: options.baseUrl, headerFamily: options.headerFamily })
    this.chainId = options.chainId ?? 80002
    this.credentials = options.credentials
  }

  // Health.
  health(): Promise<Body<'GET /health'>> { return this.get('/health') }
  ready(): Promise<Body<'GET /ready'>> { return this.get('/ready') }
  /** Prometheus text. */
  metrics(): Promise<Body<'GET /metrics'>> { return this.get('/metrics') }
  /** Unix seconds. */
  serverTime(): Promise<Body<'GET /time'>> { return this.get('/time') }
  /** The order protocol the server announces: 2 (CLOB V2; V1 orders are taken too). */
  version(): Promise<Body<'GET /version'>> { return this.get('/version') }
  openApi(): Promise<Body<'GET /openapi.json'>> { return this.get('/openapi.json') }

  // Markets.
  markets(page: PageRequest = {}): Promise<Body<'GET /markets'>> {
    return this.get(`/markets${pageQuery(page)}`)
  }
  /** By UUID, condition id or slug. */
  market(id: string): Promise<Body<'GET /markets/:id'>> { return this.get(`/markets/${encodeURIComponent(id)}`) }
  upcomingMarkets(limit?: number): Promise<Body<'GET /markets/upcoming'>> {
    return this.get(`/markets/upcoming${query({ limit })}`)
  }
  resolvingMarkets(): Promise<Body<'GET /markets/resolving'>> { return this.get('/markets/resolving') }

  // Market data.
  book(tokenId: string): Promise<Body<'GET /book'>> { return this.get(`/book${tokenQuery(tokenId)}`) }
  unifiedBook(tokenId: string): Promise<Body<'GET /book/unified'>> {
    return this.get(`/book/unified${tokenQuery(tokenId)}`)
  }
  books(tokenIds: readonly string[]): Promise<Body<'POST /books'>> {
    return this.post('/books', tokenItems(tokenIds), NO_AUTH)
  }
  midpoint(tokenId: string): Promise<Body<'GET /midpoint'>> { return this.get(`/midpoint${tokenQuery(tokenId)}`) }
  midpoints(tokenIds: readonly string[]): Promise<Body<'POST /midpoints'>> {
    return this.post('/midpoints', tokenItems(tokenIds), NO_AUTH)
  }
  /** BUY: the best bid; SELL: the best ask. */
  price(tokenId: string, side: Side): Promise<Body<'GET /price'>> {
    return this.get(`/price${query({ token_id: tokenId, side })}`)
  }
  prices(items: readonly { tokenId: string; side: Side }[]): Promise<Body<'POST /prices'>> {
    return this.post('/prices', items.map((i) => ({ token_id: i.tokenId, side: i.side })), NO_AUTH)
  }
  spread(tokenId: string): Promise<Body<'GET /spread'>> { return this.get(`/spread${tokenQuery(tokenId)}`) }
  lastTradePrice(tokenId: string): Promise<Body<'GET /last-trade-price'>> {
    return this.get(`/last-trade-price${tokenQuery(tokenId)}`)
  }
  tickSize(tokenId: string): Promise<Body<'GET /tick-size'>> { return this.get(`/tick-size${tokenQuery(tokenId)}`) }
  feeRate(tokenId: string): Promise<Body<'GET /fee-rate'>> { return this.get(`/fee-rate${tokenQuery(tokenId)}`) }
  negRisk(tokenId: string): Promise<Body<'GET /neg-risk'>> { return this.get(`/neg-risk${tokenQuery(tokenId)}`) }
  /** OHLCV candles of a token id or a market slug (its Yes token); `from` and `to` in unix seconds. */
  candles(symbol: string, range: { interval?: '1m' | '5m' | '1h' | '1d'; from?: number; to?: number } = {}):
    Promise<Body<'GET /ticks/:symbol'>> {
    const parameters = query({ interval: range.interval, from: range.from, to: range.to })
    return this.get(`/ticks/${encodeURIComponent(symbol)}${parameters}`)
  }

  // Auth.
  /** Creates (or returns) the credential of the wallet and nonce, and uses it from now on. */
  async createApiKey(nonce = 0): Promise<Body<'POST /auth/api-key'>> {
    const credentials = await this.transport.request<Body<'POST /auth/api-key'>>('POST', '/auth/api-key',
      this.l1(nonce))
    this.credentials = credentials
    return credentials
  }
  async deriveApiKey(nonce = 0): Promise<Body<'GET /auth/derive-api-key'>> {
    const credentials = await this.transport.request<Body<'GET /auth/derive-api-key'>>('GET', '/auth/derive-api-key',
      this.l1(nonce))
    this.credentials = credentials
    return credentials
  }
  apiKeys(): Promise<Body<'GET /auth/api-keys'>> { return this.transport.request('GET', '/auth/api-keys', this.l2()) }
  deleteApiKey(): Promise<Body<'DELETE /auth/api-key'>> {
    return this.transport.request('DELETE', '/auth/api-key', this.l2())
  }

  // Trading.
  /** Signs a limit order with the market's terms and places it. */
  async placeLimitOrder(request: LimitOrderRequest): Promise<Body<'POST /order'>> {
    const signed = signLimitOrder(this.wallet(), await this.termsOf(request.tokenId), request)
    const orderType = request.orderType ?? (request.expiration ? 'GTD' : 'GTC')
    return this.placeOrder({ signed, orderType, postOnly: request.postOnly,
      selfTradePrevention: request.selfTradePrevention, orderGroupId: request.orderGroupId })
  }
  /** Signs a market order (FOK by default) and places it. */
  async placeMarketOrder(request: MarketOrderRequest): Promise<Body<'POST /order'>> {
    const signed = signMarketOrder(this.wallet(), await this.termsOf(request.tokenId), request)
    return this.placeOrder({ signed, orderType: request.orderType ?? 'FOK' })
  }
  /** A refused order is a PredexApiError (a batch reports refusals in its results instead). */
  placeOrder(order: SignedOrderRequest): Promise<Body<'POST /order'>> {
    return this.postText('/order', this.orderText(order))
  }
  /** At most 10; each order stands alone. */
  placeOrders(orders: readonly SignedOrderRequest[]): Promise<Body<'POST /orders'>> {
    return this.postText('/orders', `[${orders.map((o) => this.orderText(o)).join(',')}]`)
  }
  verifyOrder(order: SignedOrderRequest): Promise<Body<'POST /order/verify'>> {
    return this.postText('/order/verify', this.orderText(order))
  }
  /**
   * Lowers an open order's remaining size, keeping its place in the queue: give `newSize` (what
   * should rest after) or `reduceBy`, in shares. To raise it or change its price: replaceOrder.
   */
  amendOrder(orderId: string, size: { readonly newSize: string } | { readonly reduceBy: string }):
    Promise<Body<'POST /order/amend'>> {
    const sizes = 'newSize' in size ? { new_size: size.newSize } : { reduce_by: size.reduceBy }
    return this.transport.request('POST', '/order/amend', this.l2(), { orderID: orderId, ...sizes })
  }
  /**
   * Cancels the open order `orderId` and places `order` in its stead, in one engine command: the
   * new order is placed only if the old one was still open (else a PredexApiError, nothing placed).
   */
  replaceOrder(orderId: string, order: SignedOrderRequest): Promise<Body<'POST /order/replace'>> {
    const body = JSON.parse(this.orderText(order)) as Record<string, unknown>
    return this.postText('/order/replace', JSON.stringify({ ...body, orderID: orderId }))
  }
  /**
   * Sets the key's whole ladder on `market` (id, condition id or slug) in one engine command, at
   * most 20 orders a side: send every level as a signed order, the unchanged ones as they were
   * signed (they keep their place and cost no signature check); resting orders of the key on the
   * market not sent are cancelled.
   */
  massQuote(market: string, orders: readonly SignedOrderRequest[]): Promise<Body<'POST /quotes'>> {
    return this.postText('/quotes', `{"market":${JSON.stringify(market)},"orders":[${
      orders.map((o) => this.orderText(o)).join(',')}]}`)
  }
  /** The key's order groups (fill limits that cancel their orders when reached: docs/rest.md, "Order groups"). */
  orderGroups(): Promise<Body<'GET /order-groups'>> {
    return this.transport.request('GET', '/order-groups', this.l2())
  }
  /** A new order group; orders join it with `orderGroupId` (placeLimitOrder, SignedOrderRequest). */
  createOrderGroup(group: OrderGroupCreate): Promise<Body<'POST /order-groups'>> {
    return this.transport.request('POST', '/order-groups', this.l2(), group)
  }
  updateOrderGroup(groupId: string, limits: OrderGroupPatch): Promise<Body<'PATCH /order-groups/:id'>> {
    return this.transport.request('PATCH', `/order-groups/${encodeURIComponent(groupId)}`, this.l2(), limits)
  }
  triggerOrderGroup(groupId: string): Promise<Body<'POST /order-groups/:id/trigger'>> {
    return this.transport.request('POST', `/order-groups/${encodeURIComponent(groupId)}/trigger`, this.l2())
  }
  resetOrderGroup(groupId: string): Promise<Body<'POST /order-groups/:id/reset'>> {
    return this.transport.request('POST', `/order-groups/${encodeURIComponent(groupId)}/reset`, this.l2())
  }
  /** Deletes the group; its resting orders are cancelled. */
  deleteOrderGroup(groupId: string): Promise<Body<'DELETE /order-groups/:id'>> {
    return this.transport.request('DELETE', `/order-groups/${encodeURIComponent(groupId)}`, this.l2())
  }
  /** Signs an order with the market's terms without placing it (for placeOrders or verifyOrder). */
  async signLimitOrder(request: LimitOrderRequest): Promise<SignedOrder> {
    return signLimitOrder(this.wallet(), await this.termsOf(request.tokenId), request)
  }
  cancelOrder(orderId: string): Promise<Body<'DELETE /order'>> {
    return this.transport.request('DELETE', '/order', this.l2(), { orderID: orderId })
  }
  cancelOrders(orderIds: readonly string[]): Promise<Body<'DELETE /orders'>> {
    return this.transport.request('DELETE', '/orders', this.l2(), orderIds)
  }
  /**
   * A heartbeat: the first (null) starts the key's chain; once started, all the key's open orders
   * are cancelled if no heartbeat follows within 10 s (plus a grace). Pass the answer's id next time.
   */
  heartbeat(heartbeatId: string | null = null): Promise<Body<'POST /heartbeats'>> {
    return this.transport.request('POST', '/heartbeats', this.l2(), { heartbeat_id: heartbeatId })
  }

  cancelAll(): Promise<Body<'DELETE /cancel-all'>> { return this.transport.request('DELETE', '/cancel-all', this.l2()) }
  /** The caller's open orders in a market (UUID, condition id or slug) and/or of one token. */
  cancelMarketOrders(filter: { market?: string; assetId?: string }): Promise<Body<'DELETE /cancel-market-orders'>> {
    return this.transport.request('DELETE', '/cancel-market-orders', this.l2(), { market: filter.market,
      asset_id: filter.assetId })
  }
  order(orderId: string): Promise<Body<'GET /data/order/:id'>> {
    return this.transport.request('GET', `/data/order/${orderId}`, this.l2())
  }
  /** One page of the caller's open orders. */
  openOrders(filter: OrderFilter & PageRequest & { id?: string } = {}): Promise<Body<'GET /data/orders'>> {
    return this.transport.request('GET', `/data/orders${query({ id: filter.id, market: filter.market,
      asset_id: filter.assetId, limit: filter.limit, next_cursor: filter.nextCursor })}`, this.l2())
  }
  /** Every open order, following the cursor to the end. */
  async allOpenOrders(filter: OrderFilter = {}): Promise<Body<'GET /data/order/:id'>[]> {
    return this.follow((nextCursor) => this.openOrders({ ...filter, nextCursor }))
  }
  trades(filter: TradeFilter = {}): Promise<Body<'GET /data/trades'>> {
    return this.transport.request('GET', `/data/trades${query({ id: filter.id, market: filter.market,
      asset_id: filter.assetId, before: filter.before, after: filter.after, limit: filter.limit,
      next_cursor: filter.nextCursor })}`, this.l2())
  }
  /** The client listing: orders of any status, filtered by market and status. */
  orders(filter: { marketId?: string; status?: 'open' | 'matched' | 'canceled' | 'all' } & PageRequest = {}):
    Promise<Body<'GET /orders'>> {
    return this.transport.request('GET', `/orders${query({ market_id: filter.marketId, status: filter.status,
      limit: filter.limit, next_cursor: filter.nextCursor })}`, this.l2())
  }

  // Account.
  balanceAllowance(assetType: 'COLLATERAL' | 'CONDITIONAL', tokenId?: string): Promise<Body<'GET /balance-allowance'>> {
    return this.transport.request('GET', `/balance-allowance${query({ asset_type: assetType, token_id: tokenId })}`,
      this.l2())
  }

  // Test network.
  /** Test USDC (and test gas for a new address) for `address` (the wallet's by default). */
  faucet(amountUsdc?: string, address: string = this.wallet().address): Promise<Body<'POST /faucet'>> {
    return this.post('/faucet', { address, ...(amountUsdc === undefined ? {} : { amount: amountUsdc }) }, NO_AUTH)
  }
  walletStatus(address: string = this.wallet().address): Promise<Body<'GET /wallet-status'>> {
    return this.get(`/wallet-status${query({ address })}`)
  }
  async relayNonce(address: string = this.wallet().address): Promise<number> {
    return (await this.get<Body<'GET /relay/nonce'>>(`/relay/nonce${query({ address })}`)).nonce
  }
  /**
   * Approves the exchange for `usdcMicros` of USDC (and, if not zero, all outcome tokens), gasless. On a real
   * chain it approves the USDC only: the outcome tokens are approved from the wallet (docs/testnet.md).
   */
  approve(usdcMicros: bigint | number): Promise<Body<'POST /relay'>> {
    return this.relay('approve', '0x' + '0'.repeat(64), BigInt(usdcMicros))
  }
  /** Splits `amountMicros` USDC into as many Yes and No shares of the market with `conditionId`. */
  split(conditionId: string, amountMicros: bigint | number): Promise<Body<'POST /relay'>> {
    return this.relay('split', conditionId, BigInt(amountMicros))
  }
  /** Merges `amountMicros` Yes and No shares back into USDC. */
  merge(conditionId: string, amountMicros: bigint | number): Promise<Body<'POST /relay'>> {
    return this.relay('merge', conditionId, BigInt(amountMicros))
  }
  /** Redeems every share of a resolved market. */
  redeem(conditionId: string): Promise<Body<'POST /relay'>> { return this.relay('redeem', conditionId, 0n) }

  /** Signs a Relay message with the wallet (next nonce, deadline from relayValidSec) and submits it. */
  async relay(action: 'approve' | 'split' | 'merge' | 'redeem', conditionId: string, amount: bigint):
    Promise<Body<'POST /relay'>> {
    const wallet = this.wallet()
    const nonce = await this.relayNonce(wallet.address)
    const deadline = Math.floor(Date.now() / 1000) + (this.options.relayValidSec ?? 300)
    const message = { owner: wallet.address.toLowerCase(), action, conditionId, amount: amount.toString(),
      nonce: String(nonce), deadline: String(deadline) }
    const signature = wallet.signRelay(message, this.chainId)
    return this.post('/relay', { owner: message.owner, action, condition_id: conditionId, amount: message.amount,
      nonce: message.nonce, deadline: message.deadline, signature }, NO_AUTH)
  }

  // Users (public: any address, the wallet's by default).
  user(address: string = this.wallet().address): Promise<Body<'GET /users/:address'>> {
    return this.get(`/users/${address}`)
  }
  /**
   * A page of the position-changing events with the running USDC balance and positions, oldest
   * first: follow `next_cursor` (`{ nextCursor: page.next_cursor }`) until it is "LTE=" (CURSOR_END).
   */
  portfolioHistory(address: string = this.wallet().address, page: PageRequest = {}):
    Promise<Body<'GET /users/:address/portfolio-history'>> {
    return this.get(`/users/${address}/portfolio-history${pageQuery(page)}`)
  }
  /** The portfolio history newest first, paginated. */
  activity(address: string = this.wallet().address, page: PageRequest = {}):
    Promise<Body<'GET /users/:address/activity'>> {
    return this.get(`/users/${address}/activity${pageQuery(page)}`)
  }
  userOrders(address: string = this.wallet().address, page: PageRequest = {}):
    Promise<Body<'GET /users/:address/orders'>> {
    return this.get(`/users/${address}/orders${pageQuery(page)}`)
  }
  userTrades(address: string = this.wallet().address, page: PageRequest = {}):
    Promise<Body<'GET /users/:address/trades'>> {
    return this.get(`/users/${address}/trades${pageQuery(page)}`)
  }
  userBalances(address: string = this.wallet().address): Promise<Body<'GET /users/:address/balances'>> {
    return this.get(`/users/${address}/balances`)
  }
  redemptions(address: string = this.wallet().address, page: PageRequest = {}):
    Promise<Body<'GET /users/:address/redemptions'>> {
    return this.get(`/users/${address}/redemptions${pageQuery(page)}`)
  }
  /** An address's ledger events (credit, approve, split, merge, redeem) with their transactions, oldest first. */
  userEvents(address: string = this.wallet().address, page: PageRequest = {}):
    Promise<Body<'GET /users/:address/events'>> {
    return this.get(`/users/${address}/events${pageQuery(page)}`)
  }

  // Admin.
  createMarket(market: NewMarket): Promise<Body<'POST /admin/markets'>> {
    return this.post('/admin/markets', market, this.admin())
  }
  updateMarket(id: string, change: MarketChange): Promise<Body<'PATCH /admin/markets/:id'>> {
    return this.transport.request('PATCH', `/admin/markets/${encodeURIComponent(id)}`, this.admin(), change)
  }
  resolveMarket(id: string, outcome: 'Yes' | 'No'): Promise<Body<'POST /admin/markets/:id/resolve'>> {
    return this.post(`/admin/markets/${encodeURIComponent(id)}/resolve`, { outcome }, this.admin())
  }
  adminStats(): Promise<Body<'GET /admin/stats'>> { return this.transport.request('GET', '/admin/stats', this.admin()) }

  /** The engine's state hash at its seq (costs a snapshot's time on the server). */
  adminStateHash(): Promise<Body<'GET /admin/state-hash'>> {
    return this.transport.request('GET', '/admin/state-hash', this.admin())
  }

  private orderText(order: SignedOrderRequest): string {
    const body = orderBody(order.signed, this.creds().apiKey, order.orderType, order.postOnly ?? false,
      order.selfTradePrevention)
    return order.orderGroupId === undefined ? body
      : `${body.slice(0, -1)},"orderGroupId":${JSON.stringify(order.orderGroupId)}}`
  }

  private admin(): Auth {
    if (this.options.adminKey === undefined) throw new Error('this client has no admin key: pass adminKey')
    return { kind: 'admin', adminKey: this.options.adminKey }
  }

  private async follow<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
    const all: T[] = []
    let cursor: string | undefined
    for (;;) {
      const page = await fetchPage(cursor)
      all.push(...page.data)
      if (page.next_cursor === 'LTE=' || page.data.length === 0) return all
      cursor = page.next_cursor
    }
  }

  private async termsOf(tokenId: string): Promise<Terms & { chainId: number }> {
    let terms = this.terms.get(tokenId)
    if (terms === undefined) {
      const book = await this.book(tokenId)
      if (!TICK_SIZES.includes(book.tick_size)) throw new RangeError(`unsupported tick size ${book.tick_size}`)
      const fee = await this.feeRate(tokenId)
      terms = { tickSize: book.tick_size as TickSize, negRisk: book.neg_risk, feeRateBps: fee.base_fee }
      this.terms.set(tokenId, terms)
    }
    return { ...terms, chainId: this.chainId }
  }

  private get<T>(path: string): Promise<T> {
    return this.transport.request<T>('GET', path, { kind: 'none' })
  }

  private post<T>(path: string, body: unknown, auth: Auth): Promise<T> {
    return this.transport.request<T>('POST', path, auth, body)
  }

  /** Sends an exact body (the signed order's JSON), L2-signed over those bytes. */
  private postText<T>(path: string, text: string): Promise<T> {
    return this.transport.requestText<T>('POST', path, this.l2(), text)
  }

  private wallet(): Wallet {
    if (this.options.wallet === undefined) {
      throw new Error('this client has no wallet: pass one to sign orders or use L1')
    }
    return this.options.wallet
  }

  private creds(): ApiCredentials {
    if (this.credentials === undefined) {
      throw new Error('this client has no API credentials: pass them, or call createApiKey()')
    }
    return this.credentials
  }

  private l1(nonce: number): Auth {
    return { kind: 'l1', wallet: this.wallet(), chainId: this.chainId, nonce }
  }

  private l2(): Auth {
    const address = this.options.address ?? this.options.wallet?.address
    if (address === undefined) {
      throw new Error('this client has neither a wallet nor an address for its API credentials')
    }
    return { kind: 'l2', credentials: this.creds(), address }
  }
}

function tokenQuery(tokenId: string): string {
  return query({ token_id: tokenId })
}

function pageQuery(page: PageRequest): string {
  return query({ limit: page.limit, next_cursor: page.nextCursor })
}

function tokenItems(tokenIds: readonly string[]): { token_id: string }[] {
  return tokenIds.map((token_id) => ({ token_id }))
}

function query(parameters: Readonly<Record<string, string | number | undefined>>): string {
  const entries = Object.entries(parameters)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([k, v]): [string, string] => [k, String(v)])
  return entries.length === 0 ? '' : '?' + new URLSearchParams(entries).toString()
}
