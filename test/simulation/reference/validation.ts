/**
 * Orders: validation, in docs/engine.md's order (shape, terms, expiration, amounts, price and size,
 * balance, book).
 */
import type { OrderInput, Outcome } from '../../../src/engine/command.js'
import { Code } from '../../../src/engine/codes.js'
import {
  CLIENT_ORDER_ID_LENGTH_MAX,
  GTD_MARGIN_MS,
  ID_LENGTH_MAX,
  MICROS_PER_LOT,
  MICROS_PER_PIP,
  ORDER_AMOUNT_MICROS_MAX,
  ORDER_GROUP_ID_LENGTH_MAX,
  ORDERS_OPEN_MAX,
  PIPS_PER_UNIT,
  TEXT_LENGTH_MAX,
} from '../../../src/engine/limits.js'
import { heldShares, heldUsdc } from './accounts.js'
import { dryRunFills, hasMatch } from './fills.js'
import { type WindowSums, bucketNow, groupNamed, groupOf, isTriggered, windowSums } from './groups.js'
import { bestMaker, eligibleMakers, feeBound, isBid, nativePips, reaches } from './matching.js'
import {
  type GroupState,
  LOT,
  type MarketState,
  ORDER_STATUS_REFUSALS,
  type OrderState,
  type Plan,
  ReferenceState,
  type Refusal,
  type SelfTradeMode,
  UNIT_PIPS,
  USDC,
  ceilDiv,
  marketOf,
  minBig,
  num,
  refuse,
} from './state.js'

export function isId(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0 && v.length <= ID_LENGTH_MAX
}

export function isText(v: unknown): boolean {
  return typeof v === 'string' && v.length <= TEXT_LENGTH_MAX
}

export function isPositiveInt(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0
}

export function isNonNegativeInt(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
}

/** An amend's size when given: a positive whole number of lots, at most an order's bound. */
export function isLotAmount(v: unknown): boolean {
  return isPositiveInt(v) && (v as number) <= ORDER_AMOUNT_MICROS_MAX && (v as number) % MICROS_PER_LOT === 0
}

/** Order fields in the order docs/engine.md checks them, with their shape test. */
export const ORDER_SHAPE: readonly (readonly [keyof OrderInput, (v: unknown) => boolean])[] = [
  ['orderId', isId],
  ['owner', isId],
  ['maker', isId],
  ['signer', isId],
  ['tokenId', isId],
  ['side', (v) => v === 'BUY' || v === 'SELL'],
  ['timeInForce', (v) => v === 'GTC' || v === 'GTD' || v === 'FOK' || v === 'FAK'],
  ['makerAmountMicros', isPositiveInt],
  ['takerAmountMicros', isPositiveInt],
  ['expirationSec', isNonNegativeInt],
  // null: a V2 order, which signs no fee rate.
  ['feeRateBps', (v) => v === null || isNonNegativeInt(v)],
  ['postOnly', (v) => typeof v === 'boolean'],
  ['clientOrderId', isClientOrderIdShape],
  // SPEC: absent and an explicit `undefined` (which no JSON request can carry) are alike: the
  // default, cancel-maker. Anything else but the three modes (a wrong string, a number, null) is
  // malformed.
  ['selfTradePrevention', (v) => v === undefined || (SELF_TRADE_MODES as readonly unknown[]).includes(v)],
  // SPEC: absent (or `undefined`) and '' both mean no group; any other value must be a group id
  // (printable ASCII, at most 64 characters). Whether the key has that group is checked later.
  ['orderGroupId', (v) => v === undefined || v === '' || isGroupId(v)],
]

export const SELF_TRADE_MODES: readonly SelfTradeMode[] = ['cancel-maker', 'cancel-taker', 'cancel-both']

/** An order's self-trade prevention: cancel-maker when it names none (Predex's behaviour before modes). */
export function selfTradeModeOf(order: OrderInput): SelfTradeMode {
  return order.selfTradePrevention ?? 'cancel-maker'
}

