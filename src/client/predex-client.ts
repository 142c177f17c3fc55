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
import type { ApiCredentials, HeaderFamily } from './headers.js'
import type { Wallet } from './wallet.js'

export interface Market {
  readonly id: string
  readonly condition_id: string
  readonly question: string
  readonly slug: string
  readonly description: string
  readonly status: 'Upcoming' | 'Active' | 'Paused' | 'Closed' | 'Resolving' | 'Resolved'
  readonly yes_token_id: string
  readonly no_token_id: string
  readonly tokens: readonly { token_id: string; outcome: 'Yes' | 'No'; price: string | null }[]
  readonly tick_size: string
  readonly min_order_size: string
  readonly fee_rate_bps: number
  readonly neg_risk: boolean
  readonly end_date: string | null
  readonly created_at: string
  readonly resolution: { outcome: 'Yes' | 'No'; resolved_at: string } | null
  readonly best_bid: string | null
  readonly best_ask: string | null
  readonly last_trade_price: string | null
  readonly volume: string
}

export interface Page<T> {
  readonly limit: number
  readonly count: number
  readonly next_cursor: string
  readonly data: readonly T[]
}

export interface BookLevel {
  readonly price: string
  readonly size: string
}

/** Polymarket's OrderBookSummary: best level last. */
export interface OrderBook {
  readonly market: string
  readonly asset_id: string
  readonly timestamp: string
  readonly hash: string
  readonly bids: readonly BookLevel[]
  readonly asks: readonly BookLevel[]
  readonly min_order_size: string
  readonly tick_size: string
  readonly neg_risk: boolean
  readonly last_trade_price: string
}

/** The seed's OrderInfo. */
export interface OrderInfo {
  readonly id: string
  readonly status: string
  readonly owner: string
  readonly maker_address: string
  readonly market: string
  readonly asset_id: string
  readonly side: Side
  readonly original_size: string
  readonly size_matched: string
  readonly size_remaining: string
  readonly price: string
  readonly associate_trades: readonly string[] | null
  readonly outcome: 'Yes' | 'No'
  readonly created_at: number
  readonly expiration: string | null
  readonly order_type: OrderType
  readonly order_hash: string | null
}

export interface OrdersResponse extends Page<OrderInfo> {
  readonly available_usdc: string
}

export interface Trade {
  readonly id: string
  readonly taker_order_id: string
  readonly market: string
  readonly asset_id: string
  readonly side: Side
  readonly size: string
  readonly price: string
  readonly fee: string
  readonly fee_rate_bps: string
  readonly status: string
  readonly match_time: string
  readonly outcome: 'Yes' | 'No'
  readonly trader_side: 'TAKER' | 'MAKER'
  readonly match_type: string
  /** The settlement transaction on the test network (the command that matched it). */
  readonly transaction_hash: string
  readonly maker_orders: readonly { order_id: string; maker_address: string; matched_amount: string; price: string; asset_id: string; side: Side }[]
}

export interface ClientOrder {
  readonly id: string
  readonly market_id: string
  readonly token_id: string
  readonly outcome: 'Yes' | 'No'
  readonly side: Side
  readonly price: string
  readonly size: string
  readonly size_remaining: string
  readonly status: string
  readonly created_at: number
}

export interface Placement {
  readonly success: boolean
  readonly errorMsg: string
  readonly order_id: string
  readonly orderID: string
  readonly status: 'live' | 'matched' | 'unmatched' | string
  readonly makingAmount: string
  readonly takingAmount: string
  readonly transactionsHashes: readonly string[]
  readonly tradeIDs: readonly string[]
  /** Present when `success` is false: the catalogue code. */
  readonly code?: string
}

export interface BatchPlacement {
  readonly total_successful: number
  readonly total_failed: number
  readonly results: readonly Placement[]
}

export interface CancelResult {
  readonly canceled: readonly string[]
  readonly not_canceled: Readonly<Record<string, string>>
}

export interface BalanceAllowance {
  /** Micro-units, as a string. */
  readonly balance: string
  readonly allowance: string
  readonly allowances: Readonly<Record<string, string>>
}

export interface VerifyResult {
  readonly valid: boolean
  readonly orderID: string | null
  readonly checks: readonly { check: string; ok: boolean; message: string }[]
}

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

export interface FaucetResult {
  readonly address: string
  readonly usdc_credited: string
  readonly eth_credited: string
  readonly transaction_hash: string
  readonly block_number: number
}

