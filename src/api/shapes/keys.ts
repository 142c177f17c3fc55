/**
 * The shapes' keys as runtime lists, for tests that hold real answers against the declared types.
 * Each list is checked against its type when it compiles: a key missing from the list, or named in
 * it but not in the type, is a type error; so a list cannot drift from its type, and a test that
 * compares an answer's keys with the list finds a server that drifted from both.
 */
import type { BalanceAllowance } from './account.js'
import type { EngineStateHashBody, ExchangeStats } from './admin.js'
import type { CompatRoute, NativeRoute } from './bodies.js'
import type { BookLevel, OrderBookSummary } from './book.js'
import type { ApiCredentials, ApiKeyDeleted, ApiKeys } from './credential.js'
import type { ErrorBody } from './error.js'
import type { Health, Readiness } from './health.js'
import type { CompatMarket, CompatMarketToken, CompatRewards, MarketResolution, NativeMarket, NativeMarketToken }
  from './market.js'
import type { ClientOrder, ClientOrders, CompatOrder, NativeOrder, NativeOrdersPage, PublicOrder, VerifyCheck,
  VerifyResult } from './order.js'
import type { Page } from './page.js'
import type { BatchPlacement, CancelResult, OrderAmended, OrderGroupInfo, OrderPlacement, OrderReplaced, QuotesResult }
  from './placement.js'
import type { Candle, FeeRate, LastTradePrice, Midpoint, NegRisk, Price, PricePoint, PricesHistory, Spread, TickSize,
  TokenLastTradePrice } from './price.js'
import type { FaucetCredit, RelayNonce, RelayReceipt, WalletStatus } from './testnet.js'
import { POLYMARKET_COMPAT_ROUTES, POLYMARKET_NATIVE_ROUTES, POLYMARKET_SHARED_ROUTES } from './polymarket.js'
import { HEARTBEAT_COMPAT_ROUTES, HEARTBEAT_NATIVE_ROUTES, HEARTBEAT_SHARED_ROUTES } from './heartbeat.js'
import type { MakerOrder, PublicTrade, Trade } from './trade.js'
import type { LedgerEvent, Milestone, PortfolioHistory, UserBalances, UserProfile, UserTokenBalance } from './user.js'

type KeyOf<T> = keyof T & string
type OptionalKeyOf<T> = { [K in KeyOf<T>]-?: object extends Pick<T, K> ? K : never }[KeyOf<T>]
/** Accepts K only when it names every key of T; otherwise the error shows the keys it misses. */
type Exhaustive<T, K extends readonly string[]> = [Exclude<KeyOf<T>, K[number]>] extends [never]
  ? unknown : { readonly missing: Exclude<KeyOf<T>, K[number]> }

/** The keys of a shape: all of them, and those that may be absent. */
export type ShapeKeys<T> = {
  readonly all: readonly KeyOf<T>[]
  readonly optional: readonly OptionalKeyOf<T>[]
}

/** `keysOf<T>()(['a', 'b'])`: the list of every key of T (the call is curried so that T is given and K inferred). */
export function keysOf<T>() {
  return <const K extends readonly KeyOf<T>[]>(all: K & Exhaustive<T, K>,
    optional: readonly OptionalKeyOf<T>[] = []): ShapeKeys<T> => ({ all, optional })
}

/** Keys of `body` the shape does not declare, and declared keys it lacks (optional ones aside); empty when it fits. */
export function keyDrift<T>(body: unknown, shape: ShapeKeys<T>): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ['not an object']
  const present = Object.keys(body)
  const declared: readonly string[] = shape.all
  const optional: readonly string[] = shape.optional
  return [
    ...present.filter((key) => !declared.includes(key)).map((key) => `undeclared key ${key}`),
    ...declared.filter((key) => !present.includes(key) && !optional.includes(key)).map((key) => `missing key ${key}`),
  ]
}

const pageKeys = ['limit', 'count', 'next_cursor', 'data'] as const

export const PAGE_KEYS = keysOf<Page<unknown>>()(pageKeys)
export const ERROR_KEYS = keysOf<Pick<ErrorBody, 'error' | 'code'>>()(['error', 'code'])

export const NATIVE_MARKET_KEYS = keysOf<NativeMarket>()(['id', 'condition_id', 'question', 'slug', 'description',
  'status', 'yes_token_id', 'no_token_id', 'tokens', 'tick_size', 'min_order_size', 'fee_rate_bps', 'neg_risk',
  'end_date', 'created_at', 'resolution', 'best_bid', 'best_ask', 'last_trade_price', 'volume'])
