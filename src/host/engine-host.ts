/**
 * The front ends' handle on the engine: start it (recovery on its worker), submit commands and
 * get their results, subscribe to events, ask questions, stop. REST, gRPC and WebSocket use this
 * and never see the ring. Every bound is explicit: a full ring or too many pending requests is
 * an immediate ENGINE_BUSY; an engine that is not running answers ENGINE_UNAVAILABLE.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads'
import { randomInt } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import type { UnstampedCommand } from '../engine/command.js'
import type { OutcomeOf } from './engine-door.js'
import { ServiceCode, PredexError } from '../errors.js'
import type { Durability } from '../journal/journal.js'
import {
  COMMAND_BYTES_MAX,
  COMMAND_RING_BYTES,
  PENDING_QUERIES_MAX,
  PENDING_REQUESTS_MAX,
  SNAPSHOT_EVERY_COMMANDS,
} from '../limits.js'
import { Ring } from '../ring/ring.js'
import type { ReplicationOptions } from '../replication/jetstream-log.js'
import type { FromWorker, JournalRetention, Outcome, ToWorker, WorkerOptions } from './messages.js'
import type { Query, QueryAnswer } from './query.js'
import { encodeRequest } from '../codec/request-codec.js'
import { decodeOutcomes } from '../codec/outcome-codec.js'
import { allocateEngineStats, EngineStatsReader } from './engine-stats.js'
import { SILENT_LOG, type Log } from '../log.js'
import { startThread } from '../thread-start.js'
import { HopTrace } from './hop-trace.js'
import { SlotTable } from '../stdx/slot-table.js'

export interface HostOptions {
  readonly dataDir: string
  readonly durability?: Durability
  readonly snapshotEveryCommands?: number
  /** What the journal keeps (messages.ts JournalRetention): `all` unless told. */
  readonly journalRetention?: JournalRetention
  readonly ringBytes?: number
  /** Randomises the engine's order-index layout (no effect on state); random by default. */
  readonly hashSeed?: number
  /** Ended order ids the engine remembers, for a new data directory (Journal.endedOrdersRetained). */
  readonly endedOrdersRetained?: number | null
  /** Where the host says what it does (start, recovery, the async-durability warning). */
  readonly log?: Log
  /** Test only: acknowledge before journaling (the crash test shows it then loses commands). */
  readonly unsafeAckBeforeJournalMs?: number
  /** Test only: make the journal write of this batch fail (fail-stop test). */
  readonly failJournalAtBatch?: number
  /** Benchmarks only: mark when each request passes each hop (hop-trace.ts; `EngineHost.hopTrace`). */
  readonly hopTrace?: boolean
  /**
   * Start the snapshot replica with the host rather than when the journal first has commands for
   * it (journal-thread.ts): a server's choice (src/app.ts), so that the replica's start (its
   * thread, the compilation of its code, its recovery) comes before trading, not in the middle of
   * it; tests' hosts, most of which stop soon, leave it off and never pay for the thread.
   */
  readonly snapshotReplicaAtStart?: boolean
  /**
   * Replicate the command log to a JetStream stream (src/replication/jetstream-log.ts): a group is
   * acknowledged once the local journal has flushed it and a quorum of the stream holds it. Null
   * or absent: the local journal alone.
   */
  readonly replication?: ReplicationOptions | null
  /** A standby's: it may be promoted to write to the replicated log later (EngineHost.promote). */
  readonly promotable?: boolean
}

export interface Recovered {
  readonly seq: number
  readonly snapshotSeq: number
  readonly snapshotsSkipped: number
  readonly replayed: number
  readonly recoveryMs: number
}

type Listener = (outcomes: readonly Outcome[]) => void

interface Pending<T> {
  readonly resolve: (value: T) => void
  readonly reject: (error: Error) => void
}

export class EngineHost {
  /** Not Maps: a Map's churn left old tables holding requests in flight, which were promoted (slot-table.ts). */
  private readonly pending = new SlotTable<Pending<Outcome>>(PENDING_REQUESTS_MAX)
  private readonly queries = new SlotTable<Pending<QueryAnswer>>(PENDING_QUERIES_MAX)
  private readonly listeners = new Set<Listener>()
  private nextRequestId = 1
  private nextQueryId = 1
  private accepting = true
  private failure: PredexError | null = null
  private stopped: Promise<void> | null = null
  private resolveStopped: (() => void) | null = null
  private wakeScheduled = false

