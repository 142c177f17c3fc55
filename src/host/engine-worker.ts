/**
 * The engine worker: Predex's single writer, on its own thread. It recovers (snapshot + journal),
 * says it is ready, then loops: drain a batch of commands from the ring, stamp each with the
 * next sequence number and the time, apply it, journal the whole batch in one transaction, and
 * release the results and events only when that transaction is durable (durability `sync`; with
 * `async`, for benchmarks only, they are released as soon as the batch is applied). While a batch is being
 * flushed the next one is already applied (group commit without idling the engine); batches are
 * released in order. Any journal error or broken assertion stops the worker (fail-stop): it never
 * carries on in a state nobody can vouch for.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Engine } from '../engine/engine.js'
import { encodeSnapshot } from '../engine/snapshot.js'
import { Journal, SEAL_BYTES, sealInPlace } from '../journal/journal.js'
import { recover } from '../journal/recovery.js'
import { BATCH_COMMANDS_MAX, IN_FLIGHT_BATCHES_MAX, SNAPSHOTS_KEPT } from '../limits.js'
import { Ring } from '../ring/ring.js'
import { decodeRequest } from './request-codec.js'
import { stampEncodedCommand } from '../ring/command-codec.js'
import type { Command } from '../engine/command.js'
import type { EngineEvent } from '../engine/event.js'
import type { FromWorker, Outcome, ToWorker, WorkerOptions } from './messages.js'
import { answer } from './query.js'

const IDLE_WAIT_MS = 50
const NO_EVENTS: readonly EngineEvent[] = Object.freeze([])

class EngineWorker {
  private readonly ring: Ring
  private stopping = false
  /** Resolves when every batch issued so far is durable. */
  private durableTail: Promise<void> = Promise.resolve()
  private inFlight = 0
  private commandsSinceSnapshot = 0
  private batches = 0
  private eventsWanted = false

  constructor(
    private readonly options: WorkerOptions,
    private readonly journal: Journal,
    private readonly engine: Engine,
  ) {
    this.ring = new Ring(options.ring)
  }

  async run(): Promise<void> {
    parentPort!.on('message', (message: ToWorker) => this.onMessage(message))
    while (!this.stopping || this.ring.usedBytes > 0) {
      const outcomes: Outcome[] = []
      const payloads: Buffer[] = []
      const firstSeq = this.engine.seq + 1
      this.applyBatch(outcomes, payloads)
      if (outcomes.length === 0) {
        await this.ring.waitAsync(IDLE_WAIT_MS)
        continue
      }
      this.journalBatch(firstSeq, payloads, outcomes)
      // Let journal completions and queries run; bound what is applied but not yet durable.
      await nextTurn()
      while (this.inFlight >= IN_FLIGHT_BATCHES_MAX) await this.durableTail
    }
    await this.durableTail
    await this.journal.close()
    post({ type: 'stopped', seq: this.engine.seq })
  }

  /** Drains up to a batch of commands from the ring and applies them. */
  private applyBatch(outcomes: Outcome[], records: Buffer[]): void {
    while (outcomes.length < BATCH_COMMANDS_MAX) {
      const bytes = this.ring.peek()
      if (bytes === null) return
      const { requestId, command, commandBytes } = decodeRequest(bytes)
      const stamped = command as Command & { seq: number; timeMs: number }
      stamped.seq = this.engine.seq + 1
      stamped.timeMs = Math.max(Date.now(), this.engine.timeMs)
      records.push(sealInPlace(stampEncodedCommand(stamped.seq, stamped.timeMs, commandBytes, SEAL_BYTES)))
      this.ring.advance()
      const { result, events } = this.engine.apply(stamped)
      outcomes.push({ requestId, seq: stamped.seq, result, events: this.eventsWanted ? events : NO_EVENTS })
    }
  }

  private journalBatch(firstSeq: number, payloads: Buffer[], outcomes: Outcome[]): void {
    this.commandsSinceSnapshot += payloads.length
    let snapshot: { seq: number; bytes: Uint8Array } | null = null
    if (this.commandsSinceSnapshot >= this.options.snapshotEveryCommands) {
      snapshot = { seq: this.engine.seq, bytes: encodeSnapshot(this.engine) }
      this.commandsSinceSnapshot = 0
    }
    const delayMs = this.options.unsafeAckBeforeJournalMs
    if (delayMs > 0) {
      // Test only: the acknowledgement goes out before the journal write even starts.
      post({ type: 'batch', outcomes })
      setTimeout(() => void this.journal.append(firstSeq, payloads, snapshot).catch(fatal), delayMs)
      return
    }
    this.batches++
    const durable = this.batches === this.options.failJournalAtBatch
      ? Promise.reject(new Error('injected journal write failure (test)'))
      : this.journal.append(firstSeq, payloads, snapshot)
    if (snapshot !== null) void durable.then(() => this.journal.pruneSnapshots(SNAPSHOTS_KEPT)).catch(fatal)
    this.inFlight++
    // durability=async (benchmarks only): release now, without waiting for the disk.
    const releaseNow = this.options.durability === 'async'
    if (releaseNow) post({ type: 'batch', outcomes })
    const previous = this.durableTail
    this.durableTail = Promise.all([previous, durable]).then(() => {
      this.inFlight--
      if (!releaseNow) post({ type: 'batch', outcomes })
    })
    this.durableTail.catch(fatal)
  }

  private onMessage(message: ToWorker): void {
    if (message.type === 'stop') {
      this.stopping = true
      return
    }
    if (message.type === 'events') {
      this.eventsWanted = message.wanted
      return
    }
    // The answer reflects every command applied so far; release it once they are all durable.
    const reply: FromWorker = { type: 'answer', queryId: message.queryId, answer: answer(this.engine, message.query) }
    void this.durableTail.then(() => post(reply))
  }
}

function post(message: FromWorker): void {
  parentPort!.postMessage(message)
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
  const recovery = recover(journal, options.hashSeed, () => performance.now())
  const engine = recovery.engine
  post({
    type: 'ready', seq: engine.seq, snapshotSeq: recovery.snapshotSeq,
    snapshotsSkipped: recovery.snapshotsSkipped, replayed: recovery.replayed, recoveryMs: recovery.ms,
  })
  await new EngineWorker(options, journal, engine).run()
}

main().catch(fatal)
