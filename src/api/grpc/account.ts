/**
 * gRPC AccountService: the caller's balance and allowance (L2, the budget of REST's GET
 * /balance-allowance), exact from the engine as REST answers it, in micro-units; and a wallet's
 * test-network status (public, as GET /wallet-status), in decimals.
 */
import type { UntypedServiceImplementation } from '@grpc/grpc-js'
import { contractsOf } from '../../crypto/contracts.js'
import { ApiCode, PredexError } from '../../errors.js'
import { AccountService, AssetType } from '../../gen/predex/v1/account_pb.js'
import { balanceAllowanceOf, type AssetType as ServiceAssetType } from '../../service/account/account.js'
import type { ServiceContext } from '../../service/context.js'
import { walletBalances } from '../../service/testnet/testnet.js'
import { addressOf, decimalOfMicros, tokenIdOf } from '../wire.js'
import { unaryService, type GrpcFace } from './call.js'

const ASSET_TYPES: ReadonlyMap<AssetType, ServiceAssetType> = new Map([
  [AssetType.COLLATERAL, 'COLLATERAL'], [AssetType.CONDITIONAL, 'CONDITIONAL'],
])

/** REST's refusal of a missing or unknown asset_type, the same code and field. */
function assetTypeOf(value: AssetType): ServiceAssetType {
  const assetType = ASSET_TYPES.get(value)
  if (assetType === undefined) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid asset type: use COLLATERAL or CONDITIONAL',
      { field: 'asset_type' })
  }
  return assetType
}

async function balanceAllowance(context: ServiceContext, address: string, assetTypeValue: AssetType,
  tokenIdText: string) {
  const assetType = assetTypeOf(assetTypeValue)
  const tokenId = assetType === 'CONDITIONAL' ? tokenIdOf(tokenIdText) : null
  const { balanceMicros, allowanceMicros } = await balanceAllowanceOf(context, address, assetType, tokenId)
  const contracts = contractsOf(context.chainId)
  const allowance = String(allowanceMicros)
  return { balanceMicros: String(balanceMicros), allowanceMicros: allowance,
    allowancesMicros: { [contracts.exchange]: allowance, [contracts.negRiskExchange]: allowance } }
}

async function walletStatus(context: ServiceContext, addressText: string) {
  const wallet = await walletBalances(context, addressOf(addressText, 'address'))
  return {
    address: wallet.address,
    ethBalance: decimalOfMicros(wallet.gasMicros),
    usdcBalance: decimalOfMicros(wallet.usdcMicros),
    availableUsdc: decimalOfMicros(wallet.availableUsdcMicros),
    allowance: decimalOfMicros(wallet.usdcAllowanceMicros),
    sharesApproved: wallet.sharesApproved,
    relayNonce: BigInt(wallet.relayNonce),
  }
}

export function accountService(face: GrpcFace): UntypedServiceImplementation {
  const context = face.context
  return unaryService(face, AccountService, {
    getBalanceAllowance: { auth: 'l2', rate: { bucket: 'GET /balance-allowance', rule: 'balance' },
      handle: (request, trader) => balanceAllowance(context, trader!.address, request.assetType, request.tokenId) },
    getWalletStatus: { auth: 'none', handle: (request) => walletStatus(context, request.address) },
  })
}
