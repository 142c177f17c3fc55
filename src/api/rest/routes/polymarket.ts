/**
 * The rest of Polymarket's current CLOB surface (clob-client-v2 1.1.0, reference clob-v2-compat.md
 * section 5): version, liveness, market look-ups, and the calls answered truthfully where Predex
 * has no such program (src/service/market-data/polymarket-info.ts says which and why).
 */
import { ApiCode, PredexError } from '../../../errors.js'
import { ORDERS_SCORING_IDS_MAX, REST_ORDERS_SCORING_BODY_BYTES_MAX } from '../../../limits.js'
import { liveActivityOf } from '../../../service/market-data/market-activity.js'
import { allMarkets, marketById, marketOfToken } from '../../../service/market-data/markets.js'
import { builderFeesBpsOf, EXCHANGE_VERSION, isClosedOnly, isOrderScoring, samplingMarkets }
  from '../../../service/market-data/polymarket-info.js'
import { compatMarket } from '../../format.js'
import { clobMarketInfo, marketByToken, marketTradeEvent, simplifiedMarket } from '../../polymarket-format.js'
import type { Page } from '../../shapes/page.js'
import type { BuilderFees, EmptyPage, OrdersScoring } from '../../shapes/polymarket.js'
import { limitOf, orderIdOf, page, parseJsonBody, tokenIdOf } from '../../wire.js'
import type { RestRequest } from '../route.js'
import type { TypedRoute } from '../typed-route.js'
import { identityOf } from './common.js'

const GET = 'GET' as const
const NONE = 'none' as const
const L2 = 'l2' as const
const COMPAT = 'compat' as const

const PAGE_QUERY = { next_cursor: 'cursor (MA== first, LTE= end)', limit: 'page size, 1..500' }
const EMPTY_PAGE = '{limit, count: 0, next_cursor: "LTE=", data: []}'

/** A page of `items` as GET /markets pages (cursor and limit from the query). */
function listing<T, U>(request: RestRequest, items: readonly T[], format: (item: T) => U): Page<U> {
  const limit = limitOf(request.query.get('limit'))
  const { data, nextCursor } = page(items, request.query.get('next_cursor'), limit)
  return { limit, count: data.length, next_cursor: nextCursor, data: data.map(format) }
}

/** The answer for a program Predex does not run: a page that ends at once (its cursor still checked). */
function emptyPage(request: RestRequest): EmptyPage {
  return listing<never, never>(request, [], (item) => item)
}

/** A builder code: bytes32, 0x and 64 hex digits. */
function builderCodeOf(value: string | null | undefined): string {
  if (value === null || value === undefined || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'builder_code must be a bytes32 (0x and 64 hex digits)',
      { field: 'builder_code' })
  }
  return value
}

/** POST /orders-scoring: a JSON array of order ids (ORDERS_SCORING_IDS_MAX at most), each answered as sent. */
function ordersScoring(body: unknown): OrdersScoring {
  if (!Array.isArray(body)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'the body must be a JSON array of order ids', { field: 'body' })
  }
  if (body.length > ORDERS_SCORING_IDS_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `at most ${ORDERS_SCORING_IDS_MAX} order ids`,
      { field: 'body', max: ORDERS_SCORING_IDS_MAX })
  }
  const scoring: Record<string, false> = {}
  for (const id of body) {
    const orderId = orderIdOf(id, 'orderIds')
    scoring[id as string] = isOrderScoring(orderId)
  }
  return scoring
}

const versionRoutes: TypedRoute[] = [
  { method: GET, path: '/version', auth: NONE, bodyMax: 0,
    openapi: { tag: 'health',
      summary: 'The order protocol the server announces: 2 (CLOB V2); V1 orders are taken too, told apart by their '
        + 'fields', response: '{version: 2}' },
    handler: () => ({ body: { version: EXCHANGE_VERSION } }) },
  { method: GET, path: '/ok', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'health', summary: 'Polymarket liveness: "OK"', response: '"OK"' },
    handler: () => ({ body: 'OK' }) },
]

