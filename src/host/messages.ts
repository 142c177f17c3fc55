/**
 * The messages between the front end (main thread), the engine worker, its journal thread and
 * the snapshot thread. Commands do not travel here: they go through the command ring. What comes
 * back is here: results and events, released only once the batch that holds them is durable.
 */
import type { ReplicationOptions } from '../replication/jetstream-log.js'
import type { EngineEvent } from '../engine/event.js'
import type { CommandResult } from '../engine/result.js'
import type { Durability } from '../journal/journal.js'
import type { MessagePort } from 'node:worker_threads'
import type { Query, QueryAnswer } from './query.js'
import type { ThreadMemory } from './thread-memory.js'

/**
 * What the journal keeps (docs/host.md, "Retention"): `all` every command since seq 1 (the
 * engine host's default: tests replay the whole journal); `snapshots` only the commands after the
 * older kept snapshot, once the read store has passed it (the server's default), so the journal
 * holds at most about SNAPSHOTS_KEPT + 1 snapshot intervals of commands whatever the history.
 */
export type JournalRetention = 'all' | 'snapshots'

export interface WorkerOptions {
  readonly ring: SharedArrayBuffer
  /** The worker's figures for /metrics (engine-stats.ts). */
  readonly stats: SharedArrayBuffer
  readonly dataDir: string
  readonly durability: Durability
  readonly snapshotEveryCommands: number
  readonly journalRetention: JournalRetention
  readonly hashSeed: number
  /** Ended order ids the engine remembers, for a new journal (null: ENDED_ORDERS_RETAINED); then the journal's. */
  readonly endedOrdersRetained: number | null
  /** Test only: acknowledge before journaling, and journal this many ms later (crash-test control). */
  readonly unsafeAckBeforeJournalMs: number
  /** Test only: the journal write of this batch (1-based) fails, as a disk error would; 0 = never. */
  readonly failJournalAtBatch: number
  /** Benchmarks only: the hop trace's buffer (hop-trace.ts), or null. */
  readonly hopTrace: SharedArrayBuffer | null
  /** Start the snapshot replica with the journal thread (HostOptions.snapshotReplicaAtStart). */
  readonly snapshotReplicaAtStart: boolean
  /** The replicated command log (src/replication/jetstream-log.ts), or null: the local journal alone. */
  readonly replication: ReplicationOptions | null
  /** A standby's: the journal thread may be told to write to the replicated log later (ToJournal `promote`). */
  readonly promotable: boolean
  /**
   * The main thread's end of the durable outcomes' channel: the worker hands it to its journal
   * thread, which posts each batch there once it is committed (FromWorker `batch`, `stopped`).
   */
  readonly toMain: MessagePort
}

/** The journal thread's options: the worker's, less what only the engine needs, and where recovery ended. */
export type JournalThreadOptions = Pick<WorkerOptions, 'stats' | 'dataDir' | 'durability' | 'journalRetention' |
  'unsafeAckBeforeJournalMs' | 'failJournalAtBatch' | 'hopTrace' | 'toMain' | 'snapshotEveryCommands' | 'hashSeed' |
  'snapshotReplicaAtStart' | 'replication' | 'promotable'>
  & {
    readonly recoveredSeq: number
    /** One Int32 the worker bumps (and notifies) after each message it posts to the journal thread. */
    readonly signal: SharedArrayBuffer
  }

/** The snapshot thread's (snapshot-thread.ts): the journal, its replica's layout seed, where to start. */
export type SnapshotThreadOptions = Pick<JournalThreadOptions, 'dataDir' | 'hashSeed' | 'recoveredSeq' | 'stats'>

