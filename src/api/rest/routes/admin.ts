/**
 * Administration (`EXCHANGE-ADMIN-KEY`): list a market, change its status, tick size or fee
 * rate, resolve it, and the exchange's statistics. Every change is one journaled engine command;
 * the engine enforces the lifecycle (docs/engine.md, "Markets"), so these routes only translate.
 */
import type { MarketStatus, Outcome, UnstampedCommand } from '../../../engine/command.js'
import type { MarketRecord } from '../../../engine/event.js'
import { FEE_RATE_BPS_MAX, MICROS_PER_LOT, MICROS_PER_PIP, ORDER_AMOUNT_MICROS_MAX, REST_SMALL_BODY_BYTES_MAX, TICK_PIPS_ALLOWED }
  from '../../../limits.js'
import { newMarketIds } from '../../../service/market-ids.js'
import type { ServiceContext } from '../../../service/context.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { nativeMarket } from '../../format.js'
import { decimalOfMicros, integerOf, microsOfDecimal, parseJsonBody, requireObject, requireString } from '../../wire.js'
import type { Route } from '../route.js'
import { marketById, rejectionError, submitCommand } from './common.js'

const STATUSES: readonly MarketStatus[] = ['Upcoming', 'Active', 'Paused', 'Closed', 'Resolving', 'Resolved']
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/
const SLUG_LENGTH_MAX = 96

function invalid(field: string, message: string): PredexError {
  return new PredexError(ApiCode.INVALID_PARAMETER, message, { field })
}

function optionalText(value: unknown, field: string, lengthMax: number): string | null {
  return value === undefined || value === null ? null : requireString(value, field, lengthMax)
}

/** A slug from a question: lower case, words joined by '-', at most SLUG_LENGTH_MAX characters. */
function slugOf(question: string): string {
  return question.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, SLUG_LENGTH_MAX).replace(/-+$/, '')
}

function endDateMsOf(value: unknown): number {
  if (value === undefined || value === null) return 0
  const ms = typeof value === 'string' && ISO_DATE.test(value) ? Date.parse(value) : Number.NaN
  if (!Number.isSafeInteger(ms) || ms < 0) throw invalid('end_date', 'end_date must be an ISO-8601 date such as "2027-01-31T00:00:00Z"')
  return ms
}

function statusOf(value: unknown, allowed: readonly MarketStatus[]): MarketStatus {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw invalid('status', `status must be one of ${allowed.join(', ')}`)
  return value as MarketStatus
}

function booleanOf(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(field, `${field} must be true or false`)
  return value
}

// The market's terms are checked here as the engine would, so that bad admin input is answered
// at once and never becomes a journaled (refused) command; the engine checks them again.
const TICK_SIZES_MICROS = TICK_PIPS_ALLOWED.map((pips) => pips * MICROS_PER_PIP)

function feeRateOf(value: unknown): number {
  return integerOf(value, 'fee_rate_bps', FEE_RATE_BPS_MAX)
}

function tickSizeOf(value: unknown): number {
  const micros = microsOfDecimal(value, 'tick_size')
  if (!TICK_SIZES_MICROS.includes(micros)) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `tick_size must be one of ${TICK_SIZES_MICROS.map(decimalOfMicros).join(', ')}`,
      { field: 'tick_size', allowed: TICK_SIZES_MICROS.map(decimalOfMicros) })
  }
  return micros
}

function minOrderSizeOf(value: unknown): number {
  const micros = microsOfDecimal(value, 'min_order_size')
  if (micros % MICROS_PER_LOT !== 0 || micros > ORDER_AMOUNT_MICROS_MAX) {
    throw invalid('min_order_size', `min_order_size must be a multiple of ${decimalOfMicros(MICROS_PER_LOT)} shares, at most ${decimalOfMicros(ORDER_AMOUNT_MICROS_MAX)}`)
  }
  return micros
}

async function run(context: ServiceContext, command: UnstampedCommand): Promise<void> {
  const { result } = await submitCommand(context, command)
  if (!result.ok) throw rejectionError(result as never)
}

function recordOf(context: ServiceContext, marketId: string): Record<string, unknown> {
  const market = context.read.markets.get(marketId)
  if (market === undefined) throw new PredexError(ApiCode.INTERNAL, 'the market is journaled but not in the read model')
  return nativeMarket(context.read, market)
}

async function createMarket(context: ServiceContext, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const question = requireString(body.question, 'question', 4_096)
  const slug = optionalText(body.slug, 'slug', SLUG_LENGTH_MAX) ?? slugOf(question)
  if (!/^[a-z0-9][a-z0-9-]*$/.test(slug)) throw invalid('slug', 'slug must be lower-case letters, digits and "-"')
  const ids = newMarketIds()
  await run(context, { kind: 'createMarket', market: {
    ...ids, question, slug,
    description: optionalText(body.description, 'description', 4_096) ?? '',
    tickSizeMicros: tickSizeOf(body.tick_size ?? '0.01'),
    minOrderSizeMicros: minOrderSizeOf(body.min_order_size ?? '5'),
    feeRateBps: feeRateOf(body.fee_rate_bps ?? 0),
    negRisk: booleanOf(body.neg_risk ?? false, 'neg_risk'),
    endDateMs: endDateMsOf(body.end_date),
    status: statusOf(body.status ?? 'Active', ['Active', 'Upcoming']) as 'Active' | 'Upcoming',
  } })
  return recordOf(context, ids.marketId)
}

