/**
 * The replicated command log (issue 34, point 1) on a real nats-server with JetStream: an engine
 * host that acknowledges a command only once the stream holds its record; a follower that applies
 * the stream reaches the primary's seq and state hash; a restart goes on where the stream ends; a
 * node whose journal is not level with the stream is refused at start; and another writer's append
 * deposes this one (fencing): it acknowledges nothing more.
 */
import t from 'tap'
import { connect } from '@nats-io/transport-node'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { EngineHost } from '../../src/host/engine-host.js'
import { Engine } from '../../src/engine/engine.js'
import { stateHashOf } from '../../src/engine/snapshot.js'
import { StreamFollower } from '../../src/replication/stream-follower.js'
import { commandSubject } from '../../src/replication/stream-names.js'
import { JetStreamCommandLog, type ReplicationOptions } from '../../src/replication/jetstream-log.js'
import { Journal } from '../../src/journal/journal.js'
import { BatchRecordWriter } from '../../src/journal/batch-record.js'
import { encodeStampedCommand } from '../../src/codec/command-codec.js'
import { AssertionError } from '../../src/stdx/assert.js'
import type { UnstampedCommand } from '../../src/engine/command.js'
import { TEXT_LENGTH_MAX } from '../../src/engine/limits.js'
import { newMarketIds } from '../../src/service/market-data/market-ids.js'
import { commandOf } from '../crash/load.js'
import { startNats } from '../support/nats.js'
import { stateOf, tempDataDir } from '../support/host-state.js'

const SEED = 11

const nats = await startNats(t)

function replication(stream: string): ReplicationOptions {
  return { servers: [nats.url], stream, replicas: 1 }
}

/** Commands `from`..`to` - 1 of the crash test's stream, `together` at a time (so records hold several). */
async function submitRange(host: EngineHost, from: number, to: number, together: number): Promise<number> {
  let lastSeq = 0
  for (let index = from; index < to; index += together) {
    const count = Math.min(together, to - index)
    const outcomes = await Promise.all(Array.from({ length: count }, (_, i) => host.submit(commandOf(SEED, index + i))))
    lastSeq = Math.max(lastSeq, ...outcomes.map((outcome) => outcome.seq))
  }
  return lastSeq
}

t.test('every acknowledged command is in the stream, and a follower reaches the same state', async (t) => {
  const dir = tempDataDir(t)
  const host = await EngineHost.start({ dataDir: dir, hashSeed: 1, replication: replication('ONE') })
  const follower = await StreamFollower.open([nats.url], 'ONE')
  t.teardown(() => follower.close())
  // One at a time: each acknowledgement is checked against the stream's end at that moment.
  for (let index = 0; index < 60; index++) {
    const outcome = await host.submit(commandOf(SEED, index))
    const end = await follower.end()
    if (end.lastSeq < outcome.seq) t.fail(`command ${index} acknowledged at seq ${outcome.seq}, the stream at ${end.lastSeq}`)
  }
  t.pass('60 commands, each in the stream when acknowledged')
  await submitRange(host, 60, 400, 20)
  const primary = await stateOf(host)
  const engine = new Engine({ hashSeed: 99 })
  const applied = await follower.catchUp(engine)
  t.equal(applied, primary.seq, `the follower applied all ${applied} journaled commands (refused ones take no seq)`)
  t.equal(engine.seq, primary.seq, 'at the primary\'s seq')
  t.equal(stateHashOf(engine), primary.stateHash, 'with the primary\'s state hash')

  // A restart: the journal ends where the stream does, and the log goes on from there.
  await host.stop()
  const again = await EngineHost.start({ dataDir: dir, hashSeed: 2, replication: replication('ONE') })
  await submitRange(again, 400, 500, 10)
  const after = await stateOf(again)
  await follower.catchUp(engine)
  t.equal(engine.seq, after.seq, 'after a restart the follower follows on')
  t.equal(stateHashOf(engine), after.stateHash)
  await again.stop()

  // A node whose journal is not level with the stream may not write to it.
  await t.rejects(EngineHost.start({ dataDir: tempDataDir(t), hashSeed: 3, replication: replication('ONE') }),
    new RegExp(`the command stream ONE ends at seq ${after.seq} .* but this node's journal at seq 0`),
    'a new data directory against a stream with history is refused, both ends named')
})

