/**
 * The engine worker: Predex's single writer, on its own thread. It recovers (snapshot + journal),
 * starts its journal thread (journal-thread.ts), says it is ready, then loops: take commands
 * from the ring, stamp each with the next sequence number and the time, apply it, and add it to
 * the current group. Group commit in a pipeline: when the ring is drained (or the group full) and
 * the journal thread has no group in hand, the group goes to it, as one batch record and its
 * encoded outcomes; the journal thread commits it in one synchronous LMDB transaction and posts
 * the outcomes to the main thread, while this thread applies the next group. Under load each
 * group carries more commands instead of more groups queueing behind the disk. A group's results
 * and events are released only once its transaction is durable (durability `sync`; with `async`,
 * for benchmarks only, this thread posts them as soon as they are applied); only the event kinds
 * the main thread reads cross (messages.ts, EVENTS_CROSSING).
 * Any journal error or broken assertion stops the worker (fail-stop): it never carries on in a
 * state nobody can vouch for.
 */
import { parentPort, Worker, workerData } from 'node:worker_threads'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Command } from '../engine/command.js'
import type { Engine } from '../engine/engine.js'
import type { EventLog } from '../engine/event-log.js'
import { Journal } from '../journal/journal.js'
import { BatchRecordWriter, batchCommandsOf } from '../journal/batch-record.js'
import { decodeStampedCommand } from '../codec/command-codec.js'
import { recover } from '../journal/recovery.js'
import { BATCH_COMMANDS_MAX, BATCH_RECORD_BYTES_MAX, DECODE_RUN_MAX } from '../limits.js'
import { Ring } from '../ring/ring.js'
import { startThread } from '../thread-start.js'
import {
  EVENTS_CROSSING,
  type FromJournal,
  type FromWorker,
  type JournalThreadOptions,
  type ToJournal,
  type ToWorker,
  type WorkerOptions,
} from './messages.js'
import { answer } from './query.js'
import { RequestReader } from '../codec/request-codec.js'
import { OutcomeHeads, OutcomeWriter } from '../codec/outcome-codec.js'
import { EngineStatsWriter } from './engine-stats.js'
import { HopTrace } from './hop-trace.js'
import { ownThreadId } from '../thread-cpu.js'

const IDLE_WAIT_MS = 50
/**
 * The first command of each drain and every 16th after it are timed (/metrics): a pair of clock
 * reads costs some 200 ns here, more than the figures themselves, so under load one command in 16
 * pays it, while a lightly loaded engine (drains of one command) has every command timed.
 */
const APPLY_TIMING_STRIDE_MASK = 15

/**
 * Commands applied but not yet written: the next journal transaction, one batch record. The
 * recorded commands' bytes go straight into the worker's batch writer; the group keeps their
 * outcomes' heads (in columns: no object per command) and counts. One group, reused: its outcomes
 * are encoded when it is handed over, and it starts again empty.
 */
class Group {
  readonly heads = new OutcomeHeads()
  recorded = 0
  /** The next command would take its record past BATCH_RECORD_BYTES_MAX: it waits for the next group. */
  bytesFull = false
  constructor(public firstSeq: number) {}

  get size(): number {
    return this.heads.count
  }

  get full(): boolean {
    return this.bytesFull || this.heads.count >= BATCH_COMMANDS_MAX
  }

  restart(firstSeq: number): void {
    this.firstSeq = firstSeq
    this.heads.clear()
    this.recorded = 0
    this.bytesFull = false
  }
}

/** The journal thread, and the Int32 it blocks on for the worker's messages (journal-thread.ts, run). */
interface JournalThread {
  readonly thread: Worker
  readonly signal: Int32Array
}

/** A replica's record of the primary's (ToWorker `replicate`), applied command by command. */
interface ReplicatedRecord {
  readonly commands: readonly Uint8Array[]
  readonly streamSeq: number
  /** The next of its commands to apply. */
  next: number
}

interface WaitingQuery {
  readonly afterSeq: number
  readonly reply: FromWorker
}

