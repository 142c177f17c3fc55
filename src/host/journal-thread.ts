/**
 * The journal thread: the engine worker's second half (issue 29). The worker applies a group of
 * commands and hands it here (its batch record, its snapshot if one is due, its encoded
 * outcomes); this thread commits the record in one synchronous LMDB transaction (journal.ts:
 * data pages, fdatasync, meta page, sync), then posts the outcomes straight to the main thread,
 * then tells the worker the group is durable. Meanwhile the worker applies the next group: the
 * commit's disk wait no longer stops the engine, and an acknowledgement no longer passes through
 * the worker after its commit.
 *
 * Groups are handled one at a time, in the order handed over (a message handler that returns
 * only when its commit has), so outcomes reach the main thread in sequence order and nothing is
 * posted before every group before it is durable. With durability `async` (benchmarks only) the
 * worker has posted the outcomes already and this thread only writes.
 *
 * Where a record becomes durable is the command log's (src/journal/command-log.ts): the local
 * journal alone (the default; its commit is synchronous, and this thread blocks between groups),
 * or the journal and a replicated JetStream stream (issue 34; the stream's acknowledgement comes
 * on this thread's event loop, so the thread then takes its messages as events). Either way a
 * group's outcomes are posted only when its record is durable and every group before it has been.
 *
 * Any journal error stops this thread and with it the worker (fail-stop, as before): the main
 * thread learns it from the `fatal` message here, the worker from this thread's error. So does a
 * replicated append the stream refuses because another writer appended (fencing).
 */
import { parentPort, receiveMessageOnPort, Worker, workerData } from 'node:worker_threads'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { Journal } from '../journal/journal.js'
import { LocalCommandLog, type CommandLog } from '../journal/command-log.js'
import { FencedError, JetStreamCommandLog, type ReplicationOptions } from '../replication/jetstream-log.js'
import { REPLICA_FOLLOW_COMMANDS, SNAPSHOTS_KEPT } from '../limits.js'
import { startThread } from '../thread-start.js'
import type {
  FromJournal,
  FromSnapshotThread,
  FromWorker,
  JournalGroup,
  JournalThreadOptions,
  SnapshotThreadOptions,
  ToJournal,
  ToSnapshotThread,
} from './messages.js'
import { EngineStatsWriter } from './engine-stats.js'
import { HopTrace, type Hop } from './hop-trace.js'
import { ownThreadId } from '../thread-cpu.js'
import { threadMemory, type ThreadMemory } from './thread-memory.js'

/** How long the thread blocks waiting for the worker before it lets its event loop run. */
const IDLE_WAIT_MS = 20
/** Under load, the event loop still runs this often (the snapshot thread's messages, the retention). */
const EVENT_LOOP_EVERY_MS = 10

/** A group handed over, and whether its record (if any) is durable yet. */
interface WaitingGroup {
  readonly group: JournalGroup
  durable: boolean
}

class JournalThread {
  private groupsWritten = 0
  private stopping = false
  /** Recorded commands since the last snapshot asked for. */
  private commandsSinceSnapshot = 0
  /** Recorded commands since the replica was last told how far the journal is durable. */
  private commandsSinceFollow = 0
  /** The last seq of the last group handled. */
  private lastSeq = 0
  /** The retention work after the last snapshot (retain), awaited before the journal closes. */
  private retaining: Promise<void> = Promise.resolve()
  /** Everything up to this seq is in the read store durably (journal retention). */
  private readDurableSeq = 0
  private readonly stats: EngineStatsWriter
  private readonly hopTrace: HopTrace | null
  /**
   * The replica that makes the snapshots (snapshot-thread.ts), started when it is first needed:
   * a host that stops before (most tests' hosts) never pays for its thread and its recovery; or at
   * start, when the host is told so (HostOptions.snapshotReplicaAtStart: the server).
   */
  private snapshots: Worker | null = null
  /** Memory queries waiting for the replica's heap, answered in order (it answers in order). */
  private readonly memoryWaiting: ((memory: ThreadMemory | null) => void)[] = []

