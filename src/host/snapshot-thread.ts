/**
 * The snapshot thread: a replica of the engine that makes the snapshots, so that the engine
 * worker never stops for one (issue 29). Encoding the bench's state at seq 100 000 (5.5 MB) took
 * the worker 46-78 ms, during which nothing was applied: at 28 k commands/s durable progress
 * stopped for 100-200 ms at every snapshot, and that set the ack p99.
 *
 * The replica starts as the worker's recovery did (the newest snapshot, then the journal after
 * it, up to the same seq, although the journal may have grown since) and follows the journal:
 * the journal thread tells it how far the journal is durable, and it reads the batches from LMDB
 * itself and applies them (engine.applyForReplay: no events), in slices, so it holds no queue of
 * records whatever its lag, and answers `stop` between slices. When the journal thread asks for a
 * snapshot at seq S, it applies exactly up to S, encodes, writes the snapshot's file itself
 * (durably, beside the journal's LMDB, not in it: snapshot-files.ts), and says so.
 * The engine is deterministic, so the replica at S is the engine at S (the crash test checks
 * state hashes the same way: a replay reaches each restart's hash).
 *
 * It costs a replay of every command on another thread, at the lowest CPU priority (about 8 µs of
 * CPU a command here, against a stall of the single writer). Measured with an open loop of the
 * bench's stream, interleaved: at 28 k/s (5 runs each) the ack p99 went from 132-227 ms to
 * 42-106 ms and the p50 from 2.9-5.8 to 6.0-11.3 ms; at 14 k/s over a snapshot (2 runs each),
 * p99 74-154 -> 29-40 ms, p50 2.3-2.4 -> 2.9-3.3 ms. A host whose snapshots are off (snapshotEveryCommands at
 * Number.MAX_SAFE_INTEGER, the throughput benchmarks) does not start it.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { setPriority } from 'node:os'
import type { Engine } from '../engine/engine.js'
import { encodeSnapshot } from '../engine/snapshot.js'
import { Journal } from '../journal/journal.js'
import { recover } from '../journal/recovery.js'
import { assert } from '../stdx/assert.js'
import { REPLICA_SLICE_COMMANDS, SNAPSHOTS_WANTED_MAX } from '../limits.js'
import type { FromSnapshotThread, SnapshotThreadOptions, ToSnapshotThread } from './messages.js'
import { EngineStatsWriter } from './engine-stats.js'
import { ownThreadId } from '../thread-cpu.js'
import { threadMemory } from './thread-memory.js'

const NICE_LOWEST = 19

class SnapshotThread {
  /** The journal is durable up to here: the replica may apply up to it. */
  private durableSeq: number
  /** Snapshots asked for and not yet made, in increasing seq; at most SNAPSHOTS_WANTED_MAX. */
  private readonly wanted: number[] = []
  private scheduled = false
  private stopping = false

  constructor(private readonly journal: Journal, private readonly engine: Engine) {
    this.durableSeq = engine.seq
  }

  onMessage(message: ToSnapshotThread): void {
    switch (message.type) {
      case 'durable':
        this.durableSeq = Math.max(this.durableSeq, message.seq)
        break
      case 'snapshot':
        assert(message.seq > this.engine.seq && message.seq > (this.wanted.at(-1) ?? 0),
          'a snapshot is asked for at a seq the replica has not passed, in order')
        this.wanted.push(message.seq)
        // Bounded: a replica far behind makes the newest snapshots, the ones retention keeps.
        if (this.wanted.length > SNAPSHOTS_WANTED_MAX) this.wanted.shift()
        this.durableSeq = Math.max(this.durableSeq, message.seq)
        break
      case 'memory':
        // Between two slices, so the replica's garbage is collected like the other threads'.
        return this.reply({ type: 'memory', memory: threadMemory('snapshot', message.collect) })
      case 'stop':
        this.stopping = true
        break
    }
    this.schedule()
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.work()
    })
  }

  /** One slice: apply towards the target, make a snapshot that is due; come back if there is more. */
  private work(): void {
    if (this.stopping && this.wanted.length === 0) return void this.stop().catch(fatal)
    const target = Math.min(this.durableSeq, this.wanted[0] ?? Number.MAX_SAFE_INTEGER)
    let applied = 0
    if (this.engine.seq < target) {
      // A record at a time (one decode each); a slice that ends inside one decodes it again next time.
      slice: for (const commands of this.journal.batchesAfter(this.engine.seq)) {
        for (let i = 0; i < commands.length; i++) {
          this.engine.applyForReplay(commands[i]!)
          if (++applied === REPLICA_SLICE_COMMANDS || this.engine.seq === target) break slice
        }
      }
    }
    if (this.wanted[0] === this.engine.seq) this.snapshot(this.wanted.shift()!)
    if (this.engine.seq < target || this.wanted.length > 0 || this.stopping) this.schedule()
  }

  /**
   * Encodes the replica's state at `seq` and writes it, here: the file's write and flush hold no
   * lock the journal thread's group commits need (snapshot-files.ts), where an LMDB transaction of
   * megabytes on that thread stalled them.
   */
  private snapshot(seq: number): void {
    const bytes = encodeSnapshot(this.engine)
    this.journal.writeSnapshot(seq, bytes)
    this.reply({ type: 'snapshot', seq, sizeBytes: bytes.byteLength })
  }

  private reply(message: FromSnapshotThread): void {
    parentPort!.postMessage(message)
  }

  private async stop(): Promise<void> {
    await this.journal.close()
    parentPort!.close()
  }
}

function fatal(error: unknown): never {
  // The journal thread sees this thread's error and stops (fail-stop).
  throw error instanceof Error ? error : new Error(String(error))
}

/**
 * The replica runs at the lowest CPU priority (nice 19): it must keep up on average, never at
 * the moment the engine worker or the main thread want the core. Linux gives each thread its own
 * nice value, set through its thread id (/proc/thread-self names it); elsewhere it stays as is.
 */
function yieldTheCores(): void {
  try {
    const threadId = ownThreadId()
    if (threadId > 0) setPriority(threadId, NICE_LOWEST)
  } catch {
    // Not Linux, or not allowed: the replica competes as an equal, which is slower, not wrong.
  }
}

function main(): void {
  const options = workerData as SnapshotThreadOptions
  new EngineStatsWriter(options.stats).thread('snapshot', ownThreadId())
  yieldTheCores()
  // Opened as the other threads open it (not read-only), so that lmdb-js shares their environment:
  // a second environment on a live journal is what loses a transaction (docs/host.md). Its LMDB is
  // never written here: only the snapshot files beside it.
  const journal = Journal.open({ path: options.dataDir, durability: 'sync' })
  // Where the engine worker's recovery ended: groups committed since are followed like any other.
  const { engine } = recover(journal, options.hashSeed, () => performance.now(), journal.endedOrdersRetained(null),
    options.recoveredSeq)
  assert(engine.seq === options.recoveredSeq, 'the replica starts where the engine worker did')
  const thread = new SnapshotThread(journal, engine)
  parentPort!.on('message', (message: ToSnapshotThread) => thread.onMessage(message))
}

main()