const marketLookupRoutes: TypedRoute[] = [
  { method: GET, path: '/clob-markets/:condition_id', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'markets',
      summary: "A market's terms as clob-client-v2 reads them before building an order (by condition id, UUID or "
        + 'slug); fd is the fee budget r x (p(1-p))^e per share, which covers what Predex holds and charges',
      response: '{c, t: [{t, o}], mts, mos, nr, fd: {r, e}, mbf, tbf, r: null, ao}' },
    handler: (request, _identity, context) => ({ body: clobMarketInfo(marketById(context, request.params[0]!)) }) },
  { method: GET, path: '/markets-by-token/:token_id', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'markets',
      summary: 'The market of a token: its condition id, Yes (primary) and No (secondary) tokens',
      response: '{condition_id, primary_token_id, secondary_token_id}' },
    handler: (request, _identity, context) =>
      ({ body: marketByToken(marketOfToken(context, tokenIdOf(request.params[0], 'token_id'))) }) },
  { method: GET, path: '/simplified-markets', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'markets', summary: 'All markets, simplified, paginated', query: PAGE_QUERY,
      response: '{limit, count, next_cursor, data: [{condition_id, tokens, rewards, active, closed, archived, '
        + 'accepting_orders}]}' },
    handler: (request, _identity, context) =>
      ({ body: listing(request, allMarkets(context), (m) => simplifiedMarket(context.read, m)) }) },
  { method: GET, path: '/sampling-markets', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'markets',
      summary: 'Markets of the liquidity-rewards program: Predex runs none, so none (data [] and next_cursor LTE=)',
      query: PAGE_QUERY, response: EMPTY_PAGE },
    handler: (request, _identity, context) =>
      ({ body: listing(request, samplingMarkets(), (m) => compatMarket(context.read, m)) }) },
  { method: GET, path: '/sampling-simplified-markets', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'markets',
      summary: 'Markets of the liquidity-rewards program, simplified: Predex runs none, so none (data [] and '
        + 'next_cursor LTE=)', query: PAGE_QUERY, response: EMPTY_PAGE },
    handler: (request, _identity, context) =>
      ({ body: listing(request, samplingMarkets(), (m) => simplifiedMarket(context.read, m)) }) },
  { method: GET, path: '/markets/live-activity/:condition_id', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'trades',
      summary: "A market's newest trades (at most 100), newest first, each from the taker's side",
      response: '[{event_type: "trade", market, user, side, size, fee_rate_bps, price, outcome, outcome_index, '
        + 'transaction_hash, timestamp}]' },
    handler: (request, _identity, context) => {
      const { market, trades } = liveActivityOf(context, request.params[0]!)
      return { body: trades.map((trade) => marketTradeEvent(market, trade, context.chainId)) }
    } },
]

const accountRoutes: TypedRoute[] = [
  { method: GET, path: '/auth/ban-status/closed-only', auth: L2, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'auth', summary: 'Whether the caller may only close positions: Predex has no closed-only mode',
      response: '{closed_only: false}' },
    handler: (_request, identity) => ({ body: { closed_only: isClosedOnly(identityOf(identity).address) } }) },
  { method: GET, path: '/order-scoring', auth: L2, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'orders',
      summary: 'Whether an order earns liquidity rewards: false, Predex runs no rewards program',
      query: { order_id: 'required: the order id' }, response: '{scoring: false}' },
    handler: (request) =>
      ({ body: { scoring: isOrderScoring(orderIdOf(request.query.get('order_id'), 'order_id')) } }) },
  { method: 'POST', path: '/orders-scoring', auth: L2, bodyMax: REST_ORDERS_SCORING_BODY_BYTES_MAX, surface: COMPAT,
    openapi: { tag: 'orders',
      summary: 'Whether orders earn liquidity rewards: false for each, Predex runs no rewards program',
      body: `[order id] (at most ${ORDERS_SCORING_IDS_MAX})`, response: '{<order id>: false}' },
    handler: (request) => ({ body: ordersScoring(parseJsonBody(request.body)) }) },
  { method: GET, path: '/notifications', auth: L2, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'account', summary: "The caller's notifications: Predex sends none",
      query: { signature_type: 'ignored' }, response: '[]' },
    handler: () => ({ body: [] }) },
  { method: 'DELETE', path: '/notifications', auth: L2, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'account', summary: 'Drops notifications: there are none to drop',
      query: { ids: 'comma-separated ids (ignored)' }, response: 'null' },
    handler: () => ({ body: null }) },
  { method: GET, path: '/data/pre-migration-orders', auth: L2, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'orders',
      summary: "Orders from before Polymarket's V1 to V2 migration: none, V1 and V2 orders live in the same books "
        + '(GET /data/orders lists both)', query: PAGE_QUERY, response: EMPTY_PAGE },
    handler: (request) => ({ body: emptyPage(request) }) },
]