  /** Groups handed over, oldest first, until their outcomes are posted (release). */
  private readonly waiting: WaitingGroup[] = []

  constructor(
    private readonly options: JournalThreadOptions,
    private readonly journal: Journal,
    /** Where records become durable: the journal alone, or the journal and the replicated stream. */
    private log: CommandLog,
  ) {
    this.stats = new EngineStatsWriter(options.stats)
    this.stats.thread('journal', ownThreadId())
    this.hopTrace = options.hopTrace === null ? null : new HopTrace(options.hopTrace)
  }

  onMessage(message: ToJournal): void {
    switch (message.type) {
      case 'group': return this.onGroup(message)
      case 'readDurable':
        this.readDurableSeq = Math.max(this.readDurableSeq, message.seq)
        return
      case 'memory':
        return void this.answerMemory(message)
      case 'promote':
        return void this.promote(message.replication)
      case 'stop':
        this.stopping = true
        return
    }
  }

  /**
   * A standby takes over: the replicated log opens at the journal's end (every group handed over
   * is durable by now: the host promotes only once it has every outcome), and records become
   * durable there from the next group on. A stream that does not end there refuses it.
   */
  private async promote(replication: ReplicationOptions): Promise<void> {
    const seq = Math.max(this.lastSeq, this.options.recoveredSeq)
    try {
      this.log = stallsTold(await JetStreamCommandLog.open(replication, this.journal, seq), this.options)
    } catch (error) {
      // Not fatal: the stream moved on (the old primary's last record landed), and the standby goes
      // back to following it; its journal is as it was.
      const reason = error instanceof Error ? error.message : String(error)
      this.options.toMain.postMessage({ type: 'promoted', seq, refused: reason } satisfies FromWorker)
      return
    }
    this.options.toMain.postMessage({ type: 'promoted', seq, refused: null } satisfies FromWorker)
  }

  /**
   * Blocks in Atomics.wait for the worker's next message rather than in the event loop: woken
   * through its event loop (postMessage), a lone command's ack took about 0.1 ms longer at p50
   * here (0.79-0.89 against 0.71-0.78 ms), on the path of every acknowledgement at light load.
   * The worker bumps the signal after each message it posts (engine-worker.ts, toJournal); the
   * event loop still runs when the worker is quiet and every EVENT_LOOP_EVERY_MS under load, for
   * the snapshot thread's messages, the retention's writes and the test switch's timers.
   */
  async run(): Promise<void> {
    if (this.options.snapshotReplicaAtStart && this.snapshotsOn) this.replica()
    // A standby's log turns replicated at its promotion: its thread takes messages as events from the start.
    if (this.log.synchronous && !this.options.promotable) await this.runBlocking()
    else await this.runOnEvents()
    await this.stop()
  }

  private async runBlocking(): Promise<void> {
    const signal = new Int32Array(this.options.signal)
    let yielded = performance.now()
    while (!this.stopping) {
      const seen = Atomics.load(signal, 0)
      for (let received = receiveMessageOnPort(parentPort!); received !== undefined && !this.stopping;
        received = receiveMessageOnPort(parentPort!)) {
        this.onMessage(received.message as ToJournal)
      }
      if (this.stopping) break
      const woke = Atomics.wait(signal, 0, seen, IDLE_WAIT_MS)
      if (woke === 'timed-out' || performance.now() - yielded >= EVENT_LOOP_EVERY_MS) {
        await nextTurn()
        yielded = performance.now()
      }
    }
  }

  /**
   * With a log whose records become durable later (the replicated one: JetStream's answers come
   * on this thread's event loop), the thread never blocks: messages arrive as events.
   */
  private runOnEvents(): Promise<void> {
    return new Promise((resolve) => {
      parentPort!.on('message', (message: ToJournal) => {
        this.onMessage(message)
        if (this.stopping) resolve()
      })
    })
  }

