/**
 * Candles (OHLCV) of a token from its trades (the read model's ticks, in time order): one per
 * interval that had at least one trade, with the first, highest, lowest and last price and the
 * shares traded. Exact: prices and sizes stay integers in micro-units.
 */
import type { Tick } from './read-model.js'

export interface Candle {
  /** Start of the interval, unix milliseconds. */
  readonly startMs: number
  readonly openMicros: number
  readonly highMicros: number
  readonly lowMicros: number
  readonly closeMicros: number
  readonly volumeMicros: number
}

/** The first index of `ticks` at or after `timeMs` (ticks are in time order). */
export function firstTickAtOrAfter(ticks: readonly Tick[], timeMs: number): number {
  let low = 0
  let high = ticks.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (ticks[middle]!.timeMs < timeMs) low = middle + 1
    else high = middle
  }
  return low
}

/** Candles of `intervalMs` for the ticks with fromMs <= time < toMs; intervals start at multiples of intervalMs. */
export function candlesOf(ticks: readonly Tick[], fromMs: number, toMs: number, intervalMs: number): Candle[] {
  const candles: Candle[] = []
  let current: { -readonly [K in keyof Candle]: Candle[K] } | null = null
  for (let i = firstTickAtOrAfter(ticks, fromMs); i < ticks.length && ticks[i]!.timeMs < toMs; i++) {
    const tick = ticks[i]!
    const startMs = tick.timeMs - (tick.timeMs % intervalMs)
    if (current === null || current.startMs !== startMs) {
      current = { startMs, openMicros: tick.priceMicros, highMicros: tick.priceMicros, lowMicros: tick.priceMicros,
        closeMicros: tick.priceMicros, volumeMicros: 0 }
      candles.push(current)
    }
    current.highMicros = Math.max(current.highMicros, tick.priceMicros)
    current.lowMicros = Math.min(current.lowMicros, tick.priceMicros)
    current.closeMicros = tick.priceMicros
    current.volumeMicros += tick.sizeMicros
  }
  return candles
}

/** A price at a time: a trade's, or the last one of an interval (at the interval's start). */
export interface PricePoint {
  readonly timeMs: number
  readonly priceMicros: number
}

/**
 * The price history of the ticks with fromMs <= time < toMs: each tick's price, or with
 * `bucketMs` the last price of each interval of that length that had a trade (intervals start at
 * multiples of bucketMs, as candles). Null when there would be more than `pointsMax` points: the
 * caller refuses rather than truncates, and the walk stops there.
 */
export function pricePointsOf(ticks: readonly Tick[], fromMs: number, toMs: number, bucketMs: number | null,
  pointsMax: number): PricePoint[] | null {
  const points: PricePoint[] = []
  for (let i = firstTickAtOrAfter(ticks, fromMs); i < ticks.length && ticks[i]!.timeMs < toMs; i++) {
    const tick = ticks[i]!
    const timeMs = bucketMs === null ? tick.timeMs : tick.timeMs - (tick.timeMs % bucketMs)
    const last = points[points.length - 1]
    if (bucketMs !== null && last !== undefined && last.timeMs === timeMs) points.pop()
    else if (points.length === pointsMax) return null
    points.push({ timeMs, priceMicros: tick.priceMicros })
  }
  return points
}
