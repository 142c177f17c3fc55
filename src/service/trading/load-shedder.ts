/**
 * Shedding by event-loop lag (issue 13, point 3). Every queue behind the front end is bounded
 * (the signature pool, the command ring, the pending requests), but the front end's own thread is
 * not a queue anyone counts: when requests arrive faster than it can parse, authenticate and
 * answer them, they wait in the sockets, and every client, readers included, waits with them.
 * With a fast signature backend this, not the pool, is the first wall. The lag of a timer that
 * should fire every LOOP_LAG_TICK_MS is how long a request now waits for the thread; while it
 * stays over the bound, new order placements (the costliest requests: a body to read and parse,
 * a signature to check) are refused at once with SERVER_BUSY and a Retry-After, before their body
 * is read. Reads, cancels and heartbeats go on: a market maker under a flood must still be able
 * to pull its quotes.
 *
 * Sustained lag only: one late tick (a collection, a descheduled process on a busy machine) does
 * not shed; LOOP_LAG_TICKS_TO_SHED ticks in a row over the bound do, and one tick under it stops.
 *
 * Heavy traders first: while shedding, only a key that placed more than
 * SHED_LIGHT_PLACEMENTS_PER_WINDOW orders in the current SHED_WINDOW_MS window is refused, so a
 * flood's senders are turned away and a trader placing a few orders a second is not (the same
 * fairness as the signature pool's reserve for light keys). Counted per verified trader by the
 * service; the REST face asks with the address its headers claim, before the body is read (a
 * client lying about it only reaches the service's own check, after authentication).
 */
import { ServiceCode, PredexError } from '../../errors.js'
import { LOOP_LAG_RETRY_AFTER_SEC, LOOP_LAG_TICK_MS, LOOP_LAG_TICKS_TO_SHED, SHED_KEYS_TRACKED_MAX,
  SHED_LIGHT_PLACEMENTS_PER_WINDOW, SHED_WINDOW_MS } from '../../limits.js'

export interface LoadShedderOptions {
  /** Shed while the loop lags more than this, in ms; 0: never shed. */
  readonly lagMsMax: number
  /** Told each time shedding starts or stops (logs, metrics). */
  readonly onChange?: (shedding: boolean, lagMs: number) => void
  /** A monotonic clock in ms (performance.now unless told: tests drive it). */
  readonly nowMs?: () => number
}

export class LoadShedder {
  private timer: NodeJS.Timeout | null = null
  private lastTickMs = 0
  private ticksOver = 0
  private shedding = false
  /** The last tick's lag, in ms (for /metrics). */
  lagMs = 0
  /** Placements refused while shedding (for /metrics). */
  refused = 0
  /** Orders placed per key in the current window; cleared each window, and when it holds too many keys. */
  private readonly placements = new Map<string, number>()
  private windowStartMs = 0

  private readonly nowMs: () => number

  constructor(private readonly options: LoadShedderOptions) {
    this.nowMs = options.nowMs ?? (() => performance.now())
  }

  /** Starts watching (with a bound of 0, never). */
  start(): void {
    if (this.options.lagMsMax <= 0 || this.timer !== null) return
    this.lastTickMs = this.nowMs()
    this.timer = setInterval(() => this.tick(), LOOP_LAG_TICK_MS)
    // The timer only watches: it must not keep a stopping process alive.
    this.timer.unref()
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    this.shedding = false
  }

  get isShedding(): boolean {
    return this.shedding
  }

  /** Throws SERVER_BUSY while shedding, for a heavy key: the check before an order placement is read. */
  admitPlacement(key: string): void {
    if (!this.shedding || (this.placementsOf(key) <= SHED_LIGHT_PLACEMENTS_PER_WINDOW)) return
    this.refused++
    throw new PredexError(ServiceCode.SERVER_BUSY, 'the server is overloaded: retry shortly', {
      lagMs: Math.round(this.lagMs), lagMsMax: this.options.lagMsMax, retryAfterSeconds: LOOP_LAG_RETRY_AFTER_SEC,
    })
  }

  /** Counts `orders` placed by `key` (after admission), for telling heavy keys from light ones. */
  notePlacement(key: string, orders: number): void {
    if (this.options.lagMsMax <= 0) return
    this.placementsOf(key)
    if (this.placements.size >= SHED_KEYS_TRACKED_MAX) this.placements.clear()
    this.placements.set(key, (this.placements.get(key) ?? 0) + orders)
  }

  /** `key`'s placements in the current window (starting a new window when its time is up). */
  private placementsOf(key: string): number {
    const nowMs = this.nowMs()
    if (nowMs - this.windowStartMs >= SHED_WINDOW_MS) {
      this.placements.clear()
      this.windowStartMs = nowMs
    }
    return this.placements.get(key) ?? 0
  }

  /** One tick of the timer, due LOOP_LAG_TICK_MS after the last (the timer calls it; so may a test). */
  tick(): void {
    if (this.options.lagMsMax <= 0) return
    const nowMs = this.nowMs()
    this.lagMs = Math.max(0, nowMs - this.lastTickMs - LOOP_LAG_TICK_MS)
    this.lastTickMs = nowMs
    this.ticksOver = this.lagMs > this.options.lagMsMax ? this.ticksOver + 1 : 0
    const shedding = this.ticksOver >= LOOP_LAG_TICKS_TO_SHED
    if (shedding === this.shedding) return
    this.shedding = shedding
    this.options.onChange?.(shedding, this.lagMs)
  }
}
