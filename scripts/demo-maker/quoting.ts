/**
 * The demo maker's arithmetic, in exact integer micro-units (10^-6 USDC per share, 10^-6 shares):
 * the fair value of a market from the others' liquidity on its Yes book, the four quotes around
 * it (a bid and an ask on each outcome), and P&L. No float touches a price or an amount.
 */
import { decimalText } from '../../src/client/decimal.js'
import type { Level } from '../../src/client/grpc/local-book.js'

export const ONE_MICROS = 1_000_000n

export interface Quote {
  readonly outcome: 'Yes' | 'No'
  readonly side: 'BUY' | 'SELL'
  readonly priceMicros: bigint
}

/** The best price of a side once our own resting sizes are taken out of its levels. */
export function bestOfOthers(levels: readonly Level[], ownSizes: ReadonlyMap<bigint, bigint>): bigint | null {
  for (const level of levels) {
    if (level.sizeMicros > (ownSizes.get(level.priceMicros) ?? 0n)) return level.priceMicros
  }
  return null
}

/** The Yes fair value: the mid of the others' best bid and ask; 0.5 when a side is empty. */
export function fairMicrosOf(bestBidMicros: bigint | null, bestAskMicros: bigint | null, tickMicros: bigint): bigint {
  if (bestBidMicros === null || bestAskMicros === null) return ONE_MICROS / 2n
  return roundToTick((bestBidMicros + bestAskMicros) / 2n, tickMicros, 'down')
}

/**
 * A bid `edgeTicks` below the fair value and an ask as far above, on Yes around `fairMicros` and
 * on No around its complement. With an edge of at least one tick the four never cross each
 * other: Yes bid + No bid < 1 (no mint), Yes ask + No ask > 1 (no merge).
 */
export function quotesAround(fairMicros: bigint, tickMicros: bigint, edgeTicks: bigint): Quote[] {
  const edgeMicros = tickMicros * edgeTicks
  const around = (outcome: 'Yes' | 'No', fair: bigint): Quote[] => [
    { outcome, side: 'BUY', priceMicros: clamp(roundToTick(fair - edgeMicros, tickMicros, 'down'), tickMicros) },
    { outcome, side: 'SELL', priceMicros: clamp(roundToTick(fair + edgeMicros, tickMicros, 'up'), tickMicros) },
  ]
  return [...around('Yes', fairMicros), ...around('No', ONE_MICROS - fairMicros)]
}

export function roundToTick(micros: bigint, tickMicros: bigint, rounding: 'down' | 'up'): bigint {
  const below = (micros / tickMicros) * tickMicros
  return rounding === 'up' && below < micros ? below + tickMicros : below
}

/** Prices stay within [tick, 1 - tick]. */
function clamp(priceMicros: bigint, tickMicros: bigint): bigint {
  if (priceMicros < tickMicros) return tickMicros
  if (priceMicros > ONE_MICROS - tickMicros) return ONE_MICROS - tickMicros
  return priceMicros
}

/** USDC of `sharesMicros` at `priceMicros` (exact for tick-aligned prices and sizes of 2 decimals). */
export function notionalMicros(priceMicros: bigint, sharesMicros: bigint): bigint {
  return (priceMicros * sharesMicros) / ONE_MICROS
}

/** "0.35", "10": a price or an amount, unsigned. */
export function microsText(micros: bigint): string {
  return decimalText({ units: micros, scale: 6 })
}

/** "+1.25" / "-0.40" / "+0.00": signed, two decimals (rounded toward zero), for the terminal. */
export function usdcText(micros: bigint): string {
  const sign = micros < 0n ? '-' : '+'
  const magnitude = micros < 0n ? -micros : micros
  const cents = magnitude / 10_000n
  return `${sign}${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`
}

/** "+10" / "-2.5" shares, signed. */
export function sharesText(micros: bigint): string {
  const magnitude = micros < 0n ? -micros : micros
  return `${micros < 0n ? '-' : '+'}${decimalText({ units: magnitude, scale: 6 })}`
}
