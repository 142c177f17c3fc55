/**
 * A signed order as clients send it, V1 (clob-compat.md 4.6) or V2 (clob-v2-compat.md 3.6),
 * parsed into the services' SignedOrder: field checks only, each uint256 parsed once. Shared by
 * every face that speaks JSON. The version is told by shape, as clob-client-v2's `isV2Order`
 * does: an order with `timestamp`, `metadata` and `builder` is V2; any other is V1.
 */
import type { AnyOrderStruct, OrderStruct, OrderStructV2 } from '../crypto/eip712.js'
import { NESTED_SIGNATURE_BYTES } from '../crypto/deposit-wallet.js'
import { PredexError } from '../errors.js'
import { Code } from '../engine/codes.js'
import { isTimeInForce } from '../engine/rules.js'
import type { SignedAmounts, SignedOrder } from '../service/trading/signed-order.js'
import type { OrderPost, Unparsed, WireOrderV1, WireOrderV2 } from './shapes/requests.js'
import type { SelfTradePreventionText } from './shapes/vocabulary.js'
import type { SelfTradePrevention } from '../engine/command.js'
import { addressOf, requireObject, requireString, uint256Of } from './wire.js'

export type WireOrder = SignedOrder

/** Parses the body of POST /order (or one element of POST /orders). */
export function parseWireOrder(body: unknown): WireOrder {
  const top: Unparsed<OrderPost> = requireObject(body, 'body')
  const order: Unparsed<WireOrderV1 & WireOrderV2> = requireObject(top.order, 'order')
  const orderType = top.orderType ?? 'GTC'
  if (!isTimeInForce(orderType)) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'orderType must be GTC, GTD, FOK or FAK', { field: 'orderType' })
  }
  const postOnly = top.postOnly ?? false
  if (typeof postOnly !== 'boolean') {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'postOnly must be a boolean', { field: 'postOnly' })
  }
  const side = order.side
  if (side !== 'BUY' && side !== 'SELL') {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'side must be BUY or SELL', { field: 'side' })
  }
  const sideValue = side === 'BUY' ? 0 : 1
  const { struct, amounts } = isV2Shape(order)
    ? signedFieldsV2Of(order, sideValue, signatureTypeOf(order.signatureType, 3))
    : signedFieldsOf(order, sideValue, signatureTypeOf(order.signatureType, 2))
  return { struct, signature: signatureOf(order.signature), orderType, postOnly, owner: ownerOf(top.owner), amounts,
    selfTradePrevention: selfTradePreventionOf(top.selfTradePrevention),
    orderGroupId: orderGroupIdOf(top.orderGroupId) }
}

/** An order group id (absent: none); the engine judges its shape and whether the key has it. */
function orderGroupIdOf(value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'string') return value
  throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'orderGroupId must be a string', { field: 'orderGroupId' })
}

/** The engine's self-trade prevention mode of the JSON field (absent: the engine's default). */
const SELF_TRADE_PREVENTION_MODES: Readonly<Record<SelfTradePreventionText, SelfTradePrevention>> = {
  CANCEL_MAKER: 'cancel-maker', CANCEL_TAKER: 'cancel-taker', CANCEL_BOTH: 'cancel-both',
}

function selfTradePreventionOf(value: unknown): SelfTradePrevention | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'string' && Object.hasOwn(SELF_TRADE_PREVENTION_MODES, value)) {
    return SELF_TRADE_PREVENTION_MODES[value as SelfTradePreventionText]
  }
  throw new PredexError(Code.INVALID_ORDER_PAYLOAD,
    'selfTradePrevention must be CANCEL_MAKER, CANCEL_TAKER or CANCEL_BOTH', { field: 'selfTradePrevention' })
}

/** clob-client-v2's rule (src/types/unifiedOrder.ts): a V2 order has a timestamp, metadata and builder. */
export function isV2Shape(order: Readonly<Record<string, unknown>>): boolean {
  return 'timestamp' in order && 'metadata' in order && 'builder' in order
}

/** The signature type: 0 to 2 for a V1 order, 0 to 3 (POLY_1271) for a V2 order. */
type SignatureTypeUpTo<Max extends 2 | 3> = Max extends 3 ? 0 | 1 | 2 | 3 : 0 | 1 | 2

export function signatureTypeOf<Max extends 2 | 3>(value: unknown, max: Max): SignatureTypeUpTo<Max> {
  if (value === 0 || value === 1 || value === 2 || (max === 3 && value === 3)) return value as SignatureTypeUpTo<Max>
  const allowed = max === 3 ? '0, 1, 2 or 3' : '0, 1 or 2 (3, POLY_1271, only in a V2 order)'
  throw new PredexError(Code.INVALID_ORDER_PAYLOAD, `signatureType must be ${allowed}`, { field: 'signatureType' })
}

