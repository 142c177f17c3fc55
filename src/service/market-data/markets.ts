/**
 * Markets as the read model holds them: listing by status, and the lookups every use case
 * starts from (a market by UUID, condition id or slug; the market of a token). Unknown ids are
 * refused with the engine's own codes and messages.
 */
import { Code, CODE_MESSAGES } from '../../engine/codes.js'
import type { MarketRecord } from '../../engine/event.js'
import { PredexError } from '../../errors.js'
import type { ServiceContext } from '../context.js'

export function allMarkets(context: ServiceContext): MarketRecord[] {
  return [...context.read.markets.values()]
}

/** Markets listed but not trading yet, at most `countMax`. */
export function upcomingMarkets(context: ServiceContext, countMax: number): MarketRecord[] {
  return allMarkets(context).filter((m) => m.status === 'Upcoming').slice(0, countMax)
}

/** Markets whose outcome is proposed. */
export function resolvingMarkets(context: ServiceContext): MarketRecord[] {
  return allMarkets(context).filter((m) => m.status === 'Resolving')
}

/** A market by UUID, condition id or slug; MARKET_NOT_FOUND otherwise. */
export function marketById(context: ServiceContext, id: string): MarketRecord {
  const read = context.read
  const market = read.markets.get(id) ?? read.marketsByConditionId.get(id) ?? read.marketsBySlug.get(id)
  if (market === undefined) throw new PredexError(Code.MARKET_NOT_FOUND, CODE_MESSAGES.MARKET_NOT_FOUND, { id })
  return market
}

/** The market a token id belongs to; TOKEN_NOT_FOUND otherwise. */
export function marketOfToken(context: ServiceContext, tokenId: string): MarketRecord {
  const marketId = context.read.tokens.get(tokenId)
  const market = marketId === undefined ? undefined : context.read.markets.get(marketId)
  if (market === undefined) throw new PredexError(Code.TOKEN_NOT_FOUND, CODE_MESSAGES.TOKEN_NOT_FOUND, { tokenId })
  return market
}

export function isKnownToken(context: ServiceContext, tokenId: string): boolean {
  return context.read.tokens.has(tokenId)
}