export interface WalletStatus {
  readonly address: string
  readonly eth_balance: string
  readonly usdc_balance: string
  readonly available_usdc: string
  readonly allowance: string
  readonly shares_approved: boolean
  readonly relay_nonce: number
}

export interface RelayResult {
  readonly transaction_hash: string
  readonly block_number: number
  readonly status: 'CONFIRMED'
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

export interface LedgerEvent {
  readonly transaction_hash: string
  readonly block_number: number
  readonly log_index: number
  readonly action: 'credit' | 'approve' | 'split' | 'merge' | 'redeem'
  readonly address: string
  readonly market_id: string | null
  readonly condition_id: string | null
  readonly amount: string
  readonly payout: string
  readonly timestamp: string
}

export type MarketStatus = 'Upcoming' | 'Active' | 'Paused' | 'Closed' | 'Resolving' | 'Resolved'

interface Terms {
  readonly tickSize: TickSize
  readonly negRisk: boolean
  readonly feeRateBps: number
}

const TICK_SIZES: readonly string[] = ['0.1', '0.01', '0.001', '0.0001']

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
  health(): Promise<{ status: string; version: string; seq: number; uptimeSec: number }> { return this.get('/health') }
  ready(): Promise<{ ready: boolean }> { return this.get('/ready') }
  /** Prometheus text. */
  metrics(): Promise<string> { return this.get('/metrics') }
  serverTime(): Promise<number> { return this.get('/time') }
  openApi(): Promise<Record<string, unknown>> { return this.get('/openapi.json') }

  // Markets.
  markets(page: { limit?: number; nextCursor?: string } = {}): Promise<Page<Market>> {
    return this.get(`/markets${query({ limit: page.limit, next_cursor: page.nextCursor })}`)
  }
  /** By UUID, condition id or slug. */
  market(id: string): Promise<Market> { return this.get(`/markets/${encodeURIComponent(id)}`) }
  upcomingMarkets(limit?: number): Promise<Market[]> { return this.get(`/markets/upcoming${query({ limit })}`) }
  resolvingMarkets(): Promise<Market[]> { return this.get('/markets/resolving') }

  // Market data.
  book(tokenId: string): Promise<OrderBook> { return this.get(`/book${query({ token_id: tokenId })}`) }
  unifiedBook(tokenId: string): Promise<OrderBook> { return this.get(`/book/unified${query({ token_id: tokenId })}`) }
  books(tokenIds: readonly string[]): Promise<OrderBook[]> { return this.post('/books', tokenIds.map((token_id) => ({ token_id })), { kind: 'none' }) }
  midpoint(tokenId: string): Promise<{ mid: string | null }> { return this.get(`/midpoint${query({ token_id: tokenId })}`) }
  midpoints(tokenIds: readonly string[]): Promise<Record<string, string | null>> {
    return this.post('/midpoints', tokenIds.map((token_id) => ({ token_id })), { kind: 'none' })
  }
  /** BUY: the best bid; SELL: the best ask. */
  price(tokenId: string, side: Side): Promise<{ price: string | null }> { return this.get(`/price${query({ token_id: tokenId, side })}`) }
  prices(items: readonly { tokenId: string; side: Side }[]): Promise<Record<string, Partial<Record<Side, string | null>>>> {
    return this.post('/prices', items.map((i) => ({ token_id: i.tokenId, side: i.side })), { kind: 'none' })
  }
  spread(tokenId: string): Promise<{ spread: string | null }> { return this.get(`/spread${query({ token_id: tokenId })}`) }
  lastTradePrice(tokenId: string): Promise<{ price: string | null; side: Side | null }> {
    return this.get(`/last-trade-price${query({ token_id: tokenId })}`)
  }
  tickSize(tokenId: string): Promise<{ minimum_tick_size: number }> { return this.get(`/tick-size${query({ token_id: tokenId })}`) }
  feeRate(tokenId: string): Promise<{ base_fee: number }> { return this.get(`/fee-rate${query({ token_id: tokenId })}`) }

  // Auth.
  /** Creates (or returns) the credential of the wallet and nonce, and uses it from now on. */
  async createApiKey(nonce = 0): Promise<ApiCredentials> {
    const credentials = await this.transport.request<ApiCredentials>('POST', '/auth/api-key', this.l1(nonce))
    this.credentials = credentials
    return credentials
  }
  async deriveApiKey(nonce = 0): Promise<ApiCredentials> {
    const credentials = await this.transport.request<ApiCredentials>('GET', '/auth/derive-api-key', this.l1(nonce))
    this.credentials = credentials
    return credentials
  }
  apiKeys(): Promise<{ apiKeys: string[] }> { return this.transport.request('GET', '/auth/api-keys', this.l2()) }
  deleteApiKey(): Promise<{ deleted: boolean }> { return this.transport.request('DELETE', '/auth/api-key', this.l2()) }