/** Journal thread -> snapshot thread. */
export type ToSnapshotThread =
  /** The journal is durable up to `seq`: the replica may follow. */
  | { readonly type: 'durable'; readonly seq: number }
  /** Durable up to `seq` too, and a snapshot is due there: apply exactly up to it and make it. */
  | { readonly type: 'snapshot'; readonly seq: number }
  /** Its heap, for a memory query (thread-memory.ts), after a full collection if `collect`. */
  | { readonly type: 'memory'; readonly collect: boolean }
  /** Make the snapshots asked for, then close the journal and exit. */
  | { readonly type: 'stop' }

/** Snapshot thread -> journal thread: a snapshot to write, or its heap. */
export type FromSnapshotThread =
  /** A snapshot at `seq` is made and durable (its file written: snapshot-files.ts). */
  | { readonly type: 'snapshot'; readonly seq: number; readonly sizeBytes: number }
  | { readonly type: 'memory'; readonly memory: ThreadMemory }

/**
 * A group handed from the engine worker to its journal thread: applied, not yet durable. The
 * journal thread commits its record (if any), then posts its outcomes (if not posted already:
 * durability `async`) to the main thread, then tells the worker it is durable.
 */
export interface JournalGroup {
  readonly type: 'group'
  readonly firstSeq: number
  /** The last recorded seq of the group (everything up to it is durable once the group is). */
  readonly lastSeq: number
  /** Its batch record (batch-record.ts), transferred; null when none of its commands is recorded. */
  readonly record: ArrayBuffer | null
  /** Recorded commands in the record. */
  readonly commands: number
  /** Its outcomes (outcome-codec.ts), transferred; null when the worker posted them already. */
  readonly outcomes: ArrayBuffer | null
  /** With the hop trace only: the group's request ids, to mark them posted. */
  readonly requestIds: Float64Array | null
}

/** Engine worker -> journal thread. */
export type ToJournal =
  | JournalGroup
  /** The read store holds everything up to `seq` durably (journal retention). */
  | { readonly type: 'readDurable'; readonly seq: number }
  /**
   * A memory query the worker answered for its own heap (`threads`): this thread adds its own and
   * the snapshot replica's and answers the main thread (FromWorker `answer`, on the outcomes' channel).
   */
  | { readonly type: 'memory'; readonly queryId: number; readonly collect: boolean;
      readonly threads: readonly ThreadMemory[] }
  /**
   * A standby taking over (issue 34): from now on records become durable in the replicated log
   * (opened here, at the journal's end); the journal thread answers `promoted` to the main thread.
   */
  | { readonly type: 'promote'; readonly replication: ReplicationOptions }
  /** Nothing more comes: finish the retention, close the journal, say `stopped` to both, exit. */
  | { readonly type: 'stop' }

/** Journal thread -> engine worker. */
export type FromJournal =
  | { readonly type: 'ready' }
  /** A group handed over is durable (and its outcomes posted): everything up to `seq`. */
  | { readonly type: 'durable'; readonly seq: number }
  | { readonly type: 'stopped' }

/**
 * One command's outcome as the worker holds it: its result and events are in the engine's event
 * log, up to word `end` of the log's current batch (engine/event-log.ts).
 */
export interface AppliedOutcome {
  readonly requestId: number
  readonly seq: number
  readonly timeMs: number
  readonly recorded: boolean
  readonly end: number
}

/**
 * One command's outcome: its request, its seq, its result and its events: only the kinds that
 * cross (EVENTS_CROSSING), and none while nobody subscribes to events. Outcomes cross between
 * threads in batches, in a binary form (outcome-codec.ts): structured clone of these objects cost
 * the host more per command than applying it.
 */
export interface Outcome {
  readonly requestId: number
  readonly seq: number
  /** The command's time as the host stamped it (journaled with it). */
  readonly timeMs: number
  /**
   * Whether the command was journaled. One that changed nothing (a refusal, a no-op) is not: its
   * `seq` is then the last recorded command's, and `timeMs` the time it was judged at (docs/host.md,
   * "Unrecorded commands").
   */
  readonly recorded: boolean
  readonly result: CommandResult
  readonly events: readonly EngineEvent[]
}

