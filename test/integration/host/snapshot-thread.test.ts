/**
 * The snapshot thread (src/host/snapshot-thread.ts): the snapshots are made by a replica that
 * follows the journal, not by the engine worker. Each one must be the engine's state at its seq:
 * here every kept snapshot is compared with a replay of the whole journal up to that seq, over a
 * simulated stream of every kind of command, and a restart from the newest one reaches the
 * running engine's state hash.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../../src/host/engine-host.js'
import { Journal } from '../../../src/journal/journal.js'
import { Engine } from '../../../src/engine/engine.js'
import { decodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'
import { SNAPSHOTS_KEPT } from '../../../src/limits.js'
import { Workload } from '../../simulation/workload.js'

const SEED = Number(process.env.SNAPSHOT_SEED ?? 11)
const COMMANDS = 900
const SNAPSHOT_EVERY = 70

t.test(`each snapshot is the engine's state at its seq (seed ${SEED})`, async (t) => {
  t.comment(`seed ${SEED}; SNAPSHOT_SEED=<n> to repeat`)
  const dir = mkdtempSync(join(tmpdir(), 'predex.snapshots-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const host = await EngineHost.start({ dataDir: dir, snapshotEveryCommands: SNAPSHOT_EVERY, hashSeed: 3 })
  const unsubscribe = host.subscribe(() => undefined)
  await host.eventsFlowing()
  const workload = new Workload({ seed: SEED })
  for (let i = 0; i < COMMANDS; i++) {
    const command = workload.next()
    const { seq: _seq, timeMs: _timeMs, ...unstamped } = command
    const outcome = await host.submit(unstamped)
    workload.observe(command, outcome.result, outcome.events)
  }
  const runningHash = await host.query({ kind: 'stateHash' })
  unsubscribe()
  await host.stop()

  const journal = Journal.open({ path: dir, durability: 'sync', readOnly: true })
  try {
    const snapshots = [...journal.snapshotsNewestFirst()].reverse()
    t.equal(snapshots.length, SNAPSHOTS_KEPT, `the ${SNAPSHOTS_KEPT} newest snapshots are kept`)
    const replica = new Engine({ endedOrdersRetained: journal.endedOrdersRetained(null) })
    let next = 0
    for (const record of journal.recordsAfter(0)) {
      replica.applyForReplay(record.command)
      const snapshot = snapshots[next]
      if (snapshot?.seq !== replica.seq) continue
      t.equal(stateHashOf(decodeSnapshot(snapshot.bytes!)), stateHashOf(replica),
        `the snapshot at seq ${snapshot.seq} is the journal replayed to there`)
      next++
    }
    t.equal(next, snapshots.length, 'every snapshot sits at a seq of the journal')
  } finally {
    await journal.close()
  }

  const restarted = await EngineHost.start({ dataDir: dir, hashSeed: 4 })
  t.ok(restarted.recovered.snapshotSeq > 0, 'the restart starts from a snapshot')
  t.same(await restarted.query({ kind: 'stateHash' }), runningHash, 'and reaches the running engine\'s state')
  await restarted.stop()
})

t.test('a memory query answers for every engine thread: the worker, the journal thread, the replica once it runs',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'predex.snapshots-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const host = await EngineHost.start({ dataDir: dir, snapshotEveryCommands: 3, hashSeed: 3 })
    const threadsOf = async (): Promise<string[]> => {
      const answer = await host.query({ kind: 'memory', collect: true })
      if (answer.kind !== 'memory') throw new Error(`a ${answer.kind} answer to a memory query`)
      for (const thread of answer.threads) {
        t.ok(thread.heapUsedBytes > 0 && thread.heapUsedBytes <= thread.heapTotalBytes, `${thread.thread}: a heap`)
        // tap runs without --expose-gc, the memory bench with it.
        t.equal(thread.collected, typeof (globalThis as { gc?: unknown }).gc === 'function',
          `${thread.thread}: collected exactly when the process can`)
      }
      return answer.threads.map((thread) => thread.thread)
    }
    t.same(await threadsOf(), ['engine', 'journal'], 'before the first snapshot interval, no replica')
    for (let n = 0; n < 3; n++) {
      await host.submit({ kind: 'credit', address: '0x' + String(n + 1).padStart(40, '0'), usdcMicros: 1, gasMicros: 0 })
    }
    t.same(await threadsOf(), ['engine', 'journal', 'snapshot'], 'after it, the replica too')
    if (process.platform === 'linux') {
      // Each thread wrote its kernel id into the stats block, for /metrics' CPU by thread.
      const ids = host.stats.threads()
      t.same(ids.map((thread) => thread.role), ['engine', 'journal', 'snapshot'], 'each engine thread told its id')
      t.equal(new Set(ids.map((thread) => thread.tid)).size, 3, 'three threads, three ids')
      t.notOk(ids.some((thread) => thread.tid === process.pid), 'none of them the main thread')
    }
    await host.stop()
  })

t.test('a host told to start its replica at start has it before any command; one not told does not', async (t) => {
  const threadsOf = async (host: EngineHost): Promise<string[]> => {
    const answer = await host.query({ kind: 'memory', collect: false })
    if (answer.kind !== 'memory') throw new Error(`a ${answer.kind} answer to a memory query`)
    return answer.threads.map((thread) => thread.thread)
  }
  for (const atStart of [true, false]) {
    const dir = mkdtempSync(join(tmpdir(), 'predex.snapshots-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const host = await EngineHost.start({ dataDir: dir, hashSeed: 3, snapshotReplicaAtStart: atStart })
    t.same(await threadsOf(host), atStart ? ['engine', 'journal', 'snapshot'] : ['engine', 'journal'],
      `snapshotReplicaAtStart ${atStart}: the engine's threads before any command`)
    await host.stop()
  }
  const dir = mkdtempSync(join(tmpdir(), 'predex.snapshots-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const off = await EngineHost.start({ dataDir: dir, hashSeed: 3, snapshotReplicaAtStart: true,
    snapshotEveryCommands: Number.MAX_SAFE_INTEGER })
  t.same(await threadsOf(off), ['engine', 'journal'], 'snapshots off: no replica, whatever the start says')
  await off.stop()
})
