/**
 * A signed order on its way in, for every face, once the face has parsed its wire format:
 * Polymarket's owner and signer rules, the signature-type rule and the signature (on the
 * verification pool), the engine's input, and the rulebook's pre-check. Nothing here knows JSON.
 */
import type { AnyOrderStruct } from '../../crypto/eip712.js'
import { checkSignatureType, checkWalletOwner, type Verdict } from '../../crypto/verify-order.js'
import type { VerifierPool } from '../../crypto/verifier-pool.js'
import { Code, CODE_MESSAGES } from '../../engine/codes.js'
import type { OrderInput, SelfTradePrevention, TimeInForce } from '../../engine/command.js'
import type { MarketRecord } from '../../engine/event.js'
import { checkOrderOnMarket } from '../../engine/rules.js'
import { ApiCode, PredexError } from '../../errors.js'

const SAFE_INTEGER_MAX = BigInt(Number.MAX_SAFE_INTEGER)
/** Decimal digits of the largest integer a face accepts as a number field (wire.ts, integerOf). */
const INTEGER_DIGITS_MAX = 20

export interface SignedOrder {
  /** What the wallet signed (a V1 or a V2 order), each uint256 in canonical decimal text. */
  readonly struct: AnyOrderStruct
  readonly signature: string
  readonly orderType: TimeInForce
  readonly postOnly: boolean
  /** The API key the order claims as its owner. */
  readonly owner: string
  /** The uint256 fields the engine takes as numbers, parsed once by the face. */
  readonly amounts: SignedAmounts
  /**
   * The trader's own name for the order (not signed); absent or '' = none. Unique per API key
   * among its live orders (the engine refuses a repeat with CLIENT_ORDER_ID_DUPLICATED).
   */
  readonly clientOrderId?: string
  /** Absent: the engine's default (cancel-maker). */
  readonly selfTradePrevention?: SelfTradePrevention
  /** One of the key's order groups the order joins (absent: none). */
  readonly orderGroupId?: string
}

export interface SignedAmounts {
  readonly maker: bigint
  readonly taker: bigint
  readonly expiration: bigint
  /** Null for a V2 order, which signs none: the market's rate applies at match. */
  readonly feeRateBps: bigint | null
}

/**
 * Polymarket's ownership rules: the order's owner is the API key used, and its signer is the
 * key's address. (The maker may be a registered proxy or Safe: checkSignatureType.) A
 * deposit-wallet order (type 3) names the wallet as signer: the EOA that signed for it, which
 * must be the key's address, is known once the signature is recovered (verifySignature).
 */
export function checkOwnership(order: SignedOrder, apiKey: string, address: string): void {
  if (order.owner !== apiKey) {
    throw new PredexError(ApiCode.NOT_OWNER, 'the order owner has to be the owner of the API KEY',
      { owner: order.owner })
  }
  if (order.struct.signatureType !== 3 && order.struct.signer !== address) {
    throw new PredexError(ApiCode.NOT_OWNER, 'the order signer address has to be the address of the API KEY',
      { signer: order.struct.signer, address })
  }
}

/**
 * Signature-type rule, then the signature itself (on the pool); returns the order id. For a
 * deposit-wallet order, then, the EOA that signed must be the API key's `address` and own the wallet.
 */
export async function verifySignature(order: SignedOrder, market: MarketRecord, pool: VerifierPool,
  isLinked: (maker: string, signer: string) => boolean, address: string): Promise<string> {
  const typeRule = checkSignatureType(order.struct, isLinked)
  if (typeRule !== null && !typeRule.ok) throw signatureError(typeRule)
  // The trader's address is its turn in the pool's fair queue (and what its per-key bound counts).
  const verdict = await pool.verify({ order: order.struct, signature: order.signature, negRisk: market.negRisk },
    address)
  if (!verdict.ok) throw signatureError(verdict)
  if (verdict.walletOwner !== undefined) {
    if (verdict.walletOwner !== address) {
      throw new PredexError(ApiCode.NOT_OWNER, 'the EOA that signed for the deposit wallet has to be the address of ' +
        'the API KEY', { signedBy: verdict.walletOwner, address })
    }
    const ownerRule = checkWalletOwner(order.struct.signer, verdict.walletOwner, isLinked)
    if (ownerRule !== null && !ownerRule.ok) throw signatureError(ownerRule)
  }
  return verdict.orderId
}

function signatureError(verdict: Extract<Verdict, { ok: false }>): PredexError {
  const code = verdict.check === 'signature-version' ? ApiCode.ORDER_VERSION_MISMATCH : ApiCode.INVALID_SIGNATURE
  return new PredexError(code, verdict.message, { check: verdict.check, ...verdict.context })
}

/** An amount as the engine takes it: beyond a safe integer, the order is above the maximum size. */
function amountOf(value: bigint, field: string): number {
  if (value > SAFE_INTEGER_MAX) {
    throw new PredexError(Code.INVALID_ORDER_SIZE_MAX, CODE_MESSAGES.INVALID_ORDER_SIZE_MAX, { field })
  }
  return Number(value)
}

/** A small field (expiration, fee rate) as a number; beyond a safe integer, refused as the wire refuses integers. */
function integerOf(value: bigint, field: string): number {
  if (value <= SAFE_INTEGER_MAX) return Number(value)
  if (value.toString().length > INTEGER_DIGITS_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} must be a non-negative integer`, { field })
  }
  const max = Number.MAX_SAFE_INTEGER
  throw new PredexError(ApiCode.INVALID_PARAMETER, `${field} is larger than ${max}`, { field, max })
}

/** The engine's order from a verified signed order. */
export function orderInputOf(order: SignedOrder, orderId: string, apiKey: string): OrderInput {
  const amounts = order.amounts
  return {
    orderId,
    owner: apiKey,
    maker: order.struct.maker,
    signer: order.struct.signer,
    tokenId: order.struct.tokenId,
    side: order.struct.side === 0 ? 'BUY' : 'SELL',
    makerAmountMicros: amountOf(amounts.maker, 'makerAmountMicros'),
    takerAmountMicros: amountOf(amounts.taker, 'takerAmountMicros'),
    expirationSec: integerOf(amounts.expiration, 'expiration'),
    feeRateBps: amounts.feeRateBps === null ? null : integerOf(amounts.feeRateBps, 'feeRateBps'),
    timeInForce: order.orderType,
    postOnly: order.postOnly,
    clientOrderId: order.clientOrderId ?? '',
    selfTradePrevention: order.selfTradePrevention,
    orderGroupId: order.orderGroupId,
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
