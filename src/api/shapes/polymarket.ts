/**
 * Bodies of Polymarket's current surface (routes/polymarket.ts), as clob-client-v2 1.1.0 types
 * them (`src/types/clob.ts`; reference clob-v2-compat.md sections 4.5 and 5). Where Predex has no
 * such program (rewards, order scoring, builders, notifications, closed-only mode) the body is the
 * client's own shape saying so: an empty list, a page that ends at once, false, zero.
 */
import type { RoutesOf } from './keys.js'
import type { CompatLiveness } from './health.js'
import type { CompatMarket } from './market.js'
import type { CompatOrder } from './order.js'
import type { Page } from './page.js'
import type { Address, Decimal, Hash, Outcome, Side, TokenId, UnixSecondsText } from './vocabulary.js'

/** GET /version: the order protocol the server takes by default (a number: the client switches on it). */
export type ExchangeVersion = {
  readonly version: 2
}

/** A token of a market's CLOB info: `t` the token id, `o` the outcome. */
export type ClobToken = {
  readonly t: TokenId
  readonly o: Outcome
}

/**
 * The fee curve the client budgets a BUY's fee with (only when given `userUSDCBalance`):
 * `shares x r x (p(1 - p))^e` USDC.
 */
export type ClobFeeDetails = {
  readonly r: number
  readonly e: number
}

/** GET /compat/clob-markets/:condition_id (clob-client-v2 `MarketDetails`). */
export type ClobMarketInfo = {
  /** The condition id. */
  readonly c: Hash
  /** Yes first, then No. */
  readonly t: readonly [ClobToken, ClobToken]
  /** Tick size as a number: its toString() is one of "0.1", "0.01", "0.005", "0.0025", "0.001", "0.0001". */
  readonly mts: number
  /** Minimum order size in shares. */
  readonly mos: number
  /** Neg risk: orders are signed for the neg-risk exchange. */
  readonly nr: boolean
  readonly fd: ClobFeeDetails
  /** Maker base fee, basis points: makers pay none. */
  readonly mbf: 0
  /** Taker base fee, basis points: the market's fee rate. */
  readonly tbf: number
  /** Rewards: Predex has no rewards program. */
  readonly r: null
  /** Accepting orders. */
  readonly ao: boolean
}

/** GET /compat/markets-by-token/:token_id. */
export type MarketByToken = {
  readonly condition_id: Hash
  /** The Yes token. */
  readonly primary_token_id: TokenId
  /** The No token. */
  readonly secondary_token_id: TokenId
}

/** Items of GET /compat/simplified-markets (reference clob-compat.md section 5.1, "Simplified market"). */
export type SimplifiedMarket = Pick<CompatMarket, 'condition_id' | 'tokens' | 'rewards' | 'active' | 'closed' |
  'archived' | 'accepting_orders'>

/** GET /compat/auth/ban-status/closed-only: Predex has no closed-only mode. */
export type BanStatus = {
  readonly closed_only: false
}

/** GET /compat/order-scoring: no order earns rewards (there is no rewards program). */
export type OrderScoring = {
  readonly scoring: false
}

/** POST /compat/orders-scoring: order id -> false, for each id asked. */
export type OrdersScoring = Readonly<Record<Hash, false>>

/** GET /compat/notifications: Predex sends none (clob-client-v2 `Notification[]`). */
export type Notifications = readonly never[]

/** A trade of a market as Polymarket's live activity shows it (clob-client-v2 `MarketTradeEvent`): the taker's view. */
export type MarketTradeEvent = {
  readonly event_type: 'trade'
  readonly market: {
    readonly condition_id: Hash
    /** The taker's token. */
    readonly asset_id: TokenId
    readonly question: string
    readonly icon: ''
    readonly slug: string
  }
  /** The taker; Predex has no profiles, so the names and pictures are empty. */
  readonly user: {
    readonly address: Address
    readonly username: ''
    readonly profile_picture: ''
    readonly optimized_profile_picture: ''
    readonly pseudonym: ''
  }
  readonly side: Side
  /** Shares. */
  readonly size: Decimal
  readonly fee_rate_bps: string
  /** The taker's price in the taker's token. */
  readonly price: Decimal
  readonly outcome: Outcome
  /** 0 for Yes, 1 for No. */
  readonly outcome_index: 0 | 1
  readonly transaction_hash: Hash
  /** Unix seconds of the match. */
  readonly timestamp: UnixSecondsText
}

