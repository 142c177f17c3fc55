/**
 * A read replica's feed (issue 34, point 3): it follows the primary's command stream and hands
 * each batch record to its own engine host (EngineHost.replicate), which applies and journals it
 * as the primary did, so the replica's read model, WebSocket channels and gRPC streams see the
 * same events in the same order. It starts after what the replica's journal already holds (a
 * restart does not apply anything twice), keeps at most REPLICA_RECORDS_IN_FLIGHT_MAX records
 * handed over and not yet applied, and says how far behind it is (GET /health, /metrics).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamManager }
  from '@nats-io/jetstream'
import type { EngineHost } from '../host/engine-host.js'
import { NATS_CONNECT_TIMEOUT_MS, REPLICA_RECORDS_IN_FLIGHT_MAX, REPLICA_STALL_MS, REPLICA_WATCHDOG_MS }
  from '../limits.js'
import type { Log } from '../log.js'
import { LAST_SEQ_HEADER } from './stream-names.js'
import { streamEnd, type StreamEnd } from './jetstream-log.js'

export interface ReplicaFeedOptions {
  readonly servers: readonly string[]
  readonly stream: string
  /** Where the primary answers (named when a write is refused), when known. */
  readonly primary: string | null
  readonly role?: 'replica' | 'standby'
}

export interface ReplicaLag {
  /** The newest engine seq the replica has heard of, minus the one it has applied. */
  readonly seqsBehind: number
  /** Records the stream held beyond the newest one received, when it was received. */
  readonly recordsPending: number
  /** How old the primary's newest applied command is, when the replica is behind; 0 when level. */
  readonly msBehind: number
  /** The last engine seq applied here. */
  readonly appliedSeq: number
}

export class ReplicaFeed {
  private appliedSeq: number
  private appliedTimeMs = 0
  private heardSeq: number
  private recordsPending = 0
  /** The last seq of each record handed to the engine and not yet applied, oldest first. */
  private readonly handed: number[] = []
  private wake: (() => void) | null = null
  private messages: ConsumerMessages | null = null
  private stopped = false
  /** When the consumer last delivered a record (or was made). */
  private heardMs = Date.now()
  private watchdog: NodeJS.Timeout | null = null
  private watching = false
  /** Held by a standby while it promotes: no record is handed over meanwhile. */
  private paused = false
  private done: Promise<void> = Promise.resolve()

  private constructor(
    private readonly host: EngineHost,
    private readonly connection: NatsConnection,
    private readonly manager: JetStreamManager,
    private readonly stream: string,
    private readonly log: Log,
    afterSeq: number,
  ) {
    this.appliedSeq = afterSeq
    this.heardSeq = afterSeq
    host.subscribe((outcomes) => {
      for (const outcome of outcomes) {
        if (outcome.requestId !== 0) continue
        this.appliedSeq = outcome.seq
        this.appliedTimeMs = outcome.timeMs
      }
      this.release()
    })
  }

  /** Makes `host` a replica of the stream (its writes refused, naming `primary`) and starts following. */
  static async start(host: EngineHost, options: ReplicaFeedOptions, log: Log, afterSeq = host.recovered.seq):
    Promise<ReplicaFeed> {
    const connection = await connect({ servers: [...options.servers], name: 'predex-replica',
      timeout: NATS_CONNECT_TIMEOUT_MS, maxReconnectAttempts: -1 })
    host.follow(options.primary, options.role ?? 'replica')
    const manager = await jetstreamManager(connection)
    const feed = new ReplicaFeed(host, connection, manager, options.stream, log, afterSeq)
    await feed.subscribe(afterSeq)
    feed.watchdog = setInterval(() => void feed.watch(), REPLICA_WATCHDOG_MS)
    return feed
  }

  /** A consumer of the stream from the first record after `afterSeq`, and the loop that hands its records over. */
  private async subscribe(afterSeq: number): Promise<void> {
    const start = await positionAfter(this.manager, this.stream, afterSeq)
    const consumer = await jetstream(this.connection).consumers.get(this.stream,
      { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start })
    const messages = await consumer.consume()
    this.messages = messages
    this.heardMs = Date.now()
    this.done = this.follow(messages)
    this.log.info('following the primary\'s command stream', { stream: this.stream, fromRecord: start, afterSeq })
  }