/** '' or up to CLIENT_ORDER_ID_LENGTH_MAX characters from space to '~'. */
export function isClientOrderIdShape(v: unknown): boolean {
  return typeof v === 'string' && v.length <= CLIENT_ORDER_ID_LENGTH_MAX && /^[ -~]*$/.test(v)
}

/** An order group's id: 1 to ORDER_GROUP_ID_LENGTH_MAX characters from space to '~'. */
export function isGroupId(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= ORDER_GROUP_ID_LENGTH_MAX && /^[ -~]*$/.test(v)
}

/** The first malformed field of an order, or null. Inputs may be anything at run time. */
export function shapeError(order: unknown): string | null {
  const fields: Record<string, unknown> =
    typeof order === 'object' && order !== null ? (order as Record<string, unknown>) : {}
  for (const [name, ok] of ORDER_SHAPE) if (!ok(fields[name])) return name
  return null
}

/** A raw field for an event: the value when it is a string, else '' (docs: "Validation"). */
export function rawString(order: unknown, name: 'orderId' | 'maker'): string {
  if (typeof order !== 'object' || order === null) return ''
  const v = (order as Record<string, unknown>)[name]
  return typeof v === 'string' ? v : ''
}

export function isImmediate(order: OrderInput): boolean {
  return order.timeInForce === 'FOK' || order.timeInForce === 'FAK'
}

/** Steps 10, 12 and 13 for a resting order: lots, whole pips on the tick grid, min size. */
export function restingTerms(input: OrderInput, market: MarketState): Refusal | { refused: false; pips: number; lots: number } {
  const buy = input.side === 'BUY'
  const shareField = buy ? 'takerAmountMicros' : 'makerAmountMicros'
  const shareAmount = buy ? input.takerAmountMicros : input.makerAmountMicros
  const cashAmount = buy ? input.makerAmountMicros : input.takerAmountMicros
  if (shareAmount % MICROS_PER_LOT !== 0) {
    return refuse(Code.INVALID_ORDER_AMOUNTS, { field: shareField, lotMicros: MICROS_PER_LOT })
  }
  const lots = shareAmount / MICROS_PER_LOT
  const tickSizeMicros = market.tickPips * MICROS_PER_PIP
  if (cashAmount % lots !== 0 || (cashAmount / lots) % market.tickPips !== 0) {
    return refuse(Code.INVALID_ORDER_MIN_TICK_SIZE, { tickSizeMicros })
  }
  if (lots * MICROS_PER_LOT < market.input.minOrderSizeMicros) {
    return refuse(Code.INVALID_ORDER_MIN_SIZE, {
      sizeMicros: lots * MICROS_PER_LOT,
      minOrderSizeMicros: market.input.minOrderSizeMicros,
    })
  }
  return { refused: false, pips: cashAmount / lots, lots }
}

/** Steps 10, 12 and 13 for an immediate order: lots (SELL), a usable limit, a usable budget. */
export function immediateTerms(input: OrderInput): Refusal | { refused: false; pips: number; lots: number } {
  const ma = BigInt(input.makerAmountMicros)
  const ta = BigInt(input.takerAmountMicros)
  if (input.side === 'SELL') {
    if (input.makerAmountMicros % MICROS_PER_LOT !== 0) {
      return refuse(Code.INVALID_ORDER_AMOUNTS, { field: 'makerAmountMicros', lotMicros: MICROS_PER_LOT })
    }
    const pips = num(ceilDiv(ta * UNIT_PIPS, ma))
    if (pips >= PIPS_PER_UNIT) return refuse(Code.INVALID_ORDER_PRICE, null)
    return { refused: false, pips, lots: input.makerAmountMicros / MICROS_PER_LOT }
  }
  const pips = num((ma * UNIT_PIPS) / ta)
  if (pips < 1) return refuse(Code.INVALID_ORDER_PRICE, null)
  if (ma < BigInt(pips)) {
    return refuse(Code.INVALID_ORDER_MIN_SIZE, { budgetMicros: input.makerAmountMicros, minBudgetMicros: pips })
  }
  return { refused: false, pips, lots: 0 }
}

export function validate(r: ReferenceState, input: OrderInput): Refusal | Plan {
  const plan = checkTerms(r, input, null)
  if (plan.refused) return plan
  return balanceRefusal(r, input, plan) ?? bookRefusal(r, input, plan) ?? plan
}