class EngineWorker {
  private readonly ring: Ring
  private stopping = false
  private readonly group: Group
  /** Groups handed to the journal thread and not yet durable: at most one (journal-thread.ts). */
  private handedOver = 0
  /** Resolves the wait for the journal thread's next `durable` (a full group waits for it). */
  private onNextDurable: (() => void) | null = null
  /** Every command up to this seq is durable. */
  private durableSeq: number
  private readonly waitingQueries: WaitingQuery[] = []
  /** A replica's records from the replicated stream, oldest first (the main thread bounds them). */
  private readonly replicated: ReplicatedRecord[] = []
  /** The current group's recorded commands, as its journal record will hold them. */
  private readonly batch = new BatchRecordWriter()
  /** One reader for every request taken off the ring. */
  private readonly requests = new RequestReader()
  /** The commands decoded and not yet applied (decodeRun), with their request ids and bytes. */
  private readonly decoded = {
    commands: new Array<(Command & { seq: number; timeMs: number }) | null>(DECODE_RUN_MAX).fill(null),
    requestIds: new Float64Array(DECODE_RUN_MAX),
    commandStarts: new Int32Array(DECODE_RUN_MAX),
    bytes: new Array<Uint8Array | null>(DECODE_RUN_MAX).fill(null),
  }
  private eventsWanted = false
  /** For /metrics: written here, read by the main thread (engine-stats.ts). */
  private readonly stats: EngineStatsWriter

  constructor(
    private readonly options: WorkerOptions,
    /** This thread's own handle: recovery read it; it holds the directory's lock until the end. */
    private readonly journal: Journal,
    private readonly engine: Engine,
    private readonly journalThread: JournalThread,
  ) {
    this.ring = new Ring(options.ring)
    this.durableSeq = engine.seq
    this.group = new Group(engine.seq + 1)
    this.stats = new EngineStatsWriter(options.stats)
    this.stats.thread('engine', ownThreadId())
    this.stats.recovered(engine.seq)
  }

  async run(): Promise<void> {
    parentPort!.on('message', (message: ToWorker) => this.onMessage(message))
    this.journalThread.thread.on('message', (message: FromJournal) => this.onJournal(message))
    for (;;) {
      const applied = this.applyFromRing() + this.applyReplicated()
      if (this.handedOver === 0 && this.group.size > 0) this.handOver()
      if (applied > 0) {
        // Let the journal thread's answers and the host's messages run between slices of work.
        await nextTurn()
        continue
      }
      if (this.stopping && this.ring.usedBytes === 0) break
      // A full group waits for the journal thread; an empty ring for a command or the journal
      // thread, whose `durable` wakes this wait (onJournal).
      if (this.group.full) await this.nextDurable()
      else await this.ring.waitAsync(IDLE_WAIT_MS)
    }
    while (this.handedOver > 0 || this.group.size > 0) {
      if (this.handedOver === 0) this.handOver()
      else await this.nextDurable()
    }
    await this.stopJournalThread()
    post({ type: 'stopped', seq: this.engine.seq })
  }

  /**
   * Applies what the ring holds, up to a full group; returns how many commands. A run of
   * commands is decoded first, then applied one after the other (decodeRun): the decoder's and
   * the engine's loops each keep their code and data in the caches for a whole run, where taking
   * them in turns per command cost the worker's loop about 0.4 µs a command on one thread here
   * (docs/performance.md, "Decode a run, then apply it").
   */
  private applyFromRing(): number {
    const group = this.group
    const released = this.options.durability === 'async' ? group.size : -1
    const run = this.decoded
    let applied = 0
    while (!group.full) {
      const count = this.decodeRun()
      if (count === 0) break
      for (let i = 0; i < count; i++) {
        const stamped = run.commands[i]!
        run.commands[i] = null
        const requestId = run.requestIds[i]!
        const previousSeq = this.engine.seq
        const previousTimeMs = this.engine.timeMs
        stamped.seq = previousSeq + 1
        stamped.timeMs = Math.max(Date.now(), previousTimeMs)
        const timed = (applied & APPLY_TIMING_STRIDE_MASK) === 0
        const applyStarted = timed ? performance.now() : 0
        const ok = this.engine.execute(stamped)
        if (timed) this.stats.applyTimed((performance.now() - applyStarted) / 1000)
        const recorded = this.engine.changed
        if (recorded) {
          this.batch.add(stamped.seq, stamped.timeMs, run.bytes[i]!.subarray(run.commandStarts[i]!))
          group.recorded++
        } else {
          // Nothing changed, so nothing to journal: answered with the last recorded seq.
          this.engine.rewind(previousSeq, previousTimeMs)
        }
        run.bytes[i] = null
        // The bytes are copied into the batch above, so the slot is free only now.
        this.ring.advance()
        group.heads.push(requestId, this.engine.seq, stamped.timeMs, recorded, this.engine.log.length)
        this.stats.applied(stamped.kind, ok, this.engine.seq)
        applied++
      }
    }
    if (applied > 0) this.stats.drained(applied)
    // durability=async (benchmarks only): release at once, without waiting for the disk.
    if (released >= 0 && applied > 0) postBatch(group.heads, released, this.eventsOut())
    return applied
  }

