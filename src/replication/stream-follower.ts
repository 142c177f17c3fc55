/**
 * A reader of the replicated command log (issue 34): it applies the stream's batch records to an
 * engine, in order, checked (each record's checksum, its headers against the commands it holds,
 * every seq the next one), as recovery applies the local journal's. A standby and a read replica
 * follow the primary this way; a test compares the state it reaches with the primary's.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { DeliverPolicy, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager }
  from '@nats-io/jetstream'
import { decodeStampedCommand } from '../codec/command-codec.js'
import type { Engine } from '../engine/engine.js'
import { batchCommandsOf } from '../journal/batch-record.js'
import { NATS_CONNECT_TIMEOUT_MS } from '../limits.js'
import { streamEnd, type StreamEnd } from './jetstream-log.js'
import { FIRST_SEQ_HEADER, LAST_SEQ_HEADER } from './stream-names.js'

/** Records fetched from the stream per request. */
const FETCH_RECORDS_MAX = 256

export class StreamFollower {
  /** The stream position of the next record to read. */
  private nextStreamSeq = 1

  private constructor(
    private readonly connection: NatsConnection,
    private readonly manager: JetStreamManager,
    private readonly client: JetStreamClient,
    private readonly stream: string,
  ) {}

  static async open(servers: readonly string[], stream: string): Promise<StreamFollower> {
    const connection = await connect({ servers: [...servers], name: 'predex-follower',
      timeout: NATS_CONNECT_TIMEOUT_MS })
    return new StreamFollower(connection, await jetstreamManager(connection), jetstream(connection), stream)
  }

  /** Where the stream ends now. */
  end(): Promise<StreamEnd> {
    return streamEnd(this.manager, this.stream)
  }

  /**
   * Applies to `engine` every command of the stream after its seq, up to the stream's end as it
   * is when the call starts; returns the commands applied. Throws on a damaged or out-of-order
   * record: a follower never guesses.
   */
  async catchUp(engine: Engine): Promise<number> {
    const end = await this.end()
    let applied = 0
    while (this.nextStreamSeq <= end.streamSeq) {
      const consumer = await this.client.consumers.get(this.stream,
        { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.nextStreamSeq })
      const wanted = Math.min(FETCH_RECORDS_MAX, end.streamSeq - this.nextStreamSeq + 1)
      const messages = await consumer.fetch({ max_messages: wanted, expires: 5_000 })
      for await (const message of messages) {
        applied += applyRecord(engine, message.data, message.headers?.get(FIRST_SEQ_HEADER),
          message.headers?.get(LAST_SEQ_HEADER), message.seq)
        this.nextStreamSeq = message.seq + 1
      }
      await consumer.delete().catch(() => undefined)
    }
    return applied
  }

  async close(): Promise<void> {
    await this.connection.close()
  }
}

/** Applies one record's commands after the engine's seq; returns how many. */
function applyRecord(engine: Engine, record: Uint8Array, firstHeader: string | undefined,
  lastHeader: string | undefined, streamSeq: number): number {
  const commands = batchCommandsOf(record)
  if (commands === null) throw new Error(`record ${streamSeq} of the command stream is damaged`)
  const firstSeq = Number(firstHeader)
  const lastSeq = Number(lastHeader)
  let applied = 0
  for (const bytes of commands) {
    const command = decodeStampedCommand(bytes)
    if (command.seq < firstSeq || command.seq > lastSeq) {
      throw new Error(`record ${streamSeq} holds seq ${command.seq}, outside its headers' ${firstSeq}..${lastSeq}`)
    }
    if (command.seq <= engine.seq) continue
    if (command.seq !== engine.seq + 1) {
      throw new Error(`record ${streamSeq} holds seq ${command.seq} where ${engine.seq + 1} comes next`)
    }
    engine.applyForReplay(command)
    applied++
  }
  return applied
}
