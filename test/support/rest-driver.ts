/**
 * The REST driver: the contract cases over a real Predex on loopback (test/support/rest-harness.ts: port
 * 0, a fresh temporary data directory), each operation its native route, authenticated with L2
 * headers.
 */
import { l1Headers, l2Headers } from '../../src/crypto/request-headers.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { send, startServer, type TestServer } from './rest-harness.js'
import { nowSec, RawText, type Caller, type Driver, type Query, type Reply, type TokenRead, type TokensRead, type Trader }
  from './driver.js'
import type { AdminAccess, OrderGroupCall, UserRead } from './driver.js'
import { CHAIN_ID, type ANONYMOUS, type L1Caller } from './driver.js'

const TOKEN_READ_PATHS: Readonly<Record<TokenRead, string>> = {
  book: '/book', unifiedBook: '/book/unified', midpoint: '/midpoint', price: '/price', spread: '/spread',
  lastTradePrice: '/last-trade-price', tickSize: '/tick-size', feeRate: '/fee-rate',
}
const TOKENS_READ_PATHS: Readonly<Record<TokensRead, string>> = { books: '/books', midpoints: '/midpoints', prices: '/prices' }
const USER_READ_PATHS: Readonly<Record<UserRead, string>> = {
  profile: '', portfolioHistory: '/portfolio-history', activity: '/activity', orders: '/orders', trades: '/trades',
  balances: '/balances', redemptions: '/redemptions', events: '/events',
}

/** `chain: 'local'`: a real chain behind the test network, the stage set on it (test/support/chain-stage.ts). */
export async function startRestDriver(options: { chain?: 'local' } = {}): Promise<Driver> {
  return new RestDriver(await startServer(options))
}

/** Exported so that another face's driver can run on the same server and leave to REST what its face lacks. */
export class RestDriver implements Driver {
  constructor(protected server: TestServer) {}

  get chain(): Driver['chain'] {
    return this.server.chain
  }

  command: Driver['command'] = (command) => this.server.command(command)
  createMarket: Driver['createMarket'] = (options) => this.server.createMarket(options)
  trader: Driver['trader'] = (usdcMicros) => this.server.trader(usdcMicros)
  account: Driver['account'] = (address) => this.server.account(address)
  approveOutcomeTokens: Driver['approveOutcomeTokens'] = (trader) => this.server.approveOutcomeTokens(trader.address)

  async restart(): Promise<void> {
    await this.server.predex.stop()
    this.server = await startServer({ dataDir: this.server.dataDir,
      ...(this.server.chain === 'local' ? { chain: 'local' as const } : {}) })
  }

  stop(): Promise<void> {
    return this.server.stop()
  }

  placeOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.call(caller, 'POST', '/order', request)
  }

  placeOrders(caller: Caller, requests: unknown): Promise<Reply> {
    return this.call(caller, 'POST', '/orders', requests)
  }

  verifyOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.call(caller, 'POST', '/order/verify', request)
  }

  cancelOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.call(caller, 'DELETE', '/order', request)
  }

  cancelOrders(caller: Caller, ids: unknown): Promise<Reply> {
    return this.call(caller, 'DELETE', '/orders', ids)
  }

  cancelAll(caller: Caller): Promise<Reply> {
    return this.call(caller, 'DELETE', '/cancel-all')
  }

  amendOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.call(caller, 'POST', '/order/amend', request)
  }

  replaceOrder(caller: Caller, request: unknown): Promise<Reply> {
    return this.call(caller, 'POST', '/order/replace', request)
  }

  orderGroup(caller: Caller, action: OrderGroupCall, groupId = '', body?: unknown): Promise<Reply> {
    const path = `/order-groups/${encodeURIComponent(groupId)}`
    switch (action) {
      case 'list': return this.call(caller, 'GET', '/order-groups')
      case 'create': return this.call(caller, 'POST', '/order-groups', body)
      case 'update': return this.call(caller, 'PATCH', path, body)
      case 'trigger': return this.call(caller, 'POST', `${path}/trigger`)
      case 'reset': return this.call(caller, 'POST', `${path}/reset`)
      case 'delete': return this.call(caller, 'DELETE', path)
    }
  }

  massQuote(caller: Caller, request: unknown): Promise<Reply> {
    return this.call(caller, 'POST', '/quotes', request)
  }

  order(caller: Caller, orderId: string): Promise<Reply> {
    return this.call(caller, 'GET', `/data/order/${orderId}`)
  }

  openOrders(caller: Caller, query: Query = {}): Promise<Reply> {
    return this.call(caller, 'GET', '/data/orders' + queryString(query))
  }

  orders(caller: Caller, query: Query = {}): Promise<Reply> {
    return this.call(caller, 'GET', '/orders' + queryString(query))
  }

  trades(caller: Caller, query: Query = {}): Promise<Reply> {
    return this.call(caller, 'GET', '/data/trades' + queryString(query))
  }

  balance(caller: Caller, query: Query): Promise<Reply> {
    return this.call(caller, 'GET', '/balance-allowance' + queryString(query))
  }

  tokenRead(read: TokenRead, query: Query): Promise<Reply> {
    return this.call(null, 'GET', TOKEN_READ_PATHS[read] + queryString(query))
  }

  tokensRead(read: TokensRead, items: unknown): Promise<Reply> {
    return this.call(null, 'POST', TOKENS_READ_PATHS[read], items)
  }

  candles(symbol: string, query: Query = {}): Promise<Reply> {
    return this.call(null, 'GET', `/ticks/${encodeURIComponent(symbol)}` + queryString(query))
  }

  priceHistory(query: Query): Promise<Reply> {
    return this.call(null, 'GET', '/compat/prices-history' + queryString(query))
  }

  setNowMs(nowMs: (() => number) | null): void {
    // The services read the clock off their context at every call: swapping it is enough.
    const context = this.server.predex.context as { nowMs: () => number }
    this.realNowMs ??= context.nowMs
    context.nowMs = nowMs ?? this.realNowMs
  }

  private realNowMs: (() => number) | null = null

  async engineState(): Promise<{ seq: number; stateHash: string }> {
    const answer = await this.server.predex.context.host.query({ kind: 'stateHash' })
    if (answer.kind !== 'stateHash') throw new Error('unexpected answer')
    return { seq: answer.seq, stateHash: answer.stateHash }
  }

  async ledgerState(address: string): Promise<string> {
    const host = this.server.predex.context.host
    return JSON.stringify([await host.query({ kind: 'markets' }), await host.query({ kind: 'account', address })])
  }

  faucet(request: unknown): Promise<Reply> {
    return this.call(null, 'POST', '/faucet', request)
  }

  walletStatus(address: string): Promise<Reply> {
    return this.call(null, 'GET', '/wallet-status' + queryString({ address }))
  }

  relayNonce(address: string): Promise<Reply> {
    return this.call(null, 'GET', '/relay/nonce' + queryString({ address }))
  }

  relay(request: unknown): Promise<Reply> {
    return this.call(null, 'POST', '/relay', request)
  }

  userRead(read: UserRead, address: string, query: Query = {}): Promise<Reply> {
    return this.call(null, 'GET', `/users/${encodeURIComponent(address)}${USER_READ_PATHS[read]}` + queryString(query))
  }

  market(idOrSlug: string): Promise<Reply> {
    return this.call(null, 'GET', `/markets/${encodeURIComponent(idOrSlug)}`)
  }

  upcomingMarkets(query: Query = {}): Promise<Reply> {
    return this.call(null, 'GET', '/markets/upcoming' + queryString(query))
  }

  resolvingMarkets(): Promise<Reply> {
    return this.call(null, 'GET', '/markets/resolving')
  }

  adminCreateMarket(access: AdminAccess, request: unknown): Promise<Reply> {
    return this.adminCall(access, 'POST', '/admin/markets', request)
  }

  adminUpdateMarket(access: AdminAccess, idOrSlug: string, change: unknown): Promise<Reply> {
    return this.adminCall(access, 'PATCH', `/admin/markets/${encodeURIComponent(idOrSlug)}`, change)
  }

  adminResolveMarket(access: AdminAccess, idOrSlug: string, request: unknown): Promise<Reply> {
    return this.adminCall(access, 'POST', `/admin/markets/${encodeURIComponent(idOrSlug)}/resolve`, request)
  }

  adminStats(access: AdminAccess): Promise<Reply> {
    return this.adminCall(access, 'GET', '/admin/stats')
  }

  /** A request with the EXCHANGE-ADMIN-KEY header as `access` says (a wrong key: the right one with a character more). */
  private async adminCall(access: AdminAccess, method: string, path: string, body?: unknown): Promise<Reply> {
    const key = this.server.predex.adminKey
    const headers: Record<string, string> = access === 'no key' ? {} : { 'EXCHANGE-ADMIN-KEY': access === 'admin' ? key : key + 'x' }
    const text = body === undefined ? '' : JSON.stringify(body)
    const { status, body: answer } = await send(this.server, method, path, text, headers)
    return { status, body: answer }
  }

  /** A request as `caller` (null: a public route); the body is sent as JSON, a `RawText` as it is. */
  private async call(caller: Caller | null, method: string, path: string, body?: unknown): Promise<Reply> {
    const text = body === undefined ? '' : body instanceof RawText ? body.text : JSON.stringify(body)
    const { status, body: answer } = await send(this.server, method, path, text, headersOf(caller, method, path, text))
    return { status, body: answer }
  }

  health(): Promise<Reply> {
    return this.call(null, 'GET', '/health')
  }

  ready(): Promise<Reply> {
    return this.call(null, 'GET', '/ready')
  }

  markets(query: Query = {}): Promise<Reply> {
    return this.call(null, 'GET', '/markets' + queryString(query))
  }

  async marketRecord(marketId: string): Promise<MarketRecord | undefined> {
    return this.server.predex.context.read.markets.get(marketId)
  }

  stopEngine(): Promise<void> {
    return this.server.predex.context.host.stop()
  }

  createApiKey(caller: L1Caller | typeof ANONYMOUS): Promise<Reply> {
    return this.l1Call(caller, 'POST', '/auth/api-key')
  }

  deriveApiKey(caller: L1Caller | typeof ANONYMOUS): Promise<Reply> {
    return this.l1Call(caller, 'GET', '/auth/derive-api-key')
  }

  apiKeys(caller: Caller): Promise<Reply> {
    return this.call(caller, 'GET', '/auth/api-keys')
  }

  deleteApiKey(caller: Caller): Promise<Reply> {
    return this.call(caller, 'DELETE', '/auth/api-key')
  }

  /** A request with the EXCHANGE-* L1 headers of `caller` (none for ANONYMOUS). */
  private async l1Call(caller: L1Caller | typeof ANONYMOUS, method: string, path: string): Promise<Reply> {
    const { status, body } = await send(this.server, method, path, '', 'anonymous' in caller ? {} : l1HeadersOf(caller))
    return { status, body }
  }
}

