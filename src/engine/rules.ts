/**
 * The rulebook: every business rule that a face may want to check before the engine does, written
 * once. The engine calls these functions on its own state; a face calls the very same ones to
 * refuse a doomed request before it is journaled (reliability-anchors.md 4.2), and turns the
 * Rejection into a catalogue error. So the two can never disagree on a code, a message or a
 * context. Pure: no state but what is passed in, no clock but `nowMs`.
 */
import { Code } from './codes.js'
import type { MarketStatus, OrderInput, RelayAction } from './command.js'
import {
  FEE_RATE_BPS_MAX,
  GTD_MARGIN_MS,
  MICROS_PER_LOT,
  MICROS_PER_PIP,
  ORDER_AMOUNT_MICROS_MAX,
  PIPS_PER_UNIT,
  TICK_PIPS_ALLOWED,
} from './limits.js'
import { checkOrderShape, isClientOrderId, isSafeCount } from './order-shape.js'
import { rejection } from './rejection.js'
import type { Rejection } from './result.js'
import { mulPipsDivCeil, mulPipsDivFloor } from './units.js'

// ---- Orders (docs/engine.md, "Validation") ------------------------------------------------------

// The shape's predicates, for the faces, whose door to the engine's rules is this file.
export { isClientOrderId, isSelfTradePrevention, isTimeInForce, SELF_TRADE_PREVENTION, TIME_IN_FORCE }
  from './order-shape.js'

/**
 * The shape rule of a client order id on its own, for a face that takes client order ids outside
 * an order (a cancel by client order id): the same code and context as the order's step 1.
 */
export function checkClientOrderId(value: unknown): Rejection | null {
  return isClientOrderId(value) ? null : rejection(Code.INVALID_ORDER_PAYLOAD, { field: 'clientOrderId' })
}

// ---- Amends (docs/engine.md, "Amend") ------------------------------------------------------------

/**
 * The shape of an amend's sizes, which needs no state: exactly one of the new remaining size and
 * the reduction is given (the other 0), a positive whole number of lots. Whether it lowers the
 * order is the engine's to judge (checkAmendReduces), since only it knows what rests.
 */
export function checkAmendSize(newSizeMicros: unknown, reduceByMicros: unknown): Rejection | null {
  const given = (isLotMultiple(newSizeMicros) ? 1 : 0) + (isLotMultiple(reduceByMicros) ? 1 : 0)
  const zeros = (newSizeMicros === 0 ? 1 : 0) + (reduceByMicros === 0 ? 1 : 0)
  if (given === 1 && zeros === 1) return null
  return rejection(Code.AMEND_SIZE_INVALID, { newSizeMicros: String(newSizeMicros),
    reduceByMicros: String(reduceByMicros) })
}

function isLotMultiple(value: unknown): value is number {
  return typeof value === 'number' && isSafeCount(value) && value > 0 && value <= ORDER_AMOUNT_MICROS_MAX
    && value % MICROS_PER_LOT === 0
}

/**
 * The remaining size an amend leaves, in micro-shares, or its refusal: strictly below what rests
 * (`remainingMicros`) and above zero (to remove all of it, cancel).
 */
export function amendedSizeMicros(remainingMicros: number, newSizeMicros: number, reduceByMicros: number):
  number | Rejection {
  const size = newSizeMicros > 0 ? newSizeMicros : remainingMicros - reduceByMicros
  if (size > 0 && size < remainingMicros) return size
  return rejection(Code.AMEND_NOT_REDUCING, { remainingMicros, requestedMicros: size })
}

/** What the order rules need of a market: the engine's Market and the read model's record both are one. */
export interface MarketTerms {
  readonly marketId: string
  readonly status: MarketStatus
  readonly tickSizeMicros: number
  readonly minOrderSizeMicros: number
  readonly feeRateBps: number
}

/**
 * An order that passed the rules of steps 4 to 13: what acceptance needs to know. The rules fill
 * one their caller owns (the engine reuses one for every order: a new object per order was most
 * of what a placement still allocated) and return it.
 */
