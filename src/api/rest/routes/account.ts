/**
 * The caller's balance and allowance (L2), exact: asked of the engine (a read released once
 * everything before it is durable), not of a view that could lag.
 */
import { Code } from '../../../engine/codes.js'
import { contractsOf } from '../../../crypto/contracts.js'
import type { ServiceContext } from '../../../service/context.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { tokenIdOf } from '../../wire.js'
import type { Route } from '../route.js'
import type { AccountSummary } from '../../../engine/summary.js'
import { identityOf, marketOfToken } from './common.js'

/** An outcome token's balance; its allowance is the exchange's approval for all outcome tokens. */
function conditional(tokenText: string | null, account: AccountSummary | null, usdcAllowance: number,
  context: ServiceContext): { balance: number; allowance: number } {
  const tokenId = tokenIdOf(tokenText)
  if (context.read.tokens.get(tokenId) === undefined) throw new PredexError(Code.TOKEN_NOT_FOUND, 'Invalid token id', { tokenId })
  marketOfToken(context, tokenId)
  return {
    balance: account?.shares.find((s) => s.tokenId === tokenId)?.balanceMicros ?? 0,
    allowance: account?.sharesApproved === true ? usdcAllowance : 0,
  }
}

export const accountRoutes: Route<ServiceContext>[] = [
  { method: 'GET', path: '/balance-allowance', auth: 'l2', bodyMax: 0, rate: 'balance',
    openapi: { tag: 'account', summary: "The caller's balance and allowance of USDC or of one outcome token (6-decimal integers)",
      query: { asset_type: 'required: COLLATERAL or CONDITIONAL', token_id: 'required for CONDITIONAL', signature_type: 'ignored (0, 1 or 2)' },
      response: '{balance, allowance, allowances: {<exchange>: amount}}' },
    handler: async (request, identity, context) => {
      const { address } = identityOf(identity)
      const assetType = (request.query.get('asset_type') ?? '').toUpperCase()
      if (assetType !== 'COLLATERAL' && assetType !== 'CONDITIONAL') {
        throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid asset type: use COLLATERAL or CONDITIONAL', { field: 'asset_type' })
      }
      const answer = await context.host.query({ kind: 'account', address })
      const account = answer.kind === 'account' ? answer.account : null
      const contracts = contractsOf(context.chainId)
      const usdcAllowance = account?.usdcAllowanceMicros ?? 0
      const { balance, allowance } = assetType === 'COLLATERAL'
        ? { balance: account?.usdcMicros ?? 0, allowance: usdcAllowance }
        : conditional(request.query.get('token_id'), account, usdcAllowance, context)
      const allowances = { [contracts.exchange]: String(allowance), [contracts.negRiskExchange]: String(allowance) }
      return { body: { balance: String(balance), allowance: String(allowance), allowances } }
    } },
  { method: 'GET', path: '/balance-allowance/update', auth: 'l2', bodyMax: 0, rate: 'balanceUpdate', surface: 'compat',
    openapi: { tag: 'account', summary: 'Asks the server to refresh its cached on-chain balance: nothing to do here (the ledger is the chain)',
      response: 'null' },
    handler: () => ({ body: null }) },
]
