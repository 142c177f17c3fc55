/**
 * A signed order as clients send it (reference section 4.6) to the engine's OrderInput: field
 * checks, the owner and signer rules of Polymarket, the signature-type rule, and the signature
 * check on the verification pool. Shared by every face.
 */
import type { OrderInput, TimeInForce } from '../engine/command.js'
import type { OrderStruct } from '../crypto/eip712.js'
import { checkSignatureType, type Verdict } from '../crypto/verify-order.js'
import type { VerifierPool } from '../crypto/verifier-pool.js'
import type { MarketRecord } from '../engine/event.js'
import { ApiCode, PredexError } from '../errors.js'
import { Code, CODE_MESSAGES } from '../engine/codes.js'
import { checkOrderOnMarket, isTimeInForce } from '../engine/rules.js'
import { addressOf, integerOf, requireObject, requireString, uint256Of } from './wire.js'

const SAFE_INTEGER_MAX = BigInt(Number.MAX_SAFE_INTEGER)

export interface WireOrder {
  readonly struct: OrderStruct
  readonly signature: string
  readonly orderType: TimeInForce
  readonly postOnly: boolean
  readonly owner: string
  /** The uint256 fields the engine takes as numbers, parsed once (the struct keeps their text for the signature). */
  readonly amounts: { readonly maker: bigint; readonly taker: bigint; readonly expiration: bigint; readonly feeRateBps: bigint }
}

/** Parses the body of POST /order (or one element of POST /orders). */
export function parseWireOrder(body: unknown): WireOrder {
  const top = requireObject(body, 'body')
  const order = requireObject(top.order, 'order')
  const orderType = top.orderType ?? 'GTC'
  if (!isTimeInForce(orderType)) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'orderType must be GTC, GTD, FOK or FAK', { field: 'orderType' })
  }
  const postOnly = top.postOnly ?? false
  if (typeof postOnly !== 'boolean') throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'postOnly must be a boolean', { field: 'postOnly' })
  const side = order.side
  if (side !== 'BUY' && side !== 'SELL') throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'side must be BUY or SELL', { field: 'side' })
  const signatureType = order.signatureType
  if (signatureType !== 0 && signatureType !== 1 && signatureType !== 2) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'signatureType must be 0, 1 or 2', { field: 'signatureType' })
  }
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
    nonce: nonce.toString(), feeRateBps: feeRateBps.toString(), side: side === 'BUY' ? 0 : 1, signatureType,
  }
  return { struct, signature: requireString(order.signature, 'signature', 140), orderType, postOnly,
    owner: requireString(top.owner, 'owner', 128), amounts }
}

/** A uint256 field, in canonical form (a number, or a decimal string with leading zeros, signs the same). */
function uint256(value: unknown, field: string): bigint {
  const parsed = uint256Of(value)
  if (parsed === null) throw new PredexError(Code.INVALID_ORDER_PAYLOAD, `${field} must be a decimal uint256`, { field })
  return parsed
}

function addressOrPayload(value: unknown, field: string): string {
  try {
    return addressOf(value, field)
  } catch {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, `${field} must be an address`, { field })
  }
}

/**
 * Polymarket's ownership rules: the order's owner is the API key used, and its signer is the
 * key's address. (The maker may be a registered proxy or Safe: checkSignatureType.)
 */
export function checkOwnership(wire: WireOrder, apiKey: string, address: string): void {
  if (wire.owner !== apiKey) throw new PredexError(ApiCode.NOT_OWNER, 'the order owner has to be the owner of the API KEY', { owner: wire.owner })
  if (wire.struct.signer !== address) {
    throw new PredexError(ApiCode.NOT_OWNER, 'the order signer address has to be the address of the API KEY', { signer: wire.struct.signer, address })
  }
}

/** Signature-type rule, then the signature itself (on the pool); returns the order id. */
export async function verifySignature(wire: WireOrder, market: MarketRecord, pool: VerifierPool,
  isLinked: (maker: string, signer: string) => boolean): Promise<string> {
  const typeRule = checkSignatureType(wire.struct, isLinked)
  if (typeRule !== null && !typeRule.ok) throw signatureError(typeRule)
  const verdict = await pool.verify({ order: wire.struct, signature: wire.signature, negRisk: market.negRisk })
  if (!verdict.ok) throw signatureError(verdict)
  return verdict.orderId
}

function signatureError(verdict: Extract<Verdict, { ok: false }>): PredexError {
  return new PredexError(ApiCode.INVALID_SIGNATURE, verdict.message, { check: verdict.check, ...verdict.context })
}

/** The engine's order from a verified wire order. Amounts beyond a safe integer are refused here. */
export function orderInputOf(wire: WireOrder, orderId: string, apiKey: string): OrderInput {
  const amount = (value: bigint, field: string): number => {
    if (value > SAFE_INTEGER_MAX) throw new PredexError(Code.INVALID_ORDER_SIZE_MAX, CODE_MESSAGES.INVALID_ORDER_SIZE_MAX, { field })
    return Number(value)
  }
  // Beyond a safe integer, the wire's own integer error (integerOf refuses it with its usual words).
  const small = (value: bigint, field: string): number => value > SAFE_INTEGER_MAX ? integerOf(value.toString(), field) : Number(value)
  const amounts = wire.amounts
  return {
    orderId,
    owner: apiKey,
    maker: wire.struct.maker,
    signer: wire.struct.signer,
    tokenId: wire.struct.tokenId,
    side: wire.struct.side === 0 ? 'BUY' : 'SELL',
    makerAmountMicros: amount(amounts.maker, 'makerAmountMicros'),
    takerAmountMicros: amount(amounts.taker, 'takerAmountMicros'),
    expirationSec: small(amounts.expiration, 'expiration'),
    feeRateBps: small(amounts.feeRateBps, 'feeRateBps'),
    timeInForce: wire.orderType,
    postOnly: wire.postOnly,
  }
}

/**
 * The placement rules that need only the order, its market and the clock (docs/engine.md,
 * "Validation", steps 1 and 4 to 13), run before the order becomes a command, so that an order
 * that can only be refused is not journaled (reliability-anchors.md 4.2). It is the engine's own
 * rulebook function, so the codes, messages and context are the engine's; the engine checks
 * again and stays the authority; balances, the book and duplicates are its alone. `nowMs` is
 * read before the engine stamps the command (its clock never goes back).
 */
export function checkOrderRules(input: OrderInput, market: MarketRecord, nowMs: number): void {
  const verdict = checkOrderOnMarket(input, market, nowMs)
  if (!verdict.ok) throw new PredexError(verdict.code, verdict.message, verdict.context)
}