  /**
   * A consumer that hears nothing for REPLICA_STALL_MS while the stream holds newer records is
   * started again from the last record heard: seen after nats-servers died and came back (the
   * ordered consumer stayed silent, and a standby could then never catch up to take over).
   */
  private async watch(): Promise<void> {
    if (this.stopped || this.paused || this.watching || Date.now() - this.heardMs < REPLICA_STALL_MS) return
    this.watching = true
    try {
      const end = await this.end()
      if (end.lastSeq <= this.heardSeq || this.stopped) return
      this.log.warn('the replica\'s consumer of the stream is silent while the stream went on: starting it again',
        { heardSeq: this.heardSeq, streamEndsAtSeq: end.lastSeq })
      const stale = this.messages
      this.messages = null
      await stale?.close()
      await this.subscribe(this.heardSeq)
    } catch (error) {
      this.log.warn('the replica could not check its consumer; trying again', { error: String(error) })
    } finally {
      this.watching = false
    }
  }

  lag(): ReplicaLag {
    const seqsBehind = Math.max(0, this.heardSeq - this.appliedSeq)
    const behind = seqsBehind > 0 || this.recordsPending > 0
    return { seqsBehind, recordsPending: this.recordsPending, appliedSeq: this.appliedSeq,
      msBehind: behind && this.appliedTimeMs > 0 ? Math.max(0, Date.now() - this.appliedTimeMs) : 0 }
  }

  /** Where the stream ends now. */
  end(): Promise<StreamEnd> {
    return streamEnd(this.manager, this.stream)
  }

  /** Resolves once every command up to `seq` is applied here; rejects past `timeoutMs`. */
  async drainTo(seq: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (this.appliedSeq < seq) {
      if (Date.now() > deadline) {
        throw new Error(`the replica applied seq ${this.appliedSeq}, not ${seq}, in ${timeoutMs} ms`)
      }
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }

  /** Hands nothing more over until `resume` (records wait in the stream). */
  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
    this.release()
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.watchdog !== null) clearInterval(this.watchdog)
    this.release()
    await this.messages?.close()
    await this.connection.close()
    await this.done
  }

  private async follow(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const message of messages) {
        // A consumer started again (watch) replaces this one: its loop ends here.
        if (this.stopped || messages !== this.messages) break
        this.heardMs = Date.now()
        while ((this.paused || this.handed.length >= REPLICA_RECORDS_IN_FLIGHT_MAX) && !this.stopped) {
          await new Promise<void>((resolve) => { this.wake = resolve })
        }
        const lastSeq = Number(message.headers?.get(LAST_SEQ_HEADER))
        this.heardSeq = Math.max(this.heardSeq, lastSeq)
        this.recordsPending = message.info.pending
        if (lastSeq <= this.appliedSeq) continue
        this.handed.push(lastSeq)
        this.host.replicate(message.data, message.seq)
      }
    } catch (error) {
      if (!this.stopped && messages === this.messages) {
        this.log.error('the replica stopped following the stream', { error: String(error) })
      }
    }
  }

  /** Outcomes arrived: the records handed over whose last command is applied no longer count. */
  private release(): void {
    while (this.handed.length > 0 && this.handed[0]! <= this.appliedSeq) this.handed.shift()
    this.wake?.()
    this.wake = null
  }
}

/**
 * The stream position of the first record holding a command after `seq` (binary search over
 * the records' Predex-Last-Seq headers); one past the end when the stream holds nothing newer.
 */
export async function positionAfter(manager: JetStreamManager, stream: string, seq: number): Promise<number> {
  const info = await manager.streams.info(stream)
  let low = Math.max(1, info.state.first_seq)
  let high = info.state.last_seq + 1
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    const message = await manager.streams.getMessage(stream, { seq: middle })
    const lastSeq = Number(message?.header.get(LAST_SEQ_HEADER) ?? NaN)
    if (lastSeq > seq) high = middle
    else low = middle + 1
  }
  return low
}
