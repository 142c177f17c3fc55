/**
 * What a workload hands the suite for its charts, beside its figures: latency histograms and
 * throughput over time. A workload puts them in its last-line JSON under `series` (the figures
 * stay flat numbers beside it, so scripts that read them are not disturbed), and the suite draws
 * them as SVG files linked from the dated report.
 *
 * Histograms use log-spaced buckets (four per decade, fixed edges), so two runs, or two
 * workloads, with the same unit draw on the same axis and a tail of a few slow answers is not
 * crushed into the last bucket of a linear scale.
 */

export type LatencyUnit = 'ms' | 'us'

export interface LatencyHistogram {
  readonly label: string
  readonly unit: LatencyUnit
  /** Bucket i counts samples in (upper[i-1], upper[i]]; the first from 0. */
  readonly upper: readonly number[]
  readonly counts: readonly number[]
  readonly p50: number
  readonly p99: number
  readonly p999: number
  readonly samples: number
}

export interface Timeline {
  readonly label: string
  /** Width of each interval, in seconds. */
  readonly intervalSeconds: number
  /** Completions per second in each interval, in order. */
  readonly perSecond: readonly number[]
}

export interface WorkloadSeries {
  readonly histograms: readonly LatencyHistogram[]
  readonly timelines: readonly Timeline[]
}

export const NO_SERIES: WorkloadSeries = { histograms: [], timelines: [] }

const BUCKETS_PER_DECADE = 4
/** From 0.001 to 100 000 of the unit (1 ns to 100 s in us or ms): covers every workload here. */
const EDGE_EXPONENT_MIN = -3
const EDGE_EXPONENT_MAX = 5

function edges(): number[] {
  const upper: number[] = []
  for (let e = EDGE_EXPONENT_MIN * BUCKETS_PER_DECADE; e <= EDGE_EXPONENT_MAX * BUCKETS_PER_DECADE; e++) {
    upper.push(Number((10 ** (e / BUCKETS_PER_DECADE)).toPrecision(3)))
  }
  return upper
}

const EDGES = edges()

function nearestRank(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/**
 * The histogram of `values` (any order; not modified), trimmed to the buckets between the first
 * and the last that hold a sample.
 */
export function histogram(label: string, unit: LatencyUnit, values: ArrayLike<number>): LatencyHistogram {
  const sorted = Float64Array.from(values).sort()
  const counts = new Array<number>(EDGES.length).fill(0)
  let bucket = 0
  for (const value of sorted) {
    while (bucket < EDGES.length - 1 && value > EDGES[bucket]!) bucket++
    counts[bucket]!++
  }
  const first = counts.findIndex((count) => count > 0)
  const last = counts.length - 1 - [...counts].reverse().findIndex((count) => count > 0)
  const [from, to] = first < 0 ? [0, -1] : [first, last]
  return {
    label, unit, upper: EDGES.slice(from, to + 1), counts: counts.slice(from, to + 1),
    p50: nearestRank(sorted, 0.5), p99: nearestRank(sorted, 0.99), p999: nearestRank(sorted, 0.999),
    samples: sorted.length,
  }
}

/**
 * Counts completions into fixed intervals from the moment it is made: `mark()` at each
 * completion, `done()` for the timeline. The last, partial interval is dropped unless it is the
 * only one.
 */
export class TimelineRecorder {
  private readonly startMs = performance.now()
  private readonly counts: number[] = []

  constructor(private readonly label: string, private readonly intervalSeconds = 0.1) {}

  mark(count = 1): void {
    this.markAt(performance.now() - this.startMs, count)
  }

  /**
   * Counts completions at `elapsedMs` on the caller's own clock: for work that runs in slices
   * between other work (bench/engine.ts interleaves the engine and its peer), whose timeline is
   * its own running time, not the wall clock's.
   */
  markAt(elapsedMs: number, count = 1): void {
    const index = Math.floor(elapsedMs / (this.intervalSeconds * 1000))
    while (this.counts.length <= index) this.counts.push(0)
    this.counts[index]! += count
  }

  done(): Timeline {
    const complete = this.counts.length > 1 ? this.counts.slice(0, -1) : this.counts
    return { label: this.label, intervalSeconds: this.intervalSeconds,
      perSecond: complete.map((count) => Math.round(count / this.intervalSeconds)) }
  }
}