  /** The worker's `stopped` and its journal thread's (after the last batch): both end a stop. */
  private stoppedThreads = 0
  /**
   * Set on a read replica (issue 34, src/replication/replica-feed.ts): it applies the primary's
   * records and refuses writes, naming the primary when it knows where it answers.
   */
  private following: { readonly primary: string | null; readonly role: 'replica' | 'standby' } | null = null
  /** This node was the primary and lost its lease (depose): it takes nothing more. */
  private deposed = false
  /** The replicated command log has no quorum (it answers nothing): new writes are refused meanwhile. */
  private logStalled = false
  /** This primary could not renew its lease for the lease's life (issue 34): new writes are refused meanwhile. */
  private leaseUnconfirmed = false
  /** The promotion under way (promote), answered by the journal thread's `promoted`. */
  private promotion: Pending<number> | null = null

  private constructor(
    private readonly worker: Worker,
    /** Where the journal thread posts durable outcomes (durability `sync`) and its `stopped`. */
    private readonly outcomes: MessagePort,
    private readonly ring: Ring,
    readonly recovered: Recovered,
    readonly durability: Durability,
    /** The worker's figures (commands by kind, apply and commit times, batch sizes), for /metrics. */
    readonly stats: EngineStatsReader,
    /** When each request passed each hop, with `HostOptions.hopTrace` (null otherwise). */
    readonly hopTrace: HopTrace | null,
  ) {}

  /** The request id the next `submit` will take (to read its hops in `hopTrace`). */
  get nextRequest(): number {
    return this.nextRequestId
  }

