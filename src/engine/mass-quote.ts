/**
 * Mass quote (docs/engine.md, "Mass quote"): one command sets an API key's whole quote ladder on
 * one market, as Deribit's mass quotes do. What rests already and is named again stays exactly as
 * it is (its place in the queue kept); the key's other live orders on the market are cancelled;
 * the new orders are placed. One answer says what became of each.
 *
 * In order: the whole command is checked first (the market, each order of it and of the key, each
 * named once, at most MASS_QUOTE_LEVELS_MAX a side), and refused whole with nothing changed; then
 * the cancels (their holds come back before the new orders need them, and no new order can meet
 * an old quote of the key); then each kept id is looked at (one that has ended meanwhile is
 * reported, never placed: the front end did not check its signature again); then the placements.
 */
import type { Account } from './account.js'
import { Code } from './codes.js'
import { CODE_MESSAGES } from './codes.js'
import type { MassQuote } from './command.js'
import type { Engine } from './engine.js'
import { cancelResting } from './lifecycle.js'
import { MASS_QUOTE_LEVELS_MAX } from './limits.js'
import type { Market } from './market.js'
import { endedAccountIndex, isLiveEntry, orderStatusOf, rowOfEntry } from './order-index.js'
import { NO_ROW, type OrderRow, type OrderTable } from './order-table.js'
import { placeEach, writeEach } from './placement.js'
import { rejection } from './rejection.js'
import type { KeptQuote, Rejection } from './result.js'

export function massQuote(engine: Engine, command: MassQuote): boolean {
  const market = engine.marketsById.get(command.marketId)
  if (market === undefined) return engine.answer(rejection(Code.MARKET_NOT_FOUND, { marketId: command.marketId }))
  const refusal = checkQuote(engine, command, market)
  if (refusal !== null) return engine.answer(refusal)
  const canceled = cancelUnnamed(engine, command, market)
  const kept = command.keep.map((orderId) => keptQuote(engine, command, market, orderId))
  const placed = placeEach(engine, command.orders)
  if (engine.recording) engine.log.resultQuotes(canceled, kept, placed.length)
  writeEach(engine, placed)
  return true
}

/** The whole command's checks: a refusal changes nothing. */
function checkQuote(engine: Engine, command: MassQuote, market: Market): Rejection | null {
  const named = new Set<string>()
  const sides = [0, 0]
  for (const orderId of command.keep) {
    if (typeof orderId !== 'string' || named.has(orderId)) return invalid(String(orderId), 'named twice')
    named.add(orderId)
    const row = liveRowOf(engine, orderId)
    if (row !== NO_ROW && isQuoteOf(engine.orderTable, row, command, market)) {
      sides[engine.orderTable.isBid(row) ? 0 : 1]!++
    }
  }
  for (const order of command.orders) {
    const orderId = typeof order.orderId === 'string' ? order.orderId : ''
    if (named.has(orderId)) return invalid(orderId, 'named twice')
    named.add(orderId)
    const token = engine.tokens.get(order.tokenId)
    if (token === undefined || token.market !== market) return invalid(orderId, 'an order of another market')
    if (order.owner !== command.owner) return invalid(orderId, 'an order of another API key')
    // A Yes bid or a No ask: the bid side of the market's Yes-space book.
    sides[(order.side === 'BUY') !== token.isNo ? 0 : 1]!++
  }
  if (sides[0]! > MASS_QUOTE_LEVELS_MAX || sides[1]! > MASS_QUOTE_LEVELS_MAX) {
    return rejection(Code.MASS_QUOTE_TOO_LARGE, { max: MASS_QUOTE_LEVELS_MAX, bids: sides[0]!, asks: sides[1]! })
  }
  return null
}

function invalid(orderId: string, reason: string): Rejection {
  return rejection(Code.MASS_QUOTE_INVALID, { orderId, reason })
}

/**
 * Cancels the key's live orders on the market that the quote does not name (reason `replaced`):
 * those made by the requester's wallet or by a maker of an order it names (a proxy wallet or a
 * Safe of the key's). Their ids, by account, oldest first.
 */
function cancelUnnamed(engine: Engine, command: MassQuote, market: Market): string[] {
  const o = engine.orderTable
  const named = new Set<string>(command.keep)
  for (const order of command.orders) named.add(order.orderId)
  const accounts = new Set<Account>()
  const requester = engine.accountsByAddress.get(command.address)
  if (requester !== undefined) accounts.add(requester)
  for (const order of command.orders) {
    const account = engine.accountsByAddress.get(order.maker)
    if (account !== undefined) accounts.add(account)
  }
  for (const orderId of command.keep) {
    const row = liveRowOf(engine, orderId)
    if (row !== NO_ROW) accounts.add(o.account[row]!)
  }
  const rows: OrderRow[] = []
  for (const account of accounts) {
    for (let row = account.openHead; row !== NO_ROW; row = o.accountNext[row]!) {
      if (isQuoteOf(o, row, command, market) && !named.has(o.orderId[row]!)) rows.push(row)
    }
  }
  // Ids read before any cancel: a cancelled order's row is freed.
  const canceled = rows.map((row) => o.orderId[row]!)
  for (const row of rows) cancelResting(engine, row, 'replaced')
  return canceled
}

/** A kept id: still resting as it was (reason null), or why not, in a cancel's words. */
function keptQuote(engine: Engine, command: MassQuote, market: Market, orderId: string): KeptQuote {
  const row = liveRowOf(engine, orderId)
  if (row !== NO_ROW && isQuoteOf(engine.orderTable, row, command, market)) return { orderId, reason: null }
  const entry = engine.orders.get(orderId)
  if (entry === undefined || isLiveEntry(entry) ||
    engine.accounts[endedAccountIndex(entry)]!.address !== command.address) {
    return { orderId, reason: CODE_MESSAGES.ORDER_NOT_FOUND }
  }
  return { orderId, reason: orderStatusOf(entry) === 'MATCHED' ? CODE_MESSAGES.ORDER_ALREADY_MATCHED
    : CODE_MESSAGES.ORDER_ALREADY_CANCELED }
}

function liveRowOf(engine: Engine, orderId: string): OrderRow {
  const entry = engine.orders.get(orderId)
  return entry !== undefined && isLiveEntry(entry) ? rowOfEntry(entry) : NO_ROW
}

/** Whether a live order is one of the key's quotes on the market. */
function isQuoteOf(o: OrderTable, row: OrderRow, command: MassQuote, market: Market): boolean {
  return o.owner[row] === command.owner && o.market[row] === market
}