/** GET /compat/fees/builder-fees/:builder_code: Predex charges no builder fees. */
export type BuilderFees = {
  readonly builder_maker_fee_rate_bps: 0
  readonly builder_taker_fee_rate_bps: 0
}

/** A page that ends at once (`next_cursor` LTE=): what Predex has of a program it does not run. */
export type EmptyPage = Page<never>

/** Routes answering the same body on both surfaces. */
export type PolymarketSharedBodies = {
  'GET /version': ExchangeVersion
}

/** Routes only under /compat. */
export type PolymarketCompatBodies = {
  'GET /ok': CompatLiveness
  'GET /clob-markets/:condition_id': ClobMarketInfo
  'GET /markets-by-token/:token_id': MarketByToken
  'GET /simplified-markets': Page<SimplifiedMarket>
  /** Markets of the rewards program: none. */
  'GET /sampling-markets': Page<CompatMarket>
  'GET /sampling-simplified-markets': Page<SimplifiedMarket>
  /** The newest trades first. */
  'GET /markets/live-activity/:condition_id': readonly MarketTradeEvent[]
  'GET /auth/ban-status/closed-only': BanStatus
  'GET /order-scoring': OrderScoring
  'POST /orders-scoring': OrdersScoring
  'GET /notifications': Notifications
  'DELETE /notifications': null
  /** Every order lives in the one book: none is "pre-migration". */
  'GET /data/pre-migration-orders': Page<CompatOrder>
  'GET /fees/builder-fees/:builder_code': BuilderFees
  'GET /builder/trades': EmptyPage
  'GET /rewards/markets/current': EmptyPage
  'GET /rewards/markets/:condition_id': EmptyPage
  'GET /rewards/user': EmptyPage
  /** No earnings: no entries. */
  'GET /rewards/user/total': readonly never[]
  /** Market -> percentage: none. */
  'GET /rewards/user/percentages': Readonly<Record<string, never>>
  'GET /rewards/user/markets': EmptyPage
}

/** Routes only on the native API. */
export type PolymarketNativeBodies = object

/**
 * The routes above as runtime lists (object keys, so the compiler checks both directions), for
 * src/api/shapes/keys.ts to add to NATIVE_ROUTES and COMPAT_ROUTES.
 */
export const POLYMARKET_SHARED_ROUTES: RoutesOf<PolymarketSharedBodies> = { 'GET /version': true }
export const POLYMARKET_NATIVE_ROUTES: RoutesOf<PolymarketNativeBodies> = {}
export const POLYMARKET_COMPAT_ROUTES: RoutesOf<PolymarketCompatBodies> = {
  'GET /ok': true, 'GET /clob-markets/:condition_id': true, 'GET /markets-by-token/:token_id': true,
  'GET /simplified-markets': true, 'GET /sampling-markets': true, 'GET /sampling-simplified-markets': true,
  'GET /markets/live-activity/:condition_id': true, 'GET /auth/ban-status/closed-only': true,
  'GET /order-scoring': true, 'POST /orders-scoring': true, 'GET /notifications': true, 'DELETE /notifications': true,
  'GET /data/pre-migration-orders': true, 'GET /fees/builder-fees/:builder_code': true, 'GET /builder/trades': true,
  'GET /rewards/markets/current': true, 'GET /rewards/markets/:condition_id': true, 'GET /rewards/user': true,
  'GET /rewards/user/total': true, 'GET /rewards/user/percentages': true, 'GET /rewards/user/markets': true,
}
