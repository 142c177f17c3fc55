/**
 * A living demo: the demo account keeps its quotes on the book, centred on each demo market's last
 * trade, so a new user always finds a two-sided book and the demo trader's trades (and the users')
 * move the price. The quotes were placed once at first start, and after some thirty runs of
 * scripts/first-trade.mjs the asks were gone; with the quotes fixed, nothing moved either.
 *
 * Every DEMO_REQUOTE_INTERVAL_MS, and after each demo trade, a pass looks at the demo account's live
 * orders (the read model): the quotes of demo-set.ts around the market's centre (its last trade in
 * Yes terms, within DEMO_DRIFT_CENTS_MAX of its home price) that have no live order at their level
 * are placed, post-only, and its live orders at any other level are cancelled first. Nothing is
 * submitted while every level is there and the centre has not moved, so a quiet exchange journals
 * nothing. Within limits: a quote the engine refuses for lack of funds gets one top-up per market
 * and pass (demo-set.ts, topUpShortfalls), and the next pass places it; a post-only quote that would
 * cross a user's order waits for a later pass. `--no-demo` turns it off with the rest of the demo.
 */
import type { OrderInput } from '../engine/command.js'
import type { MarketRecord } from '../engine/event.js'
import { DEMO_DRIFT_CENTS_MAX, DEMO_REQUOTE_INTERVAL_MS } from '../limits.js'
import type { ServiceContext } from '../service/context.js'
import { DEMO_MARKETS, demoOrder, quotes, topUpShortfalls, type DemoAccount, type Quote } from './demo-set.js'
import type { Log } from '../log.js'

const MICROS_PER_CENT = 10_000
const MICROS_PER_UNIT = 1_000_000
/** The centres whose quotes all lie inside the book, 0.01 to 0.99 (demo-set.ts' quotes reach 7 cents either side). */
const CENTRE_CENTS_MIN = 8
const CENTRE_CENTS_MAX = 92

export interface DemoQuoterOptions {
  readonly context: ServiceContext
  readonly account: DemoAccount
  readonly log: Log
}

export class DemoQuoter {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<number> | null = null
  private stopped = false

  constructor(private readonly options: DemoQuoterOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.requote(), DEMO_REQUOTE_INTERVAL_MS)
    this.timer.unref()
  }

  /** No more passes; waits for one under way (before the engine stops). */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    await this.running
  }

  /**
   * One pass over the demo markets (the timer's, the demo trader's after a trade; a test calls it):
   * resolves with the quotes placed. A pass asked for while one runs shares it.
   */
  requote(): Promise<number> {
    if (this.stopped) return Promise.resolve(0)
    this.running ??= this.pass().catch((error: unknown) => {
      this.options.log.warn('demo: requoting failed; trying again', { retryMs: DEMO_REQUOTE_INTERVAL_MS, err: error })
      return 0
    }).finally(() => { this.running = null })
    return this.running
  }

  private async pass(): Promise<number> {
    const { context } = this.options
    let placed = 0
    for (const demo of DEMO_MARKETS) {
      const market = context.read.marketsBySlug.get(demo.slug)
      if (market === undefined || market.status !== 'Active' || this.stopped) continue
      placed += await this.requoteMarket(market, quotes(centreCents(context, market, demo.midCents)))
    }
    return placed
  }

  /**
   * The quotes `wanted` that are missing are placed before the live ones at other levels are
   * cancelled, so a reader between the two commands sees the old quotes beside the new rather than
   * a one-sided book. (A new quote that would cross an old one is refused, post-only, and placed
   * by the next pass.)
   */
  private async requoteMarket(market: MarketRecord, wanted: readonly Quote[]): Promise<number> {
    const { context, account } = this.options
    const live = context.read.liveOrdersOfMaker(account.address).filter((order) => order.marketId === market.marketId)
    const liveKeys = new Set(live.map((order) => levelKey(order.outcome, order.side, order.priceMicros)))
    const missing = wanted.filter((quote) => !liveKeys.has(quoteKey(quote)))
    const wantedKeys = new Set(wanted.map(quoteKey))
    const stale = live.filter((order) => !wantedKeys.has(levelKey(order.outcome, order.side, order.priceMicros)))
    let placed = 0
    if (missing.length > 0) {
      const orders: OrderInput[] = missing.map((quote) => demoOrder(context, account, market, quote))
      const { result } = await context.host.submit({ kind: 'placeOrders', orders })
      if (result.ok) {
        await topUpShortfalls(context, account, market, result.results)
        placed = result.results.filter((r) => r.ok).length
      }
    }
    if (stale.length > 0) {
      await context.host.submit({ kind: 'cancelOrders', address: account.address,
        orderIds: stale.map((order) => order.orderId) })
    }
    return placed
  }
}

/** A level of the demo account's quotes: outcome, side and the price of the token it trades (a No quote's own). */
function levelKey(outcome: string, side: string, priceMicros: number): string {
  return `${outcome} ${side} ${priceMicros}`
}

function quoteKey(quote: Quote): string {
  return levelKey(quote.outcome, quote.side, quote.cents * MICROS_PER_CENT)
}

/**
 * Where a demo market's quotes are centred, in cents of the Yes price: its last trade (a No trade
 * read as 1 - p), within DEMO_DRIFT_CENTS_MAX of the market's home price and where every quote
 * fits in the book; the home price before any trade.
 */
export function centreCents(context: ServiceContext, market: MarketRecord, homeCents: number): number {
  const last = context.read.recentTradesOf(market.marketId)[0]
  if (last === undefined) return homeCents
  const yesMicros = last.tokenId === market.yesTokenId ? last.priceMicros : MICROS_PER_UNIT - last.priceMicros
  const cents = Math.round(yesMicros / MICROS_PER_CENT) // a price, not an amount: whole cents on a 0.01 tick
  const low = Math.max(CENTRE_CENTS_MIN, homeCents - DEMO_DRIFT_CENTS_MAX)
  const high = Math.min(CENTRE_CENTS_MAX, homeCents + DEMO_DRIFT_CENTS_MAX)
  return Math.min(high, Math.max(low, cents))
}
