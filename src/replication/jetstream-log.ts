/**
 * The replicated command log (issue 34, point 1): each batch record is committed to the local
 * LMDB journal (synchronously, as without replication) and published to a JetStream stream
 * (file storage, `replicas` copies); it is durable, and its group's acknowledgements may leave,
 * only when both have happened: the local flush, and JetStream's acknowledgement, which it gives
 * once a quorum of the stream's replicas holds the message. (JetStream writes to disk lazily, so
 * a quorum in memory plus the local flush is the promise; docs/replication.md says what that
 * survives.)
 *
 * Fencing: record n + 1 is published with Nats-Expected-Last-Sequence n. Another writer's append
 * makes the stream refuse this one ("wrong last sequence"): this writer was deposed, so it stops
 * acknowledging (the error reaches `durable`; the host stops). A publish that times out is sent
 * again with the same message id (JetStream's duplicate window answers a record that did land
 * with its first acknowledgement; and where the expected sequence refuses the retry first, the
 * message found at that place is checked to be this writer's own), so a lost quorum holds
 * acknowledgements back without losing or doubling a record, and they leave when it is back.
 *
 * At start the stream must end where the local journal ends (its last message's Predex-Last-Seq
 * equal to the recovered seq), or be empty on an empty journal; otherwise the start is refused,
 * naming both: a node behind the stream, or ahead of it (a record committed locally whose publish
 * was never acknowledged), must be brought level first, which is a standby's catch-up.
 */
import { randomBytes } from 'node:crypto'
import { connect, headers, type NatsConnection } from '@nats-io/transport-node'
import { jetstream, jetstreamManager, JetStreamApiError, StorageType, RetentionPolicy, DiscardPolicy,
  type JetStreamClient, type JetStreamManager, type PubAck } from '@nats-io/jetstream'
import type { CommandLog, Durable } from '../journal/command-log.js'
import type { Journal } from '../journal/journal.js'
import { BATCH_RECORD_BYTES_MAX, NATS_CONNECT_TIMEOUT_MS, NATS_DUPLICATE_WINDOW_MS, NATS_PUBLISH_RETRY_MS,
  NATS_PUBLISH_TIMEOUT_MS, REPLICATED_APPENDS_IN_FLIGHT_MAX } from '../limits.js'
import { assert } from '../stdx/assert.js'
import { commandSubject, FIRST_SEQ_HEADER, LAST_SEQ_HEADER } from './stream-names.js'

export interface ReplicationOptions {
  /** NATS servers (`nats://host:port` or `host:port`), any of the cluster's. */
  readonly servers: readonly string[]
  readonly stream: string
  /** The stream's copies when this node creates it (1, 3 or 5); an existing stream keeps its own. */
  readonly replicas: number
}

/** A record (BATCH_RECORD_BYTES_MAX) and its headers: what the servers' max_payload must allow (1 MiB). */
const NATS_MESSAGE_BYTES_MIN = BATCH_RECORD_BYTES_MAX + 64 * 1024

/** JetStream's code for a failed Nats-Expected-Last-Sequence: another writer appended. */
const WRONG_LAST_SEQUENCE = 10071

export class FencedError extends Error {
  constructor(expectedLastSequence: number, detail: string) {
    super(`the command stream refused record ${expectedLastSequence + 1}: another writer appended to it `
      + `(${detail}); this node was deposed and acknowledges nothing more`)
    this.name = 'FencedError'
  }
}

interface InFlight {
  readonly durable: Durable
  settled: boolean
  error: Error | null
}

/** Where the stream ends: its last message's sequence and the engine seq it ends with. */
export interface StreamEnd {
  readonly streamSeq: number
  readonly lastSeq: number
}

export class JetStreamCommandLog implements CommandLog {
  readonly synchronous = false
  private readonly inFlight: InFlight[] = []
  /** This writer's own, in each record's message id: a record found in the stream is known as its own or not. */
  private readonly writerId = randomBytes(8).toString('hex')
  private drained: (() => void) | null = null
  /** A publish went unanswered and has not been answered since (no quorum, NATS unreachable). */
  private stalled = false
  /** Told when the log stalls and when it answers again (the host refuses new writes meanwhile). */
  onStall: (stalled: boolean) => void = () => undefined

  private constructor(
    private readonly journal: Journal,
    private readonly connection: NatsConnection,
    private readonly client: JetStreamClient,
    private readonly manager: JetStreamManager,
    private readonly stream: string,
    private readonly subject: string,
    /** The stream sequence of the last record this writer published. */
    private streamSeq: number,
  ) {}

  /**
   * Connects, creates the stream if it does not exist, and checks that it ends where the local
   * journal does (`recoveredSeq`); throws with the reason otherwise.
   */
  static async open(options: ReplicationOptions, journal: Journal, recoveredSeq: number): Promise<JetStreamCommandLog> {
    const connection = await connect({ servers: [...options.servers], name: 'predex-command-log',
      timeout: NATS_CONNECT_TIMEOUT_MS, maxReconnectAttempts: -1, reconnectTimeWait: NATS_PUBLISH_RETRY_MS })
    try {
      const maxPayloadBytes = connection.info?.max_payload ?? 0
      if (maxPayloadBytes < NATS_MESSAGE_BYTES_MIN) {
        throw new Error(`the NATS servers take messages of at most ${maxPayloadBytes} bytes (max_payload), and `
          + `a batch record needs up to ${NATS_MESSAGE_BYTES_MIN}: set max_payload to at least that in nats-server's `
          + 'configuration')
      }
      const manager = await jetstreamManager(connection)
      await ensureStream(manager, options)
      const end = await streamEnd(manager, options.stream)
      if (end.lastSeq !== recoveredSeq) {
        const where = end.lastSeq > recoveredSeq ? 'behind' : 'ahead of'
        throw new Error(`the command stream ${options.stream} ends at seq ${end.lastSeq} (message ${end.streamSeq}) `
          + `but this node's journal at seq ${recoveredSeq}: a node ${where} the stream cannot write to it `
          + '(start it from a data directory level with the stream)')
      }
      const client = jetstream(connection, { timeout: NATS_PUBLISH_TIMEOUT_MS })
      const subject = commandSubject(options.stream)
      return new JetStreamCommandLog(journal, connection, client, manager, options.stream, subject, end.streamSeq)
    } catch (error) {
      await connection.close()
      throw error
    }
  }