/**
 * Steps 1 to 13: the order's terms, which neither funds nor the book decide. `replacing` is the
 * order a cancel-replace is about to cancel: the new order may share its client order id.
 */
export function checkTerms(r: ReferenceState, input: OrderInput, replacing: OrderState | null): Refusal | Plan {
  const field = shapeError(input)
  if (field !== null) return refuse(Code.INVALID_ORDER_PAYLOAD, { field })
  const prior = r.orders.get(input.orderId)
  if (prior !== undefined) {
    return refuse(Code.INVALID_ORDER_DUPLICATED, { orderId: input.orderId, status: prior.status })
  }
  // A client order id is taken while an order of the same owner that has it is open (but for
  // the order being replaced, which ends before the new one is placed).
  const twin = input.clientOrderId === '' ? undefined
    : r.live.find((o) => o !== replacing && o.input.owner === input.owner &&
      o.input.clientOrderId === input.clientOrderId)
  if (twin !== undefined) {
    return refuse(Code.CLIENT_ORDER_ID_DUPLICATED,
      { orderId: twin.input.orderId, status: twin.status, clientOrderId: input.clientOrderId })
  }
  const groupRefused = groupRefusal(r, input)
  if (groupRefused !== null) return groupRefused
  const token = r.tokens.get(input.tokenId)
  if (token === undefined) return refuse(Code.TOKEN_NOT_FOUND, { tokenId: input.tokenId })
  const market = marketOf(r, token.marketId)
  const statusCode = ORDER_STATUS_REFUSALS[market.status]
  if (statusCode !== undefined) {
    return refuse(statusCode, { marketId: market.input.marketId, status: market.status })
  }
  const immediate = isImmediate(input)
  if (input.postOnly && immediate) {
    return refuse(Code.INVALID_POST_ONLY_ORDER_TYPE, { timeInForce: input.timeInForce })
  }
  return expirationRefusal(r, input) ?? amountsRefusal(input, market) ??
    priceAndSize(input, market, token.outcome)
}

/**
 * The group an order names, if any: one of its owner's (API key's), and not triggered (docs:
 * "Joining"). SPEC: checked right after the client order id and before the token, as the docs
 * place it, so an order naming an unknown group on an unknown token is refused for the group.
 */
export function groupRefusal(r: ReferenceState, input: OrderInput): Refusal | null {
  const groupId = input.orderGroupId
  if (groupId === undefined || groupId === '') return null
  const group = groupOf(r, input.owner, groupId)
  if (group === undefined) return refuse(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: groupId })
  if (group.triggeredMs !== null && isTriggered(r, group)) {
    return refuse(Code.ORDER_GROUP_TRIGGERED, { orderGroupId: groupId, triggeredMs: group.triggeredMs })
  }
  return null
}

/** Step 6. */
export function expirationRefusal(r: ReferenceState, input: OrderInput): Refusal | null {
  if (input.timeInForce === 'GTD') {
    const earliestMs = BigInt(r.timeMs + GTD_MARGIN_MS)
    if (BigInt(input.expirationSec) * 1000n < earliestMs) {
      const earliestSec = num(ceilDiv(earliestMs, 1000n))
      return refuse(Code.INVALID_ORDER_EXPIRATION, {
        expirationSec: input.expirationSec,
        earliestSec,
      })
    }
    return null
  }
  if (input.expirationSec !== 0) {
    return refuse(Code.INVALID_ORDER_EXPIRATION, {
      expirationSec: input.expirationSec,
      earliestSec: 0,
    })
  }
  return null
}

