/**
 * Refused and no-op commands are not journaled (issue 14, finding 8): each used to cost a
 * journal record (~147 bytes) forever, so a flood of refused orders or cancels of unknown ids
 * grew the journal for nothing. The host answers them as before, with the seq of the last
 * recorded command, and a restart reaches the same seq and state hash.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EngineHost } from '../../../src/host/engine-host.js'
import { Journal } from '../../../src/journal/journal.js'
import type { UnstampedCommand } from '../../../src/engine/command.js'

const alice = '0x' + '1'.padStart(40, '0')

const refused: readonly UnstampedCommand[] = [
  { kind: 'cancelOrder', orderId: '0x' + 'ab'.repeat(32), address: alice },
  { kind: 'cancelAll', address: alice },
  { kind: 'placeOrder', order: {
    orderId: '0x' + 'cd'.repeat(32), owner: 'k1', tokenId: 'no-such-token', maker: alice, signer: alice,
    side: 'BUY', makerAmountMicros: 5_000_000, takerAmountMicros: 10_000_000, timeInForce: 'GTC',
    postOnly: false, expirationSec: 0, feeRateBps: 0, clientOrderId: '',
  } },
]

t.test('commands that change nothing are answered but not journaled', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex.unrecorded-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const host = await EngineHost.start({ dataDir: dir, hashSeed: 3 })
  const credit = await host.submit({ kind: 'credit', address: alice, usdcMicros: 5_000_000, gasMicros: 0 })
  t.equal(credit.seq, 1)
  for (const command of refused) {
    const outcome = await host.submit(command)
    t.notOk(outcome.result.ok && outcome.events.length > 0, `${command.kind}: answered, changing nothing`)
    t.equal(outcome.seq, 1, `${command.kind}: the seq of the last recorded command`)
  }
  const second = await host.submit({ kind: 'credit', address: alice, usdcMicros: 1_000_000, gasMicros: 0 })
  t.equal(second.seq, 2, 'the next change takes the next seq: no gap')
  const hash = await host.query({ kind: 'stateHash' })
  await host.stop()

  const journal = Journal.open({ path: dir, durability: 'sync' })
  const kinds = [...journal.recordsAfter(0)].map((record) => record.command.kind)
  await journal.close()
  t.same(kinds, ['credit', 'credit'], 'only the two credits are in the journal')

  const restarted = await EngineHost.start({ dataDir: dir, hashSeed: 4 })
  t.teardown(() => restarted.stop())
  t.same(await restarted.query({ kind: 'stateHash' }), hash, 'a restart reaches the same seq and state hash')
})
