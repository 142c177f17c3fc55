/**
 * The snapshots as files beside the journal (src/journal/snapshot-files.ts, Journal's snapshot
 * API): read back newest first with their checksums checked, a damaged file read as damaged (so
 * recovery takes the older one), a temporary file a crash left behind never read, and removed when
 * asked (the engine worker asks at its start), pruning and truncation over the files and over the LMDB snapshots of a journal
 * written before them, the owner-only mode, and a host that recovers from a file.
 */
import t, { type Test } from 'tap'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'lmdb'
import { Journal, sealed } from '../../../src/journal/journal.js'
import { recover } from '../../../src/journal/recovery.js'
import { Engine } from '../../../src/engine/engine.js'
import { stateHashOf } from '../../../src/engine/snapshot.js'
import { EngineHost } from '../../../src/host/engine-host.js'
import type { UnstampedCommand } from '../../../src/engine/command.js'

function scratch(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex-snapshot-files-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const bytesOf = (n: number): Uint8Array => Uint8Array.from({ length: 64 }, (_, i) => (i * n) & 255)

t.test('written, listed newest first, read back whole, owner only', async (t) => {
  const dir = scratch(t)
  const journal = Journal.open({ path: dir, durability: 'sync' })
  journal.writeSnapshot(7, bytesOf(7))
  journal.writeSnapshot(30, bytesOf(30))
  const read = [...journal.snapshotsNewestFirst()]
  t.same(read.map((s) => s.seq), [30, 7])
  t.same(read.map((s) => [...s.bytes!]), [[...bytesOf(30)], [...bytesOf(7)]])
  t.equal(journal.oldestSnapshotSeq(), 7)
  const file = readdirSync(dir).find((name) => name.endsWith('30.bin'))!
  t.equal(file, 'snapshot-0000000000000030.bin')
  t.equal(statSync(join(dir, file)).mode & 0o777, 0o600, 'a snapshot holds API keys: the owner\'s alone')
  await journal.close()
})

t.test('a damaged file reads as damaged; a temporary one is never read and goes at the next open', async (t) => {
  const dir = scratch(t)
  let journal = Journal.open({ path: dir, durability: 'sync' })
  journal.writeSnapshot(5, bytesOf(5))
  journal.writeSnapshot(9, bytesOf(9))
  await journal.close()
  const newest = join(dir, 'snapshot-0000000000000009.bin')
  const damaged = readFileSync(newest)
  damaged[10] ^= 0xff
  writeFileSync(newest, damaged)
  // A crash between a write's start and its rename leaves this, and only this.
  writeFileSync(join(dir, 'snapshot-0000000000000012.bin.tmp'), sealed(bytesOf(12)).subarray(0, 20))
  journal = Journal.open({ path: dir, durability: 'sync' })
  t.same([...journal.snapshotsNewestFirst()].map((s) => [s.seq, s.bytes === null]), [[9, true], [5, false]],
    'the damaged newest is reported damaged, the older one sound, the unfinished one not at all')
  journal.removeUnfinishedSnapshots()
  t.notOk(readdirSync(dir).some((name) => name.endsWith('.tmp')), 'the unfinished file was removed')
  await journal.close()
})

t.test('pruning keeps the newest, over files and the LMDB snapshots of an older journal', async (t) => {
  const dir = scratch(t)
  let journal = Journal.open({ path: dir, durability: 'sync' })
  await journal.close()
  // A journal written before snapshot files kept them in its `snapshots` database.
  const root = open({ path: dir, noSubdir: false, maxDbs: 4 })
  const legacy = root.openDB<Buffer, number>({ name: 'snapshots', encoding: 'binary' })
  await legacy.put(3, sealed(bytesOf(3)))
  await legacy.put(6, sealed(bytesOf(6)))
  await root.close()
  journal = Journal.open({ path: dir, durability: 'sync' })
  t.same([...journal.snapshotsNewestFirst()].map((s) => s.seq), [6, 3], 'the older journal\'s snapshots are read')
  journal.writeSnapshot(10, bytesOf(10))
  journal.writeSnapshot(20, bytesOf(20))
  await journal.pruneSnapshots(3)
  t.same([...journal.snapshotsNewestFirst()].map((s) => s.seq), [20, 10, 6])
  await journal.pruneSnapshots(1)
  t.same([...journal.snapshotsNewestFirst()].map((s) => [s.seq, [...s.bytes!]]), [[20, [...bytesOf(20)]]])
  t.equal(journal.oldestSnapshotSeq(), 20)
  await journal.close()
})

const credit = (n: number): UnstampedCommand =>
  ({ kind: 'credit', address: '0x' + n.toString(16).padStart(40, '0'), usdcMicros: 1, gasMicros: 0 })

t.test('a host recovers from a snapshot file; truncation drops the files past its cut', async (t) => {
  const dir = scratch(t)
  let host = await EngineHost.start({ dataDir: dir, hashSeed: 1, snapshotEveryCommands: 10 })
  for (let n = 1; n <= 25; n++) await host.submit(credit(n))
  const hash = await host.query({ kind: 'stateHash' })
  await host.stop()
  const files = readdirSync(dir).filter((name) => name.startsWith('snapshot-'))
  t.same(files, ['snapshot-0000000000000010.bin', 'snapshot-0000000000000020.bin'], 'a file per snapshot, two kept')
  writeFileSync(join(dir, 'snapshot-0000000000000030.bin.tmp'), Uint8Array.of(1, 2, 3)) // a crash mid-write
  host = await EngineHost.start({ dataDir: dir, hashSeed: 2 })
  t.notOk(readdirSync(dir).some((name) => name.endsWith('.tmp')), 'the start removed the unfinished file')
  t.equal(host.recovered.snapshotSeq, 20, 'recovery starts from the newest file')
  t.equal(host.recovered.replayed, 5)
  t.same(await host.query({ kind: 'stateHash' }), hash, 'and reaches the same state')
  await host.stop()

  const journal = Journal.open({ path: dir, durability: 'sync' })
  journal.truncateAfter(15)
  t.same([...journal.snapshotsNewestFirst()].map((s) => s.seq), [10], 'the snapshot past the cut is gone')
  const recovered = recover(journal, 3, () => 0)
  t.equal(recovered.snapshotSeq, 10)
  t.equal(recovered.engine.seq, 15)
  const replayed = new Engine({ hashSeed: 3 })
  for (const record of journal.recordsAfter(0)) replayed.applyForReplay(record.command)
  t.equal(stateHashOf(recovered.engine), stateHashOf(replayed), 'the snapshot file is the journal replayed to its seq')
  await journal.close()
})
