/**
 * Market administration: listing a market, its lifecycle, tick size and fee rate, and its
 * resolution. Ids (market id, condition id, token ids) are made by the host and arrive with the
 * command, so the engine stays free of randomness.
 */
import { Code } from './codes.js'
import type {
  MarketInput,
  MarketStatus,
  ResolveMarket,
  SetFeeRate,
  SetMarketStatus,
  SetTickSize,
} from './command.js'
import type { Engine } from './engine.js'
import type { CancelReason } from './event.js'
import { cancelResting } from './lifecycle.js'
import { MARKETS_MAX, MICROS_PER_PIP, TEXT_LENGTH_MAX } from './limits.js'
import { Market, isTransitionAllowed } from './market.js'
import { isId, isSafeCount } from './order-shape.js'
import { isFeeRateBps, isMarketStatus, isMinOrderSizeMicros, isTickSizeMicros } from './rules.js'
import { NO_ROW, type OrderRow } from './order-table.js'
import { rejection } from './rejection.js'
import type { Done, Rejection } from './result.js'

const DONE: Done = { ok: true }

export function createMarket(engine: Engine, input: MarketInput): Done | Rejection {
  const field = firstBadMarketField(input)
  if (field !== null) return rejection(Code.MARKET_INVALID, { field })
  if (engine.markets.length >= MARKETS_MAX) return rejection(Code.MARKETS_FULL, { max: MARKETS_MAX })
  const taken = firstTakenMarketField(engine, input)
  if (taken !== null) return rejection(Code.MARKET_EXISTS, { field: taken })
  const market = new Market(
    engine.markets.length, input.marketId, input.conditionId, input.question, input.slug,
    input.description, input.yesTokenId, input.noTokenId, input.tickSizeMicros / MICROS_PER_PIP,
    input.minOrderSizeMicros, input.feeRateBps, input.negRisk, input.endDateMs, input.status,
    engine.timeMs, engine.touches, engine.orderTable,
  )
  engine.addMarket(market)
  engine.emit({ type: 'marketCreated', market: market.record() })
  return DONE
}

function isText(value: unknown, emptyAllowed: boolean): boolean {
  return typeof value === 'string' && value.length <= TEXT_LENGTH_MAX && (emptyAllowed || value.length > 0)
}

function firstBadMarketField(input: MarketInput): string | null {
  if (!isId(input.marketId)) return 'marketId'
  if (!isId(input.conditionId)) return 'conditionId'
  if (!isText(input.question, false)) return 'question'
  if (!isId(input.slug)) return 'slug'
  if (!isText(input.description, true)) return 'description'
  if (!isId(input.yesTokenId)) return 'yesTokenId'
  if (!isId(input.noTokenId) || input.noTokenId === input.yesTokenId) return 'noTokenId'
  if (!isTickSizeMicros(input.tickSizeMicros)) return 'tickSizeMicros'
  if (!isMinOrderSizeMicros(input.minOrderSizeMicros)) return 'minOrderSizeMicros'
  if (!isFeeRateBps(input.feeRateBps)) return 'feeRateBps'
  if (typeof input.negRisk !== 'boolean') return 'negRisk'
  if (!isSafeCount(input.endDateMs)) return 'endDateMs'
  if (input.status !== 'Active' && input.status !== 'Upcoming') return 'status'
  return null
}

function firstTakenMarketField(engine: Engine, input: MarketInput): string | null {
  if (engine.marketsById.has(input.marketId)) return 'marketId'
  if (engine.marketsByConditionId.has(input.conditionId)) return 'conditionId'
  if (engine.marketsBySlug.has(input.slug)) return 'slug'
  if (engine.tokens.has(input.yesTokenId)) return 'yesTokenId'
  if (engine.tokens.has(input.noTokenId)) return 'noTokenId'
  return null
}