  // Trading.
  /** Signs a limit order with the market's terms and places it. */
  async placeLimitOrder(request: LimitOrderRequest): Promise<Placement> {
    const signed = signLimitOrder(this.wallet(), await this.termsOf(request.tokenId), request)
    return this.placeOrder({ signed, orderType: request.orderType ?? (request.expiration ? 'GTD' : 'GTC'), postOnly: request.postOnly })
  }
  /** Signs a market order (FOK by default) and places it. */
  async placeMarketOrder(request: MarketOrderRequest): Promise<Placement> {
    const signed = signMarketOrder(this.wallet(), await this.termsOf(request.tokenId), request)
    return this.placeOrder({ signed, orderType: request.orderType ?? 'FOK' })
  }
  placeOrder(order: SignedOrderRequest): Promise<Placement> {
    return this.postText('/order', orderBody(order.signed, this.creds().apiKey, order.orderType, order.postOnly ?? false))
  }
  /** At most 10; each order stands alone. */
  placeOrders(orders: readonly SignedOrderRequest[]): Promise<BatchPlacement> {
    const body = `[${orders.map((o) => orderBody(o.signed, this.creds().apiKey, o.orderType, o.postOnly ?? false)).join(',')}]`
    return this.postText('/orders', body)
  }
  verifyOrder(order: SignedOrderRequest): Promise<VerifyResult> {
    return this.postText('/order/verify', orderBody(order.signed, this.creds().apiKey, order.orderType, order.postOnly ?? false))
  }
  /** Signs an order with the market's terms without placing it (for placeOrders or verifyOrder). */
  async signLimitOrder(request: LimitOrderRequest): Promise<SignedOrder> {
    return signLimitOrder(this.wallet(), await this.termsOf(request.tokenId), request)
  }
  cancelOrder(orderId: string): Promise<CancelResult> { return this.transport.request('DELETE', '/order', this.l2(), { orderID: orderId }) }
  cancelOrders(orderIds: readonly string[]): Promise<CancelResult> { return this.transport.request('DELETE', '/orders', this.l2(), orderIds) }
  cancelAll(): Promise<CancelResult> { return this.transport.request('DELETE', '/cancel-all', this.l2()) }
  order(orderId: string): Promise<OrderInfo> { return this.transport.request('GET', `/data/order/${orderId}`, this.l2()) }
  /** One page of the caller's open orders. */
  openOrders(filter: { id?: string; market?: string; assetId?: string; limit?: number; nextCursor?: string } = {}): Promise<OrdersResponse> {
    return this.transport.request('GET', `/data/orders${query({ id: filter.id, market: filter.market, asset_id: filter.assetId,
      limit: filter.limit, next_cursor: filter.nextCursor })}`, this.l2())
  }
  /** Every open order, following the cursor to the end. */
  async allOpenOrders(filter: { market?: string; assetId?: string } = {}): Promise<OrderInfo[]> {
    return this.follow((nextCursor) => this.openOrders({ ...filter, nextCursor }))
  }
  trades(filter: { id?: string; market?: string; assetId?: string; before?: number; after?: number; limit?: number; nextCursor?: string } = {}):
    Promise<Page<Trade>> {
    return this.transport.request('GET', `/data/trades${query({ id: filter.id, market: filter.market, asset_id: filter.assetId,
      before: filter.before, after: filter.after, limit: filter.limit, next_cursor: filter.nextCursor })}`, this.l2())
  }
  /** The client listing: orders of any status, filtered by market and status. */
  orders(filter: { marketId?: string; status?: 'open' | 'matched' | 'canceled' | 'all'; limit?: number; nextCursor?: string } = {}):
    Promise<{ next_cursor: string; data: ClientOrder[] }> {
    return this.transport.request('GET', `/orders${query({ market_id: filter.marketId, status: filter.status, limit: filter.limit,
      next_cursor: filter.nextCursor })}`, this.l2())
  }

  // Account.
  balanceAllowance(assetType: 'COLLATERAL' | 'CONDITIONAL', tokenId?: string): Promise<BalanceAllowance> {
    return this.transport.request('GET', `/balance-allowance${query({ asset_type: assetType, token_id: tokenId })}`, this.l2())
  }

