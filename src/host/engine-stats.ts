/**
 * The engine worker's figures, shared with the main thread without a message: a small
 * SharedArrayBuffer of float64 slots, each written by one thread alone (single writer: plain
 * stores, no locks): the worker what it applies, its journal thread what it commits (`committed`);
 * /metrics reads them at scrape time. Counts stay exact up to 2^53. A read may see one
 * figure a command ahead of another (there is no snapshot of the whole block): fine for
 * monitoring, never used for decisions.
 *
 * Slots: commands applied by kind and result, the sequence applied and the one durable, the
 * journal's bytes and snapshots, the kernel ids of the engine's threads (for /metrics' CPU by
 * thread: src/thread-cpu.ts), and four histograms (fixed buckets: per bucket a count, then the
 * sum): one command's apply time (of the commands the worker times: engine-worker.ts), the
 * commands taken per drain of the ring, a journal transaction's commit time (write and flush) and
 * its commands. Timing is the worker's (the host around the pure engine); the engine itself reads
 * no clock.
 */
import type { Command } from '../engine/command.js'

/** Each command kind's slot pair: a new kind fails to compile until it has one. */
const KIND_INDEX: Readonly<Record<Command['kind'], number>> = {
  placeOrder: 0, placeOrders: 1, cancelOrder: 2, cancelOrders: 3, cancelByClientOrderId: 4, cancelAll: 5,
  cancelMarketOrders: 6, expire: 7, createMarket: 8, setMarketStatus: 9, setTickSize: 10, setFeeRate: 11,
  resolveMarket: 12, credit: 13, approve: 14, split: 15, merge: 16, redeem: 17, registerApiKey: 18,
  revokeApiKey: 19, relay: 20, amendOrder: 21, cancelReplace: 22, massQuote: 23, orderGroup: 24, chainSync: 25,
  reverseTrade: 26,
}

export const COMMAND_KINDS = Object.keys(KIND_INDEX) as readonly Command['kind'][]

/** Upper bounds of the histograms' buckets (a last, unbounded bucket follows each). */
export const APPLY_SECONDS_BOUNDS = [1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 1e-3, 1e-2] as const
export const BATCH_COMMANDS_BOUNDS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096] as const
export const COMMIT_SECONDS_BOUNDS =
  [1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 1] as const

export type StatsHistogram = 'applySeconds' | 'drainCommands' | 'commitSeconds' | 'journalCommands'

const HISTOGRAM_BOUNDS: Readonly<Record<StatsHistogram, readonly number[]>> = {
  applySeconds: APPLY_SECONDS_BOUNDS,
  drainCommands: BATCH_COMMANDS_BOUNDS,
  commitSeconds: COMMIT_SECONDS_BOUNDS,
  journalCommands: BATCH_COMMANDS_BOUNDS,
}

const SLOT_APPLIED_SEQ = 0
const SLOT_DURABLE_SEQ = 1
const SLOT_JOURNAL_BYTES = 2
const SLOT_SNAPSHOTS = 3
/** The engine's threads' kernel ids (thread-cpu.ts), each written by its thread: 0 until known. */
const SLOT_THREAD_IDS = 4
export const ENGINE_THREAD_ROLES = ['engine', 'journal', 'snapshot'] as const
export type EngineThreadRole = typeof ENGINE_THREAD_ROLES[number]
const SLOT_COMMANDS = SLOT_THREAD_IDS + ENGINE_THREAD_ROLES.length
/** Two slots per kind: accepted, then rejected. */
const SLOTS_COMMANDS_END = SLOT_COMMANDS + COMMAND_KINDS.length * 2

/** Where each histogram starts: bounds.length + 1 bucket slots, then its sum. */
const HISTOGRAM_START: Readonly<Record<StatsHistogram, number>> = (() => {
  let next = SLOTS_COMMANDS_END
  const starts = {} as Record<StatsHistogram, number>
  for (const name of Object.keys(HISTOGRAM_BOUNDS) as StatsHistogram[]) {
    starts[name] = next
    next += HISTOGRAM_BOUNDS[name].length + 2
  }
  return starts
})()

const SLOTS = SLOTS_COMMANDS_END + Object.values(HISTOGRAM_BOUNDS).reduce((sum, b) => sum + b.length + 2, 0)

/** The block to share with the worker (WorkerOptions.stats). */
export function allocateEngineStats(): SharedArrayBuffer {
  return new SharedArrayBuffer(SLOTS * Float64Array.BYTES_PER_ELEMENT)
}

