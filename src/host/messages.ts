/**
 * The messages between the front end (main thread) and the engine worker. Commands do not
 * travel here: they go through the command ring. What comes back is here: results and events,
 * released only once the batch that holds them is durable.
 */
import type { EngineEvent } from '../engine/event.js'
import type { CommandResult } from '../engine/result.js'
import type { Durability } from '../journal/journal.js'
import type { Query, QueryAnswer } from './query.js'

export interface WorkerOptions {
  readonly ring: SharedArrayBuffer
  readonly dataDir: string
  readonly durability: Durability
  readonly snapshotEveryCommands: number
  readonly hashSeed: number
  /** Test only: acknowledge before journaling, and journal this many ms later (crash-test control). */
  readonly unsafeAckBeforeJournalMs: number
  /** Test only: the journal write of this batch (1-based) fails, as a disk error would; 0 = never. */
  readonly failJournalAtBatch: number
}

/**
 * One command's outcome: its request, its seq, its result and its events (empty while nobody
 * subscribes to events: copying them between threads is the host's largest cost per command).
 */
export interface Outcome {
  readonly requestId: number
  readonly seq: number
  /** The command's time as the host stamped it (journaled with it). */
  readonly timeMs: number
  readonly result: CommandResult
  readonly events: readonly EngineEvent[]
}

export type FromWorker =
  | { readonly type: 'ready'; readonly seq: number; readonly snapshotSeq: number;
      readonly snapshotsSkipped: number; readonly replayed: number; readonly recoveryMs: number }
  | { readonly type: 'batch'; readonly outcomes: readonly Outcome[] }
  | { readonly type: 'answer'; readonly queryId: number; readonly answer: QueryAnswer }
  | { readonly type: 'stopped'; readonly seq: number }
  | { readonly type: 'fatal'; readonly message: string }

export type ToWorker =
  | { readonly type: 'query'; readonly queryId: number; readonly query: Query }
  /** Whether the front end wants events; without subscribers only results cross the thread. */
  | { readonly type: 'events'; readonly wanted: boolean }
  | { readonly type: 'stop' }
