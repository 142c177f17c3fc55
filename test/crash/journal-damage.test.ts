/**
 * Damaged journals and failing writes: a torn or checksum-failing last record is dropped (it was
 * never acknowledged) and the engine starts from the record before it; a damaged record with
 * records after it stops the start with an error naming its sequence number; a journal write
 * that fails stops the engine (fail-stop): pending requests fail, new ones are refused.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'lmdb'
import { EngineHost } from '../../src/host/engine-host.js'
import { PredexError } from '../../src/errors.js'
import { checkJournal, random } from './harness.js'
import { commandOf } from './load.js'
import type { UnstampedCommand } from '../../src/engine/command.js'

const seed = 7
/** Enough that the journal holds dozens of records: the stream's early orders are refused (no funds yet). */
const COMMANDS = 400

function dataDir(t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex-damage-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * A data directory holding the journal of COMMANDS commands (no snapshot: replay reads them all);
 * returns the last seq (the stream's refusals are answered but not journaled).
 */
async function journaled(dir: string): Promise<number> {
  const host = await EngineHost.start({ dataDir: dir, snapshotEveryCommands: 1_000_000, hashSeed: 1 })
  let lastSeq = 0
  for (let index = 0; index < COMMANDS; index++) lastSeq = (await host.submit(commandOf(seed, index))).seq
  await host.stop()
  return lastSeq
}

/** Rewrites one journal record through LMDB directly, as a bad disk or a torn write would leave it. */
async function damage(dir: string, seq: number, change: (record: Buffer) => Buffer): Promise<void> {
  const root = open({ path: dir, maxDbs: 4 })
  const commands = root.openDB<Buffer, number>({ name: 'commands', encoding: 'binary' })
  const record = commands.get(seq)!
  commands.putSync(seq, change(Buffer.from(record)))
  await root.close()
}

t.test('a torn last record is dropped and the engine starts from the one before', async (t) => {
  const next = random(11)
  for (const [name, change] of [
    ['truncated', (r: Buffer) => r.subarray(0, 1 + Math.floor(next() * (r.length - 2)))],
    ['bit flipped', (r: Buffer) => { const c = Buffer.from(r); c[Math.floor(next() * c.length)]! ^= 1 << Math.floor(next() * 8); return c }],
  ] as const) {
    const dir = dataDir(t)
    const lastSeq = await journaled(dir)
    await damage(dir, lastSeq, change)
    const host = await EngineHost.start({ dataDir: dir, hashSeed: 2 })
    t.equal(host.recovered.seq, lastSeq - 1, `${name}: recovered up to the record before`)
    const state = await host.query({ kind: 'stateHash' })
    await host.stop()
    const check = await checkJournal(dir, lastSeq - 1, seed, new Map())
    t.same(check.problems, [], `${name}: the damaged record is gone and the rest is sound`)
    t.equal(check.lastSeq, lastSeq - 1)
    t.equal(state.kind === 'stateHash' && state.stateHash, check.stateHash, `${name}: same state as a replay of the rest`)
  }
})

t.test('a damaged record in the middle stops the start, naming it', async (t) => {
  const dir = dataDir(t)
  const middle = Math.floor((await journaled(dir)) / 2)
  t.ok(middle >= 10, `a record in the middle: ${middle}`)
  await damage(dir, middle, (r) => { const c = Buffer.from(r); c[c.length - 1]! ^= 0x40; return c })
  await t.rejects(EngineHost.start({ dataDir: dir, hashSeed: 3 }), new RegExp(`journal record ${middle} is damaged`))
})

t.test('a journal write that fails stops the engine', async (t) => {
  const host = await EngineHost.start({ dataDir: dataDir(t), hashSeed: 4, failJournalAtBatch: 3 })
  // Two credits one after the other are two journal batches, whatever the machine's speed (the
  // test used to space 40 mixed commands 2 ms apart: refused ones are not journaled, and a stalled
  // CI run grouped the rest into two batches, so nothing failed). The 38 credits sent at once then
  // make the third batch, the one that fails, or come after it.
  const credit = (n: number): UnstampedCommand =>
    ({ kind: 'credit', address: '0x' + n.toString(16).padStart(40, '0'), usdcMicros: 1, gasMicros: 0 })
  for (const n of [1, 2]) t.ok((await host.submit(credit(n))).result.ok, `credit ${n}: its own batch`)
  const outcomes = await Promise.allSettled(Array.from({ length: 38 }, (_, index) => host.submit(credit(index + 3))))
  const failed = outcomes.filter((o) => o.status === 'rejected')
  t.equal(failed.length, 38, 'every command of the failed batch and after it failed')
  t.ok(failed.every((o) => o.reason instanceof PredexError && o.reason.code === 'ENGINE_UNAVAILABLE'), 'with ENGINE_UNAVAILABLE')
  await t.rejects(host.submit(commandOf(seed, 99)), { code: 'ENGINE_UNAVAILABLE' }, 'and nothing more is accepted')
  await host.stop()
})
