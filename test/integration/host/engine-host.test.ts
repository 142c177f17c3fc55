/**
 * The engine host end to end in one process: start on an empty data directory, submit commands
 * through the ring, get results only once durable, subscribe to events, query, stop, start again
 * and find the same state (journal replay and snapshots), and refuse fast when full.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../../src/host/engine-host.js'
import type { UnstampedCommand } from '../../../src/engine/command.js'
import type { Outcome } from '../../../src/host/messages.js'
import { PredexError } from '../../../src/errors.js'

const alice = '0x' + '1'.padStart(40, '0')

function dataDir(t: { teardown: (fn: () => void) => void }): string {
  // A dot in the name, as mktemp's: lmdb-js would take such a path for a file unless told (journal.ts).
  const dir = mkdtempSync(join(tmpdir(), 'predex.host-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const market: UnstampedCommand = {
  kind: 'createMarket', market: {
    marketId: 'm1', conditionId: '0xc1', question: 'Q?', slug: 'q', description: '', yesTokenId: 'y1', noTokenId: 'n1',
    tickSizeMicros: 10_000, minOrderSizeMicros: 0, feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active',
  },
}

t.test('submit, results, events, queries, restart', async (t) => {
  const dir = dataDir(t)
  const host = await EngineHost.start({ dataDir: dir, snapshotEveryCommands: 50, hashSeed: 1 })
  t.equal(host.recovered.seq, 0, 'an empty data directory starts at seq 0')
  const seen: Outcome[] = []
  host.subscribe((outcomes) => seen.push(...outcomes))
  await host.eventsFlowing() // else the first commands may be applied before the subscription is read
  t.same((await host.submit(market)).result, { ok: true })
  const credited = await host.submit({ kind: 'credit', address: alice, usdcMicros: 5_000_000, gasMicros: 0 })
  t.same([credited.seq, credited.result], [2, { ok: true }], 'the outcome carries its sequence number')
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) =>
    host.submit({ kind: 'credit', address: alice, usdcMicros: i + 1, gasMicros: 0 })))
  t.ok(results.every((r) => r.result.ok), '200 concurrent commands all succeed')
  t.same(results.map((r) => r.seq), Array.from({ length: 200 }, (_, i) => i + 3), 'in submission order')
  t.same(seen.map((o) => o.seq), Array.from({ length: 202 }, (_, i) => i + 1), 'outcomes arrive once each, in sequence order')
  t.equal(seen[1]!.events[0]!.type, 'ledger')
  const account = await host.query({ kind: 'account', address: alice })
  // 5 USDC + (1 + 2 + ... + 200) micro = 5_000_000 + 20_100.
  t.same(account.kind === 'account' && account.account?.usdcMicros, 5_020_100)
  const before = await host.query({ kind: 'stateHash' })
  await host.stop()
  await t.rejects(host.submit({ kind: 'expire' }), PredexError, 'a stopped host refuses commands')

  const again = await EngineHost.start({ dataDir: dir, snapshotEveryCommands: 50, hashSeed: 2 })
  t.equal(again.recovered.seq, 202, 'the restarted engine has every command')
  t.equal(again.recovered.snapshotSeq > 0, true, `it started from a snapshot (seq ${again.recovered.snapshotSeq})`)
  const after = await again.query({ kind: 'stateHash' })
  t.same(after, before, 'same state hash after the restart')
  await again.stop()
})

t.test('a full ring answers ENGINE_BUSY at once and nothing is lost', async (t) => {
  const host = await EngineHost.start({ dataDir: dataDir(t), ringBytes: 1024, hashSeed: 3 })
  const submitted: Promise<unknown>[] = []
  let busy = 0
  for (let i = 0; i < 2_000; i++) {
    submitted.push(host.submit({ kind: 'credit', address: alice, usdcMicros: 1, gasMicros: 0 }).catch((error: unknown) => {
      if (error instanceof PredexError && error.code === 'ENGINE_BUSY') busy++
      else throw error
    }))
  }
  await Promise.all(submitted)
  t.ok(busy > 0, `${busy} of 2000 were refused as busy by a 1 KiB ring`)
  const status = await host.query({ kind: 'status' })
  t.equal(status.kind === 'status' && status.seq, 2_000 - busy, 'every accepted command was applied exactly once')
  await host.stop()
})