export const NATIVE_MARKET_TOKEN_KEYS = keysOf<NativeMarketToken>()(['token_id', 'outcome', 'price'])
export const MARKET_RESOLUTION_KEYS = keysOf<MarketResolution>()(['outcome', 'resolved_at'])
export const COMPAT_MARKET_KEYS = keysOf<CompatMarket>()(['enable_order_book', 'active', 'closed', 'archived',
  'accepting_orders', 'accepting_order_timestamp', 'minimum_order_size', 'minimum_tick_size', 'condition_id',
  'question_id', 'question', 'description', 'market_slug', 'end_date_iso', 'game_start_time', 'seconds_delay', 'fpmm',
  'maker_base_fee', 'taker_base_fee', 'notifications_enabled', 'neg_risk', 'neg_risk_market_id',
  'neg_risk_request_id', 'icon', 'image', 'rewards', 'is_50_50_outcome', 'tokens', 'tags'])
export const COMPAT_MARKET_TOKEN_KEYS = keysOf<CompatMarketToken>()(['token_id', 'outcome', 'price', 'winner'])
export const COMPAT_REWARDS_KEYS = keysOf<CompatRewards>()(['rates', 'min_size', 'max_spread'])

/** In the order sent: the book's hash depends on it. */
export const ORDER_BOOK_SUMMARY_KEYS = keysOf<OrderBookSummary>()(['market', 'asset_id', 'timestamp', 'hash', 'bids',
  'asks', 'min_order_size', 'tick_size', 'neg_risk', 'last_trade_price'])
export const BOOK_LEVEL_KEYS = keysOf<BookLevel>()(['price', 'size'])
export const MIDPOINT_KEYS = keysOf<Midpoint>()(['mid', 'mid_price'])
export const PRICE_KEYS = keysOf<Price>()(['price'])
export const SPREAD_KEYS = keysOf<Spread>()(['spread'])
export const LAST_TRADE_PRICE_KEYS = keysOf<LastTradePrice>()(['price', 'side'])
export const TOKEN_LAST_TRADE_PRICE_KEYS = keysOf<TokenLastTradePrice>()(['token_id', 'price', 'side'])
export const TICK_SIZE_KEYS = keysOf<TickSize>()(['minimum_tick_size'])
export const FEE_RATE_KEYS = keysOf<FeeRate>()(['base_fee'])
export const NEG_RISK_KEYS = keysOf<NegRisk>()(['neg_risk'])
export const PRICES_HISTORY_KEYS = keysOf<PricesHistory>()(['history'])
export const PRICE_POINT_KEYS = keysOf<PricePoint>()(['t', 'p'])
export const CANDLE_KEYS = keysOf<Candle>()(['t', 'open', 'high', 'low', 'close', 'volume'])

const orderCommonKeys = ['id', 'status', 'owner', 'maker_address', 'market', 'asset_id', 'side', 'original_size',
  'size_matched', 'price', 'associate_trades', 'outcome', 'created_at', 'expiration', 'order_type'] as const
export const NATIVE_ORDER_KEYS = keysOf<NativeOrder>()([...orderCommonKeys, 'order_hash', 'size_remaining',
  'queue_ahead'])
export const COMPAT_ORDER_KEYS = keysOf<CompatOrder>()(orderCommonKeys)
export const PUBLIC_ORDER_KEYS = keysOf<PublicOrder>()(['id', 'status', 'maker_address', 'market', 'asset_id', 'side',
  'original_size', 'size_matched', 'price', 'associate_trades', 'outcome', 'created_at', 'expiration', 'order_type',
  'order_hash', 'size_remaining'])
export const NATIVE_ORDERS_PAGE_KEYS = keysOf<NativeOrdersPage>()([...pageKeys, 'available_usdc'])
export const CLIENT_ORDER_KEYS = keysOf<ClientOrder>()(['id', 'market_id', 'token_id', 'outcome', 'side', 'price',
  'size', 'size_remaining', 'status', 'created_at'])
export const CLIENT_ORDERS_KEYS = keysOf<ClientOrders>()(['next_cursor', 'data'])
export const VERIFY_CHECK_KEYS = keysOf<VerifyCheck>()(['check', 'ok', 'message', 'code'], ['code'])
export const VERIFY_RESULT_KEYS = keysOf<VerifyResult>()(['valid', 'orderID', 'checks', 'note'])

export const ORDER_PLACEMENT_KEYS = keysOf<OrderPlacement>()(['success', 'errorMsg', 'order_id', 'orderID', 'status',
  'makingAmount', 'takingAmount', 'fee', 'side', 'transactionsHashes', 'tradeIDs'])
export const ORDER_AMENDED_KEYS = keysOf<OrderAmended>()(['success', 'order_id', 'size_matched', 'size_remaining',
  'reduced_by', 'engine_seq'])