/** The writers' side: the worker and its journal thread, each its own slots. */
export class EngineStatsWriter {
  private readonly slots: Float64Array

  constructor(buffer: SharedArrayBuffer) {
    this.slots = new Float64Array(buffer)
    if (this.slots.length !== SLOTS) throw new Error(`engine stats: ${this.slots.length} slots, expected ${SLOTS}`)
  }

  applied(kind: Command['kind'], ok: boolean, seq: number): void {
    this.slots[SLOT_COMMANDS + KIND_INDEX[kind] * 2 + (ok ? 0 : 1)]! += 1
    this.slots[SLOT_APPLIED_SEQ] = seq
  }

  /** One command's apply time, for the commands the worker times (a sample under load). */
  applyTimed(seconds: number): void {
    this.observe('applySeconds', seconds)
  }

  drained(commands: number): void {
    this.observe('drainCommands', commands)
  }

  /** One journal transaction of a batch, durable: its commands, bytes, its time. */
  committed(figures: { commands: number; sizeBytes: number; seconds: number; seq: number }): void {
    this.slots[SLOT_JOURNAL_BYTES]! += figures.sizeBytes
    this.slots[SLOT_DURABLE_SEQ] = figures.seq
    this.observe('journalCommands', figures.commands)
    this.observe('commitSeconds', figures.seconds)
  }

  /** One snapshot written, durable, in a transaction of its own. */
  snapshotted(sizeBytes: number): void {
    this.slots[SLOT_JOURNAL_BYTES]! += sizeBytes
    this.slots[SLOT_SNAPSHOTS]! += 1
  }

  /** The calling thread is `role`, with kernel id `tid` (thread-cpu.ts: ownThreadId). */
  thread(role: EngineThreadRole, tid: number): void {
    this.slots[SLOT_THREAD_IDS + ENGINE_THREAD_ROLES.indexOf(role)] = tid
  }

  /** The sequence at start (recovery): nothing is waiting for the journal yet. */
  recovered(seq: number): void {
    this.slots[SLOT_APPLIED_SEQ] = seq
    this.slots[SLOT_DURABLE_SEQ] = seq
  }

  private observe(name: StatsHistogram, value: number): void {
    const bounds = HISTOGRAM_BOUNDS[name]
    const start = HISTOGRAM_START[name]
    let bucket = 0
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++
    this.slots[start + bucket]! += 1
    this.slots[start + bounds.length + 1]! += value
  }
}

/** A histogram as read: cumulative counts per upper bound (the last is +Inf), the sum and the count. */
export interface HistogramReading {
  readonly bounds: readonly number[]
  readonly cumulative: readonly number[]
  readonly sum: number
  readonly count: number
}

/** The main thread's side: reads at scrape time. */
export class EngineStatsReader {
  private readonly slots: Float64Array

  constructor(buffer: SharedArrayBuffer) {
    this.slots = new Float64Array(buffer)
  }

  /** The engine's threads known so far: role and kernel id. */
  threads(): { role: EngineThreadRole; tid: number }[] {
    return ENGINE_THREAD_ROLES.map((role, i) => ({ role, tid: this.slots[SLOT_THREAD_IDS + i]! }))
      .filter((thread) => thread.tid !== 0)
  }

  /** The last sequence number the worker applied (durable or not). */
  get appliedSeq(): number {
    return this.slots[SLOT_APPLIED_SEQ]!
  }

  /** The last sequence number the journal holds durably. */
  get durableSeq(): number {
    return this.slots[SLOT_DURABLE_SEQ]!
  }

  get journalBytes(): number {
    return this.slots[SLOT_JOURNAL_BYTES]!
  }

  get snapshots(): number {
    return this.slots[SLOT_SNAPSHOTS]!
  }

  /** Commands applied since this worker started, of `kind`, accepted or rejected. */
  commands(kind: Command['kind'], ok: boolean): number {
    return this.slots[SLOT_COMMANDS + KIND_INDEX[kind] * 2 + (ok ? 0 : 1)]!
  }

  histogram(name: StatsHistogram): HistogramReading {
    const bounds = HISTOGRAM_BOUNDS[name]
    const start = HISTOGRAM_START[name]
    const cumulative: number[] = []
    let count = 0
    for (let bucket = 0; bucket <= bounds.length; bucket++) {
      count += this.slots[start + bucket]!
      cumulative.push(count)
    }
    return { bounds, cumulative, sum: this.slots[start + bounds.length + 1]!, count }
  }
}
