/**
 * Mass quotes, for an authenticated trader (docs/engine.md, "Mass quote"; docs/rest.md): one request
 * sets the key's whole ladder on one market, as one engine command. The trader sends every level
 * as a signed order, changed or not: an order of this key on this market already (its hash says
 * so) is kept as it is if it still rests, or reported gone if it has ended, never placed again and
 * without a signature check; any other goes through the order intake and is placed; the key's
 * resting orders on the market that the request does not name are cancelled. A level refused by
 * the intake (its parse, signature or rules) is reported in its place; the others still go.
 */
import { orderDigest } from '../../crypto/eip712.js'
import { toHex } from '../../crypto/hex.js'
import type { OrderInput } from '../../engine/command.js'
import { Code } from '../../engine/codes.js'
import type { MarketRecord } from '../../engine/event.js'
import { MASS_QUOTE_LEVELS_MAX } from '../../engine/limits.js'
import { PredexError } from '../../errors.js'
import { accepted, matchTransactionOf, rejectionError, submit } from '../commands.js'
import type { ServiceContext } from '../context.js'
import { marketById } from '../market-data/markets.js'
import { checkedOrder, type SignedOrder } from './order-intake.js'
import { admitPlacement, type BatchEntry, type Trader } from './trading.js'

/** What became of one level of a mass quote, in the request's order. */
export type QuoteLevel =
  /** It rested already and still does, its place in the queue kept. */
  | { readonly kind: 'kept'; readonly orderId: string }
  /** It was named as resting but had ended (filled, cancelled): nothing was placed for it. */
  | { readonly kind: 'gone'; readonly orderId: string; readonly reason: string }
  /** A new order: placed, or refused (by the intake or the engine) with its error. */
  | { readonly kind: 'new'; readonly entry: BatchEntry }

export interface QuoteOutcome {
  /** The key's resting orders on the market that the request did not name: cancelled. */
  readonly canceled: readonly string[]
  readonly levels: readonly QuoteLevel[]
  /** The journal sequence number of the command (one that changed nothing: the last journaled one's). */
  readonly seq: number
}

/** At most MASS_QUOTE_LEVELS_MAX levels a side, so at most twice that in all (a face checks before it parses). */
export function checkQuoteSize(count: number): void {
  if (count > 2 * MASS_QUOTE_LEVELS_MAX) {
    throw new PredexError(Code.MASS_QUOTE_TOO_LARGE,
      `a mass quote names at most ${MASS_QUOTE_LEVELS_MAX} orders a side`, { max: MASS_QUOTE_LEVELS_MAX })
  }
}

/** Sets the trader's ladder on `marketRef` (a market id, condition id or slug). */
export async function massQuote(context: ServiceContext, trader: Trader, marketRef: string,
  orders: readonly (SignedOrder | PredexError)[]): Promise<QuoteOutcome> {
  return submitQuote(context, trader, await checkedQuote(context, trader, marketRef, orders))
}

/** A mass quote through the intake: its market, each level's kept id (or null), the new levels' verdicts. */
export interface CheckedQuote {
  readonly market: MarketRecord
  readonly kept: readonly (string | null)[]
  readonly checked: readonly PromiseSettledResult<OrderInput>[]
}

/**
 * The intake of a mass quote (an order-entry session's prepare step): the levels that rest
 * already are told by their hash, the others' signatures checked on the pool, all at once.
 */
export async function checkedQuote(context: ServiceContext, trader: Trader, marketRef: string,
  orders: readonly (SignedOrder | PredexError)[]): Promise<CheckedQuote> {
  checkQuoteSize(orders.length)
  const market = marketById(context, marketRef)
  const kept = orders.map((order) => keptIdOf(context, trader, market, order))
  const fresh = orders.filter((_, i) => kept[i] === null)
  admitPlacement(context, trader.address, fresh.length)
  context.pool.admit(fresh.filter((order) => !(order instanceof PredexError)).length, trader.address)
  const checked = await Promise.allSettled(fresh.map((order) =>
    order instanceof PredexError ? Promise.reject(order) : checkedOrder(context, order, trader)))
  return { market, kept, checked }
}

/**
 * The id of a level that is an order of this key on this market already (kept unchecked: the engine
 * keeps it if it still rests, and reports it gone if it has ended, never placing it), else null.
 */
function keptIdOf(context: ServiceContext, trader: Trader, market: MarketRecord,
  order: SignedOrder | PredexError): string | null {
  if (order instanceof PredexError) return null
  let orderId: string
  try {
    orderId = toHex(orderDigest(order.struct, context.chainId, market.negRisk))
  } catch {
    return null // a struct the hash cannot take: the intake says why
  }
  const record = context.read.order(orderId)
  const known = record !== undefined && record.owner === trader.apiKey && record.marketId === market.marketId
  return known ? orderId : null
}

/** The engine command of a checked mass quote (an order-entry session's commit step). */
export async function submitQuote(context: ServiceContext, trader: Trader, quote: CheckedQuote): Promise<QuoteOutcome> {
  const { market, kept, checked } = quote
  const keep = kept.filter((id): id is string => id !== null)
  const inputs = checked.flatMap((c) => (c.status === 'fulfilled' ? [c.value] : []))
  const { result, seq } = await submit(context, { kind: 'massQuote', address: trader.address, owner: trader.apiKey,
    marketId: market.marketId, keep, orders: inputs })
  const set = accepted(result)
  const transactionHash = matchTransactionOf(context, seq)
  let nextKept = 0
  let nextChecked = 0
  let nextPlaced = 0
  const levels = kept.map((orderId): QuoteLevel => {
    if (orderId !== null) {
      const item = set.keptQuotes[nextKept++]!
      return item.reason === null ? { kind: 'kept', orderId } : { kind: 'gone', orderId, reason: item.reason }
    }
    const intake = checked[nextChecked++]!
    if (intake.status === 'rejected') {
      return { kind: 'new', entry: { ok: false, error: asError(intake.reason), orderId: '' } }
    }
    const placed = set.newQuotes[nextPlaced++]!
    return { kind: 'new', entry: placed.ok
      ? { ok: true, placement: { input: intake.value, result: placed, transactionHash, seq } }
      : { ok: false, error: rejectionError(placed), orderId: placed.orderId } }
  })
  return { canceled: set.canceledQuotes, levels, seq }
}

function asError(reason: unknown): PredexError {
  if (reason instanceof PredexError) return reason
  throw reason
}
