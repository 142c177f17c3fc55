/**
 * A full collection when the main thread is quiet and V8 holds far more heap than it uses.
 *
 * V8 grows its heap for a spike (an attack's buffered messages, a burst of requests) and gives
 * pages back only in a full collection. A quiet process allocates little, so no collection comes
 * and the pages stay: the gRPC abuse test failed on this once (main heap 185 MB committed with 59
 * MB used after 60 s of quiet, own memory +159 MB against +40 to +96 in other runs; a later
 * failure, +182 MB, printed no breakdown). Measured in a bare process: 500 MB of garbage stays
 * committed after 18 s idle; one collection frees the objects and each further one gives back
 * part of the emptied pages (421, 214, 44 MB committed), some 25 ms each.
 *
 * So every HEAP_SLACK_CHECK_INTERVAL_MS, when the event loop was busy less than
 * HEAP_SLACK_QUIET_UTILIZATION_MAX of the interval and the committed heap is HEAP_SLACK_BYTES_MAX
 * or more above where the last collection left it (a spike's garbage, which V8 counts as used
 * until it collects) or above what it uses (collected, its pages kept): one collection. Under load
 * none is forced (V8's own collections come, and a pause would cost clients). A collection that
 * gave nothing back stops the second rule until the heap grows past where it stood, so a heap V8
 * will not shrink is not collected again and again. The timer never keeps a stopping process
 * alive.
 */
import { getHeapStatistics } from 'node:v8'
import { performance, type EventLoopUtilization } from 'node:perf_hooks'
import { fullCollector } from './external-memory-watch.js'
import { heldOnce } from './held-once.js'
import { PeriodicCheck } from './periodic-check.js'
import { HEAP_SLACK_BYTES_MAX, HEAP_SLACK_CHECK_INTERVAL_MS, HEAP_SLACK_QUIET_UTILIZATION_MAX } from './limits.js'

export interface HeapBytes {
  readonly committedBytes: number
  readonly usedBytes: number
}

export interface HeapSlackWatchOptions {
  readonly slackBytesMax?: number
  readonly intervalMs?: number
  readonly quietUtilizationMax?: number
  /** V8's heap statistics unless told (tests). */
  readonly heap?: () => HeapBytes
  /** The event loop's busy share since the last call, 0 to 1 (performance's unless told). */
  readonly utilization?: () => number
  /** A full collection (fullCollector() unless told). */
  readonly collect?: () => void
}

export class HeapSlackWatch extends PeriodicCheck {
  /** Collections this watch ran (tests read it). */
  collections = 0
  /** Committed bytes after a collection that gave nothing back: no other until the heap passes it. */
  private stuckAtBytes: number | null = null
  /** Committed bytes after the last collection, or the lowest seen since. */
  private floorBytes: number
  private readonly slackBytesMax: number
  private readonly quietUtilizationMax: number
  private readonly heap: () => HeapBytes
  private readonly utilization: () => number
  private collect: (() => void) | null

  constructor(options: HeapSlackWatchOptions = {}) {
    super(options.intervalMs ?? HEAP_SLACK_CHECK_INTERVAL_MS)
    this.slackBytesMax = options.slackBytesMax ?? HEAP_SLACK_BYTES_MAX
    this.quietUtilizationMax = options.quietUtilizationMax ?? HEAP_SLACK_QUIET_UTILIZATION_MAX
    this.heap = options.heap ?? v8HeapBytes
    this.utilization = options.utilization ?? loopUtilization()
    this.collect = options.collect ?? null
    this.floorBytes = this.heap().committedBytes
  }

  /**
   * One check (the timer calls it): collects when the loop was quiet and the heap either grew by
   * the bound since the last collection (garbage not yet collected counts as used) or holds the
   * bound beyond what it uses (collected, its pages kept).
   */
  check(): void {
    const utilization = this.utilization()
    const before = this.heap()
    this.floorBytes = Math.min(this.floorBytes, before.committedBytes)
    const slackBytes = before.committedBytes - before.usedBytes
    if (slackBytes < this.slackBytesMax) this.stuckAtBytes = null
    const grown = before.committedBytes - this.floorBytes >= this.slackBytesMax
    const slack = slackBytes >= this.slackBytesMax &&
      (this.stuckAtBytes === null || before.committedBytes > this.stuckAtBytes)
    if ((!grown && !slack) || utilization > this.quietUtilizationMax) return
    this.collect ??= fullCollector()
    this.collect()
    this.collections++
    const after = this.heap().committedBytes
    this.floorBytes = after
    this.stuckAtBytes = after < before.committedBytes ? null : after
  }
}

export function v8HeapBytes(): HeapBytes {
  const statistics = getHeapStatistics()
  return { committedBytes: statistics.total_heap_size, usedBytes: statistics.used_heap_size }
}

/** The event loop's busy share since the previous call (the first: since the process started). */
function loopUtilization(): () => number {
  let previous: EventLoopUtilization = performance.eventLoopUtilization()
  return () => {
    const now = performance.eventLoopUtilization()
    const share = performance.eventLoopUtilization(now, previous).utilization
    previous = now
    return share
  }
}

/** The process's one watch, held by each server that runs in it. */
export const holdHeapSlackWatch = heldOnce(() => new HeapSlackWatch())