/**
 * Which event kinds the worker posts to the main thread: those someone there reads. Readers are
 * the read model (src/read/read-model.ts: markets, orders, trades, books, ledger, allowances),
 * the WebSocket channels (src/api/ws: orders, trades, book levels, market changes) and the gRPC
 * streams' feeds (src/service/*-feed.ts: the same, and `apiKey`, rare, whose revocation ends the
 * key's user streams), all fed by src/read/fanout.ts. Nobody there reads `balance` (one per
 * account and asset a command touches, the most numerous kind: balances are queried from the
 * engine) or `orderRejected` (the refusal is the command's result), so they stay on the worker.
 * The read model's catch-up replays the journal with an engine of its own and is not affected. A
 * new reader of a kind turns it on here; a new kind must be decided here.
 */
export const EVENTS_CROSSING: Readonly<Record<EngineEvent['type'], boolean>> = {
  orderAccepted: true,
  orderUpdate: true,
  trade: true,
  bookLevel: true,
  marketCreated: true,
  marketUpdated: true,
  ledger: true,
  allowance: true,
  balance: false,
  orderRejected: false,
  apiKey: true,
  // The key's user streams tell its market makers when a group triggers (issue 31).
  orderGroup: true,
  // The chain watcher reads its sync's result; nobody reads the event.
  chainSynced: false,
  // Settlement learns from it that a reversal is journaled (src/service/testnet/settlement.ts).
  tradeReversed: true,
}

/** The events of one command that cross to the main thread, in their order. */
export function crossingEvents(events: readonly EngineEvent[]): readonly EngineEvent[] {
  return events.filter((event) => EVENTS_CROSSING[event.type])
}

/** Whether events of this kind cross (the reader's filter on the main thread). */
export function crosses(type: EngineEvent['type']): boolean {
  return EVENTS_CROSSING[type]
}

export type FromWorker =
  | { readonly type: 'ready'; readonly seq: number; readonly snapshotSeq: number;
      readonly snapshotsSkipped: number; readonly replayed: number; readonly recoveryMs: number }
  /** Outcomes in sequence order, encoded by outcome-codec.ts; the buffer is transferred, not copied. */
  | { readonly type: 'batch'; readonly bytes: ArrayBuffer }
  | { readonly type: 'answer'; readonly queryId: number; readonly answer: QueryAnswer }
  | { readonly type: 'stopped'; readonly seq: number }
  /** `fenced`: the replicated log refused an append because another node writes now (deposed, not broken). */
  | { readonly type: 'fatal'; readonly message: string; readonly fenced?: boolean }
  /**
   * The journal thread writes to the replicated log from `seq` on (ToJournal `promote`); or, when
   * `refused` says why, it could not (the stream does not end at `seq`) and nothing changed.
   */
  | { readonly type: 'promoted'; readonly seq: number; readonly refused: string | null }
  /** The replicated log went unanswered (no quorum), or answers again. */
  | { readonly type: 'logStalled'; readonly stalled: boolean }

export type ToWorker =
  | { readonly type: 'query'; readonly queryId: number; readonly query: Query }
  /** Whether the front end wants events; without subscribers only results cross the thread. */
  | { readonly type: 'events'; readonly wanted: boolean }
  /** The read store has made everything up to `seq` durable: the journal may drop what is before it. */
  | { readonly type: 'readDurable'; readonly seq: number }
  /**
   * A replica (issue 34): a batch record of the primary's, from the replicated stream, to apply
   * and journal as it is (its commands' seq and time are the primary's). Transferred.
   */
  | { readonly type: 'replicate'; readonly record: ArrayBuffer; readonly streamSeq: number }
  /** A standby taking over: passed on to the journal thread (ToJournal `promote`). */
  | { readonly type: 'promote'; readonly replication: ReplicationOptions }
  | { readonly type: 'stop' }
