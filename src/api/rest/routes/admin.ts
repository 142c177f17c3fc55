/**
 * Administration (`EXCHANGE-ADMIN-KEY`): list a market, change its status, tick size or fee
 * rate, resolve it, and the exchange's statistics (src/service/admin/admin.ts). This module parses the
 * admin fields and shapes the answers.
 */
import type { MarketStatus, Outcome } from '../../../engine/command.js'
import { MARKET_STATUSES } from '../../../engine/rules.js'
import { REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import {
  createMarket,
  engineStateHash,
  exchangeCounts,
  resolveMarket,
  SLUG_LENGTH_MAX,
  updateMarket,
  type ExchangeCounts,
  type MarketChanges,
  type NewMarket,
} from '../../../service/admin/admin.js'
import { marketById } from '../../../service/market-data/markets.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { nativeMarket } from '../../format.js'
import type { EngineStateHashBody, ExchangeStats } from '../../shapes/admin.js'
import type { MarketChange, MarketListing, MarketResolve, Unparsed } from '../../shapes/requests.js'
import { decimalOfMicros, integerOf, microsOfDecimal, parseJsonBody, requireObject, requireString } from '../../wire.js'
import type { TypedRoute } from '../typed-route.js'

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/
const UPDATE_FIELDS: readonly (keyof MarketChange)[] = ['tick_size', 'fee_rate_bps', 'status']
type Settable = Exclude<MarketStatus, 'Resolved'>
const SETTABLE_STATUSES = MARKET_STATUSES.filter((status): status is Settable => status !== 'Resolved')

function invalid(field: string, message: string): PredexError {
  return new PredexError(ApiCode.INVALID_PARAMETER, message, { field })
}

function optionalText(value: unknown, field: string, lengthMax: number): string | null {
  return value === undefined || value === null ? null : requireString(value, field, lengthMax)
}

function endDateMsOf(value: unknown): number {
  if (value === undefined || value === null) return 0
  const ms = typeof value === 'string' && ISO_DATE.test(value) ? Date.parse(value) : Number.NaN
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw invalid('end_date', 'end_date must be an ISO-8601 date such as "2027-01-31T00:00:00Z"')
  }
  return ms
}

function statusOf<S extends MarketStatus>(value: unknown, allowed: readonly S[]): S {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid('status', `status must be one of ${allowed.join(', ')}`)
  }
  return value as S
}

function booleanOf(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(field, `${field} must be true or false`)
  return value
}

/** The body of POST /admin/markets; the service checks the terms with the engine's rules. */
function newMarketOf(body: Unparsed<MarketListing>): NewMarket {
  const question = requireString(body.question, 'question', 4_096)
  return {
    question,
    slug: optionalText(body.slug, 'slug', SLUG_LENGTH_MAX),
    description: optionalText(body.description, 'description', 4_096) ?? '',
    tickSizeMicros: microsOfDecimal(body.tick_size ?? '0.01', 'tick_size'),
    minOrderSizeMicros: microsOfDecimal(body.min_order_size ?? '5', 'min_order_size'),
    feeRateBps: integerOf(body.fee_rate_bps ?? 0, 'fee_rate_bps'),
    negRisk: booleanOf(body.neg_risk ?? false, 'neg_risk'),
    endDateMs: endDateMsOf(body.end_date),
    status: statusOf(body.status ?? 'Active', ['Active', 'Upcoming'] as const),
  }
}

/** The body of PATCH /admin/markets/:id. Resolution needs an outcome: it has its own route. */
function marketChangesOf(body: Unparsed<MarketChange>): MarketChanges {
  const changes: MarketChanges = {
    ...(body.tick_size === undefined ? {} : { tickSizeMicros: microsOfDecimal(body.tick_size, 'tick_size') }),
    ...(body.fee_rate_bps === undefined ? {} : { feeRateBps: integerOf(body.fee_rate_bps, 'fee_rate_bps') }),
    ...(body.status === undefined ? {} : { status: statusOf(body.status, SETTABLE_STATUSES) }),
  }
  const unknown = Object.keys(body).filter((key) => !(UPDATE_FIELDS as readonly string[]).includes(key))
  if (unknown.length > 0) {
    throw invalid(unknown[0]!, `unknown field ${unknown[0]}: use status, tick_size or fee_rate_bps`)
  }
  return changes
}

