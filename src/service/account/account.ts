/**
 * A wallet's exact account: asked of the engine (a read released once everything before it is
 * durable), never of a view that could lag. Balance and allowance of USDC or of one outcome
 * token, and the USDC a new order may still hold.
 */
import { availableUsdcMicros } from '../../engine/rules.js'
import type { AccountSummary } from '../../engine/summary.js'
import { ApiCode, PredexError } from '../../errors.js'
import type { ServiceContext } from '../context.js'
import { marketOfToken } from '../market-data/markets.js'

/** The engine's account of `address`; null if it never appeared. */
export async function accountOf(context: ServiceContext, address: string): Promise<AccountSummary | null> {
  const answer = await context.host.query({ kind: 'account', address })
  return answer.kind === 'account' ? answer.account : null
}

/** USDC a new order of `address` may hold (the engine's rule, docs/engine.md "Holds"). */
export async function availableUsdcMicrosOf(context: ServiceContext, address: string): Promise<number> {
  return availableUsdcMicros(await accountOf(context, address))
}

export type AssetType = 'COLLATERAL' | 'CONDITIONAL'

export interface BalanceAllowance {
  readonly balanceMicros: number
  /** USDC: the exchange's allowance; an outcome token: the USDC allowance if shares are approved, else 0. */
  readonly allowanceMicros: number
}

/** `tokenId` is required for CONDITIONAL (an outcome token) and ignored for COLLATERAL (USDC). */
export async function balanceAllowanceOf(context: ServiceContext, address: string, assetType: AssetType,
  tokenId: string | null): Promise<BalanceAllowance> {
  if (assetType === 'CONDITIONAL') {
    if (tokenId === null) {
      throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid token id: token_id is required', { field: 'token_id' })
    }
    marketOfToken(context, tokenId)
  }
  const account = await accountOf(context, address)
  const usdcAllowanceMicros = account?.usdcAllowanceMicros ?? 0
  if (assetType === 'COLLATERAL') {
    return { balanceMicros: account?.usdcMicros ?? 0, allowanceMicros: usdcAllowanceMicros }
  }
  return {
    balanceMicros: account?.shares.find((s) => s.tokenId === tokenId)?.balanceMicros ?? 0,
    allowanceMicros: account?.sharesApproved === true ? usdcAllowanceMicros : 0,
  }
}
