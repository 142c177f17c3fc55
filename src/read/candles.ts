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

/** A token's ticks in time order, read where they are kept (the read store: a point read per `at`). */
export interface Ticks {
  readonly length: number
  at(index: number): Tick | undefined
  /** The ticks from `index` on, read as they are walked. */
  from(index: number): Iterable<Tick>
}

function viewOf(ticks: Ticks | readonly Tick[]): Ticks {
  if (!Array.isArray(ticks)) return ticks as Ticks
  const array = ticks as readonly Tick[]
  return { length: array.length, at: (index) => array[index], from: (index) => array.slice(index) }
}

/** The first index of `ticks` at or after `timeMs` (ticks are in time order): log2(length) reads. */
export function firstTickAtOrAfter(ticks: Ticks | readonly Tick[], timeMs: number): number {
  const view = viewOf(ticks)
  let low = 0
  let high = view.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (view.at(middle)!.timeMs < timeMs) low = middle + 1
    else high = middle
  }
  return low
}

/** The ticks with fromMs <= time < toMs, in order, read as they are walked. */
function* ticksBetween(ticks: Ticks | readonly Tick[], fromMs: number, toMs: number): Generator<Tick> {
  const view = viewOf(ticks)
  for (const tick of view.from(firstTickAtOrAfter(view, fromMs))) {
    if (tick.timeMs >= toMs) return
    yield tick
  }
}

/** Candles of `intervalMs` for the ticks with fromMs <= time < toMs; intervals start at multiples of intervalMs. */
export function candlesOf(ticks: Ticks | readonly Tick[], fromMs: number, toMs: number, intervalMs: number): Candle[] {
  const candles: Candle[] = []
  let current: { -readonly [K in keyof Candle]: Candle[K] } | null = null
  for (const tick of ticksBetween(ticks, fromMs, toMs)) {
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
export function pricePointsOf(ticks: Ticks | readonly Tick[], fromMs: number, toMs: number, bucketMs: number | null,
  pointsMax: number): PricePoint[] | null {
  const points: PricePoint[] = []
  for (const tick of ticksBetween(ticks, fromMs, toMs)) {
    const timeMs = bucketMs === null ? tick.timeMs : tick.timeMs - (tick.timeMs % bucketMs)
    const last = points[points.length - 1]
    if (bucketMs !== null && last !== undefined && last.timeMs === timeMs) points.pop()
    else if (points.length === pointsMax) return null
    points.push({ timeMs, priceMicros: tick.priceMicros })
  }
  return points
}
