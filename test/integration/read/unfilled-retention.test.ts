/**
 * The read store's retention of unfilled orders (src/read/read-store.ts, --unfilled-orders-retention-days):
 * an order that ended with nothing filled is removed once it ended more than the retention ago (by
 * the commands' time, so replay removes the same), a few hundred per save at most; an order with a
 * fill, a live order and the maker's list are kept; 0 keeps everything; the removal holds across
 * a restart.
 */
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { OrderAccepted, OrderUpdate } from '../../../src/engine/event.js'
import { READ_PRUNE_PER_SAVE_MAX } from '../../../src/limits.js'
import { ReadModel } from '../../../src/read/read-model.js'
import { ReadStore } from '../../../src/read/read-store.js'

const DAY_MS = 86_400_000
const alice = '0x' + 'a'.repeat(40)

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex-retention-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function accepted(orderId: string): OrderAccepted {
  return { type: 'orderAccepted', orderId, marketId: 'm', tokenId: 'yes', outcome: 'Yes', side: 'BUY', owner: 'k',
    maker: alice, signer: alice, priceMicros: 500_000, originalSizeMicros: 10_000_000, makerAmountMicros: 5_000_000,
    takerAmountMicros: 10_000_000, timeInForce: 'GTC', postOnly: false, expirationSec: 0, clientOrderId: '',
    timeMs: 1_000 } as OrderAccepted
}

function cancelled(orderId: string, sizeMatchedMicros = 0): OrderUpdate {
  return { type: 'orderUpdate', orderId, maker: alice, status: 'CANCELED', sizeMatchedMicros,
    remainingMicros: 0, reason: 'owner' } as OrderUpdate
}

/** Applies one command at `timeMs` and waits for its save to be committed. */
async function step(store: ReadStore, model: ReadModel, events: Parameters<ReadModel['apply']>[1], timeMs: number):
  Promise<void> {
  model.apply(model.seq + 1, events, timeMs)
  model.seq++
  store.save(model)
  await store.settled()
}

t.test('an unfilled ended order goes once past the retention; a filled one, a live one and the list stay',
  async (t) => {
    const dir = dataDir(t)
    let store = new ReadStore(dir, { unfilledOrdersRetentionDays: 1 })
    let model = new ReadModel(store)
    await step(store, model, [accepted('0x1'), accepted('0x2'), accepted('0x3')], 1_000)
    await step(store, model, [cancelled('0x1'), cancelled('0x2', 5_000_000)], 2_000)
    await step(store, model, [accepted('0x4')], 2_000 + DAY_MS)
    t.equal(model.order('0x1')?.status, 'CANCELED', 'kept until the retention has passed')
    await step(store, model, [accepted('0x5')], 2_000 + DAY_MS + 1)
    t.equal(model.order('0x1'), undefined, 'removed once it has')
    t.equal(model.order('0x2')?.sizeMatchedMicros, 5_000_000, 'an order with a fill is kept')
    t.equal(model.order('0x3')?.status, 'LIVE', 'a live order is kept')
    t.same([...model.items('ordersByMaker', alice)], ['0x1', '0x2', '0x3', '0x4', '0x5'],
      "the maker's list keeps the id (readers skip it)")
    await store.close()
    store = new ReadStore(dir, { unfilledOrdersRetentionDays: 1 })
    model = new ReadModel(store)
    store.loadInto(model)
    t.equal(model.order('0x1'), undefined, 'still gone after a restart')
    t.equal(model.order('0x2')?.status, 'CANCELED')
    await store.close()
  })

t.test(`at most ${READ_PRUNE_PER_SAVE_MAX} removed per save, oldest first; 0 days keeps everything`, async (t) => {
  for (const days of [1, 0]) {
    const store = new ReadStore(dataDir(t), { unfilledOrdersRetentionDays: days })
    const model = new ReadModel(store)
    const ids = Array.from({ length: READ_PRUNE_PER_SAVE_MAX + 44 }, (_, n) => '0x' + (n + 1).toString(16))
    await step(store, model, ids.map(accepted), 1_000)
    for (const [n, orderId] of ids.entries()) await step(store, model, [cancelled(orderId)], 2_000 + n)
    const kept = (): number => ids.filter((orderId) => model.order(orderId) !== undefined).length
    await step(store, model, [], 10 * DAY_MS)
    if (days === 0) {
      t.equal(kept(), ids.length, '0 days: every order kept')
    } else {
      t.equal(kept(), 44, `one save removes ${READ_PRUNE_PER_SAVE_MAX}`)
      t.equal(model.order(ids.at(-1)!)?.status, 'CANCELED', 'the newest are the ones left')
      await step(store, model, [], 10 * DAY_MS + 1)
      t.equal(kept(), 0, 'the next save, the rest')
    }
    await store.close()
  }
})
