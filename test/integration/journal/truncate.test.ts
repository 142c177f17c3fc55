/**
 * Journal.truncateAfter (a rejoining node's unacknowledged tail, src/replication/rejoin.ts): the
 * batches after the seq go, a batch that holds it and more is written again with its commands up
 * to it, snapshots after it go; the engine then recovers exactly to that seq.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../../src/host/engine-host.js'
import { Journal } from '../../../src/journal/journal.js'
import type { UnstampedCommand } from '../../../src/engine/command.js'

const credit = (n: number): UnstampedCommand =>
  ({ kind: 'credit', address: '0x' + n.toString(16).padStart(40, '0'), usdcMicros: 1, gasMicros: 0 })

t.test('a cut inside a batch keeps its first commands; recovery ends at the cut', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex-truncate-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let host = await EngineHost.start({ dataDir: dir, hashSeed: 1 })
  for (const n of [1, 2]) await host.submit(credit(n)) // two batches of one
  await Promise.all(Array.from({ length: 20 }, (_, i) => host.submit(credit(10 + i)))) // a batch (or a few) of many
  await host.stop()
  const journal = Journal.open({ path: dir, durability: 'sync' })
  t.equal(journal.lastSeq(), 22)
  const seqs = [...journal.commandRecords(1)].map((r) => r.seq)
  t.equal(seqs.length, 22, 'every command readable before')
  t.equal(journal.truncateAfter(22), 0, 'nothing after the end')
  t.equal(journal.truncateAfter(9), 13, 'cut after seq 9: 13 commands dropped')
  t.equal(journal.lastSeq(), 9)
  t.same([...journal.commandRecords(1)].map((r) => r.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9], 'seqs 1-9 remain, in order')
  await journal.close()
  host = await EngineHost.start({ dataDir: dir, hashSeed: 2 })
  t.equal(host.recovered.seq, 9, 'the engine recovers to the cut')
  const answer = await host.query({ kind: 'stateHash' })
  t.match(answer, { kind: 'stateHash', seq: 9, invariantsHold: true })
  await host.stop()
})
