/**
 * The command log seam (issue 34): where a group's batch record (batch-record.ts) becomes
 * durable before its acknowledgements leave. Two implementations: the local LMDB journal alone
 * (LocalCommandLog, here: `npm start`'s default, durable when its synchronous commit returns),
 * and the journal plus a replicated stream (src/replication/jetstream-log.ts: durable when the
 * local commit has returned and a JetStream quorum has acknowledged the record).
 *
 * `append` calls `durable` exactly once per record, in the order of the appends: the journal
 * thread posts a group's outcomes from it, so nothing is acknowledged before its log says so.
 * A log that fails (a write error, a fenced append) calls `durable` with the error: the host
 * stops (fail-stop), since what it has applied may then never become durable.
 */
import type { Journal } from './journal.js'

export type Durable = (error: Error | null) => void

export interface CommandLog {
  /**
   * True when `append` calls `durable` before it returns (the journal thread may then block
   * between messages); false when a record is durable later, on the event loop.
   */
  readonly synchronous: boolean
  append(firstSeq: number, lastSeq: number, record: Buffer, durable: Durable): void
  /** Waits for the appends in flight (each `durable` called), then lets go of what the log holds. */
  close(): Promise<void>
}

/** The local journal alone: a record is durable when its synchronous LMDB commit returns. */
export class LocalCommandLog implements CommandLog {
  readonly synchronous = true

  constructor(private readonly journal: Journal) {}

  append(firstSeq: number, _lastSeq: number, record: Buffer, durable: Durable): void {
    try {
      this.journal.appendSync(firstSeq, record)
    } catch (error) {
      durable(error instanceof Error ? error : new Error(String(error)))
      return
    }
    durable(null)
  }

  async close(): Promise<void> {}
}