/** The signed fields every face carries as text (uint256 decimals, addresses), keyed by their JSON names. */
export type SignedFields = Readonly<Partial<Record<'salt' | 'maker' | 'signer' | 'taker' | 'tokenId' | 'makerAmount' |
  'takerAmount' | 'expiration' | 'nonce' | 'feeRateBps', unknown>>>

/** A V2 order's fields (its `expiration` is carried but not signed). */
export type SignedFieldsV2 = Readonly<Partial<Record<'salt' | 'maker' | 'signer' | 'tokenId' | 'makerAmount' |
  'takerAmount' | 'expiration' | 'timestamp' | 'metadata' | 'builder', unknown>>>

interface Parsed<S extends AnyOrderStruct> {
  readonly struct: S
  readonly amounts: SignedAmounts
}

/**
 * The V1 struct as signed and the amounts the engine takes, from an order's fields once its face
 * has read the side and the signature type (their wire forms differ between faces): every uint256
 * parsed once, each failure INVALID_ORDER_PAYLOAD naming its field, in the order REST checks them.
 */
export function signedFieldsOf(order: SignedFields, side: 0 | 1, signatureType: 0 | 1 | 2): Parsed<OrderStruct> {
  const { salt, maker, signer } = partiesOf(order)
  const taker = addressOrPayload(order.taker, 'taker')
  const { tokenId, makerAmount, takerAmount } = termsOf(order)
  const expiration = uint256(order.expiration, 'expiration')
  const nonce = uint256(order.nonce, 'nonce')
  const feeRateBps = uint256(order.feeRateBps, 'feeRateBps')
  const amounts = { maker: makerAmount, taker: takerAmount, expiration, feeRateBps }
  const struct: OrderStruct = {
    salt, maker, signer, taker, tokenId, makerAmount: makerAmount.toString(), takerAmount: takerAmount.toString(),
    expiration: expiration.toString(), nonce: nonce.toString(), feeRateBps: feeRateBps.toString(), side, signatureType,
  }
  return { struct, amounts }
}

/**
 * The V2 struct and the engine's amounts. A V2 order signs no fee rate (the market's applies at
 * match: feeRateBps null) and no expiration: its `expiration` is still the GTD time, checked by
 * the rules as a V1 one (clob-v2-compat.md 9), but it is not part of the order id.
 */
export function signedFieldsV2Of(order: SignedFieldsV2, side: 0 | 1, signatureType: 0 | 1 | 2 | 3):
  Parsed<OrderStructV2> {
  const { salt, maker, signer } = partiesOf(order)
  const { tokenId, makerAmount, takerAmount } = termsOf(order)
  const expiration = uint256(order.expiration ?? '0', 'expiration')
  const timestamp = uint256(order.timestamp, 'timestamp')
  const metadata = bytes32(order.metadata, 'metadata')
  const builder = bytes32(order.builder, 'builder')
  const amounts = { maker: makerAmount, taker: takerAmount, expiration, feeRateBps: null }
  const struct: OrderStructV2 = {
    version: 2, salt, maker, signer, tokenId, makerAmount: makerAmount.toString(),
    takerAmount: takerAmount.toString(), side, signatureType, timestamp: timestamp.toString(), metadata, builder,
  }
  return { struct, amounts }
}

/** The first fields of both versions, in the order both check them: salt, maker, signer. */
function partiesOf(order: SignedFields | SignedFieldsV2): { salt: string; maker: string; signer: string } {
  const salt = uint256(order.salt, 'salt').toString()
  return { salt, maker: addressOrPayload(order.maker, 'maker'), signer: addressOrPayload(order.signer, 'signer') }
}

/** The token and the amounts, in the order both versions check them (after V1's taker). */
function termsOf(order: SignedFields | SignedFieldsV2): { tokenId: string; makerAmount: bigint; takerAmount: bigint } {
  const tokenId = uint256(order.tokenId, 'tokenId').toString()
  const makerAmount = uint256(order.makerAmount, 'makerAmount')
  return { tokenId, makerAmount, takerAmount: uint256(order.takerAmount, 'takerAmount') }
}

/** The order's signature: a non-empty string (the pool checks the rest); a POLY_1271 one is longer. */
export function signatureOf(value: unknown): string {
  return requireString(value, 'signature', 2 + 2 * NESTED_SIGNATURE_BYTES)
}

/** The API key the order claims as its owner. */
export function ownerOf(value: unknown): string {
  return requireString(value, 'owner', 128)
}

/** A uint256 field of the order; INVALID_ORDER_PAYLOAD naming the field otherwise. */
function uint256(value: unknown, field: string): bigint {
  const parsed = uint256Of(value)
  if (parsed === null) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, `${field} must be a decimal uint256`, { field })
  }
  return parsed
}

/** A bytes32 field (0x and 64 hex digits), lower case. */
function bytes32(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, `${field} must be a bytes32 (0x and 64 hex digits)`, { field })
  }
  return value.toLowerCase()
}

function addressOrPayload(value: unknown, field: string): string {
  try {
    return addressOf(value, field)
  } catch {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, `${field} must be an address`, { field })
  }
}