/** Steps 7 to 9. */
export function amountsRefusal(input: OrderInput, market: MarketState): Refusal | null {
  if (input.feeRateBps !== null && input.feeRateBps !== market.feeRateBps) {
    return refuse(Code.INVALID_ORDER_FEE_RATE, {
      feeRateBps: input.feeRateBps,
      marketFeeRateBps: market.feeRateBps,
    })
  }
  if (input.makerAmountMicros > ORDER_AMOUNT_MICROS_MAX) {
    return refuse(Code.INVALID_ORDER_SIZE_MAX, { field: 'makerAmountMicros' })
  }
  if (input.takerAmountMicros > ORDER_AMOUNT_MICROS_MAX) {
    return refuse(Code.INVALID_ORDER_SIZE_MAX, { field: 'takerAmountMicros' })
  }
  const ma = input.makerAmountMicros
  const ta = input.takerAmountMicros
  if (input.side === 'BUY' ? !(ma < ta) : !(ta < ma)) {
    return refuse(Code.INVALID_ORDER_PRICE, null)
  }
  return null
}

/** Steps 10 to 13 (11 no longer exists: step 8 bounds the lots). */
export function priceAndSize(input: OrderInput, market: MarketState, outcome: Outcome): Refusal | Plan {
  const terms = isImmediate(input) ? immediateTerms(input) : restingTerms(input, market)
  if (terms.refused) return terms
  return {
    refused: false,
    market,
    outcome,
    immediate: isImmediate(input),
    pips: terms.pips,
    lots: terms.lots,
  }
}

/** Step 14. */
export function balanceRefusal(r: ReferenceState, input: OrderInput, plan: Plan): Refusal | null {
  const account = r.accounts.get(input.maker)
  if (input.side === 'BUY') {
    const cost = plan.immediate
      ? BigInt(input.makerAmountMicros)
      : BigInt(plan.pips) * BigInt(plan.lots)
    const required = cost + feeBound(plan.market.feeRateBps, cost)
    const balance = account?.usdc ?? 0n
    const allowance = account?.allowance ?? 0n
    const held = heldUsdc(r, input.maker)
    const available = minBig(balance, allowance) - held
    if (required <= available) return null
    return refuse(Code.INVALID_ORDER_NOT_ENOUGH_BALANCE, {
      asset: USDC,
      requiredMicros: num(required),
      availableMicros: num(available),
      balanceMicros: num(balance),
      allowanceMicros: num(allowance),
      heldMicros: num(held),
    })
  }
  const required = BigInt(plan.lots) * LOT
  const balance = account?.shares.get(input.tokenId) ?? 0n
  const held = heldShares(r, input.maker, input.tokenId)
  const approved = account?.sharesApproved ?? false
  const available = approved ? balance - held : 0n
  if (required <= available) return null
  return refuse(Code.INVALID_ORDER_NOT_ENOUGH_BALANCE, {
    asset: input.tokenId,
    requiredMicros: num(required),
    availableMicros: num(available),
    balanceMicros: num(balance),
    heldMicros: num(held),
    approved,
  })
}

/** Steps 15 to 18: the checks that look at the book. */
export function bookRefusal(r: ReferenceState, input: OrderInput, plan: Plan): Refusal | null {
  const bid = isBid(input.side, plan.outcome)
  const yesPips = nativePips(plan.outcome, plan.pips)
  if (!plan.immediate && r.live.length >= ORDERS_OPEN_MAX) {
    return refuse(Code.ENGINE_ORDERS_FULL, null)
  }
  if (input.postOnly) {
    const best = bestMaker(r, plan.market.input.marketId, bid)
    if (best !== undefined && reaches(bid, yesPips, best.yesPips)) {
      return refuse(Code.INVALID_POST_ONLY_ORDER, null)
    }
  }
  if (!plan.immediate) return null
  // Own orders included: whether they are skipped or stop the walk depends on the taker's mode.
  const makers = eligibleMakers(r, plan.market.input.marketId, bid, yesPips)
  const mode = selfTradeModeOf(input)
  const takerGroup = groupNamed(r, input)
  const windowNow = (g: GroupState): WindowSums => windowSums(g, bucketNow(r))
  if (input.timeInForce === 'FOK' && !dryRunFills(input, plan, makers, mode, takerGroup, windowNow)) {
    return refuse(Code.FOK_ORDER_NOT_FILLED, null)
  }
  if (input.timeInForce === 'FAK' && !hasMatch(input, makers, mode)) {
    return refuse(Code.FAK_ORDER_NOT_FILLED, null)
  }
  return null
}
