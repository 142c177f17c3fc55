/**
 * Building and signing orders as clob-client does (reference sections 3 and 4): amounts from a
 * human price and size with the market's tick rounding, a random salt, the maker (the signer,
 * or a proxy or Safe wallet), and the JSON body of POST /order. V1 orders as clob-client 5.x
 * signs them, V2 orders as clob-client-v2 does (clob-v2-compat.md 3): the same amounts, no
 * taker, nonce or fee rate, a timestamp in milliseconds, metadata and builder, and an expiration
 * that travels unsigned.
 */
import { randomInt } from 'node:crypto'
import type { OrderStruct, OrderStructV2 } from '../crypto/eip712.js'
import { limitOrderAmounts, marketOrderAmounts, type Side, type TickSize } from './order-amounts.js'
import type { Wallet } from '../crypto/wallet.js'
import type { SelfTradePreventionText } from '../api/shapes/vocabulary.js'

export type OrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK'

export interface MarketTerms {
  readonly tickSize: TickSize
  readonly negRisk: boolean
  readonly feeRateBps: number
  readonly chainId: number
}

export interface LimitOrder {
  readonly tokenId: string
  readonly side: Side
  readonly price: number | string
  readonly size: number | string
  /** Unix seconds; GTD only. */
  readonly expiration?: number
}

export interface MarketOrder {
  readonly tokenId: string
  readonly side: Side
  /** BUY: USDC to spend; SELL: shares to sell. */
  readonly amount: number | string
  /** The worst price accepted. */
  readonly price: number | string
}

export interface SignedOrder {
  readonly order: OrderStruct
  readonly orderId: string
  readonly signature: string
}