const builderRoutes: TypedRoute[] = [
  { method: GET, path: '/fees/builder-fees/:builder_code', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'market-data', summary: "A builder code's fee rates: Predex charges no builder fees",
      response: '{builder_maker_fee_rate_bps: 0, builder_taker_fee_rate_bps: 0}' },
    handler: (request) => {
      const fees = builderFeesBpsOf(builderCodeOf(request.params[0]))
      const body: BuilderFees = { builder_maker_fee_rate_bps: fees.makerBps, builder_taker_fee_rate_bps: fees.takerBps }
      return { body }
    } },
  { method: GET, path: '/builder/trades', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'trades', summary: 'Trades attributed to a builder code: none, Predex has no builder program',
      query: { builder_code: 'required: bytes32', ...PAGE_QUERY }, response: EMPTY_PAGE },
    handler: (request) => {
      builderCodeOf(request.query.get('builder_code'))
      return { body: emptyPage(request) }
    } },
]

/** Polymarket's liquidity rewards: Predex runs no such program, so every list is empty. */
const rewardsRoutes: TypedRoute[] = [
  { method: GET, path: '/rewards/markets/current', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'markets', summary: 'Markets with rewards now: none, Predex runs no rewards program',
      query: PAGE_QUERY, response: EMPTY_PAGE },
    handler: (request) => ({ body: emptyPage(request) }) },
  { method: GET, path: '/rewards/markets/:condition_id', auth: NONE, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'markets', summary: "A market's reward configurations: none, Predex runs no rewards program",
      query: PAGE_QUERY, response: EMPTY_PAGE },
    handler: (request, _identity, context) => {
      marketById(context, request.params[0]!)
      return { body: emptyPage(request) }
    } },
  { method: GET, path: '/rewards/user', auth: L2, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'account', summary: "The caller's reward earnings of a day: none, Predex runs no rewards program",
      query: { date: 'ignored', signature_type: 'ignored', ...PAGE_QUERY }, response: EMPTY_PAGE },
    handler: (request) => ({ body: emptyPage(request) }) },
  { method: GET, path: '/rewards/user/total', auth: L2, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'account', summary: "The caller's total reward earnings of a day, per asset: none",
      query: { date: 'ignored', signature_type: 'ignored' }, response: '[]' },
    handler: () => ({ body: [] }) },
  { method: GET, path: '/rewards/user/percentages', auth: L2, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'account', summary: "The caller's share of each market's rewards: none",
      query: { signature_type: 'ignored' }, response: '{}' },
    handler: () => ({ body: {} }) },
  { method: GET, path: '/rewards/user/markets', auth: L2, bodyMax: 0, surface: COMPAT,
    openapi: { tag: 'account', summary: "The caller's earnings and markets' reward configurations: none",
      query: { date: 'ignored', signature_type: 'ignored', order_by: 'ignored', position: 'ignored',
        no_competition: 'ignored', ...PAGE_QUERY }, response: EMPTY_PAGE },
    handler: (request) => ({ body: emptyPage(request) }) },
]

export const polymarketRoutes: TypedRoute[] = [
  ...versionRoutes, ...marketLookupRoutes, ...accountRoutes, ...builderRoutes, ...rewardsRoutes,
]