export class OrderTerms {
  readonly ok = true
  isBuy = false
  isImmediate = false
  /** Lots (SELL, resting BUY) or 0 (immediate BUY, which has a budget instead). */
  lots = 0
  /** Native limit price in pips. */
  pips = 0

  set(isBuy: boolean, isImmediate: boolean, lots: number, pips: number): OrderTerms {
    this.isBuy = isBuy
    this.isImmediate = isImmediate
    this.lots = lots
    this.pips = pips
    return this
  }
}

/**
 * The time the rules judge an order at: the engine itself (its command time), or the time a face
 * read. An object, not a number: a time in milliseconds is past 2^31, and V8 boxes such a number
 * into a new heap object for each call that does not inline.
 */
export interface Clock {
  readonly timeMs: number
}

/**
 * The rules that need only the order, its market and the clock: step 1 (shape) and steps 4 to 13.
 * Steps 2 (duplicate) and 3 (token) and everything from 14 on need the engine's state: they are
 * the engine's alone. This is what a face pre-checks.
 */
export function checkOrderOnMarket(input: OrderInput, market: MarketTerms, nowMs: number): OrderTerms | Rejection {
  return checkOrderShape(input) ?? checkOrderTerms(input, market, { timeMs: nowMs }, new OrderTerms())
}

/** Steps 4 to 13: market status, post-only type, expiration, fee rate, then the amounts (into `terms`). */
export function checkOrderTerms(input: OrderInput, market: MarketTerms, clock: Clock, terms: OrderTerms):
  OrderTerms | Rejection {
  const status = checkMarketOpen(market)
  if (status !== null) return status
  const isImmediate = input.timeInForce === 'FOK' || input.timeInForce === 'FAK'
  if (input.postOnly && isImmediate) {
    return rejection(Code.INVALID_POST_ONLY_ORDER_TYPE, { timeInForce: input.timeInForce })
  }
  const expiration = checkExpiration(input, clock)
  if (expiration !== null) return expiration
  // A V1 order signs its fee rate (Polymarket's rule: the market's); a V2 order signs none.
  if (input.feeRateBps !== null && input.feeRateBps !== market.feeRateBps) {
    return rejection(Code.INVALID_ORDER_FEE_RATE,
      { feeRateBps: input.feeRateBps, marketFeeRateBps: market.feeRateBps })
  }
  return checkAmounts(input, market, isImmediate, terms)
}

/** Step 4: only an Active market takes new orders. */
export function checkMarketOpen(market: MarketTerms): Rejection | null {
  if (market.status === 'Active') return null
  const code = market.status === 'Upcoming' ? Code.MARKET_NOT_READY
    : market.status === 'Paused' ? Code.MARKET_CANCEL_ONLY : Code.MARKET_CLOSED
  return rejection(code, { marketId: market.marketId, status: market.status })
}

/**
 * Step 6. A face passes the time it reads before the engine stamps the command; the engine's
 * clock never goes back, so an order refused at the edge for its expiration is refused there too.
 */
export function checkExpiration(input: OrderInput, clock: Clock): Rejection | null {
  if (input.timeInForce === 'GTD') {
    const earliestMs = clock.timeMs + GTD_MARGIN_MS
    if (input.expirationSec * 1000 >= earliestMs) return null
    return rejection(Code.INVALID_ORDER_EXPIRATION,
      { expirationSec: input.expirationSec, earliestSec: Math.ceil(earliestMs / 1000) })
  }
  if (input.expirationSec === 0) return null
  return rejection(Code.INVALID_ORDER_EXPIRATION, { expirationSec: input.expirationSec, earliestSec: 0 })
}

