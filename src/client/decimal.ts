/**
 * Exact decimals for the SDK: users write prices and sizes as human numbers (0.55, 10.123); the
 * SDK turns them into 6-decimal integers with exact arithmetic (BigInt), never a float product.
 * A number is read through its shortest decimal form (what `String(x)` prints), which is the
 * value the user typed.
 */
export interface Decimal {
  /** value = units / 10^scale */
  readonly units: bigint
  readonly scale: number
}

const TEN = 10n

export function decimalOf(value: number | string): Decimal {
  const text = typeof value === 'number' ? numberText(value) : value.trim()
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text)
  if (match === null) throw new RangeError(`not a non-negative decimal number: ${text}`)
  const fraction = match[2] ?? ''
  return { units: BigInt(match[1]! + fraction), scale: fraction.length }
}

function numberText(value: number): string {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`not a non-negative finite number: ${value}`)
  const text = String(value)
  if (!text.includes('e')) return text
  // Small or large numbers print in exponent form: expand it exactly.
  return value.toFixed(20).replace(/\.?0+$/, '')
}

/** Decimal places actually used (trailing zeros do not count), as clob-client's check does. */
export function decimalPlaces(d: Decimal): number {
  let { units, scale } = d
  while (scale > 0 && units % TEN === 0n) {
    units /= TEN
    scale--
  }
  return scale
}

function rescale(d: Decimal, scale: number): bigint {
  return d.units * TEN ** BigInt(scale - d.scale)
}

export type Rounding = 'down' | 'up' | 'half-up'

/** `d` rounded to `places` decimals. */
export function roundTo(d: Decimal, places: number, rounding: Rounding): Decimal {
  if (d.scale <= places) return d
  const divisor = TEN ** BigInt(d.scale - places)
  const quotient = d.units / divisor
  const remainder = d.units % divisor
  let units = quotient
  if (rounding === 'up' && remainder > 0n) units++
  if (rounding === 'half-up' && remainder * 2n >= divisor) units++
  return { units, scale: places }
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale }
}

/** a / b rounded up at `places` decimals. */
export function divideUp(a: Decimal, b: Decimal, places: number): Decimal {
  if (b.units === 0n) throw new RangeError('division by zero')
  // a / b = (a.units / 10^a.scale) / (b.units / 10^b.scale); scale the numerator to `places`.
  const numerator = a.units * TEN ** BigInt(places + b.scale)
  const denominator = b.units * TEN ** BigInt(a.scale)
  const quotient = numerator / denominator
  return { units: numerator % denominator === 0n ? quotient : quotient + 1n, scale: places }
}

/** The value in micro-units (6 decimals); it must have at most 6 decimal places. */
export function toMicros(d: Decimal): bigint {
  if (decimalPlaces(d) > 6) throw new RangeError('more than 6 decimal places')
  return d.scale <= 6 ? rescale(d, 6) : d.units / TEN ** BigInt(d.scale - 6)
}

export function compare(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale)
  const x = rescale(a, scale)
  const y = rescale(b, scale)
  return x < y ? -1 : x > y ? 1 : 0
}

export function decimalText(d: Decimal): string {
  const digits = d.units.toString().padStart(d.scale + 1, '0')
  if (d.scale === 0) return digits
  return `${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}`.replace(/\.?0+$/, '')
}
