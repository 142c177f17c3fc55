/**
 * How clob-client turns a human order into signed amounts (reference section 4), done with
 * exact decimals: per tick size, the price is rounded to the tick's decimals and the size to
 * 2; the USDC amount keeps at most the tick's amount decimals (what clob-client's float "fix-up"
 * amounts to when there is no float noise: round up at decimals + 4, then down at decimals).
 *
 * Limit orders: BUY maker = size x price (USDC), taker = size; SELL maker = size, taker = USDC.
 * Market orders: BUY maker = amount of USDC to spend, taker = amount / price (shares);
 * SELL maker = shares, taker = shares x price.
 */
import { compare, decimalOf, decimalPlaces, decimalText, divideUp, multiply, roundTo, toMicros, type Decimal }
  from './decimal.js'

export type TickSize = '0.1' | '0.01' | '0.005' | '0.0025' | '0.001' | '0.0001'
export type Side = 'BUY' | 'SELL'

interface RoundingConfig {
  readonly price: number
  readonly size: number
  readonly amount: number
}

export const ROUNDING: Readonly<Record<TickSize, RoundingConfig>> = {
  '0.1': { price: 1, size: 2, amount: 3 },
  '0.01': { price: 2, size: 2, amount: 4 },
  // clob-client-v2's rounding (roundingConfig.ts): the price decimals of 0.005 and 0.0025 do not
  // make every rounded price a multiple of the tick; the server refuses one that is not.
  '0.005': { price: 3, size: 2, amount: 5 },
  '0.0025': { price: 4, size: 2, amount: 6 },
  '0.001': { price: 3, size: 2, amount: 5 },
  '0.0001': { price: 4, size: 2, amount: 6 },
}

export interface Amounts {
  /** 6-decimal integers as decimal strings, as signed. */
  readonly makerAmount: string
  readonly takerAmount: string
}

/** Keeps at most `places` decimals: rounds up at places + 4, then down at places. */
function fixUp(d: Decimal, places: number): Decimal {
  if (decimalPlaces(d) <= places) return d
  const up = roundTo(d, places + 4, 'up')
  return decimalPlaces(up) <= places ? up : roundTo(up, places, 'down')
}

/** clob-client's price bound: tick <= price <= 1 - tick, on the price as given. */
function checkPrice(price: number | string, tick: TickSize): void {
  const p = decimalOf(price)
  const t = decimalOf(tick)
  const oneMinusTick = { units: 10n ** BigInt(t.scale) - t.units, scale: t.scale }
  if (compare(p, t) < 0 || compare(p, oneMinusTick) > 0) {
    throw new RangeError(`invalid price (${price}), min: ${tick} - max: ${decimalText(oneMinusTick)}`)
  }
}

function amountsOf(maker: Decimal, taker: Decimal): Amounts {
  return { makerAmount: toMicros(maker).toString(), takerAmount: toMicros(taker).toString() }
}

/** A limit order (GTC or GTD; also usable with FOK or FAK). */
export function limitOrderAmounts(side: Side, size: number | string, price: number | string, tick: TickSize): Amounts {
  checkPrice(price, tick)
  const config = ROUNDING[tick]
  const rawPrice = roundTo(decimalOf(price), config.price, 'half-up')
  const rawSize = roundTo(decimalOf(size), config.size, 'down')
  const usdc = fixUp(multiply(rawSize, rawPrice), config.amount)
  return side === 'BUY' ? amountsOf(usdc, rawSize) : amountsOf(rawSize, usdc)
}

/** A market order: BUY spends `amount` USDC, SELL sells `amount` shares, at `price` or better. */
export function marketOrderAmounts(side: Side, amount: number | string, price: number | string,
  tick: TickSize): Amounts {
  checkPrice(price, tick)
  const config = ROUNDING[tick]
  const rawPrice = roundTo(decimalOf(price), config.price, 'down')
  const rawAmount = roundTo(decimalOf(amount), config.size, 'down')
  if (side === 'BUY') {
    return amountsOf(rawAmount, fixUp(divideUp(rawAmount, rawPrice, config.amount + 4), config.amount))
  }
  return amountsOf(rawAmount, fixUp(multiply(rawAmount, rawPrice), config.amount))
}
