/**
 * A group closes when its batch record would pass BATCH_RECORD_BYTES_MAX (the replicated log
 * publishes a record as one NATS message, limits.ts): a burst of large commands arriving at once
 * is journaled in several records, none past the bound, every command answered and replayed. The
 * worker decodes a run of commands before applying them, so the command that does not fit is
 * looked at and left in the ring for the next group (Ring.unpeekAhead); this shows none is lost
 * or taken twice there.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'lmdb'
import { EngineHost } from '../../../src/host/engine-host.js'
import { BATCHES_DB } from '../../../src/journal/journal.js'
import { batchCountOf } from '../../../src/journal/batch-record.js'
import { BATCH_RECORD_BYTES_MAX, TEXT_LENGTH_MAX } from '../../../src/limits.js'
import type { UnstampedCommand } from '../../../src/engine/command.js'

/** A market whose question and description are as long as they may be, in three-byte characters. */
function bigMarket(i: number): UnstampedCommand {
  const text = '€'.repeat(TEXT_LENGTH_MAX)
  return { kind: 'createMarket', market: {
    marketId: `m${i}`, conditionId: `0xc${i}`, question: text, slug: `q${i}`, description: text,
    yesTokenId: `y${i}`, noTokenId: `n${i}`, tickSizeMicros: 10_000, minOrderSizeMicros: 0, feeRateBps: 0,
    negRisk: false, endDateMs: 0, status: 'Active',
  } }
}

t.test('a burst of large commands goes into several records, none past the bound, none lost', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex.record-bytes-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  // About 24.6 KB a command: 100 of them are some 2.5 MB, three records at least.
  const count = 100
  const host = await EngineHost.start({ dataDir: dir, hashSeed: 7 })
  const outcomes = await Promise.all(Array.from({ length: count }, (_, i) => host.submit(bigMarket(i))))
  t.equal(outcomes.findIndex((outcome, i) => !outcome.result.ok || outcome.seq !== i + 1), -1,
    'every command answered, in order, with its own seq')
  const state = await host.query({ kind: 'stateHash' })
  await host.stop()

  const root = open({ path: dir, maxDbs: 4, readOnly: true, noSubdir: false })
  const batches = root.openDB<Buffer, number>({ name: BATCHES_DB, encoding: 'binary' })
  const records = [...batches.getRange()].map(({ key, value }) => ({ key, count: batchCountOf(value)!,
    bytes: value.length }))
  await root.close()
  t.ok(records.length >= 3, `${records.length} records`)
  t.ok(records.every((record) => record.bytes <= BATCH_RECORD_BYTES_MAX), `none past ${BATCH_RECORD_BYTES_MAX} bytes: ` +
    records.map((record) => record.bytes).join(' '))
  t.ok(records.some((record) => record.count > 1), 'records of several commands')
  let next = 1
  for (const record of records) {
    t.equal(record.key, next, `the record of seq ${record.key} follows the one before`)
    next = record.key + record.count
  }
  t.equal(next, count + 1, 'every command journaled once')

  const restarted = await EngineHost.start({ dataDir: dir, hashSeed: 8 })
  t.teardown(() => restarted.stop())
  t.same(await restarted.query({ kind: 'stateHash' }), state, 'a restart replays them to the same state')
})
