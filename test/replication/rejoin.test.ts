/**
 * Rejoining (issue 34): a node whose journal ends with commands the stream does not hold (a
 * deposed primary's, never acknowledged) while the stream went on with other commands at the same
 * sequence numbers. levelWithStream (src/replication/rejoin.ts) cuts its journal to the prefix the
 * stream agrees with; the node then follows the stream to the new primary's exact state. Without
 * the cut it would apply the new primary's commands on top of its own and disagree (the state
 * hashes differ: checked below on a copy that skips the cut).
 */
import t from 'tap'
import { cpSync } from 'node:fs'
import { EngineHost } from '../../src/host/engine-host.js'
import { Journal } from '../../src/journal/journal.js'
import { ReplicaFeed } from '../../src/replication/replica-feed.js'
import { levelWithStream } from '../../src/replication/rejoin.js'
import { SILENT_LOG } from '../../src/log.js'
import type { ReplicationOptions } from '../../src/replication/jetstream-log.js'
import type { UnstampedCommand } from '../../src/engine/command.js'
import { commandOf } from '../crash/load.js'
import { startNats } from '../support/nats.js'
import { stateOf, tempDataDir } from '../support/host-state.js'

const SEED = 13
const LEVEL_MS_MAX = 10_000

const credit = (n: number, usdcMicros: number): UnstampedCommand =>
  ({ kind: 'credit', address: '0x' + n.toString(16).padStart(40, '0'), usdcMicros, gasMicros: 0 })

/** Follows the stream from `dataDir` until `seq`; its state then, and the host stopped. */
async function followTo(dataDir: string, servers: readonly string[], seq: number): Promise<{ seq: number;
  stateHash: string }> {
  const host = await EngineHost.start({ dataDir, hashSeed: 5 })
  const feed = await ReplicaFeed.start(host, { servers, stream: 'RJ', primary: null }, SILENT_LOG)
  const deadline = Date.now() + LEVEL_MS_MAX
  let state = await stateOf(host)
  while (state.seq < seq && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    state = await stateOf(host)
  }
  await feed.stop()
  await host.stop()
  return state
}

t.test('a journal with a tail the stream never acknowledged is cut, then follows to the new primary\'s state',
  async (t) => {
    const nats = await startNats(t)
    const replication: ReplicationOptions = { servers: [nats.url], stream: 'RJ', replicas: 1 }
    const old = tempDataDir(t)
    // The old primary: 120 commands of the crash stream, each acknowledged by the stream.
    let host = await EngineHost.start({ dataDir: old, hashSeed: 1, replication })
    for (let index = 0; index < 120; index++) await host.submit(commandOf(SEED, index))
    const shared = await stateOf(host)
    await host.stop()
    // The new primary starts from the same journal (a standby level with the stream) and goes on.
    const next = tempDataDir(t)
    cpSync(old, next, { recursive: true })
    // The old one's tail, never in the stream: journaled locally only (its publish never answered).
    host = await EngineHost.start({ dataDir: old, hashSeed: 1 })
    for (let n = 1; n <= 3; n++) await host.submit(credit(n, 7_000_000))
    await host.stop()
    host = await EngineHost.start({ dataDir: next, hashSeed: 2, replication })
    for (let n = 1; n <= 5; n++) await host.submit(credit(100 + n, 1_000_000))
    const newPrimary = await stateOf(host)
    await host.stop()
    t.ok(newPrimary.seq > shared.seq + 3, `the stream went on past the old tail: ${shared.seq} -> ${newPrimary.seq}`)

    // Without the cut: following applies the new primary's later commands on the old tail.
    const uncut = tempDataDir(t)
    cpSync(old, uncut, { recursive: true })
    const diverged = await followTo(uncut, [nats.url], newPrimary.seq)
    t.not(diverged.stateHash, newPrimary.stateHash, 'without the cut the node disagrees with its primary')

    const dropped = await levelWithStream(old, { servers: [nats.url], stream: 'RJ' }, SILENT_LOG)
    t.equal(dropped, 3, 'the three commands the stream never held are dropped')
    const journal = Journal.open({ path: old, durability: 'sync', readOnly: true })
    t.equal(journal.lastSeq(), shared.seq, 'the journal ends where the old primary\'s acknowledged commands did')
    await journal.close()
    t.equal(await levelWithStream(old, { servers: [nats.url], stream: 'RJ' }, SILENT_LOG), 0, 'a second look drops nothing')
    const rejoined = await followTo(old, [nats.url], newPrimary.seq)
    t.equal(rejoined.seq, newPrimary.seq, 'then it follows to the new primary\'s seq')
    t.equal(rejoined.stateHash, newPrimary.stateHash, 'and state')
  })
