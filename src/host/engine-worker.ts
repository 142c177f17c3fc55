/**
 * The engine worker: Predex's single writer, on its own thread. It recovers (snapshot + journal),
 * says it is ready, then loops: take commands from the ring, stamp each with the next sequence
 * number and the time, apply it, and add it to the current group. Group commit: the group is
 * written as one record in one synchronous LMDB transaction on this thread (journal.ts); while it
 * commits, the ring gathers the next group, so under load each transaction carries more commands
 * instead of queueing more small transactions behind the disk. A group's results and events are
 * released only once its transaction is durable (durability `sync`; with `async`, for benchmarks
 * only, as soon as they are applied, the write going through lmdb-js's thread); only the event
 * kinds the main thread reads cross (messages.ts, EVENTS_CROSSING).
 * Any journal error or broken assertion stops the worker (fail-stop): it never carries on in a
 * state nobody can vouch for.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Command } from '../engine/command.js'
import { changedState, type Engine } from '../engine/engine.js'
import type { EngineEvent } from '../engine/event.js'
import { encodeSnapshot } from '../engine/snapshot.js'
import { Journal } from '../journal/journal.js'
import { BatchRecordWriter } from '../journal/batch-record.js'
import { recover } from '../journal/recovery.js'
import { BATCH_COMMANDS_MAX, SNAPSHOTS_KEPT } from '../limits.js'
import { Ring } from '../ring/ring.js'
import { crossingEvents, type FromWorker, type Outcome, type ToWorker, type WorkerOptions } from './messages.js'
import { answer } from './query.js'
import { decodeRequest } from './request-codec.js'
import { OutcomeWriter } from './outcome-codec.js'
import { EngineStatsWriter } from './engine-stats.js'
import { HopTrace } from './hop-trace.js'

const IDLE_WAIT_MS = 50
/**
 * The first command of each drain and every 16th after it are timed (/metrics): a pair of clock
 * reads costs some 200 ns here, more than the figures themselves, so under load one command in 16
 * pays it, while a lightly loaded engine (drains of one command) has every command timed.
 */
const APPLY_TIMING_STRIDE_MASK = 15
const NO_EVENTS: readonly EngineEvent[] = Object.freeze([])

/**
 * Commands applied but not yet written: the next journal transaction, one batch record. The
 * recorded commands' bytes go straight into the worker's batch writer; the group keeps the rest.
 */
class Group {
  readonly outcomes: Outcome[] = []
  recorded = 0
  constructor(readonly firstSeq: number) {}
}

interface WaitingQuery {
  readonly afterSeq: number
  readonly reply: FromWorker
}

class EngineWorker {
  private readonly ring: Ring
  private stopping = false
  private group: Group
  /** The journal transaction in flight, if any. */
  private writing: Promise<void> | null = null
  /** Every command up to this seq is durable. */
  private durableSeq: number
  private readonly waitingQueries: WaitingQuery[] = []
  /** The current group's recorded commands, as its journal record will hold them. */
  private readonly batch = new BatchRecordWriter()
  private commandsSinceSnapshot = 0
  private groupsWritten = 0
  private eventsWanted = false
  /** The retention work after the last snapshot (retain), awaited before the journal closes. */
  private retaining: Promise<void> = Promise.resolve()
  /** Everything up to this seq is in the read store durably (journal retention). */
  private readDurableSeq = 0
  /** For /metrics: written here, read by the main thread (engine-stats.ts). */
  private readonly stats: EngineStatsWriter

  constructor(
    private readonly options: WorkerOptions,
    private readonly journal: Journal,
    private readonly engine: Engine,
  ) {
    this.ring = new Ring(options.ring)
    this.durableSeq = engine.seq
    this.group = new Group(engine.seq + 1)
    this.stats = new EngineStatsWriter(options.stats)
    this.stats.recovered(engine.seq)
  }

