/**
 * Users' public data (api.md, "users"), for any address, without authentication, as a block
 * explorer would show it: profile and stats, portfolio history, open orders, trades, balances,
 * redemptions and the ledger's events. Amounts are micro-units; faces format them and leave out
 * anything private (an order's `owner` is an API key).
 *
 * Each read costs what it returns, not the wallet's history (issue 14, finding 6): the profile and
 * the portfolio history are kept as the read model applies events (read/portfolio.ts), lists are
 * paged before their records are looked up, and every page is charged, entry by entry, to the
 * calling client address's budget (RATE_RULES.historyEntries): out of it, RATE_LIMITED with the wait.
 */
import { CostBudget } from '../../auth/cost-budget.js'
import type { ShareSummary } from '../../engine/summary.js'
import { PORTFOLIO_PAGE_ENTRIES_MAX, RATE_RULES } from '../../limits.js'
import type { Milestone, WalletHistory } from '../../read/portfolio.js'
import type { ListItems, ListName } from '../../read/history.js'
import type { LedgerRecord, OrderRecord, TradeRecord } from '../../read/read-model.js'
import { accountOf } from './account.js'
import type { ServiceContext } from '../context.js'

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

/** Which page: `offset` items from the start of the list (newest first for the activity), at most `limit`. */
export interface PageRequest {
  readonly offset: number
  readonly limit: number
}

export interface Paged<T> {
  readonly items: readonly T[]
  /** Where the next page starts; null: this was the last. */
  readonly nextOffset: number | null
}

/** Per server: each client address's budget of entries read (RATE_RULES.historyEntries). */
const budgetByServer = new WeakMap<ServiceContext, CostBudget>()

function budgetOf(context: ServiceContext): CostBudget {
  let budget = budgetByServer.get(context)
  if (budget === undefined) {
    budgetByServer.set(context, budget = new CostBudget(RATE_RULES.historyEntries, 'history entries read'))
  }
  return budget
}

/**
 * Reads for `caller` (the client's network address): refused with RATE_LIMITED while its budget
 * is spent, then charged the entries the read returns (`costOf`).
 */
function charged<T>(context: ServiceContext, caller: string, read: () => T, costOf: (result: T) => number): T {
  const budget = budgetOf(context)
  budget.admit(caller, context.nowMs())
  const result = read()
  budget.spend(caller, costOf(result), context.nowMs())
  return result
}

export function profileOf(context: ServiceContext, address: string, caller: string): Profile {
  return charged(context, caller, () => {
    const { read } = context
    const firstTradeId = read.range('tradesByAddress', address, 0, 1)[0]
    const firstTrade = firstTradeId === undefined ? undefined : read.trade(firstTradeId)
    const firstOrderId = read.range('ordersByMaker', address, 0, 1)[0]
    const firstOrder = firstOrderId === undefined ? undefined : read.order(firstOrderId)
    const firstMs = Math.min(firstTrade?.timeMs ?? Infinity, firstOrder?.createdMs ?? Infinity,
      read.range('ledgerByAddress', address, 0, 1)[0]?.timeMs ?? Infinity)
    const history: WalletHistory | undefined = read.portfolios.of(address)
    return {
      address, firstSeenMs: Number.isFinite(firstMs) ? firstMs : null,
      tradesCount: read.count('tradesByAddress', address),
      volumeMicros: history?.volumeMicros ?? 0, marketsTraded: history?.marketsTraded.size ?? 0,
      realizedPnlMicros: history?.realizedPnlMicros ?? 0, openOrdersCount: read.liveOrdersOfMaker(address).length,
    }
  }, () => 1)
}

/**
 * A page of the wallet's portfolio history (every position change with the running USDC balance
 * and positions), oldest first or, for the activity, newest first. Besides `limit`, a page stops
 * before it passes PORTFOLIO_PAGE_ENTRIES_MAX entries (a milestone and each position it shows).
 */
export function milestonesOf(context: ServiceContext, address: string, page: PageRequest, caller: string,
  newestFirst = false): Paged<Milestone> {
  return charged(context, caller, () => {
    const history = context.read.portfolios.of(address)
    const total = history?.length ?? 0
    if (history === undefined || page.offset >= total) return { items: [], nextOffset: null }
    const tokenOf = context.read.tokenOf.bind(context.read)
    const first = newestFirst ? total - 1 - page.offset : page.offset
    // The page's milestones as kept, in the order it shows them: each costs 1 + its positions.
    const steps = newestFirst ? history.steps(Math.max(0, first - page.limit + 1), first + 1).reverse()
      : history.steps(first, first + page.limit)
    let count = 0
    let entries = 0
    for (const step of steps) {
      entries += 1 + step.positionsCount
      if (count > 0 && entries > PORTFOLIO_PAGE_ENTRIES_MAX) break
      count++
    }
    const items = newestFirst ? history.slice(first - count + 1, first + 1, tokenOf).reverse()
      : history.slice(first, first + count, tokenOf)
    return { items, nextOffset: page.offset + count < total ? page.offset + count : null }
  }, ({ items }) => items.reduce((sum, m) => sum + 1 + Object.keys(m.positions).length, 0))
}

/** The wallet's open orders, oldest first. */
export function openOrdersOfAddress(context: ServiceContext, address: string, page: PageRequest, caller: string):
  Paged<OrderRecord> {
  return charged(context, caller, () => {
    const orders = context.read.liveOrdersOfMaker(address)
    const end = page.offset + page.limit
    return { items: orders.slice(page.offset, end), nextOffset: end < orders.length ? end : null }
  }, ({ items }) => items.length)
}

/** Trades of the address as taker or maker, oldest first. */
export function tradesOfAddress(context: ServiceContext, address: string, page: PageRequest, caller: string):
  Paged<TradeRecord> {
  return pageOf(context, caller, page, 'tradesByAddress', address, (tradeId) => context.read.trade(tradeId)!)
}

/** The address's ledger events (credit, approve, split, merge, redeem), oldest first. */
export function ledgerOf(context: ServiceContext, address: string, page: PageRequest, caller: string):
  Paged<LedgerRecord> {
  return pageOf(context, caller, page, 'ledgerByAddress', address, (record) => record)
}

export function redemptionsOf(context: ServiceContext, address: string, page: PageRequest, caller: string):
  Paged<LedgerRecord> {
  return pageOf(context, caller, page, 'redemptionsByAddress', address, (record) => record)
}

/** A page of the key's list (history.ts), its items looked up once they are on it; one entry each. */
function pageOf<L extends ListName, T>(context: ServiceContext, caller: string, page: PageRequest, list: L,
  key: string, lookup: (item: ListItems[L]) => T): Paged<T> {
  return charged(context, caller, () => {
    const end = page.offset + page.limit
    const items = context.read.range(list, key, page.offset, end).map(lookup)
    return { items, nextOffset: end < context.read.count(list, key) ? end : null }
  }, ({ items }) => items.length)
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