export function setMarketStatus(engine: Engine, command: SetMarketStatus): Done | Rejection {
  const market = engine.marketsById.get(command.marketId)
  if (market === undefined) return rejection(Code.MARKET_NOT_FOUND, { marketId: command.marketId })
  const to: MarketStatus = command.status
  if (!isMarketStatus(to)) return rejection(Code.MARKET_STATUS_TRANSITION, { from: market.status, to: String(to) })
  if (to === market.status) return DONE
  if (!isTransitionAllowed(market.status, to)) {
    return rejection(Code.MARKET_STATUS_TRANSITION, { from: market.status, to })
  }
  if (to === 'Closed' || to === 'Resolving') cancelMarket(engine, market, 'market-closed')
  market.status = to
  emitMarketUpdated(engine, market)
  return DONE
}

export function setTickSize(engine: Engine, command: SetTickSize): Done | Rejection {
  const market = engine.marketsById.get(command.marketId)
  if (market === undefined) return rejection(Code.MARKET_NOT_FOUND, { marketId: command.marketId })
  const tickSizeMicros = command.tickSizeMicros
  if (!isTickSizeMicros(tickSizeMicros)) {
    return rejection(Code.MARKET_TICK_SIZE_INVALID, { tickSizeMicros: Number(tickSizeMicros) })
  }
  const tickPips = tickSizeMicros / MICROS_PER_PIP
  if (tickPips === market.tickPips) return DONE
  if (!market.book.isOnGrid(tickPips)) return rejection(Code.MARKET_TICK_SIZE_OFF_GRID, { tickSizeMicros })
  market.book.retick(tickPips)
  market.tickPips = tickPips
  emitMarketUpdated(engine, market)
  return DONE
}

export function setFeeRate(engine: Engine, command: SetFeeRate): Done | Rejection {
  const market = engine.marketsById.get(command.marketId)
  if (market === undefined) return rejection(Code.MARKET_NOT_FOUND, { marketId: command.marketId })
  const feeRateBps = command.feeRateBps
  if (!isFeeRateBps(feeRateBps)) {
    return rejection(Code.MARKET_FEE_RATE_INVALID, { feeRateBps: Number(feeRateBps) })
  }
  if (feeRateBps === market.feeRateBps) return DONE
  market.feeRateBps = feeRateBps
  emitMarketUpdated(engine, market)
  return DONE
}

export function resolveMarket(engine: Engine, command: ResolveMarket): Done | Rejection {
  const market = engine.marketsById.get(command.marketId)
  if (market === undefined) return rejection(Code.MARKET_NOT_FOUND, { marketId: command.marketId })
  if (command.outcome !== 'Yes' && command.outcome !== 'No') return rejection(Code.MARKET_INVALID, { field: 'outcome' })
  if (market.status === 'Resolved') {
    return rejection(Code.MARKET_STATUS_TRANSITION, { from: 'Resolved', to: 'Resolved' })
  }
  cancelMarket(engine, market, 'market-resolved')
  market.status = 'Resolved'
  market.winningOutcome = command.outcome
  market.resolvedMs = engine.timeMs
  emitMarketUpdated(engine, market)
  return DONE
}

/** Cancels every open order of the market, oldest first. */
function cancelMarket(engine: Engine, market: Market, reason: CancelReason): void {
  const o = engine.orderTable
  const orders: OrderRow[] = []
  for (const level of market.book.levels()) {
    for (let order = level.head; order !== NO_ROW; order = o.next[order]!) orders.push(order)
  }
  orders.sort((a, b) => o.orderNumber[a]! - o.orderNumber[b]!)
  for (const order of orders) cancelResting(engine, order, reason)
}

function emitMarketUpdated(engine: Engine, market: Market): void {
  engine.emit({
    type: 'marketUpdated',
    marketId: market.marketId,
    status: market.status,
    tickSizeMicros: market.tickPips * MICROS_PER_PIP,
    feeRateBps: market.feeRateBps,
    winningOutcome: market.winningOutcome,
    resolvedMs: market.resolvedMs,
  })
}
