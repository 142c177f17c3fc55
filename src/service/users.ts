/**
 * Users' public data (api.md, "users"), for any address, without authentication, as a block
 * explorer would show it: profile and stats, portfolio history, open orders, trades, balances,
 * redemptions and the ledger's events. Amounts are micro-units; faces format them and leave out
 * anything private (an order's `owner` is an API key).
 */
import type { ShareSummary } from '../engine/summary.js'
import { notionalMicros } from '../engine/units.js'
import { portfolioOf, type Milestone } from '../read/portfolio.js'
import type { LedgerRecord, OrderRecord, TradeRecord } from '../read/read-model.js'
import { accountOf } from './account.js'
import type { ServiceContext } from './context.js'

export interface Profile {
  readonly address: string
  /** First order, trade or ledger event; null if the address never appeared. */
  readonly firstSeenMs: number | null
  readonly tradesCount: number
  /** USDC traded, at each side's own price. */
  readonly volumeMicros: number
  readonly marketsTraded: number
  /** By average cost (read/portfolio.ts); may be negative. */
  readonly realizedPnlMicros: number
  readonly openOrdersCount: number
}

export function profileOf(context: ServiceContext, address: string): Profile {
  const trades = tradesOfAddress(context, address)
  const orders = ordersOfAddress(context, address)
  const ledger = ledgerOf(context, address)
  const firstMs = Math.min(trades[0]?.timeMs ?? Infinity, orders[0]?.createdMs ?? Infinity,
    ledger[0]?.timeMs ?? Infinity)
  let volumeMicros = 0
  for (const trade of trades) {
    const taker = trade.takerAddress === address
    volumeMicros += notionalMicros(taker ? trade.priceMicros : trade.makerPriceMicros, trade.sizeMicros)
  }
  return {
    address, firstSeenMs: Number.isFinite(firstMs) ? firstMs : null, tradesCount: trades.length, volumeMicros,
    marketsTraded: new Set(trades.map((t) => t.marketId)).size,
    realizedPnlMicros: portfolioOf(context.read, address).realizedPnlMicros,
    openOrdersCount: orders.filter((o) => o.status === 'LIVE').length,
  }
}

/** Every position change with the running USDC balance and positions, oldest first. */
export function milestonesOf(context: ServiceContext, address: string): readonly Milestone[] {
  return portfolioOf(context.read, address).milestones
}

export function openOrdersOfAddress(context: ServiceContext, address: string): OrderRecord[] {
  return ordersOfAddress(context, address).filter((o) => o.status === 'LIVE')
}

/** Trades of the address as taker or maker, oldest first. */
export function tradesOfAddress(context: ServiceContext, address: string): TradeRecord[] {
  return (context.read.tradesByAddress.get(address) ?? []).map((id) => context.read.trades.get(id)!)
}

/** The address's ledger events (credit, approve, split, merge, redeem), oldest first. */
export function ledgerOf(context: ServiceContext, address: string): readonly LedgerRecord[] {
  return context.read.ledgerByAddress.get(address) ?? []
}

export function redemptionsOf(context: ServiceContext, address: string): LedgerRecord[] {
  return ledgerOf(context, address).filter((r) => r.action === 'redeem')
}

export interface TokenBalance extends ShareSummary {
  readonly marketId: string | null
  readonly outcome: 'Yes' | 'No' | null
}

export interface Balances {
  readonly usdcMicros: number
  readonly usdcHeldMicros: number
  readonly tokens: readonly TokenBalance[]
}

/** USDC and outcome-token balances, exact, from the engine. */
export async function balancesOf(context: ServiceContext, address: string): Promise<Balances> {
  const account = await accountOf(context, address)
  const tokens = (account?.shares ?? []).map((s): TokenBalance => {
    const market = context.read.markets.get(context.read.tokens.get(s.tokenId) ?? '')
    const outcome = market === undefined ? null : s.tokenId === market.yesTokenId ? 'Yes' : 'No'
    return { ...s, marketId: market?.marketId ?? null, outcome }
  })
  return { usdcMicros: account?.usdcMicros ?? 0, usdcHeldMicros: account?.usdcHeldMicros ?? 0, tokens }
}

function ordersOfAddress(context: ServiceContext, address: string): OrderRecord[] {
  return (context.read.ordersByMaker.get(address) ?? []).map((id) => context.read.orders.get(id)!)
}
