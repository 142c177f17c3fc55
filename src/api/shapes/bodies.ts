/**
 * Which body each route answers with (status 2xx), per surface, keyed `METHOD path` exactly as the
 * route table (src/api/rest/routes.ts) spells them. Errors are always ErrorBody. The SDK's methods
 * return these entries, route handlers are annotated with them, and a test checks that the keys
 * are exactly the table's routes of each surface (test/unit/client/shapes.test.ts).
 */
import type { BalanceAllowance, BalanceAllowanceUpdate } from './account.js'
import type { ApiIndex } from './api-index.js'
import type { EngineStateHashBody, ExchangeStats } from './admin.js'
import type { OrderBookSummary } from './book.js'
import type { ApiCredentials, ApiKeyDeleted, ApiKeys } from './credential.js'
import type { CompatLiveness, Health, Readiness, ServerTime } from './health.js'
import type { CompatMarket, NativeMarket } from './market.js'
import type { ClientOrders, CompatOrder, NativeOrder, NativeOrdersPage, PublicOrder, VerifyResult } from './order.js'
import type { Page } from './page.js'
import type { BatchPlacement, CancelResult, CompatBatchPlacement, OrderAmended, OrderPlacement, OrderReplaced,
  QuotesResult, OrderGroupDeleted, OrderGroupInfo, OrderGroups } from './placement.js'
import type { Candle, FeeRate, LastTradePrice, Midpoint, Midpoints, NegRisk, Price, Prices, PricesHistory, Spread,
  Spreads, TickSize, TokenLastTradePrice } from './price.js'
import type { FaucetCredit, RelayNonce, RelayReceipt, WalletStatus } from './testnet.js'
import type { PublicTrade, Trade } from './trade.js'
import type { HeartbeatCompatBodies, HeartbeatNativeBodies, HeartbeatSharedBodies } from './heartbeat.js'
import type { PolymarketCompatBodies, PolymarketNativeBodies, PolymarketSharedBodies } from './polymarket.js'
import type { LedgerEvent, Milestone, PortfolioHistory, UserBalances, UserProfile } from './user.js'

/** Routes answering the same body on both surfaces. */
type SharedBodies = {
  'GET /time': ServerTime
  'GET /book': OrderBookSummary
  'POST /books': readonly OrderBookSummary[]
  'GET /midpoint': Midpoint
  'POST /midpoints': Midpoints
  'GET /price': Price
  'POST /prices': Prices
  'GET /spread': Spread
  'GET /last-trade-price': LastTradePrice
  'GET /tick-size': TickSize
  'GET /fee-rate': FeeRate
  'GET /neg-risk': NegRisk
  'POST /auth/api-key': ApiCredentials
  'GET /auth/derive-api-key': ApiCredentials
  'GET /auth/api-keys': ApiKeys
  'DELETE /auth/api-key': ApiKeyDeleted
  'POST /order': OrderPlacement
  'DELETE /order': CancelResult
  'DELETE /orders': CancelResult
  'DELETE /cancel-all': CancelResult
  'DELETE /cancel-market-orders': CancelResult
  'GET /data/trades': Page<Trade>
  'GET /balance-allowance': BalanceAllowance
  'POST /faucet': FaucetCredit
  'GET /relay/nonce': RelayNonce
  'POST /relay': RelayReceipt
}

/** The native API at `/`. */
export type NativeBodies = SharedBodies & PolymarketSharedBodies & PolymarketNativeBodies & HeartbeatSharedBodies &
  HeartbeatNativeBodies & {
  'GET /health': Health
  'GET /ready': Readiness
  /** Prometheus text (text/plain). */
  'GET /metrics': string
  /** The OpenAPI 3.1 document (src/api/rest/openapi.ts). */
  'GET /openapi.json': { readonly openapi: '3.1.0'; readonly [field: string]: unknown }
  /** The OpenAPI and AsyncAPI documents as a browsable page (text/html, src/api/rest/docs-page.ts). */
  'GET /docs': string
  /** The AsyncAPI 3.0 document of the WebSocket channels (src/api/rest/asyncapi.ts). */
  'GET /asyncapi.json': { readonly asyncapi: '3.0.0'; readonly [field: string]: unknown }
  /** Where the documents are (a browser gets the web page instead, text/html; a 302 to /docs when it is not built). */
  'GET /': ApiIndex
  /** A file of the web page (dist/web/assets: JavaScript, CSS, a source map), its media type by its name. */
  'GET /assets/:file': string
  'GET /markets': Page<NativeMarket>
  'GET /markets/upcoming': readonly NativeMarket[]
  'GET /markets/resolving': readonly NativeMarket[]
  'GET /markets/:id': NativeMarket
  'GET /book/unified': OrderBookSummary
  'GET /ticks/:symbol': readonly Candle[]
  'POST /orders': BatchPlacement
  'GET /data/order/:id': NativeOrder
  'GET /data/orders': NativeOrdersPage
  'GET /orders': ClientOrders
  'POST /order/verify': VerifyResult
  'POST /order/amend': OrderAmended
  'POST /order/replace': OrderReplaced
  'POST /quotes': QuotesResult
  'GET /order-groups': OrderGroups
  /** 201. */
  'POST /order-groups': OrderGroupInfo
  'PATCH /order-groups/:id': OrderGroupInfo
  'POST /order-groups/:id/trigger': OrderGroupInfo
  'POST /order-groups/:id/reset': OrderGroupInfo
  'DELETE /order-groups/:id': OrderGroupDeleted
  'GET /wallet-status': WalletStatus
  /** 201. */
  'POST /admin/markets': NativeMarket
  'PATCH /admin/markets/:id': NativeMarket
  'POST /admin/markets/:id/resolve': NativeMarket
  'GET /admin/stats': ExchangeStats
  'GET /admin/state-hash': EngineStateHashBody
  'GET /users/:address': UserProfile
  'GET /users/:address/portfolio-history': PortfolioHistory
  /** The milestones newest first. */
  'GET /users/:address/activity': Page<Milestone>
  'GET /users/:address/orders': Page<PublicOrder>
  'GET /users/:address/trades': Page<PublicTrade>
  'GET /users/:address/balances': UserBalances
  'GET /users/:address/redemptions': Page<LedgerEvent>
  'GET /users/:address/events': Page<LedgerEvent>
}

/** Polymarket's CLOB surface at `/compat` (reference sections 5.1-5.4). */
export type CompatBodies = SharedBodies & PolymarketSharedBodies & PolymarketCompatBodies & HeartbeatSharedBodies &
  HeartbeatCompatBodies & {
  'GET /': CompatLiveness
  'GET /markets': Page<CompatMarket>
  'GET /markets/:id': CompatMarket
  'POST /spreads': Spreads
  'POST /last-trades-prices': readonly TokenLastTradePrice[]
  'GET /prices-history': PricesHistory
  'POST /orders': CompatBatchPlacement
  'GET /data/order/:id': CompatOrder
  'GET /data/orders': Page<CompatOrder>
  'GET /balance-allowance/update': BalanceAllowanceUpdate
}

export type NativeRoute = keyof NativeBodies
export type CompatRoute = keyof CompatBodies