/** Steps 8 to 13: amount bounds, price range, lots, tick or usable limit, minimum size. */
function checkAmounts(input: OrderInput, market: MarketTerms, isImmediate: boolean, terms: OrderTerms):
  OrderTerms | Rejection {
  const ma = input.makerAmountMicros
  const ta = input.takerAmountMicros
  if (ma > ORDER_AMOUNT_MICROS_MAX) return rejection(Code.INVALID_ORDER_SIZE_MAX, { field: 'makerAmountMicros' })
  if (ta > ORDER_AMOUNT_MICROS_MAX) return rejection(Code.INVALID_ORDER_SIZE_MAX, { field: 'takerAmountMicros' })
  const isBuy = input.side === 'BUY'
  if (isBuy ? ma >= ta : ta >= ma) return rejection(Code.INVALID_ORDER_PRICE, null)
  const sharesMicros = isBuy ? ta : ma
  const isBudget = isImmediate && isBuy
  if (!isBudget && sharesMicros % MICROS_PER_LOT !== 0) {
    const field = isBuy ? 'takerAmountMicros' : 'makerAmountMicros'
    return rejection(Code.INVALID_ORDER_AMOUNTS, { field, lotMicros: MICROS_PER_LOT })
  }
  if (isImmediate) return immediateTerms(input, isBuy, terms)
  return restingTerms(input, market, isBuy, sharesMicros / MICROS_PER_LOT, terms)
}

function restingTerms(input: OrderInput, market: MarketTerms, isBuy: boolean, lots: number, terms: OrderTerms):
  OrderTerms | Rejection {
  const usdcMicros = isBuy ? input.makerAmountMicros : input.takerAmountMicros
  const pips = usdcMicros / lots
  if (usdcMicros % lots !== 0 || pips % (market.tickSizeMicros / MICROS_PER_PIP) !== 0) {
    return rejection(Code.INVALID_ORDER_MIN_TICK_SIZE, { tickSizeMicros: market.tickSizeMicros })
  }
  if (lots * MICROS_PER_LOT < market.minOrderSizeMicros) {
    return rejection(Code.INVALID_ORDER_MIN_SIZE,
      { sizeMicros: lots * MICROS_PER_LOT, minOrderSizeMicros: market.minOrderSizeMicros })
  }
  return terms.set(isBuy, false, lots, pips)
}

/** An immediate order's limit must be usable; an immediate BUY's budget must buy one lot at it. */
function immediateTerms(input: OrderInput, isBuy: boolean, terms: OrderTerms): OrderTerms | Rejection {
  const ma = input.makerAmountMicros
  const ta = input.takerAmountMicros
  if (isBuy) {
    const pips = mulPipsDivFloor(ma, ta)
    if (pips < 1) return rejection(Code.INVALID_ORDER_PRICE, null)
    if (ma < pips) return rejection(Code.INVALID_ORDER_MIN_SIZE, { budgetMicros: ma, minBudgetMicros: pips })
    return terms.set(isBuy, true, 0, pips)
  }
  const pips = mulPipsDivCeil(ta, ma)
  if (pips >= PIPS_PER_UNIT) return rejection(Code.INVALID_ORDER_PRICE, null)
  return terms.set(isBuy, true, ma / MICROS_PER_LOT, pips)
}

// ---- Holds (docs/engine.md, "Holds") --------------------------------------------------------------

/** The USDC side of an account, as the engine's Account and its AccountSummary both carry it. */
export interface UsdcFunds {
  readonly usdcMicros: number
  readonly usdcAllowanceMicros: number
  readonly usdcHeldMicros: number
}

/** USDC that a new order may hold: min(balance, allowance) - held (never below 0; null: unknown account). */
export function availableUsdcMicros(funds: UsdcFunds | null): number {
  if (funds === null) return 0
  return Math.max(0, Math.min(funds.usdcMicros, funds.usdcAllowanceMicros) - funds.usdcHeldMicros)
}

// ---- Ledger actions (docs/engine.md, "Ledger") ------------------------------------------------------

/** A split or merge takes `requiredMicros` of an asset of which `availableMicros` is free of holds. */
export function checkFreeFunds(asset: string, requiredMicros: number, availableMicros: number): Rejection | null {
  if (availableMicros >= requiredMicros) return null
  return rejection(Code.LEDGER_INSUFFICIENT_BALANCE, { asset, requiredMicros, availableMicros })
}

