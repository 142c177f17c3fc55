/**
 * Journal retention (issue 14, bounded growth): the journal was kept whole, growing with every
 * command forever. With retention `snapshots` (the server's), the commands up to the oldest kept
 * snapshot go once the read store has passed it, so the journal holds a bounded number of
 * commands; recovery and the read store's catch-up still find everything they need.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../../src/host/engine-host.js'
import { Journal } from '../../../src/journal/journal.js'
import { ReadModel } from '../../../src/read/read-model.js'
import { catchUp } from '../../../src/read/catch-up.js'
import { SNAPSHOTS_KEPT } from '../../../src/limits.js'

const SNAPSHOT_EVERY = 50
const COMMANDS = 400

function dataDir(t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex.retention-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** COMMANDS credits (each changes state, so each is journaled); tells readDurable when asked. */
async function run(dir: string, readStoreKeepsUp: boolean): Promise<{ lastSeq: number; stateHash: unknown }> {
  const host = await EngineHost.start({ dataDir: dir, snapshotEveryCommands: SNAPSHOT_EVERY,
    journalRetention: 'snapshots', hashSeed: 5 })
  let lastSeq = 0
  for (let i = 0; i < COMMANDS; i++) {
    const address = '0x' + (1 + (i % 7)).toString(16).padStart(40, '0')
    lastSeq = (await host.submit({ kind: 'credit', address, usdcMicros: 1_000_000, gasMicros: 0 })).seq
    if (readStoreKeepsUp) host.readDurable(lastSeq)
  }
  const stateHash = await host.query({ kind: 'stateHash' })
  await host.stop()
  return { lastSeq, stateHash }
}

function journalSpan(dir: string): { first: number | null; oldestSnapshot: number | null; records: number } {
  const journal = Journal.open({ path: dir, durability: 'sync', readOnly: true })
  try {
    return { first: journal.firstSeq(), oldestSnapshot: journal.oldestSnapshotSeq(),
      records: [...journal.commandRecords(0)].length }
  } finally {
    void journal.close()
  }
}

t.test('the journal keeps only the commands after the oldest kept snapshot', async (t) => {
  const dir = dataDir(t)
  const { lastSeq, stateHash } = await run(dir, true)
  t.equal(lastSeq, COMMANDS)
  const span = journalSpan(dir)
  t.equal(span.first, span.oldestSnapshot! + 1, `the first record follows the oldest snapshot (${span.oldestSnapshot})`)
  t.ok(span.records <= (SNAPSHOTS_KEPT + 1) * SNAPSHOT_EVERY,
    `${span.records} records for ${COMMANDS} commands: at most ${SNAPSHOTS_KEPT + 1} snapshot intervals`)

  const restarted = await EngineHost.start({ dataDir: dir, hashSeed: 6 })
  t.same(await restarted.query({ kind: 'stateHash' }), stateHash, 'a restart reaches the same state')
  await restarted.stop()

  const model = new ReadModel()
  model.seq = span.oldestSnapshot!
  t.equal(catchUp(dir, model, lastSeq), lastSeq - span.oldestSnapshot!, 'a read store at the oldest snapshot catches up')
})

t.test('nothing goes while the read store is behind', async (t) => {
  const dir = dataDir(t)
  await run(dir, false)
  const span = journalSpan(dir)
  t.equal(span.first, 1, 'the whole journal is kept: the read store might need it to catch up')
  t.equal(span.records, COMMANDS)
})