t.test('another writer\'s append deposes this one: it acknowledges nothing more', async (t) => {
  const host = await EngineHost.start({ dataDir: tempDataDir(t), hashSeed: 4, replication: replication('FENCE') })
  const credit = (n: number): UnstampedCommand =>
    ({ kind: 'credit', address: '0x' + n.toString(16).padStart(40, '0'), usdcMicros: 1, gasMicros: 0 })
  for (const n of [1, 2, 3]) t.ok((await host.submit(credit(n))).result.ok, `credit ${n} acknowledged`)
  // The other writer: a node that took over (its own record, appended after ours).
  const connection = await connect({ servers: [nats.url] })
  await jetstream(connection).publish(commandSubject('FENCE'), new Uint8Array([1, 2, 3]))
  await connection.close()
  await t.rejects(host.submit(credit(4)), { code: 'NOT_PRIMARY', context: { role: 'deposed' } },
    'the next command is not acknowledged: this node was deposed')
  await t.rejects(host.submit(credit(5)), { code: 'NOT_PRIMARY' }, 'nor any after it')
  t.equal(host.role, 'deposed', 'and it says so')
  const follower = await StreamFollower.open([nats.url], 'FENCE')
  const end = await follower.end()
  await follower.close()
  t.equal(end.streamSeq, 4, 'the stream holds our three records and the other writer\'s, not the refused one')
  await host.stop()
})

t.test('a group larger than a NATS message is acknowledged: records stay under the servers\' max_payload', async (t) => {
  const host = await EngineHost.start({ dataDir: tempDataDir(t), hashSeed: 5, replication: replication('BIG') })
  t.teardown(() => host.stop())
  // Markets with the longest texts the engine keeps, in 3-byte characters: some 25 KB a command,
  // 200 of them submitted at once, so that a group of the old bound (commands only) held megabytes.
  const text = '€'.repeat(TEXT_LENGTH_MAX)
  const market = (i: number): UnstampedCommand => ({ kind: 'createMarket', market: { ...newMarketIds(),
    question: text, slug: `big-${i}`, description: text, tickSizeMicros: 10_000, minOrderSizeMicros: 5_000_000,
    feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active' } })
  const acknowledged = Promise.all(Array.from({ length: 200 }, (_, i) => host.submit(market(i))))
  const outcomes = await Promise.race([acknowledged,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000))])
  t.ok(outcomes !== null && outcomes.every((outcome) => outcome.result.ok), 'all 200 acknowledged within 20 s')
  const connection = await connect({ servers: [nats.url] })
  const maxPayloadBytes = connection.info!.max_payload
  const manager = await jetstreamManager(connection)
  const sizes: number[] = []
  const info = await manager.streams.info('BIG')
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    sizes.push((await manager.streams.getMessage('BIG', { seq }))?.data.length ?? 0)
  }
  await connection.close()
  t.ok(sizes.length > 1 && Math.max(...sizes) <= maxPayloadBytes, `${sizes.length} records, the largest ` +
    `${Math.max(...sizes)} bytes (the servers' max_payload: ${maxPayloadBytes})`)
  const follower = await StreamFollower.open([nats.url], 'BIG')
  const engine = new Engine({ hashSeed: 6 })
  await follower.catchUp(engine)
  await follower.close()
  const state = await stateOf(host)
  t.same({ seq: engine.seq, hash: stateHashOf(engine) }, { seq: state.seq, hash: state.stateHash },
    'a follower replays them to the host\'s seq and state hash')
})

t.test('a start against NATS servers that take messages smaller than a record is refused, saying so', async (t) => {
  const small = await startNats(t, ['max_payload: 65536'])
  await t.rejects(EngineHost.start({ dataDir: tempDataDir(t), hashSeed: 7,
    replication: { servers: [small.url], stream: 'SMALL', replicas: 1 } }),
  /take messages of at most 65536 bytes \(max_payload\).*set max_payload to at least/s)
})

t.test('a second append while the first waits for JetStream is refused: one group in flight at most', async (t) => {
  const dir = tempDataDir(t)
  const journal = Journal.open({ path: dir, durability: 'sync' })
  const log = await JetStreamCommandLog.open(replication('in-flight-bound'), journal, 0)
  const recordOf = (seq: number): Buffer => {
    const writer = new BatchRecordWriter()
    writer.addStamped(encodeStampedCommand({ kind: 'credit', seq, timeMs: seq, address: '0x01', usdcMicros: 1,
      gasMicros: 0 }))
    return writer.seal()
  }
  const first = new Promise<Error | null>((resolve) => log.append(1, 1, recordOf(1), resolve))
  t.throws(() => log.append(2, 2, recordOf(2), () => undefined), AssertionError,
    'REPLICATED_APPENDS_IN_FLIGHT_MAX: the worker hands a group over only once the last is durable')
  t.equal(await first, null, 'the first is acknowledged')
  await new Promise<Error | null>((resolve) => log.append(2, 2, recordOf(2), resolve))
  t.pass('once it is, the next is taken')
  await log.close()
  await journal.close()
})
