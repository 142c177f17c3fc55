/** Small statistics for benchmark reports: medians with min and max, percentiles of sorted data. */

export interface Summary {
  readonly median: number
  readonly min: number
  readonly max: number
  readonly values: readonly number[]
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export function summarize(values: readonly number[]): Summary {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), values }
}

/** The q-quantile (0..1) of already sorted values, nearest rank. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[rank]!
}

/** Least-squares slope of y over x. */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length
  if (n < 2) return 0
  const mx = points.reduce((s, [x]) => s + x, 0) / n
  const my = points.reduce((s, [, y]) => s + y, 0) / n
  let num = 0
  let den = 0
  for (const [x, y] of points) {
    num += (x - mx) * (y - my)
    den += (x - mx) ** 2
  }
  return den === 0 ? 0 : num / den
}

/**
 * How far a series' level rose: the median of its last quarter less the median of quarter
 * `fromQuarter` (0-based; by default the second: the first is warm-up). For memory sampled after
 * full collections: what a collector or an allocator keeps beside the live memory (pools, pages
 * not yet given back) moves single samples by tens of MB either way, and a fitted slope with
 * them; a quarter's median follows the level, and a real growth moves every sample of the last
 * quarter.
 */
export function medianRise(values: readonly number[], fromQuarter = 1): number {
  const quarter = Math.floor(values.length / 4)
  if (quarter === 0) return 0
  return median(values.slice(values.length - quarter)) - median(values.slice(fromQuarter * quarter,
    (fromQuarter + 1) * quarter))
}