  append(firstSeq: number, lastSeq: number, record: Buffer, durable: Durable): void {
    assert(this.inFlight.length < REPLICATED_APPENDS_IN_FLIGHT_MAX,
      () => `at most ${REPLICATED_APPENDS_IN_FLIGHT_MAX} append in flight (REPLICATED_APPENDS_IN_FLIGHT_MAX)`)
    const entry: InFlight = { durable, settled: false, error: null }
    this.inFlight.push(entry)
    try {
      this.journal.appendSync(firstSeq, record)
    } catch (error) {
      return this.settle(entry, error instanceof Error ? error : new Error(String(error)))
    }
    const expected = this.streamSeq++
    this.publish(record, firstSeq, lastSeq, expected, entry)
  }

  async close(): Promise<void> {
    if (this.inFlight.length > 0) await new Promise<void>((resolve) => { this.drained = resolve })
    await this.connection.drain()
  }

  /** Publishes until JetStream answers: an acknowledgement, or a refusal (fenced); a timeout is tried again. */
  private publish(record: Buffer, firstSeq: number, lastSeq: number, expected: number, entry: InFlight): void {
    const meta = headers()
    meta.set(FIRST_SEQ_HEADER, String(firstSeq))
    meta.set(LAST_SEQ_HEADER, String(lastSeq))
    this.client.publish(this.subject, record, { headers: meta, msgID: this.messageId(firstSeq, lastSeq),
      expect: { lastSequence: expected } })
      .then((ack: PubAck) => {
        this.stall(false)
        this.settle(entry, ack.seq === expected + 1 ? null
          : new FencedError(expected, `its acknowledgement names message ${ack.seq}`))
      })
      .catch((error: unknown) => {
        if (error instanceof JetStreamApiError && error.code === WRONG_LAST_SEQUENCE) {
          return void this.ownOrFenced(firstSeq, lastSeq, expected, error.message)
            .then((fenced) => this.settle(entry, fenced))
        }
        // No answer (a timeout, no quorum, a reconnect): the same record again, the same id.
        this.stall(true)
        setTimeout(() => this.publish(record, firstSeq, lastSeq, expected, entry), NATS_PUBLISH_RETRY_MS)
      })
  }

  /**
   * The stream refused record `expected + 1` because its last message is no longer `expected`:
   * either this record landed already (an earlier try whose answer was lost: JetStream checks the
   * expected sequence before its duplicate window), which is a success, or another writer's did.
   */
  private async ownOrFenced(firstSeq: number, lastSeq: number, expected: number, detail: string):
    Promise<FencedError | null> {
    try {
      const landed = await this.manager.streams.getMessage(this.stream, { seq: expected + 1 })
      const ours = landed !== null && landed.header.get('Nats-Msg-Id') === this.messageId(firstSeq, lastSeq)
      if (ours) this.stall(false)
      return ours ? null : new FencedError(expected, detail)
    } catch (error) {
      return new FencedError(expected, `${detail}; and message ${expected + 1} could not be read: ${String(error)}`)
    }
  }

  private messageId(firstSeq: number, lastSeq: number): string {
    return `predex-${this.writerId}-${firstSeq}-${lastSeq}`
  }

  private stall(stalled: boolean): void {
    if (this.stalled === stalled) return
    this.stalled = stalled
    this.onStall(stalled)
  }

  /** Marks `entry` settled and calls every settled `durable` at the head, in the order of the appends. */
  private settle(entry: InFlight, error: Error | null): void {
    entry.settled = true
    entry.error = error
    while (this.inFlight.length > 0 && this.inFlight[0]!.settled) {
      const head = this.inFlight.shift()!
      head.durable(head.error)
    }
    if (this.inFlight.length === 0) this.drained?.()
  }
}

async function ensureStream(manager: JetStreamManager, options: ReplicationOptions): Promise<void> {
  try {
    await manager.streams.info(options.stream)
    return
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || error.status !== 404) throw error
  }
  await manager.streams.add({ name: options.stream, subjects: [commandSubject(options.stream)],
    storage: StorageType.File, num_replicas: options.replicas, retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.New, duplicate_window: NATS_DUPLICATE_WINDOW_MS * 1_000_000 })
}

/** The stream's last message and the engine seq it ends with (0 and 0 for an empty stream). */
export async function streamEnd(manager: JetStreamManager, stream: string): Promise<StreamEnd> {
  const info = await manager.streams.info(stream)
  const streamSeq = info.state.last_seq
  if (info.state.messages === 0) return { streamSeq, lastSeq: 0 }
  const last = await manager.streams.getMessage(stream, { seq: streamSeq })
  const lastSeq = Number(last?.header.get(LAST_SEQ_HEADER) ?? NaN)
  if (!Number.isSafeInteger(lastSeq)) throw new Error(`message ${streamSeq} of ${stream} has no ${LAST_SEQ_HEADER}`)
  return { streamSeq, lastSeq }
}
