/**
 * A node that rejoins a replicated cluster as a standby or a replica (issue 34): its journal must
 * be a prefix of the command stream before it follows it. A deposed or killed primary's journal
 * may end with commands the stream does not hold (committed locally, their publish never
 * answered, so never acknowledged) while the stream went on with the new primary's commands at
 * the same sequence numbers. Those are dropped here, before the engine recovers: from the
 * journal's end down, each command is compared, byte for byte (its seq, time and command), with
 * the stream's command of the same seq, and the journal is cut after the last that agrees.
 * Following on divergent state would make a replica that silently disagrees with its primary.
 */
import { connect } from '@nats-io/transport-node'
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream'
import { Journal } from '../journal/journal.js'
import { batchCommandsOf } from '../journal/batch-record.js'
import { NATS_CONNECT_TIMEOUT_MS } from '../limits.js'
import type { Log } from '../log.js'
import { streamEnd } from './jetstream-log.js'
import { positionAfter } from './replica-feed.js'
import { FIRST_SEQ_HEADER } from './stream-names.js'

/** Cuts the journal of `dataDir` to its longest prefix the stream agrees with; returns the commands dropped. */
export async function levelWithStream(dataDir: string, options: { readonly servers: readonly string[];
  readonly stream: string }, log: Log): Promise<number> {
  const journal = Journal.open({ path: dataDir, durability: 'sync' })
  const connection = await connect({ servers: [...options.servers], name: 'predex-rejoin',
    timeout: NATS_CONNECT_TIMEOUT_MS }).catch(async (error: unknown) => {
    await journal.close()
    throw error
  })
  try {
    const localEnd = journal.lastSeq()
    if (localEnd === 0) return 0
    const manager = await jetstreamManager(connection)
    const end = await streamEnd(manager, options.stream)
    let seq = Math.min(localEnd, end.lastSeq)
    while (seq > 0 && !await agrees(journal, manager, options.stream, seq)) seq--
    if (seq === localEnd) return 0
    const dropped = journal.truncateAfter(seq)
    log.warn('rejoining: dropped the journal\'s commands the stream does not hold (never acknowledged)',
      { dropped, keptThroughSeq: seq, streamEndsAtSeq: end.lastSeq })
    return dropped
  } finally {
    await connection.close()
    await journal.close()
  }
}

/** Whether the journal's command `seq` is the stream's, byte for byte. */
async function agrees(journal: Journal, manager: JetStreamManager, stream: string, seq: number): Promise<boolean> {
  const local = journal.commandRecords(seq).next().value
  if (local === undefined || local.seq !== seq || local.payload === null) return false
  const message = await manager.streams.getMessage(stream, { seq: await positionAfter(manager, stream, seq - 1) })
  if (message === null) return false
  const commands = batchCommandsOf(message.data)
  const ours = commands?.[seq - Number(message.header.get(FIRST_SEQ_HEADER))]
  return ours !== undefined && Buffer.from(ours).equals(Buffer.from(local.payload))
}
