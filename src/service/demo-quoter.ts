/**
 * A living demo: the demo account puts its quotes back as users take them, so a new user always
 * finds a two-sided book. The quotes were placed once at first start, and after some thirty runs
 * of scripts/first-trade.mjs the asks were gone. Every DEMO_REQUOTE_INTERVAL_MS it looks at the
 * demo account's live orders (the read model) and places, post-only, each quote of demo.ts that
 * has no live order at its level; nothing is submitted while every level is there, so a quiet
 * exchange journals nothing. Within limits: a quote the engine refuses for lack of funds gets one
 * top-up per market and pass (a split for shares, a credit for USDC, each DEMO_TOP_UP_MICROS),
 * and the next pass places it; a post-only quote that would cross a user's order waits for a
 * later pass. `--no-demo` turns it off with the rest of the demo.
 */
import { Code } from '../engine/codes.js'
import type { OrderInput } from '../engine/command.js'
import type { MarketRecord } from '../engine/event.js'
import type { PlaceResult } from '../engine/result.js'
import { DEMO_REQUOTE_INTERVAL_MS, DEMO_TOP_UP_MICROS } from '../limits.js'
import type { ServiceContext } from './context.js'
import { DEMO_MARKETS, demoOrder, quotes, type DemoAccount, type Quote } from './demo.js'
import type { Log } from '../log.js'

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

  /** One pass over the demo markets (the timer's; a test calls it): resolves with the quotes placed. */
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
      placed += await this.requoteMarket(market, missingQuotes(context, this.options.account, market, demo.midCents))
    }
    return placed
  }

  private async requoteMarket(market: MarketRecord, missing: readonly Quote[]): Promise<number> {
    if (missing.length === 0) return 0
    const { context, account } = this.options
    const orders: OrderInput[] = missing.map((quote) => demoOrder(context, account, market, quote))
    const { result } = await context.host.submit({ kind: 'placeOrders', orders })
    if (!result.ok) return 0
    const short = result.results.filter(isShortOfFunds)
    if (short.some((r) => r.context?.['asset'] === 'USDC')) {
      await context.host.submit({ kind: 'credit', address: account.address, usdcMicros: DEMO_TOP_UP_MICROS,
        gasMicros: 0 })
    }
    if (short.some((r) => r.context?.['asset'] !== 'USDC')) {
      await context.host.submit({ kind: 'split', address: account.address, marketId: market.marketId,
        amountMicros: DEMO_TOP_UP_MICROS })
    }
    return result.results.filter((r) => r.ok).length
  }
}

/** The quotes of a demo market with no live order of the demo account at their token, side and price. */
function missingQuotes(context: ServiceContext, account: DemoAccount, market: MarketRecord, midCents: number): Quote[] {
  const live = new Set(context.read.liveOrdersOfMaker(account.address)
    .filter((order) => order.marketId === market.marketId)
    .map((order) => `${order.outcome} ${order.side} ${order.priceMicros}`))
  return quotes(midCents).filter((quote) => !live.has(`${quote.outcome} ${quote.side} ${priceMicrosOf(quote)}`))
}

/** A quote's price as its order records it: the price of the token it trades (a No quote's own, not Yes's). */
function priceMicrosOf(quote: Quote): number {
  return quote.cents * 10_000
}

function isShortOfFunds(result: PlaceResult): result is Extract<PlaceResult, { ok: false }> {
  return !result.ok && result.code === Code.INVALID_ORDER_NOT_ENOUGH_BALANCE
}