export const ORDER_REPLACED_KEYS = keysOf<OrderReplaced>()(['canceled', 'placement', 'engine_seq'])
export const QUOTES_RESULT_KEYS = keysOf<QuotesResult>()(['canceled', 'levels', 'engine_seq'])
export const ORDER_GROUP_KEYS = keysOf<OrderGroupInfo>()(['group_id', 'contracts_limit', 'notional_limit', 'window_ms',
  'freeze_ms', 'triggered', 'triggered_at', 'window_contracts', 'window_notional', 'resting_orders'])
export const BATCH_PLACEMENT_KEYS = keysOf<BatchPlacement>()(['total_successful', 'total_failed', 'results'])
export const CANCEL_RESULT_KEYS = keysOf<CancelResult>()(['canceled', 'not_canceled'])

const tradeKeys = ['id', 'taker_order_id', 'market', 'asset_id', 'side', 'size', 'fee_rate_bps', 'price', 'status',
  'match_time', 'matchtime', 'last_update', 'outcome', 'bucket_index', 'maker_address', 'transaction_hash',
  'trader_side', 'match_type', 'fee', 'maker_orders'] as const
export const TRADE_KEYS = keysOf<Trade>()([...tradeKeys, 'owner'])
export const PUBLIC_TRADE_KEYS = keysOf<PublicTrade>()(tradeKeys)
const makerOrderKeys = ['order_id', 'maker_address', 'matched_amount', 'price', 'fee_rate_bps', 'asset_id', 'outcome',
  'side'] as const
export const MAKER_ORDER_KEYS = keysOf<MakerOrder>()([...makerOrderKeys, 'owner'])
export const PUBLIC_MAKER_ORDER_KEYS = keysOf<PublicTrade['maker_orders'][0]>()(makerOrderKeys)

export const BALANCE_ALLOWANCE_KEYS = keysOf<BalanceAllowance>()(['balance', 'allowance', 'allowances'])
export const API_CREDENTIALS_KEYS = keysOf<ApiCredentials>()(['apiKey', 'secret', 'passphrase'])
export const API_KEYS_KEYS = keysOf<ApiKeys>()(['apiKeys'])
export const API_KEY_DELETED_KEYS = keysOf<ApiKeyDeleted>()(['deleted'])

export const FAUCET_CREDIT_KEYS = keysOf<FaucetCredit>()(['address', 'usdc_credited', 'eth_credited',
  'transaction_hash', 'block_number'])
export const WALLET_STATUS_KEYS = keysOf<WalletStatus>()(['address', 'eth_balance', 'usdc_balance', 'available_usdc',
  'allowance', 'shares_approved', 'relay_nonce'])
export const RELAY_NONCE_KEYS = keysOf<RelayNonce>()(['address', 'nonce'])
export const RELAY_RECEIPT_KEYS = keysOf<RelayReceipt>()(['transaction_hash', 'block_number', 'status'])

export const USER_PROFILE_KEYS = keysOf<UserProfile>()(['address', 'first_seen', 'trades_count', 'volume',
  'markets_traded', 'realized_pnl', 'open_orders_count'])
export const MILESTONE_KEYS = keysOf<Milestone>()(['time', 'kind', 'market_id', 'token_id', 'shares', 'price',
  'usdc_delta', 'usdc_balance', 'positions', 'transaction_hash', 'block_number'])
export const PORTFOLIO_HISTORY_KEYS =
  keysOf<PortfolioHistory>()(['address', 'limit', 'count', 'next_cursor', 'milestones'])
export const USER_TOKEN_BALANCE_KEYS =
  keysOf<UserTokenBalance>()(['token_id', 'market_id', 'outcome', 'shares', 'held'])
export const USER_BALANCES_KEYS = keysOf<UserBalances>()(['address', 'usdc', 'usdc_held', 'tokens'])
export const LEDGER_EVENT_KEYS = keysOf<LedgerEvent>()(['transaction_hash', 'block_number', 'log_index', 'action',
  'address', 'market_id', 'condition_id', 'amount', 'payout', 'timestamp'])

export const EXCHANGE_STATS_KEYS = keysOf<ExchangeStats>()(['seq', 'markets', 'markets_by_status', 'open_orders',
  'orders', 'trades', 'traders', 'volume', 'api_keys', 'uptime_sec'])
export const ENGINE_STATE_HASH_KEYS = keysOf<EngineStateHashBody>()(['seq', 'state_hash', 'invariants_hold'])
export const HEALTH_KEYS = keysOf<Health>()(['status', 'version', 'seq', 'journalLag', 'uptimeSec', 'pendingRequests',
  'ringBytesUsed', 'ringBytes', 'role', 'replicaLag', 'chain'])
