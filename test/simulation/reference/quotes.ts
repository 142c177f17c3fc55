/**
 * Mass quotes: a ladder replaces the key's quotes of a market, keeping those it names.
 */
import type { MassQuote } from '../../../src/engine/command.js'
import type { CommandResult, KeptQuote, QuotesSet } from '../../../src/engine/result.js'
import { Code, CODE_MESSAGES } from '../../../src/engine/codes.js'
import { MASS_QUOTE_LEVELS_MAX } from '../../../src/engine/limits.js'
import { end, isBid, place } from './matching.js'
import { type OrderState, ReferenceState, type Refusal, type Step, findMarket, refuse, rejection } from './state.js'
import { rawString } from './validation.js'

/**
 * A key's whole ladder on one market (docs: "Mass quote"): the command is judged whole first;
 * then the key's unnamed open orders on the market are cancelled (reason replaced), each kept id
 * is reported, and the new orders are placed as placeOrder places them, in order.
 * SPEC: the market's status is not judged here (a quote on a paused market cancels the unnamed
 * quotes, and each new order meets its own MARKET_CANCEL_ONLY), nor is `address` tied to `owner`.
 */
export function massQuote(r: ReferenceState, c: MassQuote, step: Step): CommandResult {
  if (findMarket(r, c.marketId) === undefined) {
    return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
  }
  const refusal = quoteRefusal(r, c)
  if (refusal !== null) return rejection(refusal)
  const canceledQuotes = cancelUnnamedQuotes(r, c, step)
  const keptQuotes = c.keep.map((orderId) => keptQuote(r, c, orderId))
  const newQuotes = c.orders.map((order) => place(r, order, step))
  const result: QuotesSet = { ok: true, canceledQuotes, keptQuotes, newQuotes }
  return result
}

/** An open order that is one of the key's quotes on the quote's market. */
export function isQuoteOf(c: MassQuote, o: OrderState | undefined): boolean {
  return o !== undefined && o.status === 'LIVE' && o.input.owner === c.owner && o.marketId === c.marketId
}

/**
 * The whole command's checks, in the docs' order: the kept ids, each named once; then the new
 * orders, each named once (a kept id included), on one of the market's tokens, of the key; then
 * the count a side of the market's Yes-space book, kept-and-open quotes and new orders together.
 * SPEC: a kept id that is not a string answers as named twice, under its String() (no other
 * reason fits, and the docs give none); a new order without a string id is named by ''. A new
 * order counts on its side whatever its other fields (a malformed one is refused when placed),
 * and a kept id counts only while it is one of the key's open quotes on the market.
 */
export function quoteRefusal(r: ReferenceState, c: MassQuote): Refusal | null {
  const invalid = (orderId: string, reason: string): Refusal =>
    refuse(Code.MASS_QUOTE_INVALID, { orderId, reason })
  const named = new Set<string>()
  let bids = 0
  let asks = 0
  for (const id of c.keep as readonly unknown[]) {
    if (typeof id !== 'string' || named.has(id)) return invalid(String(id), 'named twice')
    named.add(id)
    const o = r.orders.get(id)
    if (o !== undefined && isQuoteOf(c, o)) {
      if (o.bid) bids++
      else asks++
    }
  }
  for (const order of c.orders) {
    const orderId = rawString(order, 'orderId')
    if (named.has(orderId)) return invalid(orderId, 'named twice')
    named.add(orderId)
    const token = r.tokens.get(order.tokenId)
    if (token === undefined || token.marketId !== c.marketId) return invalid(orderId, 'an order of another market')
    if (order.owner !== c.owner) return invalid(orderId, 'an order of another API key')
    if (isBid(order.side, token.outcome)) bids++
    else asks++
  }
  if (bids > MASS_QUOTE_LEVELS_MAX || asks > MASS_QUOTE_LEVELS_MAX) {
    return refuse(Code.MASS_QUOTE_TOO_LARGE, { max: MASS_QUOTE_LEVELS_MAX, bids, asks })
  }
  return null
}

/**
 * Cancels the key's open orders on the market that the quote does not name, by wallet: the
 * requester's, then each new order's maker, then the maker of each kept id that is open (any
 * open order: of the key or not, of the market or not), each wallet once; each wallet's
 * orders oldest first. Returns their ids in that order.
 * SPEC: this is the engine's order (mass-quote.ts, cancelUnnamed: "by account, oldest first"),
 * where the docs say only "oldest first by account: those made by address or by a maker of an
 * order named". An order of the key made by another wallet than these stays.
 */
export function cancelUnnamedQuotes(r: ReferenceState, c: MassQuote, step: Step): string[] {
  const named = new Set<unknown>([...c.keep, ...c.orders.map((o) => (o as { orderId?: unknown }).orderId)])
  const wallets: unknown[] = [c.address, ...c.orders.map((o) => (o as { maker?: unknown }).maker)]
  for (const id of c.keep) {
    const o = r.orders.get(id)
    if (o !== undefined && o.status === 'LIVE') wallets.push(o.input.maker)
  }
  const targets: OrderState[] = []
  for (const wallet of new Set(wallets)) {
    for (const o of r.live) {
      if (o.input.maker === wallet && isQuoteOf(c, o) && !named.has(o.input.orderId)) targets.push(o)
    }
  }
  for (const o of targets) end(r, o, 'CANCELED', 'replaced', step)
  return targets.map((o) => o.input.orderId)
}

/**
 * A kept id after the cancels: still one of the key's open quotes on the market (reason null),
 * else why not in a cancel's words: an order of the requester's that ended says how; anything
 * else (unknown, open but not the key's quote here, ended and another wallet's) is not found.
 */
export function keptQuote(r: ReferenceState, c: MassQuote, orderId: string): KeptQuote {
  const o = r.orders.get(orderId)
  if (isQuoteOf(c, o)) return { orderId, reason: null }
  if (o === undefined || o.status === 'LIVE' || o.input.maker !== c.address) {
    return { orderId, reason: CODE_MESSAGES.ORDER_NOT_FOUND }
  }
  const code = o.status === 'MATCHED' ? Code.ORDER_ALREADY_MATCHED : Code.ORDER_ALREADY_CANCELED
  return { orderId, reason: CODE_MESSAGES[code] }
}
