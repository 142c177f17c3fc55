/**
 * Signed orders and trades as PredexExchange's `settle` takes them (src/chain/contracts): each
 * order as its version, its market's neg-risk flag, the struct its maker signed (ABI-encoded) and
 * its signature; a trade as the taker's order (A), the maker's (B) and the fill's amounts in
 * 10^-6 units. One contract settles V1 and V2 orders, against each other too, through one
 * exchange (`settlerOf`), so that every order's fills are counted in one place.
 */
import { encodeAbiParameters, type Address, type Hex } from 'viem'
import type { ChainDeployment } from './deployment.js'
import type { AnyOrderStruct, OrderStruct, OrderStructV2 } from '../crypto/eip712.js'

export interface ExchangeOrder {
  readonly version: number
  readonly negRisk: boolean
  readonly order: Hex
  readonly signature: Hex
}

/** One fill: `collateralA`, `collateralB` and `feeA` are USDC, `size` outcome tokens (docs/testnet.md). */
export interface ExchangeFill {
  readonly tradeId: Hex
  readonly size: bigint
  readonly collateralA: bigint
  readonly collateralB: bigint
  readonly feeA: bigint
}

export interface ExchangeTrade {
  readonly a: ExchangeOrder
  readonly b: ExchangeOrder
  readonly fill: ExchangeFill
}

const ORDER_V1 = [{ type: 'tuple', components: [
  { name: 'salt', type: 'uint256' }, { name: 'maker', type: 'address' }, { name: 'signer', type: 'address' },
  { name: 'taker', type: 'address' }, { name: 'tokenId', type: 'uint256' }, { name: 'makerAmount', type: 'uint256' },
  { name: 'takerAmount', type: 'uint256' }, { name: 'expiration', type: 'uint256' }, { name: 'nonce', type: 'uint256' },
  { name: 'feeRateBps', type: 'uint256' }, { name: 'side', type: 'uint8' }, { name: 'signatureType', type: 'uint8' },
] }] as const

const ORDER_V2 = [{ type: 'tuple', components: [
  { name: 'salt', type: 'uint256' }, { name: 'maker', type: 'address' }, { name: 'signer', type: 'address' },
  { name: 'tokenId', type: 'uint256' }, { name: 'makerAmount', type: 'uint256' },
  { name: 'takerAmount', type: 'uint256' }, { name: 'side', type: 'uint8' }, { name: 'signatureType', type: 'uint8' },
  { name: 'timestamp', type: 'uint256' }, { name: 'metadata', type: 'bytes32' }, { name: 'builder', type: 'bytes32' },
] }] as const

/**
 * The exchange Predex settles through (every order's fills are counted there): on a local chain
 * the V1 exchange's address, on an external one where it was deployed (deployment.ts).
 */
export function settlerOf(deployment: ChainDeployment): Address {
  return deployment.settler as Address
}

export function exchangeOrderOf(struct: AnyOrderStruct, signature: string, negRisk: boolean): ExchangeOrder {
  if (struct.version === 2) return { version: 2, negRisk, order: encodeV2(struct), signature: signature as Hex }
  return { version: 1, negRisk, order: encodeV1(struct), signature: signature as Hex }
}

/** The V1 struct as the contract's `hashOrderV1` takes it. */
export function orderV1Tuple(o: OrderStruct) {
  return {
    salt: BigInt(o.salt), maker: o.maker as Address, signer: o.signer as Address, taker: o.taker as Address,
    tokenId: BigInt(o.tokenId), makerAmount: BigInt(o.makerAmount), takerAmount: BigInt(o.takerAmount),
    expiration: BigInt(o.expiration), nonce: BigInt(o.nonce), feeRateBps: BigInt(o.feeRateBps), side: o.side,
    signatureType: o.signatureType,
  }
}

/** The V2 struct as the contract's `hashOrderV2` takes it. */
export function orderV2Tuple(o: OrderStructV2) {
  return {
    salt: BigInt(o.salt), maker: o.maker as Address, signer: o.signer as Address, tokenId: BigInt(o.tokenId),
    makerAmount: BigInt(o.makerAmount), takerAmount: BigInt(o.takerAmount), side: o.side,
    signatureType: o.signatureType, timestamp: BigInt(o.timestamp), metadata: o.metadata as Hex,
    builder: o.builder as Hex,
  }
}

function encodeV1(o: OrderStruct): Hex {
  return encodeAbiParameters(ORDER_V1, [orderV1Tuple(o)])
}

function encodeV2(o: OrderStructV2): Hex {
  return encodeAbiParameters(ORDER_V2, [orderV2Tuple(o)])
}