  async run(): Promise<void> {
    parentPort!.on('message', (message: ToWorker) => this.onMessage(message))
    for (;;) {
      const applied = this.applyFromRing()
      if (this.writing === null && this.group.outcomes.length > 0) this.startWrite()
      if (applied > 0) {
        // Let journal completions and messages run between slices of work.
        await nextTurn()
        continue
      }
      if (this.stopping && this.ring.usedBytes === 0) break
      if (this.group.outcomes.length >= BATCH_COMMANDS_MAX && this.writing !== null) await this.writing
      else await this.ring.waitAsync(IDLE_WAIT_MS)
    }
    while (this.writing !== null || this.group.outcomes.length > 0) {
      if (this.writing === null) this.startWrite()
      await this.writing
    }
    await this.retaining
    await this.journal.close()
    post({ type: 'stopped', seq: this.engine.seq })
  }

  /** Applies what the ring holds, up to a full group; returns how many commands. */
  private applyFromRing(): number {
    const group = this.group
    const released = this.options.durability === 'async' ? group.outcomes.length : -1
    let applied = 0
    while (group.outcomes.length < BATCH_COMMANDS_MAX) {
      const bytes = this.ring.peek()
      if (bytes === null) break
      const { requestId, command, commandBytes } = decodeRequest(bytes)
      hopTrace?.mark(requestId, 'decoded')
      const stamped = command as Command & { seq: number; timeMs: number }
      const previous = { seq: this.engine.seq, timeMs: this.engine.timeMs }
      stamped.seq = previous.seq + 1
      stamped.timeMs = Math.max(Date.now(), previous.timeMs)
      const timed = (applied & APPLY_TIMING_STRIDE_MASK) === 0
      const applyStarted = timed ? performance.now() : 0
      const { result, events } = this.engine.apply(stamped)
      if (timed) this.stats.applyTimed((performance.now() - applyStarted) / 1000)
      const recorded = changedState(events)
      if (recorded) {
        this.batch.add(stamped.seq, stamped.timeMs, commandBytes)
        group.recorded++
      } else {
        // Nothing changed, so nothing to journal: answered with the last recorded seq.
        this.engine.rewind(previous.seq, previous.timeMs)
      }
      // The bytes are copied into the batch above, so the slot is free only now.
      this.ring.advance()
      group.outcomes.push({ requestId, seq: this.engine.seq, timeMs: stamped.timeMs, recorded, result,
        events: this.eventsWanted ? crossingEvents(events) : NO_EVENTS })
      this.stats.applied(command.kind, result.ok, this.engine.seq)
      applied++
    }
    if (applied > 0) this.stats.drained(applied)
    // durability=async (benchmarks only): release at once, without waiting for the disk.
    if (released >= 0 && applied > 0) postBatch(group.outcomes.slice(released))
    return applied
  }

  /**
   * Writes the current group as one transaction; the next group starts empty. A group of
   * unrecorded commands only has nothing to write: everything before it is durable (no write is
   * in flight when this runs), so its answers go out at once.
   */
  private startWrite(): void {
    const group = this.group
    this.group = new Group(this.engine.seq + 1)
    if (group.recorded === 0) {
      if (this.options.durability === 'sync') postBatch(group.outcomes)
      this.writing = null
      return
    }
    this.commandsSinceSnapshot += group.recorded
    let snapshot: { seq: number; bytes: Uint8Array } | null = null
    if (this.commandsSinceSnapshot >= this.options.snapshotEveryCommands) {
      snapshot = { seq: this.engine.seq, bytes: encodeSnapshot(this.engine) }
      this.commandsSinceSnapshot = 0
    }
    const lastSeq = group.firstSeq + group.recorded - 1
    const record = this.batch.seal()
    if (this.options.unsafeAckBeforeJournalMs > 0) {
      // Test only: the acknowledgement goes out before the journal write even starts.
      if (this.options.durability === 'sync') postBatch(group.outcomes)
      setTimeout(() => void this.journal.append(group.firstSeq, record, snapshot).catch(fatal),
        this.options.unsafeAckBeforeJournalMs)
      this.onDurable(lastSeq)
      return
    }
    this.groupsWritten++
    const commitStarted = performance.now()
    const committed = (): void => {
      this.stats.committed({ commands: group.recorded, sizeBytes: record.length, snapshot: snapshot !== null,
        seconds: (performance.now() - commitStarted) / 1000, seq: lastSeq })
      if (this.options.durability === 'sync') postBatch(group.outcomes)
      this.onDurable(lastSeq)
      if (snapshot !== null) {
        // One after the other, and finished before the journal closes: a stop right after a
        // snapshot used to close the journal under a retention still pruning (a CI run caught it).
        this.retaining = this.retaining.then(() => this.retain())
        this.retaining.catch(fatal)
      }
    }
    if (this.options.durability === 'sync') {
      // Committed on this thread, durable when it returns; meanwhile the ring gathers the next group.
      try {
        if (this.groupsWritten === this.options.failJournalAtBatch) {
          throw new Error('injected journal write failure (test)')
        }
        this.journal.appendSync(group.firstSeq, record, snapshot)
      } catch (error) {
        fatal(error)
      }
      committed()
      return
    }
    // durability=async (benchmarks only): the answers have left; the write goes through lmdb-js's thread.
    this.writing = this.journal.append(group.firstSeq, record, snapshot).then(() => {
      this.writing = null
      committed()
      // What arrived while this group was written goes out as the next transaction at once.
      if (this.group.outcomes.length > 0) this.startWrite()
    }, fatal)
  }

