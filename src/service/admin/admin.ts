/**
 * Administration, for every face: list a market, change its status, tick size or fee rate,
 * resolve it, and the exchange's statistics. Every change is one journaled engine command; the
 * engine enforces the lifecycle (docs/engine.md, "Markets"). A market's terms are checked first
 * with the rulebook's own functions, so that bad admin input is answered at once and never
 * becomes a journaled (refused) command.
 */
import type { MarketInput, MarketStatus, Outcome, UnstampedCommand } from '../../engine/command.js'
import type { MarketRecord } from '../../engine/event.js'
import {
  isFeeRateBps,
  isMinOrderSizeMicros,
  isTickSizeMicros,
  MARKET_STATUSES,
  TICK_SIZES_MICROS,
} from '../../engine/rules.js'
import { decimalOfMicros } from '../../stdx/decimal.js'
import { ApiCode, PredexError } from '../../errors.js'
import { FEE_RATE_BPS_MAX, MICROS_PER_LOT, ORDER_AMOUNT_MICROS_MAX } from '../../limits.js'
import { accepted, rejectionError, submit } from '../commands.js'
import type { ServiceContext } from '../context.js'
import { newChainMarketIds, newMarketIds, questionIdOf } from '../market-data/market-ids.js'
import { onChain } from '../testnet/chain-call.js'
import { resolveChainMarket } from '../../chain/chain-markets.js'

export const SLUG_LENGTH_MAX = 96

function invalid(field: string, message: string, context: Readonly<Record<string, unknown>> = {}): PredexError {
  return new PredexError(ApiCode.INVALID_PARAMETER, message, { field, ...context })
}

// ---- A market's terms, as the engine's rulebook has them, named by the admin fields -----------------

function checkTickSize(tickSizeMicros: number): void {
  if (isTickSizeMicros(tickSizeMicros)) return
  const allowed = TICK_SIZES_MICROS.map(decimalOfMicros)
  throw invalid('tick_size', `tick_size must be one of ${allowed.join(', ')}`, { allowed })
}

function checkFeeRate(feeRateBps: number): void {
  if (isFeeRateBps(feeRateBps)) return
  throw invalid('fee_rate_bps', `fee_rate_bps is larger than ${FEE_RATE_BPS_MAX}`, { max: FEE_RATE_BPS_MAX })
}

function checkMinOrderSize(minOrderSizeMicros: number): void {
  if (isMinOrderSizeMicros(minOrderSizeMicros)) return
  throw invalid('min_order_size', `min_order_size must be a multiple of ${decimalOfMicros(MICROS_PER_LOT)} shares, `
    + `at most ${decimalOfMicros(ORDER_AMOUNT_MICROS_MAX)}`)
}

function checkSlug(slug: string): void {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(slug)) throw invalid('slug', 'slug must be lower-case letters, digits and "-"')
}

/** A slug from a question: lower case, words joined by '-', at most SLUG_LENGTH_MAX characters. */
function slugOf(question: string): string {
  const words = question.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')
  return words.slice(0, SLUG_LENGTH_MAX).replace(/-+$/, '')
}

/** The market as the read model holds it once its command is durable. */
function recordOf(context: ServiceContext, marketId: string): MarketRecord {
  const market = context.read.markets.get(marketId)
  if (market === undefined) throw new PredexError(ApiCode.INTERNAL, 'the market is journaled but not in the read model')
  return market
}

// ---- Use cases ------------------------------------------------------------------------------------------

/** A market to list: the engine's MarketInput without its ids, which are made here. */
export interface NewMarket extends Omit<MarketInput, 'marketId' | 'conditionId' | 'yesTokenId' | 'noTokenId' | 'slug'> {
  /** null: made from the question. */
  readonly slug: string | null
}

/** Lists a new market with fresh ids; answers its record. */
export async function createMarket(context: ServiceContext, market: NewMarket): Promise<MarketRecord> {
  const slug = market.slug ?? slugOf(market.question)
  checkSlug(slug)
  checkTickSize(market.tickSizeMicros)
  checkMinOrderSize(market.minOrderSizeMicros)
  checkFeeRate(market.feeRateBps)
  const ids = context.chain.clients === null ? newMarketIds() : await newChainMarketIds(context.chain.clients)
  const { result } = await submit(context, { kind: 'createMarket', market: { ...ids, ...market, slug } })
  accepted(result)
  return recordOf(context, ids.marketId)
}

/** The changes of one update; absent fields stay as they are. Resolution has its own use case. */
export interface MarketChanges {
  readonly tickSizeMicros?: number
  readonly feeRateBps?: number
  readonly status?: Exclude<MarketStatus, 'Resolved'>
}

