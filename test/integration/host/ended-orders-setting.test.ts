/**
 * How many ended order ids the engine remembers (--ended-orders-retained) decides which
 * resubmissions are duplicates, so a journal must always be replayed with the value its commands
 * were applied with: it is fixed when the journal is made and kept in it, a restart that asks for
 * another is refused, and a journal from before the setting keeps ENDED_ORDERS_RETAINED.
 */
import t from 'tap'
import { open } from 'lmdb'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { OrderInput, UnstampedCommand } from '../../../src/engine/command.js'
import { ENDED_ORDERS_RETAINED } from '../../../src/engine/limits.js'
import { EngineHost } from '../../../src/host/engine-host.js'
import { Journal } from '../../../src/journal/journal.js'

const alice = '0x' + 'a1'.repeat(20)

function dataDir(t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex.ended-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function order(n: number): OrderInput {
  return { orderId: '0x' + n.toString(16).padStart(64, '0'), owner: 'key-alice', maker: alice, signer: alice,
    tokenId: 'y1', side: 'BUY', makerAmountMicros: 1_000_000, takerAmountMicros: 10_000_000, expirationSec: 0,
    feeRateBps: 0, timeInForce: 'GTC', postOnly: false, clientOrderId: '' }
}

const setUp: UnstampedCommand[] = [
  { kind: 'createMarket', market: { marketId: 'm1', conditionId: '0xc1', question: 'Q?', slug: 'q', description: '',
    yesTokenId: 'y1', noTokenId: 'n1', tickSizeMicros: 10_000, minOrderSizeMicros: 0, feeRateBps: 0, negRisk: false,
    endDateMs: 0, status: 'Active' } },
  { kind: 'credit', address: alice, usdcMicros: 1_000_000_000, gasMicros: 0 },
  { kind: 'approve', address: alice, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER },
]

t.test('the journal keeps the value it was made with; another is refused', async (t) => {
  const dir = dataDir(t)
  const made = Journal.open({ path: dir, durability: 'sync' })
  t.equal(made.endedOrdersRetained(100), 100, 'a new journal takes the value asked for')
  await made.close()
  const reopened = Journal.open({ path: dir, durability: 'sync' })
  t.equal(reopened.endedOrdersRetained(null), 100, 'and keeps it')
  t.equal(reopened.endedOrdersRetained(100), 100, 'the same value asked again is fine')
  t.throws(() => reopened.endedOrdersRetained(200), /--ended-orders-retained 200 cannot change it/, 'another value is refused')
  await reopened.close()
})

t.test('a host on a data directory made with a small bound forgets ended orders by it, across a restart',
  async (t) => {
    const dir = dataDir(t)
    const host = await EngineHost.start({ dataDir: dir, snapshotEveryCommands: 40, endedOrdersRetained: 20 })
    for (const command of setUp) t.same((await host.submit(command)).result, { ok: true })
    for (let n = 1; n <= 50; n++) {
      await host.submit({ kind: 'placeOrder', order: order(n) })
      await host.submit({ kind: 'cancelOrder', address: alice, orderId: order(n).orderId })
    }
    await host.stop()
    await t.rejects(EngineHost.start({ dataDir: dir, endedOrdersRetained: 21 }), /remembers 20 ended orders/,
      'a restart asking for another bound is refused')
    const again = await EngineHost.start({ dataDir: dir, snapshotEveryCommands: 40 })
    t.teardown(() => again.stop())
    const recent = await again.submit({ kind: 'placeOrder', order: order(50) })
    t.match(recent.result, { ok: false }, 'one of the last 20 ended is still a duplicate after the restart')
    const old = await again.submit({ kind: 'placeOrder', order: order(1) })
    t.match(old.result, { ok: true, status: 'LIVE' }, 'the first one, 49 ended orders ago, is forgotten: new again')
  })

t.test('a journal made before the setting existed keeps ENDED_ORDERS_RETAINED; another is refused', async (t) => {
  const dir = dataDir(t)
  const host = await EngineHost.start({ dataDir: dir, endedOrdersRetained: 20 })
  for (const command of setUp) await host.submit(command)
  await host.stop()
  // As an older server left it: commands, and no setting (its 20 removed).
  const root = open({ path: dir, noSubdir: false, maxDbs: 4 })
  root.openDB({ name: 'settings' }).removeSync('endedOrdersRetained')
  await root.close()
  const journal = Journal.open({ path: dir, durability: 'sync' })
  t.teardown(() => journal.close())
  t.throws(() => journal.endedOrdersRetained(100), /remembers 4000000 ended orders/, 'its commands were applied with the default')
  t.equal(journal.endedOrdersRetained(null), ENDED_ORDERS_RETAINED)
})