  private onGroup(group: JournalGroup): void {
    this.mark(group, 'taken')
    const entry: WaitingGroup = { group, durable: false }
    this.waiting.push(entry)
    const record = group.record
    if (record === null) {
      entry.durable = true
    } else if (this.options.unsafeAckBeforeJournalMs > 0) {
      // Test only: the acknowledgements leave now; the write follows later, in order.
      entry.durable = true
      setTimeout(() => this.commit(group, record, () => {}), this.options.unsafeAckBeforeJournalMs)
    } else {
      this.commit(group, record, () => {
        entry.durable = true
        this.release()
      })
    }
    this.release()
  }

  /**
   * Posts the outcomes of the groups at the head of the queue whose records are durable, in the
   * order they came, and tells the worker: nothing is acknowledged before every group before it.
   */
  private release(): void {
    while (this.waiting.length > 0 && this.waiting[0]!.durable) {
      const { group } = this.waiting.shift()!
      if (group.outcomes !== null) {
        // Marked before the post: the main thread may read the mark as soon as the outcome arrives.
        this.mark(group, 'posted')
        this.options.toMain.postMessage({ type: 'batch', bytes: group.outcomes } satisfies FromWorker,
          [group.outcomes])
      }
      this.lastSeq = group.lastSeq
      toWorker({ type: 'durable', seq: group.lastSeq })
    }
  }

  /** Each of the group's requests passed `hop` (benchmarks' hop trace only). */
  private mark(group: JournalGroup, hop: Hop): void {
    if (this.hopTrace === null || group.requestIds === null) return
    for (const requestId of group.requestIds) this.hopTrace.mark(requestId, hop)
  }

  /**
   * Hands the record to the command log; `done` runs once it is durable (at once for the local
   * journal, whose commit is synchronous; after JetStream's answer for the replicated log).
   */
  private commit(group: JournalGroup, record: ArrayBuffer, done: () => void): void {
    const started = performance.now()
    if (++this.groupsWritten === this.options.failJournalAtBatch) {
      fatal(new Error('injected journal write failure (test)'))
    }
    this.log.append(group.firstSeq, group.lastSeq, Buffer.from(record), (error) => {
      if (error !== null) fatal(error)
      this.mark(group, 'committed')
      this.stats.committed({ commands: group.commands, sizeBytes: record.byteLength,
        seconds: (performance.now() - started) / 1000, seq: group.lastSeq })
      this.follow(group)
      done()
    })
  }

  /**
   * The replica follows the journal, told every REPLICA_FOLLOW_COMMANDS commands rather than
   * every group: a wake-up of its thread per group cost a lone command's ack about 0.15 ms at
   * p50 here, its thread competing for the cores at the moment the next command needed them.
   * Every SNAPSHOT_EVERY_COMMANDS, it makes a snapshot at the group's last seq.
   */
  private follow(group: JournalGroup): void {
    if (!this.snapshotsOn) return
    this.commandsSinceSnapshot += group.commands
    this.commandsSinceFollow += group.commands
    const due = this.commandsSinceSnapshot >= this.options.snapshotEveryCommands
    if (!due && this.commandsSinceFollow < REPLICA_FOLLOW_COMMANDS) return
    if (due) this.commandsSinceSnapshot = 0
    this.commandsSinceFollow = 0
    const message: ToSnapshotThread = { type: due ? 'snapshot' : 'durable', seq: group.lastSeq }
    this.replica().postMessage(message)
  }

  private get snapshotsOn(): boolean {
    return this.options.snapshotEveryCommands < Number.MAX_SAFE_INTEGER
  }

  /** The replica, started now if it is not running yet. */
  private replica(): Worker {
    this.snapshots ??= startSnapshotThread(this.options, (reply) => this.onReplica(reply))
    return this.snapshots
  }

  /** The worker's heap (in `query`), this thread's and the replica's if it runs, to the main thread. */
  private async answerMemory(query: Extract<ToJournal, { type: 'memory' }>): Promise<void> {
    const own = threadMemory('journal', query.collect)
    const replica = this.snapshots === null ? null : await new Promise<ThreadMemory | null>((resolve) => {
      this.memoryWaiting.push(resolve)
      this.snapshots!.postMessage({ type: 'memory', collect: query.collect } satisfies ToSnapshotThread)
    })
    const threads = [...query.threads, own, ...(replica === null ? [] : [replica])]
    this.options.toMain.postMessage({ type: 'answer', queryId: query.queryId,
      answer: { kind: 'memory', threads } } satisfies FromWorker)
  }