/**
 * Applies the fields of a PATCH, each as its own command: tick size, fee rate, then status (so a
 * market reopened with a new tick opens on it). All fields are checked first; if the engine
 * refuses one, the ones before it stay applied and the error says which were (`applied`).
 */
async function updateMarket(context: ServiceContext, market: MarketRecord, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const commands: { field: string; command: UnstampedCommand }[] = []
  const marketId = market.marketId
  if (body.tick_size !== undefined) {
    commands.push({ field: 'tick_size', command: { kind: 'setTickSize', marketId, tickSizeMicros: tickSizeOf(body.tick_size) } })
  }
  if (body.fee_rate_bps !== undefined) commands.push({ field: 'fee_rate_bps', command: { kind: 'setFeeRate', marketId, feeRateBps: feeRateOf(body.fee_rate_bps) } })
  if (body.status !== undefined) {
    // Resolution needs an outcome: it has its own route.
    const status = statusOf(body.status, STATUSES.filter((s) => s !== 'Resolved'))
    commands.push({ field: 'status', command: { kind: 'setMarketStatus', marketId, status } })
  }
  const unknown = Object.keys(body).filter((key) => !['tick_size', 'fee_rate_bps', 'status'].includes(key))
  if (unknown.length > 0) throw invalid(unknown[0]!, `unknown field ${unknown[0]}: use status, tick_size or fee_rate_bps`)
  if (commands.length === 0) throw invalid('body', 'nothing to change: give status, tick_size or fee_rate_bps')
  const applied: string[] = []
  for (const { field, command } of commands) {
    const { result } = await submitCommand(context, command)
    if (!result.ok) {
      const error = rejectionError(result as never)
      throw new PredexError(error.code, error.message, { ...error.context, field, applied })
    }
    applied.push(field)
  }
  return recordOf(context, marketId)
}

async function stats(context: ServiceContext): Promise<Record<string, unknown>> {
  const answer = await context.host.query({ kind: 'status' })
  if (answer.kind !== 'status') throw new PredexError(ApiCode.INTERNAL, 'unexpected answer to status')
  const byStatus = Object.fromEntries(STATUSES.map((status) => [status, 0]))
  for (const market of context.read.markets.values()) byStatus[market.status]!++
  let volumeMicros = 0
  for (const stats of context.read.tokenStats.values()) volumeMicros += stats.volumeMicros
  return {
    seq: answer.seq, markets: context.read.markets.size, markets_by_status: byStatus, open_orders: answer.openOrders,
    orders: context.read.orders.size, trades: context.read.trades.size, traders: context.read.ordersByMaker.size,
    // Each trade counts on both tokens when it mints or merges; this is the sum over tokens, as /markets reports per market.
    volume: decimalOfMicros(volumeMicros), api_keys: context.credentials.size,
    uptime_sec: Math.floor((context.nowMs() - context.startedMs) / 1000),
  }
}

export const adminRoutes: Route<ServiceContext>[] = [
  { method: 'POST', path: '/admin/markets', auth: 'admin', bodyMax: REST_SMALL_BODY_BYTES_MAX * 4, surface: 'native',
    openapi: { tag: 'admin', summary: 'Lists a new market (201 with its full record)',
      body: '{question, slug?, description?, tick_size: "0.01", min_order_size: "5", fee_rate_bps: 0, neg_risk: false, end_date?, status?: Active|Upcoming}',
      response: 'Market (201)' },
    handler: async (request, _identity, context) => ({ status: 201,
      body: await createMarket(context, requireObject(parseJsonBody(request.body), 'body')) }) },
  { method: 'PATCH', path: '/admin/markets/:id', auth: 'admin', bodyMax: REST_SMALL_BODY_BYTES_MAX, surface: 'native',
    openapi: { tag: 'admin', summary: 'Changes status (lifecycle of docs/engine.md), tick size or fee rate',
      body: '{status?, tick_size?, fee_rate_bps?}', response: 'Market' },
    handler: async (request, _identity, context) => ({
      body: await updateMarket(context, marketById(context, request.params[0]!), requireObject(parseJsonBody(request.body), 'body')) }) },
  { method: 'POST', path: '/admin/markets/:id/resolve', auth: 'admin', bodyMax: REST_SMALL_BODY_BYTES_MAX, surface: 'native',
    openapi: { tag: 'admin', summary: 'Resolves a market: cancels its open orders (releasing their holds) and opens redemption',
      body: '{outcome: Yes|No}', response: 'Market' },
    handler: async (request, _identity, context) => {
      const market = marketById(context, request.params[0]!)
      const outcome = requireObject(parseJsonBody(request.body), 'body').outcome
      if (outcome !== 'Yes' && outcome !== 'No') throw invalid('outcome', 'outcome must be "Yes" or "No"')
      await run(context, { kind: 'resolveMarket', marketId: market.marketId, outcome: outcome as Outcome })
      return { body: recordOf(context, market.marketId) }
    } },
  { method: 'GET', path: '/admin/stats', auth: 'admin', bodyMax: 0, surface: 'native',
    openapi: { tag: 'admin', summary: "The exchange's counts: markets by status, orders, trades, traders, volume, API keys",
      response: '{seq, markets, markets_by_status, open_orders, orders, trades, traders, volume, api_keys, uptime_sec}' },
    handler: async (_request, _identity, context) => ({ body: await stats(context) }) },
]
