/**
 * Markets: creation, status transitions, tick size, fee rate, resolution.
 */
import type {
  CreateMarket,
  MarketInput,
  MarketStatus,
  ResolveMarket,
  SetFeeRate,
  SetMarketStatus,
  SetTickSize,
} from '../../../src/engine/command.js'
import type { CancelReason, MarketRecord } from '../../../src/engine/event.js'
import type { CommandResult } from '../../../src/engine/result.js'
import { Code } from '../../../src/engine/codes.js'
import {
  FEE_RATE_BPS_MAX,
  MARKETS_MAX,
  MICROS_PER_LOT,
  MICROS_PER_PIP,
  ORDER_AMOUNT_MICROS_MAX,
  TICK_PIPS_ALLOWED,
} from '../../../src/engine/limits.js'
import { end } from './matching.js'
import {
  DONE,
  type MarketState,
  ReferenceState,
  type Refusal,
  type Step,
  findMarket,
  refuse,
  rejection,
} from './state.js'
import { isId, isNonNegativeInt, isText } from './validation.js'

export const TRANSITIONS: Readonly<Record<MarketStatus, readonly MarketStatus[]>> = {
  Upcoming: ['Active', 'Closed'],
  Active: ['Paused', 'Closed', 'Resolving'],
  Paused: ['Active', 'Closed', 'Resolving'],
  Closed: ['Resolving'],
  Resolving: ['Closed'],
  Resolved: [],
}

export function isTick(tickSizeMicros: unknown): boolean {
  return TICK_PIPS_ALLOWED.some((t) => t * MICROS_PER_PIP === tickSizeMicros)
}

export function isFeeRate(rate: unknown): boolean {
  return typeof rate === 'number' && Number.isSafeInteger(rate) && rate >= 0 && rate <= FEE_RATE_BPS_MAX
}

/** The first malformed field of a new market, in the order docs/engine.md checks them. */
export function marketShapeError(m: MarketInput): string | null {
  const checks: readonly (readonly [string, () => boolean])[] = [
    ['marketId', () => isId(m.marketId)],
    ['conditionId', () => isId(m.conditionId)],
    ['question', () => isText(m.question) && m.question.length > 0],
    ['slug', () => isId(m.slug)],
    ['description', () => isText(m.description)],
    ['yesTokenId', () => isId(m.yesTokenId)],
    ['noTokenId', () => isId(m.noTokenId) && m.noTokenId !== m.yesTokenId],
    ['tickSizeMicros', () => isTick(m.tickSizeMicros)],
    ['minOrderSizeMicros', () => isNonNegativeInt(m.minOrderSizeMicros) &&
      m.minOrderSizeMicros % MICROS_PER_LOT === 0 && m.minOrderSizeMicros <= ORDER_AMOUNT_MICROS_MAX],
    ['feeRateBps', () => isFeeRate(m.feeRateBps)],
    ['negRisk', () => typeof m.negRisk === 'boolean'],
    ['endDateMs', () => isNonNegativeInt(m.endDateMs)],
    ['status', () => m.status === 'Active' || m.status === 'Upcoming'],
  ]
  return checks.find(([, ok]) => !ok())?.[0] ?? null
}

export function marketRecord(m: MarketState): MarketRecord {
  const i = m.input
  return {
    marketId: i.marketId,
    conditionId: i.conditionId,
    question: i.question,
    slug: i.slug,
    description: i.description,
    yesTokenId: i.yesTokenId,
    noTokenId: i.noTokenId,
    tickSizeMicros: m.tickPips * MICROS_PER_PIP,
    minOrderSizeMicros: i.minOrderSizeMicros,
    feeRateBps: m.feeRateBps,
    negRisk: i.negRisk,
    endDateMs: i.endDateMs,
    status: m.status,
    createdMs: m.createdMs,
    winningOutcome: m.winningOutcome,
    resolvedMs: m.resolvedMs,
  }
}

export function createMarket(r: ReferenceState, c: CreateMarket, step: Step): CommandResult {
  const refusal = marketInputRefusal(r, c.market)
  if (refusal !== null) return rejection(refusal)
  const m = c.market
  const market: MarketState = {
    input: m,
    createdMs: r.timeMs,
    status: m.status,
    tickPips: m.tickSizeMicros / MICROS_PER_PIP,
    feeRateBps: m.feeRateBps,
    winningOutcome: null,
    resolvedMs: 0,
    collateral: 0n,
    minted: 0n,
    merged: 0n,
    redeemedYes: 0n,
    redeemedNo: 0n,
  }
  r.markets.push(market)
  r.tokens.set(m.yesTokenId, { marketId: m.marketId, outcome: 'Yes' })
  r.tokens.set(m.noTokenId, { marketId: m.marketId, outcome: 'No' })
  step.events.push({ type: 'marketCreated', market: marketRecord(market) })
  return DONE
}

