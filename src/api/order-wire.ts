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
import { addressOf, integerOf, requireObject, requireString } from './wire.js'
import { checkOrderShape } from '../engine/order-shape.js'
import { GTD_MARGIN_MS, MICROS_PER_LOT, MICROS_PER_PIP, ORDER_AMOUNT_MICROS_MAX, PIPS_PER_UNIT } from '../engine/limits.js'
import { mulPipsDivCeil, mulPipsDivFloor } from '../engine/units.js'
import type { ContextValue } from '../engine/result.js'

const UINT256_DIGITS_MAX = 78
const TIME_IN_FORCE: readonly string[] = ['GTC', 'GTD', 'FOK', 'FAK']

export interface WireOrder {
  readonly struct: OrderStruct
  readonly signature: string
  readonly orderType: TimeInForce
  readonly postOnly: boolean
  readonly owner: string
}

/** Parses the body of POST /order (or one element of POST /orders). */
export function parseWireOrder(body: unknown): WireOrder {
  const top = requireObject(body, 'body')
  const order = requireObject(top.order, 'order')
  const orderType = top.orderType ?? 'GTC'
  if (typeof orderType !== 'string' || !TIME_IN_FORCE.includes(orderType)) {
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
  const struct: OrderStruct = {
    salt: uint256(order.salt, 'salt'),
    maker: addressOrPayload(order.maker, 'maker'),
    signer: addressOrPayload(order.signer, 'signer'),
    taker: addressOrPayload(order.taker, 'taker'),
    tokenId: uint256(order.tokenId, 'tokenId'),
    makerAmount: uint256(order.makerAmount, 'makerAmount'),
    takerAmount: uint256(order.takerAmount, 'takerAmount'),
    expiration: uint256(order.expiration, 'expiration'),
    nonce: uint256(order.nonce, 'nonce'),
    feeRateBps: uint256(order.feeRateBps, 'feeRateBps'),
    side: side === 'BUY' ? 0 : 1,
    signatureType,
  }
  return { struct, signature: requireString(order.signature, 'signature', 140), orderType: orderType as TimeInForce, postOnly,
    owner: requireString(top.owner, 'owner', 128) }
}

/** A uint256 field: a decimal string (or a safe JSON integer, as clob-client sends the salt). */
function uint256(value: unknown, field: string): string {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value)
  if (typeof value !== 'string' || !/^\d+$/.test(value) || value.length > UINT256_DIGITS_MAX || BigInt(value) >= 1n << 256n) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, `${field} must be a decimal uint256`, { field })
  }
  return BigInt(value).toString()
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
  const amount = (text: string, field: string): number => {
    if (text.length > 16 || BigInt(text) > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new PredexError(Code.INVALID_ORDER_SIZE_MAX, CODE_MESSAGES.INVALID_ORDER_SIZE_MAX, { field })
    }
    return Number(text)
  }
  const small = (text: string, field: string): number => integerOf(text, field)
  return {
    orderId,
    owner: apiKey,
    maker: wire.struct.maker,
    signer: wire.struct.signer,
    tokenId: wire.struct.tokenId,
    side: wire.struct.side === 0 ? 'BUY' : 'SELL',
    makerAmountMicros: amount(wire.struct.makerAmount, 'makerAmountMicros'),
    takerAmountMicros: amount(wire.struct.takerAmount, 'takerAmountMicros'),
    expirationSec: small(wire.struct.expiration, 'expiration'),
    feeRateBps: small(wire.struct.feeRateBps, 'feeRateBps'),
    timeInForce: wire.orderType,
    postOnly: wire.postOnly,
  }
}

/**
 * The engine's placement checks that need only the order, its market and the clock
 * (docs/engine.md, "Validation": shape, market status, post-only type, expiration, fee rate,
 * amount bounds, price, lots, tick, minimum size), run before the order becomes a command, so
 * that an order that can only be refused is not journaled (reliability-anchors.md 4.2: the
 * journal does not advance on rejected input). Same codes, messages and context as the engine,
 * which checks again and stays the authority; balances, the book and duplicates are its alone.
 * `nowMs` is read before the engine stamps the command (its clock never goes back), so an order
 * refused here for its expiration would be refused there too.
 */