  // Test network.
  /** Test USDC (and test gas for a new address) for `address` (the wallet's by default). */
  faucet(amountUsdc?: string, address: string = this.wallet().address): Promise<FaucetResult> {
    return this.post('/faucet', { address, ...(amountUsdc === undefined ? {} : { amount: amountUsdc }) }, { kind: 'none' })
  }
  walletStatus(address: string = this.wallet().address): Promise<WalletStatus> {
    return this.get(`/wallet-status${query({ address })}`)
  }
  async relayNonce(address: string = this.wallet().address): Promise<number> {
    return (await this.get<{ nonce: number }>(`/relay/nonce${query({ address })}`)).nonce
  }
  /** Approves the exchange for `usdcMicros` of USDC (and, if not zero, all outcome tokens), gasless. */
  approve(usdcMicros: bigint | number): Promise<RelayResult> {
    return this.relay('approve', '0x' + '0'.repeat(64), BigInt(usdcMicros))
  }
  /** Splits `amountMicros` USDC into as many Yes and No shares of the market with `conditionId`. */
  split(conditionId: string, amountMicros: bigint | number): Promise<RelayResult> { return this.relay('split', conditionId, BigInt(amountMicros)) }
  /** Merges `amountMicros` Yes and No shares back into USDC. */
  merge(conditionId: string, amountMicros: bigint | number): Promise<RelayResult> { return this.relay('merge', conditionId, BigInt(amountMicros)) }
  /** Redeems every share of a resolved market. */
  redeem(conditionId: string): Promise<RelayResult> { return this.relay('redeem', conditionId, 0n) }

  /** Signs a Relay message with the wallet (next nonce, deadline from relayValidSec) and submits it. */
  async relay(action: 'approve' | 'split' | 'merge' | 'redeem', conditionId: string, amount: bigint): Promise<RelayResult> {
    const wallet = this.wallet()
    const nonce = await this.relayNonce(wallet.address)
    const deadline = Math.floor(Date.now() / 1000) + (this.options.relayValidSec ?? 300)
    const message = { owner: wallet.address.toLowerCase(), action, conditionId, amount: amount.toString(), nonce: String(nonce),
      deadline: String(deadline) }
    const signature = wallet.signRelay(message, this.chainId)
    return this.post('/relay', { owner: message.owner, action, condition_id: conditionId, amount: message.amount, nonce: message.nonce,
      deadline: message.deadline, signature }, { kind: 'none' })
  }

  /** An address's ledger events (credit, approve, split, merge, redeem) with their transactions, oldest first. */
  userEvents(address: string = this.wallet().address, page: { limit?: number; nextCursor?: string } = {}): Promise<Page<LedgerEvent>> {
    return this.get(`/users/${address}/events${query({ limit: page.limit, next_cursor: page.nextCursor })}`)
  }

  // Admin.
  createMarket(market: NewMarket): Promise<Market> { return this.post('/admin/markets', market, this.admin()) }
  updateMarket(id: string, change: { status?: Exclude<MarketStatus, 'Resolved'>; tick_size?: TickSize; fee_rate_bps?: number }): Promise<Market> {
    return this.transport.request('PATCH', `/admin/markets/${encodeURIComponent(id)}`, this.admin(), change)
  }
  resolveMarket(id: string, outcome: 'Yes' | 'No'): Promise<Market> {
    return this.post(`/admin/markets/${encodeURIComponent(id)}/resolve`, { outcome }, this.admin())
  }
  adminStats(): Promise<Record<string, unknown>> { return this.transport.request('GET', '/admin/stats', this.admin()) }

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
    if (this.options.wallet === undefined) throw new Error('this client has no wallet: pass one to sign orders or use L1')
    return this.options.wallet
  }

  private creds(): ApiCredentials {
    if (this.credentials === undefined) throw new Error('this client has no API credentials: pass them, or call createApiKey()')
    return this.credentials
  }

  private l1(nonce: number): Auth {
    return { kind: 'l1', wallet: this.wallet(), chainId: this.chainId, nonce }
  }

  private l2(): Auth {
    const address = this.options.address ?? this.options.wallet?.address
    if (address === undefined) throw new Error('this client has neither a wallet nor an address for its API credentials')
    return { kind: 'l2', credentials: this.creds(), address }
  }
}

function query(parameters: Readonly<Record<string, string | number | undefined>>): string {
  const entries = Object.entries(parameters).filter((entry): entry is [string, string | number] => entry[1] !== undefined)
  return entries.length === 0 ? '' : '?' + new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()
}
