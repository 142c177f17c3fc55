/**
 * A read replica (issue 34, point 3) at the engine host: it follows the primary's command stream
 * on a real nats-server, applies and journals every record, and reaches the primary's seq and
 * state hash while the primary goes on writing; its writes are refused with NOT_PRIMARY, naming
 * the primary; stopped and started again on its own data directory, it goes on from where its
 * journal ends, applying nothing twice.
 */
import t from 'tap'
import { CredentialStore } from '../../src/auth/credentials.js'
import { MasterKey } from '../../src/crypto/master-key.js'
import { EngineHost } from '../../src/host/engine-host.js'
import { ReplicaFeed } from '../../src/replication/replica-feed.js'
import { SILENT_LOG } from '../../src/log.js'
import type { ReplicationOptions } from '../../src/replication/jetstream-log.js'
import { commandOf } from '../crash/load.js'
import { startNats } from '../support/nats.js'
import { stateOf, tempDataDir } from '../support/host-state.js'

const SEED = 12
const PRIMARY_URL = 'http://127.0.0.1:18080'
const LEVEL_MS_MAX = 10_000

const nats = await startNats(t)
const replication: ReplicationOptions = { servers: [nats.url], stream: 'REP', replicas: 1 }

async function submitRange(host: EngineHost, from: number, to: number): Promise<void> {
  for (let index = from; index < to; index += 10) {
    await Promise.all(Array.from({ length: Math.min(10, to - index) }, (_, i) => host.submit(commandOf(SEED, index + i))))
  }
}

/** The replica's state once it has reached `seq` (bounded wait). */
async function levelWith(replica: EngineHost, seq: number): Promise<{ seq: number; stateHash: string }> {
  const deadline = Date.now() + LEVEL_MS_MAX
  for (;;) {
    const state = await stateOf(replica)
    if (state.seq >= seq || Date.now() > deadline) return state
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

t.test('a replica follows the primary to the same state, refuses writes, and resumes after a restart', async (t) => {
  const primary = await EngineHost.start({ dataDir: tempDataDir(t), hashSeed: 1, replication })
  t.teardown(() => primary.stop())
  await submitRange(primary, 0, 300)

  const replicaDir = tempDataDir(t)
  let replica = await EngineHost.start({ dataDir: replicaDir, hashSeed: 2 })
  let feed = await ReplicaFeed.start(replica, { servers: [nats.url], stream: 'REP', primary: PRIMARY_URL }, SILENT_LOG)
  let heard = 0
  replica.subscribe((outcomes) => { heard += outcomes.length })
  // The primary goes on while the replica catches up.
  await submitRange(primary, 300, 600)
  const first = await stateOf(primary)
  const caughtUp = await levelWith(replica, first.seq)
  t.equal(caughtUp.seq, first.seq, `the replica reached the primary's seq ${first.seq}`)
  t.equal(caughtUp.stateHash, first.stateHash, 'with the same state hash')
  t.equal(heard, first.seq, 'and its listeners (the read model) heard every command once, with its events')
  t.same(feed.lag(), { seqsBehind: 0, recordsPending: 0, msBehind: 0, appliedSeq: first.seq }, 'its lag: none')

  await t.rejects(replica.submit(commandOf(SEED, 5)), { code: 'NOT_PRIMARY',
    context: { role: 'replica', primary: PRIMARY_URL } }, 'a write on the replica is refused, naming the primary')

  // Stopped and started again: it goes on from its own journal's end.
  await feed.stop()
  await replica.stop()
  await submitRange(primary, 600, 800)
  replica = await EngineHost.start({ dataDir: replicaDir, hashSeed: 3 })
  t.teardown(() => replica.stop())
  t.equal(replica.recovered.seq, first.seq, 'the restarted replica recovered its own journal')
  feed = await ReplicaFeed.start(replica, { servers: [nats.url], stream: 'REP', primary: PRIMARY_URL }, SILENT_LOG)
  t.teardown(() => feed.stop())
  const second = await stateOf(primary)
  const resumed = await levelWith(replica, second.seq)
  t.equal(resumed.seq, second.seq, 'it caught up again')
  t.equal(resumed.stateHash, second.stateHash, 'to the same state: nothing applied twice, nothing missed')
})

t.test('API keys made or revoked on the primary are known to the replica\'s credential store', async (t) => {
  const master = MasterKey.random()
  const primary = await EngineHost.start({ dataDir: tempDataDir(t), hashSeed: 1,
    replication: { ...replication, stream: 'KEYS' } })
  t.teardown(() => primary.stop())
  const primaryKeys = await CredentialStore.load(primary, master)
  const before = await primaryKeys.create('0x' + 'a'.repeat(40), 0)

  const replica = await EngineHost.start({ dataDir: tempDataDir(t), hashSeed: 2 })
  t.teardown(() => replica.stop())
  const feed = await ReplicaFeed.start(replica, { servers: [nats.url], stream: 'KEYS', primary: PRIMARY_URL }, SILENT_LOG)
  t.teardown(() => feed.stop())
  const replicaKeys = await CredentialStore.load(replica, master)
  const after = await primaryKeys.create('0x' + 'b'.repeat(40), 3)
  await levelWith(replica, (await stateOf(primary)).seq)
  t.same(replicaKeys.lookup(before.apiKey), before, 'a key made before the replica started: as the primary has it')
  t.same(replicaKeys.lookup(after.apiKey), after, 'a key made after: as the primary has it')
  t.same(replicaKeys.derive(after.address, 3), after, 'found by its address and nonce too')
  t.ok(await primaryKeys.revoke(after.apiKey))
  await levelWith(replica, (await stateOf(primary)).seq)
  t.equal(replicaKeys.lookup(after.apiKey), undefined, 'a key revoked on the primary is gone from the replica')
  t.equal(replicaKeys.derive(after.address, 3), undefined)
})