function l1HeadersOf(caller: L1Caller): Record<string, string> {
  const timestampSec = caller.timestampSec ?? nowSec()
  const headers = l1Headers(caller.wallet, caller.chainId ?? CHAIN_ID, timestampSec, caller.nonce ?? 0, 'EXCHANGE')
  return caller.address === undefined ? headers : { ...headers, 'EXCHANGE-ADDRESS': caller.address }
}

function headersOf(caller: Caller | null, method: string, path: string, text: string): Record<string, string> {
  if (caller === null || 'anonymous' in caller) return {}
  if ('forged' in caller) return forgedHeaders(caller.forged)
  return l2Headers(caller.credentials, caller.address, method, path.split('?')[0]!, text, nowSec(), 'EXCHANGE')
}

/** The trader's L2 headers with a well-formed signature that signs nothing. */
function forgedHeaders(trader: Trader): Record<string, string> {
  return {
    'EXCHANGE-ADDRESS': trader.address, 'EXCHANGE-SIGNATURE': 'A'.repeat(43) + '=', 'EXCHANGE-TIMESTAMP': String(nowSec()),
    'EXCHANGE-API-KEY': trader.credentials.apiKey, 'EXCHANGE-PASSPHRASE': trader.credentials.passphrase,
  }
}

function queryString(query: Query): string {
  const pairs = Object.entries(query).map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
  return pairs.length === 0 ? '' : '?' + pairs.join('&')
}