  onReplica(message: FromSnapshotThread): void {
    if (message.type === 'memory') return this.memoryWaiting.shift()?.(message.memory)
    this.onSnapshot(message)
  }

  /** A snapshot the replica made and wrote (its file is durable): the retention follows. */
  private onSnapshot(message: Extract<FromSnapshotThread, { type: 'snapshot' }>): void {
    this.stats.snapshotted(message.sizeBytes)
    // One after the other, and finished before the journal closes: a stop right after a
    // snapshot used to close the journal under a retention still pruning (a CI run caught it).
    this.retaining = this.retaining.then(() => this.retain())
    this.retaining.catch(fatal)
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

  /**
   * Every group handed over has been handled (they come before `stop`); with the unsafe test
   * switch, the delayed writes are let through first.
   */
  private async stop(): Promise<void> {
    if (this.options.unsafeAckBeforeJournalMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.options.unsafeAckBeforeJournalMs))
    }
    if (this.snapshots !== null) {
      // The snapshots it was asked for come first (their messages arrive before its exit).
      const exited = new Promise((resolve) => this.snapshots!.once('exit', resolve))
      this.snapshots.postMessage({ type: 'stop' } satisfies ToSnapshotThread)
      await exited
      // A question it did not answer before it exited is answered without its heap.
      for (const waiting of this.memoryWaiting.splice(0)) waiting(null)
    }
    await this.retaining
    await this.log.close()
    await this.journal.close()
    // To the main thread after the last batch: it must not take the worker's own `stopped`, which
    // may overtake this channel, as the sign that every outcome has arrived.
    this.options.toMain.postMessage({ type: 'stopped', seq: this.lastSeq } satisfies FromWorker)
    this.options.toMain.close()
    toWorker({ type: 'stopped' })
    parentPort!.close()
  }
}

/** The replicated log's stalls reach the main thread, which refuses new writes while one lasts. */
function stallsTold(log: JetStreamCommandLog, options: JournalThreadOptions): JetStreamCommandLog {
  log.onStall = (stalled) => options.toMain.postMessage({ type: 'logStalled', stalled } satisfies FromWorker)
  return log
}

function toWorker(message: FromJournal): void {
  parentPort!.postMessage(message)
}

function fatal(error: unknown): never {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  const options = workerData as JournalThreadOptions
  options.toMain.postMessage({ type: 'fatal', message, fenced: error instanceof FencedError } satisfies FromWorker)
  // Fail-stop: end the thread with the error; the worker ends with it, and the host stops the process.
  throw error instanceof Error ? error : new Error(message)
}

/** The replica that makes the snapshots; `onReply` gets each snapshot it makes and each heap it reports. */
function startSnapshotThread(options: JournalThreadOptions, onReply: (message: FromSnapshotThread) => void):
  Worker {
  const threadOptions: SnapshotThreadOptions = { dataDir: options.dataDir, hashSeed: options.hashSeed,
    recoveredSeq: options.recoveredSeq, stats: options.stats }
  const thread = startThread('snapshot-thread', import.meta.url,
    (url, flags) => new Worker(url, { workerData: threadOptions, ...flags }))
  thread.on('message', onReply)
  // Its failure is the journal's (fail-stop), as a failed write would be.
  thread.on('error', fatal)
  thread.on('exit', (code) => {
    if (code !== 0) fatal(new Error(`the snapshot thread exited (code ${code})`))
  })
  return thread
}

async function main(): Promise<void> {
  const options = workerData as JournalThreadOptions
  const journal = Journal.open({ path: options.dataDir, durability: options.durability })
  const log = options.replication === null ? new LocalCommandLog(journal)
    : stallsTold(await JetStreamCommandLog.open(options.replication, journal, options.recoveredSeq), options)
  const thread = new JournalThread(options, journal, log)
  toWorker({ type: 'ready' })
  return thread.run()
}

main().catch(fatal)
