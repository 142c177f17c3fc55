/**
 * The demo trader: now and then the demo's second account (demo-set.ts, `taker`) takes some liquidity
 * of a demo market with a small FAK order at the best price, so a fresh server's prices, candles
 * and trades feed move (with the quotes alone nothing ever traded). Its choice of market, outcome,
 * side and size is drawn from a PRNG seeded with DEMO_TRADER_SEED, the same sequence on every
 * start. Bounded: a tick every `intervalMs` (--demo-trade-interval-ms; 0 turns the trader off), at
 * most DEMO_TRADES_PER_MINUTE_MAX trades in any minute, at most DEMO_TRADE_SHARES_MAX shares each.
 * Its orders are signed by its key and go to the engine as the quoter's do (journaled like any
 * order, so a replay gives the same state); a refusal for lack of funds tops the account up
 * (demo-set.ts, topUpShortfalls) for the next tick. After a trade the quoter re-centres at once
 * (quoter.ts), so the book follows the price. `--no-demo` turns it off with the rest.
 */
import type { Outcome, Side } from '../engine/command.js'
import type { MarketRecord } from '../engine/event.js'
import { DEMO_TRADE_SHARES_MAX, DEMO_TRADER_SEED, DEMO_TRADES_PER_MINUTE_MAX } from '../limits.js'
import { Random } from '../stdx/random.js'
import type { ServiceContext } from '../service/context.js'
import { DEMO_MARKETS, signedOrder, topUpShortfalls, type DemoAccount } from './demo-set.js'
import type { Log } from '../log.js'

const MICROS_PER_UNIT = 1_000_000
const MICROS_PER_SHARE = 1_000_000
const MINUTE_MS = 60_000

export interface DemoTraderOptions {
  readonly context: ServiceContext
  readonly account: DemoAccount
  /** Ms between ticks (each tick trades at most once). */
  readonly intervalMs: number
  /** Asked for a pass after each trade, so the quotes follow the price (the demo quoter's `requote`). */
  readonly afterTrade: () => Promise<unknown>
  readonly log: Log
  readonly seed?: number
}

/** What a tick did: traded (with the shares it got or gave), or why not. */
export type TickOutcome = { readonly traded: true; readonly order: string; readonly filledMicros: number }
  | { readonly traded: false; readonly reason: 'stopped' | 'budget' | 'no market' | 'no liquidity' | 'refused' }

export class DemoTrader {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<TickOutcome> | null = null
  private stopped = false
  private readonly random: Random
  /** Wall times of the trades of the last minute: at most DEMO_TRADES_PER_MINUTE_MAX. */
  private readonly recentMs: number[] = []
  /** Trades made since start. */
  trades = 0

  constructor(private readonly options: DemoTraderOptions) {
    this.random = new Random(options.seed ?? DEMO_TRADER_SEED)
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs)
    this.timer.unref()
  }

  /** No more ticks; waits for one under way (before the engine stops). */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    await this.running
  }

  /** One tick (the timer's; a test may call it): a tick asked for while one runs shares it. */
  tick(): Promise<TickOutcome> {
    if (this.stopped) return Promise.resolve({ traded: false, reason: 'stopped' })
    this.running ??= this.trade().catch((error: unknown): TickOutcome => {
      this.options.log.warn('demo: a demo trade failed; trying again', { retryMs: this.options.intervalMs, err: error })
      return { traded: false, reason: 'refused' }
    }).finally(() => { this.running = null })
    return this.running
  }

  private async trade(): Promise<TickOutcome> {
    const { context, account } = this.options
    // Every draw is made whatever follows, so the sequence depends on the seed and the tick count alone.
    const demo = this.random.pick(DEMO_MARKETS)
    const outcome: Outcome = this.random.pick(['Yes', 'No'])
    const side: Side = this.random.pick(['BUY', 'SELL'])
    const sizeDraw = this.random.u32()
    const nowMs = context.nowMs()
    while (this.recentMs.length > 0 && this.recentMs[0]! <= nowMs - MINUTE_MS) this.recentMs.shift()
    if (this.recentMs.length >= DEMO_TRADES_PER_MINUTE_MAX) return { traded: false, reason: 'budget' }
    const market = context.read.marketsBySlug.get(demo.slug)
    if (market === undefined || market.status !== 'Active') return { traded: false, reason: 'no market' }
    const priceMicros = bestPriceMicros(context, market, outcome, side)
    if (priceMicros === null) return { traded: false, reason: 'no liquidity' }
    // From the market's minimum order size to DEMO_TRADE_SHARES_MAX, whole shares.
    const minShares = Math.ceil(market.minOrderSizeMicros / MICROS_PER_SHARE)
    const shares = minShares + (sizeDraw % Math.max(1, DEMO_TRADE_SHARES_MAX - minShares + 1))
    const order = signedOrder(context, account, market, { outcome, side, priceMicros, shares, timeInForce: 'FAK',
      postOnly: false })
    const { result } = await context.host.submit({ kind: 'placeOrders', orders: [order] })
    if (!result.ok) return { traded: false, reason: 'refused' }
    const placed = result.results[0]!
    if (!placed.ok) {
      await topUpShortfalls(context, account, market, result.results)
      return { traded: false, reason: 'refused' }
    }
    this.recentMs.push(nowMs)
    this.trades++
    await this.options.afterTrade()
    const filledMicros = side === 'BUY' ? placed.takingMicros : placed.makingMicros
    return { traded: true, order: `${side} ${outcome} ${market.slug}`, filledMicros }
  }
}

/**
 * The best price an order of `side` on `outcome` meets: the token's own best ask (bid) or the
 * other outcome's best bid (ask) read as 1 - p, the better of the two, as the engine's unified
 * book matches them. Null when that side is empty.
 */
function bestPriceMicros(context: ServiceContext, market: MarketRecord, outcome: Outcome, side: Side): number | null {
  const [own, other] = outcome === 'Yes' ? [market.yesTokenId, market.noTokenId] : [market.noTokenId, market.yesTokenId]
  const ownBest = context.read.bestPrices(own)
  const otherBest = context.read.bestPrices(other)
  const mirror = (priceMicros: number | null): number | null =>
    (priceMicros === null ? null : MICROS_PER_UNIT - priceMicros)
  const prices = side === 'BUY' ? [ownBest.askMicros, mirror(otherBest.bidMicros)]
    : [ownBest.bidMicros, mirror(otherBest.askMicros)]
  const present = prices.filter((price): price is number => price !== null)
  if (present.length === 0) return null
  return side === 'BUY' ? Math.min(...present) : Math.max(...present)
}
