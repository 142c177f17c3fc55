/**
 * Signed orders as PredexExchange's `settleV1` and `settleV2` take them (src/chain/contracts): the
 * struct the maker signed, field for field, with its signature last; and a trade as the exchange
 * settles it: the two orders, then the fill's amounts in 10^-6 units.
 */
import type { Address, Hex } from 'viem'
import type { OrderStruct, OrderStructV2 } from '../crypto/eip712.js'

export interface ExchangeOrderV1 {
  readonly salt: bigint
  readonly maker: Address
  readonly signer: Address
  readonly taker: Address
  readonly tokenId: bigint
  readonly makerAmount: bigint
  readonly takerAmount: bigint
  readonly expiration: bigint
  readonly nonce: bigint
  readonly feeRateBps: bigint
  readonly side: number
  readonly signatureType: number
  readonly signature: Hex
}

export interface ExchangeOrderV2 {
  readonly salt: bigint
  readonly maker: Address
  readonly signer: Address
  readonly tokenId: bigint
  readonly makerAmount: bigint
  readonly takerAmount: bigint
  readonly side: number
  readonly signatureType: number
  readonly timestamp: bigint
  readonly metadata: Hex
  readonly builder: Hex
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

export interface ExchangeTrade<Order> {
  readonly a: Order
  readonly b: Order
  readonly fill: ExchangeFill
}

export function exchangeOrderV1(order: OrderStruct, signature: string): ExchangeOrderV1 {
  return {
    salt: BigInt(order.salt), maker: order.maker as Address, signer: order.signer as Address,
    taker: order.taker as Address, tokenId: BigInt(order.tokenId), makerAmount: BigInt(order.makerAmount),
    takerAmount: BigInt(order.takerAmount), expiration: BigInt(order.expiration), nonce: BigInt(order.nonce),
    feeRateBps: BigInt(order.feeRateBps), side: order.side, signatureType: order.signatureType,
    signature: signature as Hex,
  }
}

export function exchangeOrderV2(order: OrderStructV2, signature: string): ExchangeOrderV2 {
  return {
    salt: BigInt(order.salt), maker: order.maker as Address, signer: order.signer as Address,
    tokenId: BigInt(order.tokenId), makerAmount: BigInt(order.makerAmount), takerAmount: BigInt(order.takerAmount),
    side: order.side, signatureType: order.signatureType, timestamp: BigInt(order.timestamp),
    metadata: order.metadata as Hex, builder: order.builder as Hex, signature: signature as Hex,
  }
}