/** A USDC approval may not leave open buy orders holding more than it allows. */
export function checkUsdcApproval(funds: UsdcFunds, allowanceMicros: number): Rejection | null {
  if (Math.min(funds.usdcMicros, allowanceMicros) >= funds.usdcHeldMicros) return null
  return rejection(Code.LEDGER_ALLOWANCE_BELOW_HOLDS, { asset: 'USDC', heldMicros: funds.usdcHeldMicros })
}

/**
 * An approval (`approve`: the USDC allowance, and the outcome tokens approved while it is above 0)
 * may not leave open orders holding more than it allows: the buys' USDC, and with an allowance of
 * 0 any token that sells hold (the first of `shares`, in the order given, is named).
 */
export function checkApprovalHolds(funds: UsdcFunds, allowanceMicros: number,
  shares: Iterable<{ readonly tokenId: string; readonly heldMicros: number }>): Rejection | null {
  const usdc = checkUsdcApproval(funds, allowanceMicros)
  if (usdc !== null || allowanceMicros > 0) return usdc
  for (const { tokenId, heldMicros } of shares) {
    if (heldMicros > 0) return rejection(Code.LEDGER_ALLOWANCE_BELOW_HOLDS, { asset: tokenId, heldMicros })
  }
  return null
}

/** Redemption opens when the market resolves, and needs a share of it to burn. */
export function checkRedeemable(marketId: string, status: MarketStatus, sharesMicros: number): Rejection | null {
  if (status !== 'Resolved') return rejection(Code.LEDGER_MARKET_NOT_RESOLVED, { marketId, status })
  if (sharesMicros === 0) return rejection(Code.LEDGER_NOTHING_TO_REDEEM, { marketId })
  return null
}

// ---- Market terms (docs/engine.md, "Markets") -----------------------------------------------------

export const MARKET_STATUSES: readonly MarketStatus[] =
  ['Upcoming', 'Active', 'Paused', 'Closed', 'Resolving', 'Resolved']

export function isMarketStatus(value: unknown): value is MarketStatus {
  return (MARKET_STATUSES as readonly unknown[]).includes(value)
}

export const TICK_SIZES_MICROS: readonly number[] = TICK_PIPS_ALLOWED.map((pips) => pips * MICROS_PER_PIP)

export function isTickSizeMicros(value: unknown): value is number {
  return typeof value === 'number' && TICK_SIZES_MICROS.includes(value)
}

/** A minimum order size: whole lots, no larger than the largest order. */
export function isMinOrderSizeMicros(value: unknown): value is number {
  return isSafeCount(value) && value % MICROS_PER_LOT === 0 && value <= ORDER_AMOUNT_MICROS_MAX
}

export function isFeeRateBps(value: unknown): value is number {
  return isSafeCount(value) && value <= FEE_RATE_BPS_MAX
}

// ---- Relay (docs/engine.md, "Relay") ----------------------------------------------------------------

export const RELAY_ACTION_KINDS =
  ['approve', 'split', 'merge', 'redeem'] as const satisfies readonly RelayAction['kind'][]

export function isRelayActionKind(value: unknown): value is RelayAction['kind'] {
  return (RELAY_ACTION_KINDS as readonly unknown[]).includes(value)
}

/**
 * Steps 2 and 3 of a relay: the deadline, then the owner's nonce. A deadline is an instant: the
 * relay is in time through the millisecond deadlineSec * 1000 itself. (Both sides are below 2^53,
 * or the product is above every safe time: the comparison is exact.)
 */
export function checkRelayTiming(nonce: number, deadlineSec: number, nowMs: number,
  expectedNonce: number): Rejection | null {
  if (nowMs > deadlineSec * 1000) {
    return rejection(Code.RELAY_DEADLINE_PASSED, { deadlineSec, nowSec: Math.floor(nowMs / 1000) })
  }
  if (nonce !== expectedNonce) return rejection(Code.RELAY_NONCE_MISMATCH, { expected: expectedNonce, nonce })
  return null
}
