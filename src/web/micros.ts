/**
 * Exact amounts for the page: the API's decimal strings as integers of 10^-6 (bigint), so that a
 * spread, a depth total or an implied price (1 - p) is computed without a float. Numbers appear
 * only where a chart needs them, at the very end (plotted, never summed).
 */
const SCALE = 1_000_000n

export function micros(decimal: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(decimal.trim())
  if (match === null) throw new RangeError(`not a decimal with at most 6 places: ${decimal}`)
  const units = BigInt(match[2]!) * SCALE + BigInt((match[3] ?? '').padEnd(6, '0'))
  return match[1] === '-' ? -units : units
}

/** `value` as a decimal string, trailing zeros dropped ("0.5", "12"). */
export function decimal(value: bigint): string {
  const negative = value < 0n
  const abs = negative ? -value : value
  const fraction = (abs % SCALE).toString().padStart(6, '0').replace(/0+$/, '')
  return `${negative ? '-' : ''}${abs / SCALE}${fraction === '' ? '' : `.${fraction}`}`
}

/** `value` with exactly `places` decimals (rounded half up), for columns that line up. */
export function fixed(value: bigint, places: number): string {
  const step = 10n ** BigInt(6 - places)
  const rounded = (value >= 0n ? value + step / 2n : value - step / 2n) / step * step
  const text = decimal(rounded)
  const [whole, fraction = ''] = text.split('.')
  return places === 0 ? whole! : `${whole}.${fraction.padEnd(places, '0')}`
}

/** shares x price, both in micros, back in micros (rounded down). */
export function times(sharesMicros: bigint, priceMicros: bigint): bigint {
  return sharesMicros * priceMicros / SCALE
}

export const ONE = SCALE

/** A plotted value: the one place a number is made from an amount. */
export function plotted(value: bigint): number {
  return Number(value) / 1e6
}

/** The decimals of a tick size ("0.01" -> 2): prices of its market are shown with as many. */
export function placesOf(tickSize: string): number {
  return tickSize.includes('.') ? tickSize.length - tickSize.indexOf('.') - 1 : 0
}

/** An unlimited approval (the relay's max uint256, capped by the server) reads as what it means. */
export const UNLIMITED_USDC_MICROS = 10n ** 15n
