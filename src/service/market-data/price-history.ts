/**
 * A token's price history as Polymarket's GET /prices-history gives it: over a range (`startTs`
 * to `endTs`, unix seconds, both included) or a window ending now (`interval`), either every
 * trade's price or, with `fidelity` minutes, the last price of each interval of that length that
 * had a trade. A mint or merge prices the other token at 1 - p, so each token has its own history.
 */
import { ApiCode, PredexError } from '../../errors.js'
import { PRICES_HISTORY_FIDELITY_MINUTES_MAX, PRICES_HISTORY_POINTS_MAX } from '../../limits.js'
import { pricePointsOf, type PricePoint } from '../../read/candles.js'
import type { ServiceContext } from '../context.js'
import { marketOfToken } from './markets.js'

const HOUR_SEC = 3_600
const DAY_SEC = 24 * HOUR_SEC

/**
 * Polymarket's windows ending now: `1m` is a month (30 days here); `max` and `all` are the whole
 * history. clob-client-v2 names max, 1w, 1d, 6h and 1h; the docs add all and 1m.
 */
const INTERVALS_SEC: Readonly<Record<string, number | null>> = {
  '1h': HOUR_SEC, '6h': 6 * HOUR_SEC, '1d': DAY_SEC, '1w': 7 * DAY_SEC, '1m': 30 * DAY_SEC, max: null, all: null,
}

export interface PriceHistoryQuery {
  readonly tokenId: string
  /** A window ending now (a key of INTERVALS_SEC), or null. */
  readonly interval: string | null
  /** Unix seconds; null: from the first trade. */
  readonly startSec: number | null
  /** Unix seconds, included; null: up to the last trade. */
  readonly endSec: number | null
  /** Minutes per point; null: a point per trade. */
  readonly fidelityMinutes: number | null
}

/** The token's price points in time order; INVALID_PARAMETER (naming the field) for a query that cannot be answered. */
export function priceHistoryOf(context: ServiceContext, query: PriceHistoryQuery): PricePoint[] {
  marketOfToken(context, query.tokenId)
  const { fromMs, toMs } = rangeOf(context, query)
  const bucketMs = fidelityMsOf(query.fidelityMinutes)
  const ticks = context.read.ticksOf(query.tokenId)
  const points = pricePointsOf(ticks, fromMs, toMs, bucketMs, PRICES_HISTORY_POINTS_MAX)
  if (points === null) {
    throw new PredexError(ApiCode.INVALID_PARAMETER,
      `the history has more than ${PRICES_HISTORY_POINTS_MAX} points: narrow the range or raise fidelity`,
      { field: 'fidelity', pointsMax: PRICES_HISTORY_POINTS_MAX })
  }
  return points
}

/** The times asked for: fromMs included, toMs excluded. */
function rangeOf(context: ServiceContext, query: PriceHistoryQuery): { fromMs: number; toMs: number } {
  if (query.interval !== null) {
    if (query.startSec !== null || query.endSec !== null) {
      throw new PredexError(ApiCode.INVALID_PARAMETER, 'interval and startTs/endTs are mutually exclusive: give one',
        { field: 'interval' })
    }
    const windowSec = INTERVALS_SEC[query.interval]
    if (windowSec === undefined) {
      throw new PredexError(ApiCode.INVALID_PARAMETER,
        `interval must be one of ${Object.keys(INTERVALS_SEC).join(', ')}`, { field: 'interval' })
    }
    const nowMs = context.nowMs()
    return { fromMs: windowSec === null ? 0 : nowMs - windowSec * 1000, toMs: nowMs + 1 }
  }
  const fromMs = (query.startSec ?? 0) * 1000
  const toMs = query.endSec === null ? Number.POSITIVE_INFINITY : (query.endSec + 1) * 1000
  if (toMs <= fromMs) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'startTs must not be after endTs', { field: 'startTs' })
  }
  return { fromMs, toMs }
}

function fidelityMsOf(minutes: number | null): number | null {
  if (minutes === null) return null
  if (minutes < 1 || minutes > PRICES_HISTORY_FIDELITY_MINUTES_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER,
      `fidelity must be 1..${PRICES_HISTORY_FIDELITY_MINUTES_MAX} minutes`, { field: 'fidelity' })
  }
  return minutes * 60_000
}