  /** Starts the engine worker and resolves once recovery is done and commands are accepted. */
  static async start(options: HostOptions): Promise<EngineHost> {
    const log = options.log ?? SILENT_LOG
    const durability = options.durability ?? 'sync'
    if (durability === 'async') {
      log.warn('durability=async: results are released before the journal is flushed to disk. ' +
        'A crash can lose acknowledged commands. Use it for benchmarks only.')
    }
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 }) // the owner's alone (journal/data-dir.ts)
    const ringBuffer = Ring.allocate(options.ringBytes ?? COMMAND_RING_BYTES)
    const statsBuffer = allocateEngineStats()
    const hopTrace = options.hopTrace === true ? HopTrace.allocate() : null
    // Durable outcomes come from the worker's journal thread, on a channel of their own.
    const outcomes = new MessageChannel()
    const workerOptions: WorkerOptions = {
      ring: ringBuffer,
      stats: statsBuffer,
      dataDir: options.dataDir,
      durability,
      snapshotEveryCommands: options.snapshotEveryCommands ?? SNAPSHOT_EVERY_COMMANDS,
      journalRetention: options.journalRetention ?? 'all',
      hashSeed: options.hashSeed ?? randomInt(2 ** 31),
      endedOrdersRetained: options.endedOrdersRetained ?? null,
      unsafeAckBeforeJournalMs: options.unsafeAckBeforeJournalMs ?? 0,
      failJournalAtBatch: options.failJournalAtBatch ?? 0,
      hopTrace: hopTrace?.buffer ?? null,
      snapshotReplicaAtStart: options.snapshotReplicaAtStart ?? false, replication: options.replication ?? null,
      promotable: options.promotable ?? false,
      toMain: outcomes.port2,
    }
    const worker = startThread('engine-worker', import.meta.url,
      (url, flags) => new Worker(url, { workerData: workerOptions, transferList: [outcomes.port2], ...flags }))
    let ready: Extract<FromWorker, { type: 'ready' }>
    try {
      ready = await startup(worker)
    } catch (error) {
      // The worker's own error event follows its fatal message: absorb it, then end the thread.
      worker.on('error', () => undefined)
      await worker.terminate()
      outcomes.port1.close()
      throw error
    }
    const host = new EngineHost(worker, outcomes.port1, new Ring(ringBuffer), ready, durability,
      new EngineStatsReader(statsBuffer), hopTrace)
    host.listen()
    log.info('engine ready', { seq: ready.seq, snapshotSeq: ready.snapshotSeq, replayed: ready.replayed,
      recoveryMs: Math.round(ready.recoveryMs), durability })
    return host
  }

  /**
   * Submits a command; resolves with its outcome (seq, result, events) once it is durable.
   * Rejects at once with ENGINE_BUSY when the queue is full, ENGINE_UNAVAILABLE when the engine
   * is not running.
   */
  submit<C extends UnstampedCommand>(command: C): Promise<OutcomeOf<C['kind']>> {
    const refusal = this.writeRefusal()
    if (refusal !== null) return Promise.reject(refusal)
    // An id is taken only by a command that reaches the ring, so the ids waiting are consecutive
    // (outcomes come back in order) and a slot is still held only when PENDING_REQUESTS_MAX wait.
    const requestId = this.nextRequestId
    if (!this.pending.isFree(requestId)) return Promise.reject(busy('too many requests are pending'))
    const record = encodeRequest(requestId, command)
    if (record.length > COMMAND_BYTES_MAX) {
      return Promise.reject(
        new PredexError(ServiceCode.ENGINE_BUSY, 'the command is too large', { bytesMax: COMMAND_BYTES_MAX }))
    }
    if (!this.ring.tryWrite(record, false)) return Promise.reject(busy('the command queue is full'))
    this.nextRequestId++
    this.hopTrace?.mark(requestId, 'submitted')
    this.wakeEngineThisTurn()
    // The one narrowing on the path: the engine answers a command of kind K with ResultOf[K]
    // (engine-door.ts ties the two to the engine's functions).
    const outcome = new Promise<Outcome>((resolve, reject) => this.pending.set(requestId, { resolve, reject }))
    return outcome as Promise<OutcomeOf<C['kind']>>
  }

  /**
   * From now on this host follows a primary (issue 34): `replicate` feeds it, and `submit` refuses
   * writes, naming `primary` (its REST base URL, when known). Called again as the primary changes.
   */
  follow(primary: string | null, role: 'replica' | 'standby' = this.following?.role ?? 'replica'): void {
    this.following = { primary, role }
  }

  /** What this host is: the primary, a read replica, or a standby that takes over when the primary's lease lapses. */
  get role(): 'primary' | 'replica' | 'standby' | 'deposed' {
    if (this.deposed) return 'deposed'
    return this.following?.role ?? 'primary'
  }

  /**
   * A standby taking over (issue 34): its journal thread writes to the replicated log from now
   * on, opened at this host's seq (which must be the stream's end); then writes are accepted.
   * Call it once every record handed over is applied and durable (ReplicaFeed.drainTo).
   */
  promote(replication: ReplicationOptions): Promise<number> {
    const promoted = new Promise<number>((resolve, reject) => { this.promotion = { resolve, reject } })
    this.send({ type: 'promote', replication })
    return promoted.then((seq) => {
      this.following = null
      return seq
    })
  }

  /**
   * This node lost its lease (issue 34): it acknowledges nothing more, as after a journal failure,
   * and its worker ends at once, so that its journal thread stops offering its last record to the
   * stream, where the new primary now appends.
   */
  depose(reason: string, primary: string | null = null): void {
    const known = this.deposed ? this.failure?.context?.primary : undefined
    const error = new PredexError(ServiceCode.NOT_PRIMARY, `this node was the primary and was deposed (${reason}): `
      + 'send writes to the primary', { role: 'deposed', primary: primary ?? known ?? null, retryAfterSeconds: 1 })
    if (this.deposed) {
      // Told twice (its fenced append, then its lease renewal): the later may name the new primary.
      this.failure = error
      return
    }
    this.deposed = true
    // A failure already there (the worker ended as the append was refused) said less than this.
    if (this.failure !== null) this.failure = error
    else this.fail(`deposed: ${reason}`, error)
    void this.worker.terminate()
  }

  /**
   * Why a write would be refused before it is queued (failed or stopping, the replicated log
   * without a quorum, a replica or standby), or null: what a primary's readiness check asks.
   */
  writeRefusal(): PredexError | null {
    const unavailable = this.unavailable()
    if (unavailable !== null) return unavailable
    if (this.logStalled) return logUnavailable()
    if (this.leaseUnconfirmed) {
      return new PredexError(ServiceCode.COMMAND_LOG_UNAVAILABLE, 'this node could not renew the primary\'s lease '
        + '(NATS unreachable): another node may have taken over; writes are refused until it renews it',
      { retryAfterSeconds: 1 })
    }
    if (this.following === null) return null
    return new PredexError(ServiceCode.NOT_PRIMARY, 'this node is a read replica: it follows the primary and serves '
      + 'reads; send writes to the primary', { role: this.following.role, primary: this.following.primary,
      retryAfterSeconds: 1 })
  }

  /** The lease keeper's word on this primary's lease (LeaseKeeper's onConfirmed). */
  leaseConfirmed(confirmed: boolean): void {
    this.leaseUnconfirmed = !confirmed
  }

  /** Whether this host follows a primary (a read replica). */
  get isReplica(): boolean {
    return this.following !== null
  }

  /**
   * A replica's: hands the worker one of the primary's batch records (stream position
   * `streamSeq`) to apply and journal as it is. Its outcomes reach the listeners like any other
   * (no request waits for them). The caller bounds how many are in flight.
   */
  replicate(record: Uint8Array, streamSeq: number): void {
    const copy = new ArrayBuffer(record.byteLength)
    new Uint8Array(copy).set(record)
    this.worker.postMessage({ type: 'replicate', record: copy, streamSeq } satisfies ToWorker, [copy])
  }

  /**
   * Calls `listener` with each durable batch of outcomes, in sequence order, events included.
   * Events start flowing with the first subscriber (outcomes already on their way may lack them)
   * and stop when the last one leaves.
   */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    if (this.listeners.size === 1) this.send({ type: 'events', wanted: true })
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0) this.send({ type: 'events', wanted: false })
    }
  }

  /**
   * Resolves once the worker produces events for subscribers: every command submitted after that
   * carries its events. The worker reads its messages in order, so the answer to a question sent
   * after `subscribe`'s request proves that request was read. (A command already in the ring may
   * be applied before it: that is why a caller that must see every event awaits this first.)
   */
  async eventsFlowing(): Promise<void> {
    await this.query({ kind: 'status' })
  }

  /**
   * Tells the worker that the read store holds everything up to `seq` durably: with journal
   * retention `snapshots`, the commands it would need to catch up from may then go.
   */
  readDurable(seq: number): void {
    if (this.unavailable() === null) this.send({ type: 'readDurable', seq })
  }

  /** Asks the engine; answered once everything applied before the question is durable. */
  query(query: Query): Promise<QueryAnswer> {
    const unavailable = this.unavailable()
    if (unavailable !== null) return Promise.reject(unavailable)
    // The engine answers once what it applied is durable, which waits for the quorum: refused, not left hanging.
    if (this.logStalled) return Promise.reject(logUnavailable())
    const queryId = this.nextQueryId
    if (!this.queries.isFree(queryId)) return Promise.reject(busy('too many queries are pending'))
    this.nextQueryId++
    this.send({ type: 'query', queryId, query })
    return new Promise<QueryAnswer>((resolve, reject) => this.queries.set(queryId, { resolve, reject }))
  }

  /** Pending requests and the bytes queued in the ring (for /metrics and /health). */
  get load(): { pendingRequests: number; ringBytesUsed: number; ringBytes: number } {
    return { pendingRequests: this.pending.size, ringBytesUsed: this.ring.usedBytes, ringBytes: this.ring.capacity }
  }

  /** Stops accepting, lets the worker apply and journal what is queued, and waits for it. */
  stop(): Promise<void> {
    if (this.stopped !== null) return this.stopped
    this.accepting = false
    this.stopped = new Promise<void>((resolve) => {
      this.resolveStopped = resolve
    })
    if (this.failure !== null) {
      this.outcomes.close()
      void this.worker.terminate().then(() => this.resolveStopped?.())
    } else {
      this.send({ type: 'stop' })
    }
    return this.stopped
  }

  private listen(): void {
    this.worker.on('message', (message: FromWorker) => this.onMessage(message))
    this.outcomes.on('message', (message: FromWorker) => this.onMessage(message))
    this.worker.on('error', (error) => this.fail(`the engine worker failed: ${error.message}`))
    this.worker.on('exit', (code) => {
      // Its journal thread has ended with it: nothing more comes on the outcomes' channel.
      this.outcomes.close()
      if (this.accepting || this.pending.size > 0) this.fail(`the engine worker exited (code ${code})`)
      this.resolveStopped?.()
    })
  }

  private onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'batch': return this.onBatch(decodeOutcomes(message.bytes))
      case 'answer': {
        this.queries.take(message.queryId)?.resolve(message.answer)
        return
      }
      case 'fatal':
        if (message.fenced === true) return this.depose(message.message)
        return this.fail(`the engine stopped: ${message.message}`)
      case 'logStalled':
        this.logStalled = message.stalled
        return
      case 'promoted':
        if (message.refused === null) this.promotion?.resolve(message.seq)
        else this.promotion?.reject(new Error(`the promotion was refused: ${message.refused}`))
        this.promotion = null
        return
      case 'stopped':
        if (++this.stoppedThreads === 2) {
          this.outcomes.close()
          void this.worker.terminate()
        }
        return
      case 'ready': return
    }
  }

  private onBatch(outcomes: readonly Outcome[]): void {
    if (this.hopTrace !== null) for (const outcome of outcomes) this.hopTrace.mark(outcome.requestId, 'received')
    // Listeners (the read model) first: a client that gets its result and reads at once must
    // find its own write.
    for (const listener of this.listeners) listener(outcomes)
    for (const outcome of outcomes) {
      this.pending.take(outcome.requestId)?.resolve(outcome)
    }
  }

  /**
   * At most two wake-ups per event-loop turn, not one per command (issue 13, point 3): the turn's
   * first command wakes a sleeping engine at once, so that it applies while this thread goes on
   * with the turn (issue 29: the engine and the journal thread hand groups along, so a group
   * applied early is durable early); an engine that drained the ring and slept again during the
   * turn is woken once more when the turn's callbacks have run. Commands are in the ring at once
   * either way: an engine that is awake takes them as they come. A notify per command cost the
   * front end 82 µs each in the overload test's flood (62 % of writes found the engine asleep).
   * Waking at the turn's end only made the two threads take turns: a closed loop of 4 096 in
   * flight went 50 k -> 64 k durable commands/s with the first wake (interleaved A/B, 3 rounds).
   */
  private wakeEngineThisTurn(): void {
    if (this.wakeScheduled) return
    this.wakeScheduled = true
    this.ring.wakeConsumer()
    setImmediate(() => {
      this.wakeScheduled = false
      this.ring.wakeConsumer()
    })
  }

  /** Fail-stop: nothing more is accepted, and everyone waiting learns the engine is gone. */
  private fail(reason: string, failure = new PredexError(ServiceCode.ENGINE_UNAVAILABLE, reason)): void {
    if (this.failure !== null) return
    this.failure = failure
    this.accepting = false
    this.promotion?.reject(this.failure)
    this.promotion = null
    for (const waiting of [...this.pending.drain(), ...this.queries.drain()]) waiting.reject(this.failure)
  }

  /** Why the engine takes no commands (failed or stopping), or null while it does. */
  get unavailableReason(): string | null {
    return this.unavailable()?.message ?? null
  }

  private unavailable(): PredexError | null {
    if (this.failure !== null) return this.failure
    if (!this.accepting) return new PredexError(ServiceCode.ENGINE_UNAVAILABLE, 'the engine is stopping')
    return null
  }

  private send(message: ToWorker): void {
    this.worker.postMessage(message)
  }
}

