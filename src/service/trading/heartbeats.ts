/**
 * Heartbeats: cancel on disconnect for REST clients (Polymarket's `POST /v1/heartbeats`, docs/rest.md
 * "Heartbeats"). A key starts a chain with its first heartbeat; from then on, if no heartbeat of
 * that key arrives within HEARTBEAT_TIMEOUT_MS + HEARTBEAT_GRACE_MS, every open order of the key
 * is cancelled by ordinary engine commands (cancelOrders, journaled, CANCEL_IDS_MAX ids each: as an
 * order-entry session's cancel on disconnect with scope 'key'), and the chain is over: the key is
 * not watched again until it sends a new heartbeat.
 *
 * Time is the host's monotonic clock (src/clock.ts), never the engine's: a test moves a TestClock
 * and calls sweep(). The ids only help the client follow its chain: any well-formed id, the
 * previous one, an unknown or a stale one, keeps the chain alive (reference 5.5: what production
 * does with a wrong id is not visible, and refusing it would only make a client lose its orders).
 *
 * Revoking the key does not end its chain: its orders live on (a cancel needs only the address),
 * and the client, which can no longer send heartbeats with it, was promised that they would be
 * cancelled when its heartbeats stop. So they are, when the window passes.
 *
 * Chains live in memory: after a restart a key is watched again from its next heartbeat.
 */
import { randomUUID } from 'node:crypto'
import type { Clock } from '../../clock.js'
import { ApiCode, PredexError } from '../../errors.js'
import { HEARTBEAT_CHAINS_MAX, HEARTBEAT_GRACE_MS, HEARTBEAT_TIMEOUT_MS } from '../../limits.js'
import type { ServiceContext } from '../context.js'
import * as trading from './trading.js'
import type { Trader } from './trading.js'
import type { Log } from '../../log.js'

/** A live chain: whose, and when its last heartbeat came (monotonic ms). */
interface Chain {
  readonly trader: Trader
  readonly lastBeatMs: number
}

export interface HeartbeatsOptions {
  /** The context holding this service (it is built after it, hence a function). */
  readonly context: () => ServiceContext
  readonly clock: Clock
  readonly log: Log
  /** Bound on the chains watched at once (HEARTBEAT_CHAINS_MAX; tests pass a small one). */
  readonly chainsMax?: number
}

/** The window a chain has between heartbeats before its orders are cancelled. */
export const HEARTBEAT_WINDOW_MS = HEARTBEAT_TIMEOUT_MS + HEARTBEAT_GRACE_MS

export class Heartbeats {
  /**
   * API key -> its chain, in the order of their last heartbeats (a heartbeat moves its key to the
   * end), so in the order of their deadlines: a sweep reads only the expired ones and the first
   * live one, however many keys are watched.
   */
  private readonly chains = new Map<string, Chain>()
  /** Expiries whose cancels are under way: stop() and sweep() wait for them. */
  private readonly expiring = new Set<Promise<void>>()
  private stopped = false

  constructor(private readonly options: HeartbeatsOptions) {}

  /** Keys watched now. */
  get watched(): number {
    return this.chains.size
  }

  /**
   * A heartbeat of `trader`'s key: starts its chain (`previousId` null or '') or keeps it alive
   * (any other id, see the header); returns the id to send next time.
   */
  beat(trader: Trader, _previousId: string | null): string {
    const { apiKey } = trader
    if (!this.chains.delete(apiKey)) this.checkRoom()
    this.chains.set(apiKey, { trader, lastBeatMs: this.nowMs() })
    return randomUUID()
  }

  /**
   * Ends every chain whose window has passed and cancels its key's open orders; resolves when
   * those cancels (and any an earlier sweep started) are done, with the number of chains ended.
   */
  async sweep(): Promise<number> {
    if (this.stopped) return 0
    const nowMs = this.nowMs()
    let ended = 0
    for (const [apiKey, chain] of this.chains) {
      if (nowMs - chain.lastBeatMs < HEARTBEAT_WINDOW_MS) break
      this.chains.delete(apiKey)
      this.track(this.expire(chain, nowMs))
      ended += 1
    }
    await Promise.allSettled([...this.expiring])
    return ended
  }

  /** Watches nothing more and waits for the cancels under way (before the engine stops). */
  async stop(): Promise<void> {
    this.stopped = true
    this.chains.clear()
    await Promise.allSettled([...this.expiring])
  }

  /** Monotonic time in whole milliseconds: the window's arithmetic is exact, never off by a rounding. */
  private nowMs(): number {
    return Math.floor(this.options.clock.monotonicMs())
  }

  /** A new chain needs room: when full, RATE_LIMITED until the oldest chain has lapsed. */
  private checkRoom(): void {
    const chainsMax = this.options.chainsMax ?? HEARTBEAT_CHAINS_MAX
    if (this.chains.size < chainsMax) return
    const oldest = this.chains.values().next().value as Chain
    const waitMs = oldest.lastBeatMs + HEARTBEAT_WINDOW_MS - this.nowMs()
    throw new PredexError(ApiCode.RATE_LIMITED, 'too many heartbeat chains at once; retry later',
      { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), limit: chainsMax })
  }

  /** A lapsed chain: its key's open orders cancelled (revoked or not: see the header), one log line. */
  private async expire(chain: Chain, nowMs: number): Promise<void> {
    const context = this.options.context()
    const { apiKey } = chain.trader
    const orderIds = context.read.liveOrdersOfOwner(apiKey).map((order) => order.orderId)
    const canceled = await trading.cancelInChunks(context, chain.trader, orderIds, this.options.log)
    this.options.log.info('heartbeats: a key stopped sending heartbeats; its open orders are canceled',
      { apiKey, silentMs: nowMs - chain.lastBeatMs, canceled, open: orderIds.length })
  }

  private track(expiry: Promise<void>): void {
    const settled = expiry.catch((error: unknown) => {
      this.options.log.error('heartbeats: expiry failed', { err: error })
    }).finally(() => this.expiring.delete(settled))
    this.expiring.add(settled)
  }
}