export const READINESS_KEYS = keysOf<Readiness>()(['ready', 'seq'])

/** A body map's routes as an object with those keys: the compiler checks both directions. */
export type RoutesOf<B> = { readonly [R in keyof B]: true }

/** Every route of each surface with a declared body (as object keys, so the compiler checks both directions). */
export const NATIVE_ROUTES: readonly NativeRoute[] = routeList<NativeRoute>({
  'GET /time': true, 'GET /book': true, 'POST /books': true, 'GET /midpoint': true, 'POST /midpoints': true,
  'GET /price': true, 'POST /prices': true, 'GET /spread': true, 'GET /last-trade-price': true,
  'GET /tick-size': true, 'GET /fee-rate': true, 'GET /neg-risk': true, 'POST /auth/api-key': true,
  'GET /auth/derive-api-key': true, 'GET /auth/api-keys': true, 'DELETE /auth/api-key': true, 'POST /order': true,
  'DELETE /order': true, 'DELETE /orders': true, 'DELETE /cancel-all': true, 'DELETE /cancel-market-orders': true,
  'GET /data/trades': true, 'GET /balance-allowance': true, 'GET /health': true, 'GET /ready': true,
  'GET /metrics': true, 'GET /openapi.json': true, 'GET /docs': true, 'GET /asyncapi.json': true, 'GET /': true,
  'GET /assets/:file': true, 'GET /markets': true,
  'GET /markets/upcoming': true,
  'GET /markets/resolving': true, 'GET /markets/:id': true, 'GET /book/unified': true, 'GET /ticks/:symbol': true,
  'POST /orders': true, 'GET /data/order/:id': true, 'GET /data/orders': true, 'GET /orders': true,
  'POST /order/verify': true, 'POST /order/amend': true, 'POST /order/replace': true, 'POST /quotes': true,
  'GET /order-groups': true, 'POST /order-groups': true, 'PATCH /order-groups/:id': true,
  'POST /order-groups/:id/trigger': true, 'POST /order-groups/:id/reset': true, 'DELETE /order-groups/:id': true,
  'GET /wallet-status': true,
  'POST /faucet': true, 'GET /relay/nonce': true,
  'POST /relay': true, 'POST /admin/markets': true, 'PATCH /admin/markets/:id': true,
  'POST /admin/markets/:id/resolve': true, 'GET /admin/stats': true, 'GET /admin/state-hash': true,
  'GET /users/:address': true,
  'GET /users/:address/portfolio-history': true, 'GET /users/:address/activity': true,
  'GET /users/:address/orders': true, 'GET /users/:address/trades': true, 'GET /users/:address/balances': true,
  'GET /users/:address/redemptions': true, 'GET /users/:address/events': true,
  ...POLYMARKET_SHARED_ROUTES, ...POLYMARKET_NATIVE_ROUTES,
  ...HEARTBEAT_SHARED_ROUTES, ...HEARTBEAT_NATIVE_ROUTES,
})

export const COMPAT_ROUTES: readonly CompatRoute[] = routeList<CompatRoute>({
  'GET /time': true, 'GET /book': true, 'POST /books': true, 'GET /midpoint': true, 'POST /midpoints': true,
  'GET /price': true, 'POST /prices': true, 'GET /spread': true, 'GET /last-trade-price': true,
  'GET /tick-size': true, 'GET /fee-rate': true, 'GET /neg-risk': true, 'POST /auth/api-key': true,
  'GET /auth/derive-api-key': true, 'GET /auth/api-keys': true, 'DELETE /auth/api-key': true, 'POST /order': true,
  'DELETE /order': true, 'DELETE /orders': true, 'DELETE /cancel-all': true, 'DELETE /cancel-market-orders': true,
  'GET /data/trades': true, 'GET /balance-allowance': true, 'GET /': true, 'GET /markets': true,
  'POST /faucet': true, 'GET /relay/nonce': true, 'POST /relay': true,
  'GET /markets/:id': true, 'POST /spreads': true, 'POST /last-trades-prices': true, 'GET /prices-history': true,
  'POST /orders': true, 'GET /data/order/:id': true, 'GET /data/orders': true, 'GET /balance-allowance/update': true,
  ...POLYMARKET_SHARED_ROUTES, ...POLYMARKET_COMPAT_ROUTES,
  ...HEARTBEAT_SHARED_ROUTES, ...HEARTBEAT_COMPAT_ROUTES,
})

function routeList<R extends string>(routes: RoutesOf<Record<R, true>>): R[] {
  return Object.keys(routes) as R[]
}