export function checkOrderRules(input: OrderInput, market: MarketRecord, nowMs: number): void {
  const refuse = (code: Code, context: Readonly<Record<string, ContextValue>> | null): never => {
    throw new PredexError(code, CODE_MESSAGES[code], context)
  }
  const shape = checkOrderShape(input)
  if (shape !== null) refuse(shape.code, shape.context)
  if (market.status !== 'Active') {
    refuse(market.status === 'Upcoming' ? Code.MARKET_NOT_READY : market.status === 'Paused' ? Code.MARKET_CANCEL_ONLY : Code.MARKET_CLOSED,
      { marketId: market.marketId, status: market.status })
  }
  const isImmediate = input.timeInForce === 'FOK' || input.timeInForce === 'FAK'
  if (input.postOnly && isImmediate) refuse(Code.INVALID_POST_ONLY_ORDER_TYPE, { timeInForce: input.timeInForce })
  if (input.timeInForce === 'GTD') {
    const earliestMs = nowMs + GTD_MARGIN_MS
    if (input.expirationSec * 1000 < earliestMs) {
      refuse(Code.INVALID_ORDER_EXPIRATION, { expirationSec: input.expirationSec, earliestSec: Math.ceil(earliestMs / 1000) })
    }
  } else if (input.expirationSec !== 0) {
    refuse(Code.INVALID_ORDER_EXPIRATION, { expirationSec: input.expirationSec, earliestSec: 0 })
  }
  if (input.feeRateBps !== market.feeRateBps) {
    refuse(Code.INVALID_ORDER_FEE_RATE, { feeRateBps: input.feeRateBps, marketFeeRateBps: market.feeRateBps })
  }
  const ma = input.makerAmountMicros
  const ta = input.takerAmountMicros
  if (ma > ORDER_AMOUNT_MICROS_MAX) refuse(Code.INVALID_ORDER_SIZE_MAX, { field: 'makerAmountMicros' })
  if (ta > ORDER_AMOUNT_MICROS_MAX) refuse(Code.INVALID_ORDER_SIZE_MAX, { field: 'takerAmountMicros' })
  const isBuy = input.side === 'BUY'
  if (isBuy ? ma >= ta : ta >= ma) refuse(Code.INVALID_ORDER_PRICE, null)
  const sharesMicros = isBuy ? ta : ma
  if (!(isImmediate && isBuy) && sharesMicros % MICROS_PER_LOT !== 0) {
    refuse(Code.INVALID_ORDER_AMOUNTS, { field: isBuy ? 'takerAmountMicros' : 'makerAmountMicros', lotMicros: MICROS_PER_LOT })
  }
  if (isImmediate) {
    if (isBuy) {
      const pips = mulPipsDivFloor(ma, ta)
      if (pips < 1) refuse(Code.INVALID_ORDER_PRICE, null)
      if (ma < pips) refuse(Code.INVALID_ORDER_MIN_SIZE, { budgetMicros: ma, minBudgetMicros: pips })
    } else if (mulPipsDivCeil(ta, ma) >= PIPS_PER_UNIT) {
      refuse(Code.INVALID_ORDER_PRICE, null)
    }
    return
  }
  const lots = sharesMicros / MICROS_PER_LOT
  const usdcMicros = isBuy ? ma : ta
  const tickPips = market.tickSizeMicros / MICROS_PER_PIP
  if (usdcMicros % lots !== 0 || (usdcMicros / lots) % tickPips !== 0) refuse(Code.INVALID_ORDER_MIN_TICK_SIZE, { tickSizeMicros: market.tickSizeMicros })
  if (lots * MICROS_PER_LOT < market.minOrderSizeMicros) {
    refuse(Code.INVALID_ORDER_MIN_SIZE, { sizeMicros: lots * MICROS_PER_LOT, minOrderSizeMicros: market.minOrderSizeMicros })
  }
}