/** Field checks, then capacity, then uniqueness (docs/engine.md, Market administration). */
export function marketInputRefusal(r: ReferenceState, m: MarketInput): Refusal | null {
  const invalid = marketShapeError(m)
  if (invalid !== null) return refuse(Code.MARKET_INVALID, { field: invalid })
  if (r.markets.length >= MARKETS_MAX) return refuse(Code.MARKETS_FULL, { max: MARKETS_MAX })
  const taken = takenMarketField(r, m)
  if (taken !== null) return refuse(Code.MARKET_EXISTS, { field: taken })
  return null
}

export function takenMarketField(r: ReferenceState, m: MarketInput): string | null {
  const has = (f: (x: MarketInput) => string, v: string): boolean =>
    r.markets.some((x) => f(x.input) === v)
  if (has((x) => x.marketId, m.marketId)) return 'marketId'
  if (has((x) => x.conditionId, m.conditionId)) return 'conditionId'
  if (has((x) => x.slug, m.slug)) return 'slug'
  if (r.tokens.has(m.yesTokenId)) return 'yesTokenId'
  if (r.tokens.has(m.noTokenId)) return 'noTokenId'
  return null
}

export function setMarketStatus(r: ReferenceState, c: SetMarketStatus, step: Step): CommandResult {
  const market = findMarket(r, c.marketId)
  if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
  // The current status again is accepted and does nothing, even Resolved (unlike a second
  // resolveMarket).
  if (market.status === c.status) return DONE
  if (!TRANSITIONS[market.status].includes(c.status)) {
    return rejection(refuse(Code.MARKET_STATUS_TRANSITION, { from: market.status, to: c.status }))
  }
  // Closing or moving to Resolving cancels the open orders first, then marketUpdated.
  if (c.status === 'Closed' || c.status === 'Resolving') cancelMarket(r, market, 'market-closed', step)
  market.status = c.status
  emitMarketUpdated(market, step)
  return DONE
}

export function setTickSize(r: ReferenceState, c: SetTickSize, step: Step): CommandResult {
  const market = findMarket(r, c.marketId)
  if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
  if (!isTick(c.tickSizeMicros)) {
    return rejection(refuse(Code.MARKET_TICK_SIZE_INVALID, { tickSizeMicros: c.tickSizeMicros }))
  }
  const tickPips = c.tickSizeMicros / MICROS_PER_PIP
  if (tickPips === market.tickPips) return DONE
  const offGrid = r.live.some((o) => o.marketId === c.marketId && o.pips % tickPips !== 0)
  if (offGrid) {
    return rejection(refuse(Code.MARKET_TICK_SIZE_OFF_GRID, { tickSizeMicros: c.tickSizeMicros }))
  }
  market.tickPips = tickPips
  emitMarketUpdated(market, step)
  return DONE
}

export function setFeeRate(r: ReferenceState, c: SetFeeRate, step: Step): CommandResult {
  const market = findMarket(r, c.marketId)
  if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
  if (!isFeeRate(c.feeRateBps)) {
    return rejection(refuse(Code.MARKET_FEE_RATE_INVALID, { feeRateBps: c.feeRateBps }))
  }
  if (c.feeRateBps === market.feeRateBps) return DONE
  market.feeRateBps = c.feeRateBps
  emitMarketUpdated(market, step)
  return DONE
}

export function resolveMarket(r: ReferenceState, c: ResolveMarket, step: Step): CommandResult {
  const market = findMarket(r, c.marketId)
  if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
  if (c.outcome !== 'Yes' && c.outcome !== 'No') {
    return rejection(refuse(Code.MARKET_INVALID, { field: 'outcome' }))
  }
  if (market.status === 'Resolved') {
    return rejection(refuse(Code.MARKET_STATUS_TRANSITION, { from: 'Resolved', to: 'Resolved' }))
  }
  cancelMarket(r, market, 'market-resolved', step)
  market.status = 'Resolved'
  market.winningOutcome = c.outcome
  market.resolvedMs = r.timeMs
  emitMarketUpdated(market, step)
  return DONE
}

export function cancelMarket(r: ReferenceState, market: MarketState, reason: CancelReason, step: Step): void {
  const targets = r.live.filter((o) => o.marketId === market.input.marketId)
  for (const o of targets) end(r, o, 'CANCELED', reason, step)
}

export function emitMarketUpdated(market: MarketState, step: Step): void {
  step.events.push({
    type: 'marketUpdated',
    marketId: market.input.marketId,
    status: market.status,
    tickSizeMicros: market.tickPips * MICROS_PER_PIP,
    feeRateBps: market.feeRateBps,
    winningOutcome: market.winningOutcome,
    resolvedMs: market.resolvedMs,
  })
}