  /**
   * Decodes the next records of the ring, as many as the group has room for and at most
   * DECODE_RUN_MAX, into `decoded`, leaving them in the ring until each is applied (its bytes go
   * into the batch record then); returns how many.
   */
  private decodeRun(): number {
    const group = this.group
    const run = this.decoded
    const room = Math.min(DECODE_RUN_MAX, BATCH_COMMANDS_MAX - group.size)
    let count = 0
    let bytesPending = 0
    while (count < room) {
      const bytes = this.ring.peekAhead()
      if (bytes === null) break
      // Its request's bytes, a little more than the command's: a bound that errs on the safe side.
      if (!this.batch.fits(bytes.length, BATCH_RECORD_BYTES_MAX, count, bytesPending)) {
        this.ring.unpeekAhead()
        group.bytesFull = true
        break
      }
      const requests = this.requests
      run.commands[count] = requests.read(bytes) as Command & { seq: number; timeMs: number }
      run.requestIds[count] = requests.requestId
      run.commandStarts[count] = requests.commandStart
      run.bytes[count] = bytes
      hopTrace?.mark(requests.requestId, 'decoded')
      bytesPending += bytes.length
      count++
    }
    return count
  }

  /**
   * A replica (issue 34): applies the primary's records as they are, up to a full group. Each
   * command keeps the primary's seq and time, must be the next one, and must change the state as
   * it did there (it was recorded); its outcome has no request (id 0), and its record goes into
   * the local journal as the primary wrote it. Anything else stops the worker: a replica that
   * disagrees with its primary is not one.
   */
  private applyReplicated(): number {
    const group = this.group
    let applied = 0
    while (this.replicated.length > 0 && group.size < BATCH_COMMANDS_MAX) {
      const head = this.replicated[0]!
      while (head.next < head.commands.length && group.size < BATCH_COMMANDS_MAX) {
        const stampedBytes = head.commands[head.next++]!
        const command = decodeStampedCommand(stampedBytes)
        if (command.seq <= this.engine.seq) continue // journaled here before this node last stopped
        if (command.seq !== this.engine.seq + 1) {
          fatal(new Error(`stream record ${head.streamSeq} holds seq ${command.seq} where ${this.engine.seq + 1} `
            + 'comes next'))
        }
        const ok = this.engine.execute(command)
        if (!this.engine.changed) fatal(new Error(`the primary's command ${command.seq} changed nothing here`))
        this.batch.addStamped(stampedBytes)
        group.recorded++
        group.heads.push(0, this.engine.seq, command.timeMs, true, this.engine.log.length)
        this.stats.applied(command.kind, ok, this.engine.seq)
        applied++
      }
      if (head.next >= head.commands.length) this.replicated.shift()
    }
    return applied
  }