export interface OrderOptions {
  /** The funder wallet (proxy or Safe); defaults to the signer. */
  readonly maker?: string
  readonly signatureType?: 0 | 1 | 2
  readonly salt?: string
  readonly nonce?: string
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'

export function signLimitOrder(wallet: Wallet, terms: MarketTerms, order: LimitOrder,
  options: OrderOptions = {}): SignedOrder {
  const amounts = limitOrderAmounts(order.side, order.size, order.price, terms.tickSize)
  return sign(wallet, terms, order.tokenId, order.side, amounts.makerAmount, amounts.takerAmount, order.expiration ?? 0,
    options)
}

export function signMarketOrder(wallet: Wallet, terms: MarketTerms, order: MarketOrder,
  options: OrderOptions = {}): SignedOrder {
  const amounts = marketOrderAmounts(order.side, order.amount, order.price, terms.tickSize)
  return sign(wallet, terms, order.tokenId, order.side, amounts.makerAmount, amounts.takerAmount, 0, options)
}

function sign(wallet: Wallet, terms: MarketTerms, tokenId: string, side: Side, makerAmount: string, takerAmount: string,
  expiration: number, options: OrderOptions): SignedOrder {
  const order: OrderStruct = {
    // clob-client's salt: a random integer below about 1.8e12 (it travels as a JSON number).
    salt: options.salt ?? String(randomInt(0, 2 ** 40)),
    maker: options.maker ?? wallet.address,
    signer: wallet.address,
    taker: ZERO_ADDRESS,
    tokenId,
    makerAmount,
    takerAmount,
    expiration: String(expiration),
    nonce: options.nonce ?? '0',
    feeRateBps: String(terms.feeRateBps),
    side: side === 'BUY' ? 0 : 1,
    signatureType: options.signatureType ?? 0,
  }
  return { order, ...wallet.signOrder(order, terms.chainId, terms.negRisk) }
}

/**
 * The JSON body of POST /order, keys in clob-client's order (reference section 4.6), and Predex's
 * `selfTradePrevention` after them when given (docs/rest.md).
 */
export function orderBody(signed: SignedOrder, owner: string, orderType: OrderType, postOnly = false,
  selfTradePrevention?: SelfTradePreventionText): string {
  const o = signed.order
  return JSON.stringify({
    deferExec: false,
    order: {
      salt: Number(o.salt), maker: o.maker, signer: o.signer, taker: o.taker, tokenId: o.tokenId,
      makerAmount: o.makerAmount,
      takerAmount: o.takerAmount, side: o.side === 0 ? 'BUY' : 'SELL', expiration: o.expiration, nonce: o.nonce,
      feeRateBps: o.feeRateBps, signatureType: o.signatureType, signature: signed.signature,
    },
    owner,
    orderType,
    postOnly,
    ...(selfTradePrevention === undefined ? {} : { selfTradePrevention }),
  })
}

export interface SignedOrderV2 {
  readonly order: OrderStructV2
  readonly orderId: string
  readonly signature: string
  /** Unix seconds, "0" for none: sent with the order, not signed. */
  readonly expiration: string
}

export interface OrderOptionsV2 {
  /** The funder wallet (proxy or Safe); defaults to the signer. */
  readonly maker?: string
  readonly signatureType?: 0 | 1 | 2
  readonly salt?: string
  /** Unix milliseconds; now by default. */
  readonly timestampMs?: number
  /** bytes32 hex; zero by default. */
  readonly metadata?: string
  /** bytes32 hex, the builder code; zero by default. */
  readonly builder?: string
}

const ZERO_BYTES32 = '0x' + '0'.repeat(64)

export function signLimitOrderV2(wallet: Wallet, terms: MarketTerms, order: LimitOrder,
  options: OrderOptionsV2 = {}): SignedOrderV2 {
  const amounts = limitOrderAmounts(order.side, order.size, order.price, terms.tickSize)
  return signV2(wallet, terms, order.tokenId, order.side, amounts.makerAmount, amounts.takerAmount,
    order.expiration ?? 0, options)
}

export function signMarketOrderV2(wallet: Wallet, terms: MarketTerms, order: MarketOrder,
  options: OrderOptionsV2 = {}): SignedOrderV2 {
  const amounts = marketOrderAmounts(order.side, order.amount, order.price, terms.tickSize)
  return signV2(wallet, terms, order.tokenId, order.side, amounts.makerAmount, amounts.takerAmount, 0, options)
}

function signV2(wallet: Wallet, terms: MarketTerms, tokenId: string, side: Side, makerAmount: string,
  takerAmount: string, expiration: number, options: OrderOptionsV2): SignedOrderV2 {
  const order: OrderStructV2 = {
    version: 2,
    salt: options.salt ?? String(randomInt(0, 2 ** 40)),
    maker: options.maker ?? wallet.address,
    signer: wallet.address,
    tokenId,
    makerAmount,
    takerAmount,
    side: side === 'BUY' ? 0 : 1,
    signatureType: options.signatureType ?? 0,
    timestamp: String(options.timestampMs ?? Date.now()),
    metadata: options.metadata ?? ZERO_BYTES32,
    builder: options.builder ?? ZERO_BYTES32,
  }
  return { order, expiration: String(expiration), ...wallet.signOrder(order, terms.chainId, terms.negRisk) }
}

/** The JSON body of POST /order for a V2 order, keys in clob-client-v2's order (clob-v2-compat.md 3.6). */
export function orderBodyV2(signed: SignedOrderV2, owner: string, orderType: OrderType, postOnly = false): string {
  const o = signed.order
  return JSON.stringify({
    deferExec: false,
    postOnly,
    order: {
      salt: Number(o.salt), maker: o.maker, signer: o.signer, tokenId: o.tokenId, makerAmount: o.makerAmount,
      takerAmount: o.takerAmount, side: o.side === 0 ? 'BUY' : 'SELL', signatureType: o.signatureType,
      timestamp: o.timestamp, expiration: signed.expiration, metadata: o.metadata, builder: o.builder,
      signature: signed.signature,
    },
    owner,
    orderType,
  })
}