  /**
   * After a snapshot: keeps the newest SNAPSHOTS_KEPT snapshots and, with retention `snapshots`,
   * only the commands after the oldest of them. Recovery starts from a kept snapshot (the older
   * one if the newer is damaged) and the read store's catch-up from one at or before its seq, so
   * nothing goes that either could need; while the read store is behind the oldest kept snapshot,
   * nothing goes at all (docs/host.md, "Retention").
   */
  private async retain(): Promise<void> {
    await this.journal.pruneSnapshots(SNAPSHOTS_KEPT)
    if (this.options.journalRetention !== 'snapshots') return
    const oldest = this.journal.oldestSnapshotSeq()
    if (oldest === null || this.readDurableSeq < oldest) return
    await this.journal.pruneCommandsThrough(oldest)
  }

  private onDurable(seq: number): void {
    this.durableSeq = seq
    while (this.waitingQueries.length > 0 && this.waitingQueries[0]!.afterSeq <= seq) {
      post(this.waitingQueries.shift()!.reply)
    }
  }

  private onMessage(message: ToWorker): void {
    switch (message.type) {
      case 'stop':
        this.stopping = true
        return
      case 'events':
        this.eventsWanted = message.wanted
        return
      case 'readDurable':
        this.readDurableSeq = Math.max(this.readDurableSeq, message.seq)
        return
      case 'query': {
        // The answer reflects every command applied so far; release it once they are durable.
        const reply: FromWorker = {
          type: 'answer', queryId: message.queryId, answer: answer(this.engine, message.query),
        }
        if (this.engine.seq <= this.durableSeq) post(reply)
        else this.waitingQueries.push({ afterSeq: this.engine.seq, reply })
      }
    }
  }
}

function post(message: FromWorker): void {
  parentPort!.postMessage(message)
}

const outcomeWriter = new OutcomeWriter()
const hopTrace = (workerData as WorkerOptions).hopTrace === null ? null
  : new HopTrace((workerData as WorkerOptions).hopTrace!)

/** A batch of outcomes crosses as one transferred buffer (outcome-codec.ts), not as cloned objects. */
function postBatch(outcomes: readonly Outcome[]): void {
  if (hopTrace !== null) for (const outcome of outcomes) hopTrace.mark(outcome.requestId, 'posted')
  const bytes = outcomeWriter.encode(outcomes)
  parentPort!.postMessage({ type: 'batch', bytes } satisfies FromWorker, [bytes])
}

function fatal(error: unknown): never {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  post({ type: 'fatal', message })
  // Fail-stop: end the thread with the error; the host stops the process.
  throw error instanceof Error ? error : new Error(message)
}

async function main(): Promise<void> {
  const options = workerData as WorkerOptions
  const journal = Journal.open({ path: options.dataDir, durability: options.durability })
  const recovery = recover(journal, options.hashSeed, () => performance.now(),
    journal.endedOrdersRetained(options.endedOrdersRetained))
  const engine = recovery.engine
  post({
    type: 'ready', seq: engine.seq, snapshotSeq: recovery.snapshotSeq,
    snapshotsSkipped: recovery.snapshotsSkipped, replayed: recovery.replayed, recoveryMs: recovery.ms,
  })
  await new EngineWorker(options, journal, engine).run()
}

main().catch(fatal)