  /**
   * Hands the current group to the journal thread; the group then starts again, empty. A group
   * of unrecorded commands only goes too, with no record: its answers must not overtake those of
   * the group in hand, and they leave from the journal thread, in order.
   */
  private handOver(): void {
    const group = this.group
    const { firstSeq, recorded } = group
    const sync = this.options.durability === 'sync' && this.options.unsafeAckBeforeJournalMs === 0
    // durability=async (benchmarks only) posted its answers as it applied them; the unsafe test switch posts them now.
    if (!sync && this.options.durability === 'sync') postBatch(group.heads, 0, this.eventsOut())
    if (!sync && recorded === 0) {
      group.restart(this.engine.seq + 1)
      return this.onDurable(this.engine.seq)
    }
    const record = recorded > 0 ? this.batch.seal().buffer as ArrayBuffer : null
    const outcomes = sync ? encodeOutcomes(group.heads, 0, this.eventsOut()) : null
    const requestIds = sync && hopTrace !== null ? requestIdsOf(group.heads) : null
    if (hopTrace !== null) for (let i = 0; i < group.size; i++) hopTrace.mark(group.heads.requestId(i), 'handed')
    group.restart(this.engine.seq + 1)
    const message: ToJournal = { type: 'group', firstSeq, lastSeq: this.engine.seq, record,
      commands: recorded, outcomes, requestIds }
    const transfer: ArrayBuffer[] = []
    if (record !== null) transfer.push(record)
    if (outcomes !== null) transfer.push(outcomes)
    this.toJournal(message, transfer)
    this.handedOver++
    // The unsafe test switch: acknowledged already, so counted durable (the crash test shows the loss).
    if (this.options.unsafeAckBeforeJournalMs > 0) this.onDurable(this.engine.seq)
  }

  /**
   * The engine's event log, for the outcomes about to be encoded (exactly those applied since the
   * log was last cleared: their results and events), and whether anyone on the main thread reads events.
   */
  private eventsOut(): EventsOut {
    return { log: this.engine.log, wanted: this.eventsWanted }
  }

  /** Posts to the journal thread, then wakes it: the message is there before the signal moves. */
  private toJournal(message: ToJournal, transfer: ArrayBuffer[] = []): void {
    this.journalThread.thread.postMessage(message, transfer)
    Atomics.add(this.journalThread.signal, 0, 1)
    Atomics.notify(this.journalThread.signal, 0)
  }

  private onJournal(message: FromJournal): void {
    switch (message.type) {
      case 'durable':
        this.handedOver--
        this.onDurable(message.seq)
        this.onNextDurable?.()
        this.onNextDurable = null
        // The loop may sleep on the ring with a group that waited for this: wake it.
        this.ring.wakeConsumer()
        return
      case 'ready':
      case 'stopped':
        return
    }
  }

  private nextDurable(): Promise<void> {
    return new Promise((resolve) => {
      this.onNextDurable = resolve
    })
  }

  /** Every group is durable: the journal thread closes its journal, then this thread its own. */
  private async stopJournalThread(): Promise<void> {
    const stopped = new Promise<void>((resolve) => this.journalThread.thread.on('exit', () => resolve()))
    this.toJournal({ type: 'stop' })
    await stopped
    await this.journal.close()
  }

