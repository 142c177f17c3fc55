/**
 * A signed order as clients send it (reference section 4.6), parsed into the services' SignedOrder:
 * field checks only, each uint256 parsed once. Shared by every face that speaks JSON.
 */
import type { OrderStruct } from '../crypto/eip712.js'
import { PredexError } from '../errors.js'
import { Code } from '../engine/codes.js'
import { isTimeInForce } from '../engine/rules.js'
import type { SignedOrder } from '../service/signed-order.js'
import { addressOf, requireObject, requireString, uint256Of } from './wire.js'

export type WireOrder = SignedOrder

/** Parses the body of POST /order (or one element of POST /orders). */
export function parseWireOrder(body: unknown): WireOrder {
  const top = requireObject(body, 'body')
  const order = requireObject(top.order, 'order')
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
  const signatureType = order.signatureType
  if (signatureType !== 0 && signatureType !== 1 && signatureType !== 2) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'signatureType must be 0, 1 or 2', { field: 'signatureType' })
  }
  const { struct, amounts } = signedFieldsOf(order, side === 'BUY' ? 0 : 1, signatureType)
  return { struct, signature: signatureOf(order.signature), orderType, postOnly, owner: ownerOf(top.owner), amounts }
}

/** The signed fields every face carries as text (uint256 decimals, addresses), keyed by their JSON names. */
export type SignedFields = Readonly<Partial<Record<'salt' | 'maker' | 'signer' | 'taker' | 'tokenId' | 'makerAmount' |
  'takerAmount' | 'expiration' | 'nonce' | 'feeRateBps', unknown>>>

/**
 * The struct as signed and the amounts the engine takes, from an order's fields once its face has
 * read the side and the signature type (their wire forms differ between faces): every uint256
 * parsed once, each failure INVALID_ORDER_PAYLOAD naming its field, in the order REST checks them.
 */
export function signedFieldsOf(order: SignedFields, side: 0 | 1, signatureType: 0 | 1 | 2):
  Pick<WireOrder, 'struct' | 'amounts'> {
  const salt = uint256(order.salt, 'salt')
  const maker = addressOrPayload(order.maker, 'maker')
  const signer = addressOrPayload(order.signer, 'signer')
  const taker = addressOrPayload(order.taker, 'taker')
  const tokenId = uint256(order.tokenId, 'tokenId')
  const makerAmount = uint256(order.makerAmount, 'makerAmount')
  const takerAmount = uint256(order.takerAmount, 'takerAmount')
  const expiration = uint256(order.expiration, 'expiration')
  const nonce = uint256(order.nonce, 'nonce')
  const feeRateBps = uint256(order.feeRateBps, 'feeRateBps')
  const amounts = { maker: makerAmount, taker: takerAmount, expiration, feeRateBps }
  const struct: OrderStruct = {
    salt: salt.toString(), maker, signer, taker, tokenId: tokenId.toString(),
    makerAmount: makerAmount.toString(), takerAmount: takerAmount.toString(), expiration: expiration.toString(),
    nonce: nonce.toString(), feeRateBps: feeRateBps.toString(), side, signatureType,
  }
  return { struct, amounts }
}

/** The order's signature: a non-empty string (the pool checks the rest). */
export function signatureOf(value: unknown): string {
  return requireString(value, 'signature', 140)
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

function addressOrPayload(value: unknown, field: string): string {
  try {
    return addressOf(value, field)
  } catch {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, `${field} must be an address`, { field })
  }
}