/** While the replicated log has no quorum (issue 34): the read model's reads go on, the engine's wait. */
function logUnavailable(): PredexError {
  return new PredexError(ServiceCode.COMMAND_LOG_UNAVAILABLE, 'the replicated command log has no quorum (too few '
    + 'NATS servers answer): writes, and reads that need the engine, are refused until it has',
  { retryAfterSeconds: 1 })
}

/** Waits for the worker's `ready` (recovery done); its own listeners are removed afterwards. */
async function startup(worker: Worker): Promise<Extract<FromWorker, { type: 'ready' }>> {
  let onMessage: (message: FromWorker) => void = () => undefined
  let onError: (error: Error) => void = () => undefined
  let onExit: (code: number) => void = () => undefined
  try {
    return await new Promise((resolve, reject) => {
      onMessage = (message) => {
        if (message.type === 'ready') resolve(message)
        if (message.type === 'fatal') reject(new Error(message.message))
      }
      onError = reject
      onExit = (code) => reject(new Error(`the engine worker exited during recovery (code ${code})`))
      worker.on('message', onMessage)
      worker.on('error', onError)
      worker.on('exit', onExit)
    })
  } finally {
    // Only these: Worker keeps listeners of its own, which removeAllListeners would break.
    worker.off('message', onMessage)
    worker.off('error', onError)
    worker.off('exit', onExit)
  }
}

function busy(message: string): PredexError {
  return new PredexError(ServiceCode.ENGINE_BUSY, `${message}: retry shortly`)
}