/**
 * Applies the changes, each as its own command: tick size, fee rate, then status (so a market
 * reopened with a new tick opens on it). All are checked first; if the engine refuses one, the
 * ones before it stay applied and the error says which were (`applied`, by admin field name).
 */
export async function updateMarket(context: ServiceContext, marketId: string,
  changes: MarketChanges): Promise<MarketRecord> {
  const commands: { field: string; command: UnstampedCommand }[] = []
  if (changes.tickSizeMicros !== undefined) {
    checkTickSize(changes.tickSizeMicros)
    const tickSizeMicros = changes.tickSizeMicros
    commands.push({ field: 'tick_size', command: { kind: 'setTickSize', marketId, tickSizeMicros } })
  }
  if (changes.feeRateBps !== undefined) {
    checkFeeRate(changes.feeRateBps)
    commands.push({ field: 'fee_rate_bps', command: { kind: 'setFeeRate', marketId, feeRateBps: changes.feeRateBps } })
  }
  if (changes.status !== undefined) {
    commands.push({ field: 'status', command: { kind: 'setMarketStatus', marketId, status: changes.status } })
  }
  if (commands.length === 0) throw invalid('body', 'nothing to change: give status, tick_size or fee_rate_bps')
  const applied: string[] = []
  for (const { field, command } of commands) {
    const { result } = await submit(context, command)
    if (!result.ok) {
      const error = rejectionError(result)
      throw new PredexError(error.code, error.message, { ...error.context, field, applied })
    }
    applied.push(field)
  }
  return recordOf(context, marketId)
}

/**
 * Resolves a market: cancels its open orders (releasing their holds) and opens redemption. On a
 * real chain the operator then reports the outcome to the Conditional Tokens, after the engine
 * (so a redemption on chain always finds the market resolved in the ledger): when that fails
 * (503), resolving again with the same outcome reports it without resolving twice.
 */
export async function resolveMarket(context: ServiceContext, marketId: string,
  outcome: Outcome): Promise<MarketRecord> {
  const clients = context.chain.clients
  const known = context.read.markets.get(marketId)
  const reportOnly = clients !== null && known?.status === 'Resolved' && known.winningOutcome === outcome
  if (!reportOnly) {
    const { result } = await submit(context, { kind: 'resolveMarket', marketId, outcome })
    accepted(result)
  }
  if (clients !== null) await onChain(() => resolveChainMarket(clients, questionIdOf(marketId), outcome))
  return recordOf(context, marketId)
}

export interface ExchangeCounts {
  readonly seq: number
  readonly markets: number
  readonly marketsByStatus: Readonly<Record<MarketStatus, number>>
  readonly openOrders: number
  readonly orders: number
  readonly trades: number
  readonly traders: number
  /** Summed over tokens: each trade counts on both tokens when it mints or merges, as markets report it. */
  readonly volumeMicros: number
  readonly apiKeys: number
  readonly uptimeSec: number
}

/** The exchange's counts: markets by status, orders, trades, traders, volume, API keys. */
export async function exchangeCounts(context: ServiceContext): Promise<ExchangeCounts> {
  const answer = await context.host.query({ kind: 'status' })
  if (answer.kind !== 'status') throw new PredexError(ApiCode.INTERNAL, 'unexpected answer to status')
  const marketsByStatus = {} as Record<MarketStatus, number>
  for (const status of MARKET_STATUSES) marketsByStatus[status] = 0
  for (const market of context.read.markets.values()) marketsByStatus[market.status]++
  let volumeMicros = 0
  for (const stats of context.read.tokenStats.values()) volumeMicros += stats.volumeMicros
  return {
    seq: answer.seq, markets: context.read.markets.size, marketsByStatus, openOrders: answer.openOrders,
    orders: context.read.totals.orders, trades: context.read.totals.trades, traders: context.read.totals.traders,
    volumeMicros, apiKeys: context.credentials.size,
    uptimeSec: Math.floor((context.nowMs() - context.startedMs) / 1000),
  }
}

export interface EngineStateHash {
  readonly seq: number
  /** The engine's canonical state hash (docs/engine.md, "Snapshots"): equal states, equal hashes. */
  readonly stateHash: string
  readonly invariantsHold: boolean
}

/**
 * The engine's state hash at its current seq: what the soak and fuzz runs compare with an
 * independent replay of the journal, and an operator with a replica. It hashes the whole state,
 * so it costs a snapshot's time: admin only.
 */
export async function engineStateHash(context: ServiceContext): Promise<EngineStateHash> {
  const answer = await context.host.query({ kind: 'stateHash' })
  if (answer.kind !== 'stateHash') throw new PredexError(ApiCode.INTERNAL, 'unexpected answer to stateHash')
  return { seq: answer.seq, stateHash: answer.stateHash, invariantsHold: answer.invariantsHold }
}