  private onDurable(seq: number): void {
    this.durableSeq = Math.max(this.durableSeq, seq)
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
        this.toJournal(message)
        return
      case 'promote':
        this.toJournal(message)
        return
      case 'replicate': {
        const commands = batchCommandsOf(new Uint8Array(message.record))
        if (commands === null) fatal(new Error(`stream record ${message.streamSeq} is damaged`))
        this.replicated.push({ commands, streamSeq: message.streamSeq, next: 0 })
        this.ring.wakeConsumer()
        return
      }
      case 'query': {
        const { query } = message
        const queryAnswer = answer(this.engine, query)
        // The journal thread adds its heap and the replica's, and answers.
        if (query.kind === 'memory' && queryAnswer.kind === 'memory') {
          return this.toJournal({ type: 'memory', queryId: message.queryId, collect: query.collect,
            threads: queryAnswer.threads })
        }
        // The answer reflects every command applied so far; release it once they are durable.
        const reply: FromWorker = { type: 'answer', queryId: message.queryId, answer: queryAnswer }
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

/**
 * Posted from here (durability `async`, the unsafe test switch): at once, before the journal has
 * them. A batch of outcomes crosses as one transferred buffer (outcome-codec.ts), not as cloned objects.
 */
function postBatch(heads: OutcomeHeads, from: number, events: EventsOut): void {
  if (hopTrace !== null) for (let i = from; i < heads.count; i++) hopTrace.mark(heads.requestId(i), 'posted')
  const bytes = encodeOutcomes(heads, from, events)
  parentPort!.postMessage({ type: 'batch', bytes } satisfies FromWorker, [bytes])
}

/** The engine's log and whether its events are wanted on the main thread. */
interface EventsOut {
  readonly log: EventLog
  readonly wanted: boolean
}

/** Encodes the outcomes from `from` on with their results and events, then starts the log's next batch. */
function encodeOutcomes(heads: OutcomeHeads, from: number, events: EventsOut): ArrayBuffer {
  const bytes = outcomeWriter.encode(heads, from, events.log, events.wanted)
  events.log.clear()
  return bytes
}

/** The group's request ids, for the hop trace's marks on the journal thread. */
function requestIdsOf(heads: OutcomeHeads): Float64Array {
  const ids = new Float64Array(heads.count)
  for (let i = 0; i < heads.count; i++) ids[i] = heads.requestId(i)
  return ids
}

function fatal(error: unknown): never {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  post({ type: 'fatal', message })
  // Fail-stop: end the thread with the error; the host stops the process.
  throw error instanceof Error ? error : new Error(message)
}

/** Starts the journal thread, with the main thread's end of the outcomes' channel; resolves once it is ready. */
async function startJournalThread(options: WorkerOptions, recoveredSeq: number): Promise<JournalThread> {
  const threadOptions: JournalThreadOptions = {
    stats: options.stats, dataDir: options.dataDir, durability: options.durability,
    journalRetention: options.journalRetention, unsafeAckBeforeJournalMs: options.unsafeAckBeforeJournalMs,
    failJournalAtBatch: options.failJournalAtBatch, hopTrace: options.hopTrace, toMain: options.toMain,
    snapshotEveryCommands: options.snapshotEveryCommands, hashSeed: options.hashSeed, recoveredSeq,
    snapshotReplicaAtStart: options.snapshotReplicaAtStart, replication: options.replication,
    promotable: options.promotable,
    signal: new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT),
  }
  const thread = startThread('journal-thread', import.meta.url,
    (url, flags) => new Worker(url, { workerData: threadOptions, transferList: [options.toMain], ...flags }))

  // The journal thread's failure is the worker's: fail-stop.
  thread.on('error', fatal)
  await new Promise<void>((resolve, reject) => {
    thread.once('message', (message: FromJournal) => message.type === 'ready' ? resolve() : reject(
      new Error(`the journal thread said ${message.type} before ready`)))
    thread.once('exit', (code) => reject(new Error(`the journal thread exited at its start (code ${code})`)))
  })
  thread.on('exit', (code) => {
    if (code !== 0) fatal(new Error(`the journal thread exited (code ${code})`))
  })
  return { thread, signal: new Int32Array(threadOptions.signal) }
}

async function main(): Promise<void> {
  const options = workerData as WorkerOptions
  const journal = Journal.open({ path: options.dataDir, durability: options.durability })
  // First, while no snapshot thread of this directory runs yet (it is started after recovery).
  journal.removeUnfinishedSnapshots()
  const recovery = recover(journal, options.hashSeed, () => performance.now(),
    journal.endedOrdersRetained(options.endedOrdersRetained))
  const engine = recovery.engine
  // Nobody on the main thread reads `balance` events (messages.ts, EVENTS_CROSSING): not written.
  engine.balanceEvents = EVENTS_CROSSING.balance
  const journalThread = await startJournalThread(options, engine.seq)
  post({
    type: 'ready', seq: engine.seq, snapshotSeq: recovery.snapshotSeq,
    snapshotsSkipped: recovery.snapshotsSkipped, replayed: recovery.replayed, recoveryMs: recovery.ms,
  })
  await new EngineWorker(options, journal, engine, journalThread).run()
}

main().catch(fatal)
