/**
 * Read-only views of the engine's state: books per token (own or unified), accounts, orders,
 * and the canonical summary that the simulation compares. Nothing here changes state.
 */
import type { Account } from './account.js'
import type { Level } from './book.js'
import type { Engine } from './engine.js'
import { MICROS_PER_LOT, MICROS_PER_PIP, PIPS_PER_UNIT } from './limits.js'
import type { Market } from './market.js'
import { orderStatusOf } from './order-index.js'
import { NO_ROW, type OrderRow } from './order-table.js'
import { TIME_IN_FORCE_CODES } from './event-log.js'
import type { AccountSummary, OpenOrderSummary, StateSummary } from './summary.js'

export interface BookEntry {
  readonly priceMicros: number
  readonly sizeMicros: number
}

export interface BookView {
  readonly marketId: string
  readonly tokenId: string
  /** Best first. */
  readonly bids: readonly BookEntry[]
  /** Best first. */
  readonly asks: readonly BookEntry[]
}

/**
 * The book of a token: its own orders only, or (`unified`) every order of the market seen from
 * this token, including the implied liquidity of the other token. Null for an unknown token.
 */
export function bookOf(engine: Engine, tokenId: string, unified: boolean, depthMax = Infinity): BookView | null {
  const token = engine.tokens.get(tokenId)
  if (token === undefined) return null
  const book = token.market.book
  const isNo = token.isNo
  // For the No token, its bids are Yes-space asks and its asks are Yes-space bids.
  const bids = entries(book.side(!isNo), isNo, unified, depthMax)
  const asks = entries(book.side(isNo), isNo, unified, depthMax)
  return { marketId: token.market.marketId, tokenId, bids, asks }
}

function entries(levels: Iterable<Level>, isNo: boolean, unified: boolean, depthMax: number): BookEntry[] {
  const result: BookEntry[] = []
  for (const level of levels) {
    if (result.length >= depthMax) break
    const lots = unified ? level.lots : isNo ? level.noLots : level.lots - level.noLots
    if (lots === 0) continue
    const pips = isNo ? PIPS_PER_UNIT - level.pips : level.pips
    result.push({ priceMicros: pips * MICROS_PER_PIP, sizeMicros: lots * MICROS_PER_LOT })
  }
  return result
}

/** The canonical summary of the whole state (src/engine/summary.ts). */
export function summaryOf(engine: Engine): StateSummary {
  const accounts = [...engine.accounts].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
  const openOrders: OpenOrderSummary[] = []
  for (const market of engine.markets) collectOpenOrders(engine, market, openOrders)
  openOrders.sort((a, b) => a.orderNumber - b.orderNumber)
  const orderStatuses: { orderId: string; status: string }[] = []
  engine.orders.forEach((orderId, entry) => orderStatuses.push({ orderId, status: orderStatusOf(entry) }))
  orderStatuses.sort((a, b) => (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0))
  return {
    seq: engine.seq,
    timeMs: engine.timeMs,
    creditedMicros: engine.creditedMicros,
    feesMicros: engine.feesMicros,
    accounts: accounts.map(accountSummaryOf),
    openOrders,
    markets: engine.markets.map((market) => ({
      marketId: market.marketId,
      status: market.status,
      tickSizeMicros: market.tickPips * MICROS_PER_PIP,
      feeRateBps: market.feeRateBps,
      winningOutcome: market.winningOutcome,
      collateralMicros: market.collateralMicros,
      mintedMicros: market.mintedMicros,
      mergedMicros: market.mergedMicros,
      redeemedYesMicros: market.redeemedYesMicros,
      redeemedNoMicros: market.redeemedNoMicros,
    })),
    orderStatuses,
  }
}

export function accountSummaryOf(account: Account): AccountSummary {
  const shares = [...account.shares.values()]
    .filter((s) => s.balanceMicros !== 0 || s.heldMicros !== 0)
    .map((s) => ({ tokenId: s.tokenId, balanceMicros: s.balanceMicros, heldMicros: s.heldMicros }))
    .sort((a, b) => (a.tokenId < b.tokenId ? -1 : a.tokenId > b.tokenId ? 1 : 0))
  return {
    address: account.address,
    usdcMicros: account.usdcMicros,
    usdcHeldMicros: account.usdcHeldMicros,
    usdcAllowanceMicros: account.usdcAllowanceMicros,
    sharesApproved: account.sharesApproved,
    gasMicros: account.gasMicros,
    relayNonce: account.relayNonce,
    shares,
  }
}

function collectOpenOrders(engine: Engine, market: Market, into: OpenOrderSummary[]): void {
  const o = engine.orderTable
  for (const level of market.book.levels()) {
    for (let order = level.head; order !== NO_ROW; order = o.next[order]!) into.push(openOrderSummaryOf(engine, order))
  }
}

export function openOrderSummaryOf(engine: Engine, order: OrderRow): OpenOrderSummary {
  const o = engine.orderTable
  const isBuy = o.isBuy[order] === 1
  const pips = o.pips[order]!
  const lots = o.lots[order]!
  return {
    orderNumber: o.orderNumber[order]!,
    orderId: o.orderId[order]!,
    maker: o.account[order]!.address,
    tokenId: o.tokenId(order),
    side: isBuy ? 'BUY' : 'SELL',
    timeInForce: TIME_IN_FORCE_CODES[o.timeInForce[order]!]!,
    priceMicros: pips * MICROS_PER_PIP,
    remainingMicros: lots * MICROS_PER_LOT,
    sizeMatchedMicros: o.matchedLots[order]! * MICROS_PER_LOT,
    heldMicros: isBuy ? pips * lots : lots * MICROS_PER_LOT,
  }
}