function statsOf(counts: ExchangeCounts): ExchangeStats {
  return {
    seq: counts.seq, markets: counts.markets, markets_by_status: counts.marketsByStatus, open_orders: counts.openOrders,
    orders: counts.orders, trades: counts.trades, traders: counts.traders, volume: decimalOfMicros(counts.volumeMicros),
    api_keys: counts.apiKeys, uptime_sec: counts.uptimeSec,
  }
}

export const adminRoutes: TypedRoute[] = [
  { method: 'POST', path: '/admin/markets', auth: 'admin', bodyMax: REST_SMALL_BODY_BYTES_MAX * 4, surface: 'native',
    openapi: { tag: 'admin', summary: 'Lists a new market (201 with its full record)',
      body: '{question, slug?, description?, tick_size: "0.01", min_order_size: "5", fee_rate_bps: 0, neg_risk: false, '
        + 'end_date?, status?: Active|Upcoming}',
      response: 'Market (201)', status: 201 },
    handler: async (request, _identity, context) => {
      const market = await createMarket(context, newMarketOf(requireObject(parseJsonBody(request.body), 'body')))
      return { status: 201, body: nativeMarket(context.read, market) }
    } },
  { method: 'PATCH', path: '/admin/markets/:id', auth: 'admin', bodyMax: REST_SMALL_BODY_BYTES_MAX, surface: 'native',
    openapi: { tag: 'admin', summary: 'Changes status (lifecycle of docs/engine.md), tick size or fee rate',
      body: '{status?, tick_size?, fee_rate_bps?}', response: 'Market' },
    handler: async (request, _identity, context) => {
      const { marketId } = marketById(context, request.params[0]!)
      const changes = marketChangesOf(requireObject(parseJsonBody(request.body), 'body'))
      return { body: nativeMarket(context.read, await updateMarket(context, marketId, changes)) }
    } },
  { method: 'POST', path: '/admin/markets/:id/resolve', auth: 'admin', bodyMax: REST_SMALL_BODY_BYTES_MAX,
    surface: 'native',
    openapi: { tag: 'admin',
      summary: 'Resolves a market: cancels its open orders (releasing their holds) and opens redemption',
      body: '{outcome: Yes|No}', response: 'Market' },
    handler: async (request, _identity, context) => {
      const { marketId } = marketById(context, request.params[0]!)
      const { outcome } = requireObject(parseJsonBody(request.body), 'body') as Unparsed<MarketResolve>
      if (outcome !== 'Yes' && outcome !== 'No') throw invalid('outcome', 'outcome must be "Yes" or "No"')
      return { body: nativeMarket(context.read, await resolveMarket(context, marketId, outcome as Outcome)) }
    } },
  { method: 'GET', path: '/admin/stats', auth: 'admin', bodyMax: 0, surface: 'native',
    openapi: { tag: 'admin',
      summary: "The exchange's counts: markets by status, orders, trades, traders, volume, API keys",
      response: '{seq, markets, markets_by_status, open_orders, orders, trades, traders, volume, api_keys, '
        + 'uptime_sec}' },
    handler: async (_request, _identity, context) => ({ body: statsOf(await exchangeCounts(context)) }) },
  { method: 'GET', path: '/admin/state-hash', auth: 'admin', bodyMax: 0, surface: 'native',
    openapi: { tag: 'admin',
      summary: "The engine's state hash at its seq, and whether its invariants hold (costs a snapshot's time)",
      response: '{seq, state_hash, invariants_hold}' },
    handler: async (_request, _identity, context) => {
      const { seq, stateHash, invariantsHold } = await engineStateHash(context)
      const body: EngineStateHashBody = { seq, state_hash: stateHash, invariants_hold: invariantsHold }
      return { body }
    } },
]
