/**
 * The caller's balance and allowance (L2), exact: the account service asks the engine, not a
 * view that could lag.
 */
import { contractsOf } from '../../../crypto/contracts.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { balanceAllowanceOf } from '../../../service/account/account.js'
import { tokenIdOf } from '../../wire.js'
import type { TypedRoute } from '../typed-route.js'
import { identityOf } from './common.js'

export const accountRoutes: TypedRoute[] = [
  { method: 'GET', path: '/balance-allowance', auth: 'l2', bodyMax: 0, rate: 'balance',
    openapi: { tag: 'account',
      summary: "The caller's balance and allowance of USDC or of one outcome token (6-decimal integers)",
      query: { asset_type: 'required: COLLATERAL or CONDITIONAL', token_id: 'required for CONDITIONAL',
        signature_type: 'ignored (0, 1 or 2)' },
      response: '{balance, allowance, allowances: {<exchange>: amount}}' },
    handler: async (request, identity, context) => {
      const { address } = identityOf(identity)
      const assetType = (request.query.get('asset_type') ?? '').toUpperCase()
      if (assetType !== 'COLLATERAL' && assetType !== 'CONDITIONAL') {
        throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid asset type: use COLLATERAL or CONDITIONAL',
          { field: 'asset_type' })
      }
      const tokenId = assetType === 'CONDITIONAL' ? tokenIdOf(request.query.get('token_id')) : null
      const { balanceMicros, allowanceMicros } = await balanceAllowanceOf(context, address, assetType, tokenId)
      const contracts = contractsOf(context.chainId)
      const allowance = String(allowanceMicros)
      return { body: { balance: String(balanceMicros), allowance,
        allowances: { [contracts.exchange]: allowance, [contracts.negRiskExchange]: allowance } } }
    } },
  { method: 'GET', path: '/balance-allowance/update', auth: 'l2', bodyMax: 0, rate: 'balanceUpdate',
    surface: 'compat',
    openapi: { tag: 'account',
      summary: 'Asks the server to refresh its cached on-chain balance: nothing to do here (the ledger is the chain)',
      response: 'null' },
    handler: () => ({ body: null }) },
]
