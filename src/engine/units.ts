/**
 * Exact integer arithmetic on the engine's units. Every helper states how it rounds; inputs are
 * asserted to lie within the bounds that make the result exact in a double.
 */
import { assert } from '../stdx/assert.js'
import { FEE_RATE_BPS_MAX, ORDER_AMOUNT_MICROS_MAX, PIPS_PER_UNIT } from './limits.js'

const BPS_PER_UNIT = 10_000
const FEE_SPLIT = 10_000

/**
 * USDC of `sizeMicros` shares at `priceMicros`, exact: prices are whole pips (100 micro-USDC)
 * and sizes whole lots (10 000 micro-shares), so pips x lots is the micro-USDC amount.
 */
export function notionalMicros(priceMicros: number, sizeMicros: number): number {
  assert(priceMicros % 100 === 0 && sizeMicros % 10_000 === 0, 'a price on the pip grid and a size in whole lots')
  return (priceMicros / 100) * (sizeMicros / 10_000)
}

/** floor(a * 10_000 / b): the limit price in pips of an immediate BUY (a USDC, b shares). */
export function mulPipsDivFloor(a: number, b: number): number {
  return mulPipsDiv(a, b, false)
}

/** ceil(a * 10_000 / b): the limit price in pips of an immediate SELL (a USDC, b shares). */
export function mulPipsDivCeil(a: number, b: number): number {
  return mulPipsDiv(a, b, true)
}

/**
 * a * 10_000 / b rounded down or up, for a limit ratio below 1: order amounts 0 <= a < b <=
 * ORDER_AMOUNT_MICROS_MAX, so the quotient is below 10 000 pips. Long division never forms the
 * product, which may exceed 2^53: each step multiplies a remainder below b by 10, which stays
 * exact under the bound (limits.ts).
 */
function mulPipsDiv(a: number, b: number, roundUp: boolean): number {
  assert(Number.isSafeInteger(a) && a >= 0 && a <= ORDER_AMOUNT_MICROS_MAX, 'dividend in range')
  assert(Number.isSafeInteger(b) && b > 0 && b <= ORDER_AMOUNT_MICROS_MAX, 'divisor in range')
  assert(a < b, 'a limit ratio below 1')
  let quotient = Math.floor(a / b)
  let remainder = a - quotient * b
  for (let digit = 0; digit < 4; digit++) {
    remainder *= 10
    const next = Math.floor(remainder / b)
    quotient = quotient * 10 + next
    remainder -= next * b
  }
  assert(remainder >= 0 && remainder < b && quotient < PIPS_PER_UNIT, 'long division in range')
  return roundUp && remainder > 0 ? quotient + 1 : quotient
}

/**
 * The fee a taker pays on a fill of `lots` at Yes-space price `pips`:
 * floor(rate / 10_000 x min(p, 1 - p) x shares) in micro-USDC, i.e.
 * floor(rate x m x lots / 10_000) with m = min(pips, 10_000 - pips). The product can exceed
 * 2^53, so lots is split at 10_000 and the exact high part is added to the floored low part.
 */
export function feeOf(feeRateBps: number, pips: number, lots: number): number {
  if (feeRateBps === 0) return 0
  assert(feeRateBps > 0 && feeRateBps <= FEE_RATE_BPS_MAX, 'fee rate in range')
  assert(pips > 0 && pips < PIPS_PER_UNIT, 'fill price inside (0, 1)')
  const rateTimesM = feeRateBps * Math.min(pips, PIPS_PER_UNIT - pips)
  const lotsHigh = Math.floor(lots / FEE_SPLIT)
  const lotsLow = lots - lotsHigh * FEE_SPLIT
  return rateTimesM * lotsHigh + Math.floor((rateTimesM * lotsLow) / BPS_PER_UNIT)
}

/**
 * The most fee any set of fills costing `costMicros` in total can owe:
 * ceil(rate x cost / 10_000), since min(p, 1 - p) <= p. A BUY must have this on top of its cost.
 */
export function feeBoundOf(feeRateBps: number, costMicros: number): number {
  if (feeRateBps === 0) return 0
  assert(feeRateBps > 0 && feeRateBps <= FEE_RATE_BPS_MAX, 'fee rate in range')
  assert(Number.isSafeInteger(costMicros) && costMicros >= 0, 'cost is a safe integer')
  const costHigh = Math.floor(costMicros / BPS_PER_UNIT)
  const costLow = costMicros - costHigh * BPS_PER_UNIT
  return feeRateBps * costHigh + Math.ceil((feeRateBps * costLow) / BPS_PER_UNIT)
}

export { decimalOfMicros } from '../stdx/decimal.js'
