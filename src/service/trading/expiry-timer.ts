/**
 * GTD expiry on the host's clock. The engine expires a GTD order when a command reaches it after
 * the order's time (every command does that first), but it reads no clock of its own: on a quiet
 * market nothing came, and an expired order stayed on the book, LIVE, its funds held. This timer
 * watches the expirations of live GTD orders (from the durable events, as the read model sees
 * them) and, when the earliest is due, submits an `expire` command: journaled like any command
 * and stamped by the host, so replay stays exact. It submits one only when an order it watches
 * is still live at its time, so a quiet exchange journals nothing.
 *
 * Watched entries of orders that ended early (filled, cancelled) are dropped when they come due,
 * or all at once when the heap has doubled since the last sweep, so it is bounded by the live
 * GTD orders (ORDERS_OPEN_MAX), not by history.
 */
import type { Clock } from '../../clock.js'
import type { Outcome } from '../../host/messages.js'
import { EXPIRY_RETRY_MS, EXPIRY_TIMER_DELAY_MS_MAX, EXPIRY_WATCHED_PRUNE_MIN } from '../../limits.js'
import type { ServiceContext } from '../context.js'
import { submit } from '../commands.js'
import type { Log } from '../../log.js'

interface Due {
  readonly dueMs: number
  readonly orderId: string
}

export interface ExpiryTimerOptions {
  readonly context: ServiceContext
  readonly clock: Clock
  readonly log: Log
}

export class ExpiryTimer {
  /** A binary min-heap by due time. */
  private readonly heap: Due[] = []
  private timer: NodeJS.Timeout | null = null
  private armedForMs = Number.POSITIVE_INFINITY
  private running: Promise<void> | null = null
  private stopped = false
  private pruneAtSize = EXPIRY_WATCHED_PRUNE_MIN

  constructor(private readonly options: ExpiryTimerOptions) {}

  /** Orders watched now (ended ones included until they are dropped). */
  get watched(): number {
    return this.heap.length
  }

  /** Watches the live GTD orders the read model holds (at start, after recovery). */
  start(): void {
    for (const order of this.options.context.read.allLiveOrders()) {
      if (order.expirationSec > 0) this.watch(order.orderId, order.expirationSec)
    }
    this.arm()
  }

  /** The fan-out's subscriber: every GTD order accepted is watched. */
  publish(outcomes: readonly Outcome[]): void {
    if (this.stopped) return
    for (const outcome of outcomes) {
      for (const event of outcome.events) {
        if (event.type === 'orderAccepted' && event.expirationSec > 0) this.watch(event.orderId, event.expirationSec)
      }
    }
    this.arm()
  }

  /** No more commands; waits for one under way (before the engine stops). */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    await this.running
  }

  /**
   * Runs what is due now (a test calls it after moving its clock; the timer calls it on time).
   * Resolves when the expire command, if one was needed, is durable.
   */
  async fire(): Promise<void> {
    if (this.running !== null) return this.running
    this.running = this.expireDue().finally(() => {
      this.running = null
      this.arm()
    })
    return this.running
  }

  private async expireDue(): Promise<void> {
    const { context, clock, log } = this.options
    const nowMs = clock.wallMs()
    const due: Due[] = []
    while (this.heap.length > 0 && this.heap[0]!.dueMs <= nowMs) due.push(this.pop())
    const live = due.filter((d) => context.read.order(d.orderId)?.status === 'LIVE')
    if (live.length === 0 || this.stopped) return
    // How far the engine's clock (the command's stamp) was behind this one: the wait before a retry.
    let behindMs = 0
    try {
      const outcome = await submit(context, { kind: 'expire' })
      behindMs = Math.max(0, nowMs - outcome.timeMs)
    } catch (error) {
      log.warn('expiry: the expire command failed; trying again', { retryMs: EXPIRY_RETRY_MS, err: error })
    }
    // Still live (the command failed, or the engine's clock was behind this one): look again later,
    // when the engine's clock will have reached the time, so a lagging clock costs one retry, not many.
    for (const d of live) {
      if (context.read.order(d.orderId)?.status === 'LIVE') {
        this.push({ dueMs: clock.wallMs() + Math.max(EXPIRY_RETRY_MS, behindMs), orderId: d.orderId })
      }
    }
  }

  private watch(orderId: string, expirationSec: number): void {
    this.push({ dueMs: expirationSec * 1000, orderId })
    if (this.heap.length >= this.pruneAtSize) this.prune()
  }

  /** Drops the entries of ended orders; the next prune waits until the heap has doubled again. */
  private prune(): void {
    const read = this.options.context.read
    const kept = this.heap.filter((d) => read.order(d.orderId)?.status === 'LIVE')
    this.heap.length = 0
    for (const d of kept) this.push(d)
    this.pruneAtSize = Math.max(EXPIRY_WATCHED_PRUNE_MIN, 2 * this.heap.length)
  }

  /** The timer at the earliest due time (a long wait in steps: setTimeout takes at most 2^31 - 1 ms). */
  private arm(): void {
    if (this.stopped || this.running !== null || this.heap.length === 0) return
    const dueMs = this.heap[0]!.dueMs
    if (this.timer !== null && dueMs >= this.armedForMs) return
    if (this.timer !== null) clearTimeout(this.timer)
    const delayMs = Math.min(Math.max(0, dueMs - this.options.clock.wallMs()), EXPIRY_TIMER_DELAY_MS_MAX)
    this.armedForMs = dueMs
    this.timer = setTimeout(() => {
      this.timer = null
      this.armedForMs = Number.POSITIVE_INFINITY
      void this.fire()
    }, delayMs)
    this.timer.unref()
  }

  private push(entry: Due): void {
    const heap = this.heap
    heap.push(entry)
    let child = heap.length - 1
    while (child > 0) {
      const parent = (child - 1) >> 1
      if (heap[parent]!.dueMs <= heap[child]!.dueMs) break
      ;[heap[parent], heap[child]] = [heap[child]!, heap[parent]!]
      child = parent
    }
  }

  private pop(): Due {
    const heap = this.heap
    const top = heap[0]!
    const last = heap.pop()!
    if (heap.length === 0) return top
    heap[0] = last
    let parent = 0
    for (;;) {
      const left = 2 * parent + 1
      const right = left + 1
      let smallest = parent
      if (left < heap.length && heap[left]!.dueMs < heap[smallest]!.dueMs) smallest = left
      if (right < heap.length && heap[right]!.dueMs < heap[smallest]!.dueMs) smallest = right
      if (smallest === parent) return top
      ;[heap[parent], heap[smallest]] = [heap[smallest]!, heap[parent]!]
      parent = smallest
    }
  }
}
