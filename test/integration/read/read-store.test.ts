/**
 * The read store (src/read/read-store.ts): the read model's history on disk. What a batch wrote
 * is read at once, before its transaction is committed, and let go from memory once it is; an
 * order changed again by a later batch keeps its newest state through the earlier commit; and a
 * store written by the previous layout (every record, loaded whole) is migrated once, to read as
 * the live model did; saveSoon makes the batches of an interval one transaction (sooner past a
 * bound), and close() writes a save still due. The whole-model comparison is
 * test/simulation/portfolio.test.ts.
 */
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'lmdb'
import { Engine } from '../../../src/engine/engine.js'
import type { OrderAccepted } from '../../../src/engine/event.js'
import { ReadModel } from '../../../src/read/read-model.js'
import { ReadStore } from '../../../src/read/read-store.js'
import { READ_STORE_SAVE_INTERVAL_MS, READ_STORE_SAVE_RECORDS_MAX } from '../../../src/limits.js'
import { Workload } from '../../simulation/workload.js'

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'predex-read-store-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const alice = '0x' + 'a'.repeat(40)

function accepted(orderId: string): OrderAccepted {
  return { type: 'orderAccepted', orderId, marketId: 'm', tokenId: 'yes', outcome: 'Yes', side: 'BUY', owner: 'k',
    maker: alice, signer: alice, priceMicros: 500_000, originalSizeMicros: 10_000_000, makerAmountMicros: 5_000_000,
    takerAmountMicros: 10_000_000, timeInForce: 'GTC', postOnly: false, expirationSec: 0, clientOrderId: '',
    timeMs: 1_000 } as OrderAccepted
}

t.test('a batch is read at once, before its commit, and let go from memory after it', async (t) => {
  const store = new ReadStore(dataDir(t))
  t.teardown(() => store.close())
  const model = new ReadModel(store)
  model.apply(1, [accepted('0x1'), accepted('0x2')], 1_000)
  store.save(model)
  t.equal(model.order('0x2')?.status, 'LIVE', 'the order, before the commit')
  t.same(model.range('ordersByMaker', alice, 0, 10), ['0x1', '0x2'], "the maker's list, before the commit")
  t.ok(store.pendingCount > 0, 'held in memory until committed')
  await store.settled()
  t.equal(store.pendingCount, 0, 'let go once committed')
  model.apply(2, [{ type: 'orderUpdate', orderId: '0x1', maker: alice, status: 'CANCELED', sizeMatchedMicros: 0,
    remainingMicros: 0, reason: 'owner' }], 2_000)
  t.equal(model.order('0x1')?.status, 'CANCELED', 'an ended order, read from where it is kept')
  t.same(model.range('ordersByMaker', alice, 1, 10), ['0x2'], 'read from disk: a range of the list')
  t.equal(model.count('ordersByMaker', alice), 2)
})

t.test("an order written again by a later batch keeps its newest state through the earlier batch's commit",
  async (t) => {
    const dir = dataDir(t)
    const store = new ReadStore(dir)
    const model = new ReadModel(store)
    model.apply(1, [accepted('0x1')], 1_000)
    store.save(model) // batch 1: LIVE, not awaited
    model.apply(2, [{ type: 'orderUpdate', orderId: '0x1', maker: alice, status: 'CANCELED', sizeMatchedMicros: 0,
      remainingMicros: 0, reason: 'owner' }], 2_000)
    const first = store.settled() // batch 1's commit, with batch 2 not saved yet
    await first
    t.equal(model.order('0x1')?.status, 'CANCELED', 'not the committed LIVE state of batch 1')
    store.save(model)
    await store.close()
    const reopened = new ReadStore(dir)
    t.teardown(() => reopened.close())
    const loaded = new ReadModel(reopened)
    reopened.loadInto(loaded)
    t.equal(loaded.order('0x1')?.status, 'CANCELED', 'and on disk')
    t.same(loaded.liveOrdersOfMaker(alice), [], 'not live after a restart')
  })

t.test('saveSoon: the batches of one interval are one transaction, written within it', async (t) => {
  const durable: number[] = []
  let told: () => void = () => undefined
  const store = new ReadStore(dataDir(t), { onDurable: (seq) => {
    durable.push(seq)
    told()
  } })
  t.teardown(() => store.close())
  const model = new ReadModel(store)
  const wrote = new Promise<void>((resolve) => {
    told = resolve
  })
  const asked = performance.now()
  model.apply(1, [accepted('0x1')], 1_000)
  store.saveSoon(model)
  model.apply(2, [accepted('0x2')], 1_000)
  store.saveSoon(model)
  await store.settled()
  t.equal(store.storedSeq(), 0, 'nothing written at once')
  t.equal(model.order('0x2')?.status, 'LIVE', 'yet read at once')
  await wrote
  t.ok(performance.now() - asked >= READ_STORE_SAVE_INTERVAL_MS - 1, 'written after the interval')
  t.same(durable, [2], 'both batches in one transaction')
  t.equal(store.storedSeq(), 2)
  t.equal(store.pendingCount, 0, 'let go once committed')
})

t.test('saveSoon writes at once past READ_STORE_SAVE_RECORDS_MAX waiting records', async (t) => {
  const store = new ReadStore(dataDir(t))
  t.teardown(() => store.close())
  const model = new ReadModel(store)
  model.apply(1, Array.from({ length: READ_STORE_SAVE_RECORDS_MAX }, (_, i) => accepted(`0x${i.toString(16)}`)), 1_000)
  store.saveSoon(model)
  await store.settled()
  t.equal(store.storedSeq(), 1, 'committed without waiting for the interval')
})

t.test('close() writes a save that saveSoon left due', async (t) => {
  const dir = dataDir(t)
  const store = new ReadStore(dir)
  const model = new ReadModel(store)
  model.apply(1, [accepted('0x1')], 1_000)
  store.saveSoon(model)
  await store.close()
  const reopened = new ReadStore(dir)
  t.teardown(() => reopened.close())
  t.equal(reopened.storedSeq(), 1)
  const loaded = new ReadModel(reopened)
  reopened.loadInto(loaded)
  t.equal(loaded.order('0x1')?.status, 'LIVE')
})

t.test('a store of the previous layout (every record, loaded whole) is migrated once', async (t) => {
  const dir = dataDir(t)
  // The history as a server wrote it before: the records, and the seq; no lists, no format.
  const engine = new Engine()
  const live = new ReadModel()
  const workload = new Workload({ seed: 11 })
  const ledger: unknown[] = []
  const addresses = new Set<string>()
  for (let i = 0; i < 3_000; i++) {
    const command = workload.next()
    const { result, events } = engine.apply(command)
    workload.observe(command, result, events)
    live.apply(command.seq, events, command.timeMs)
    for (const event of events) {
      if (event.type === 'orderAccepted') addresses.add(event.maker)
      if (event.type === 'trade') addresses.add(event.takerAddress).add(event.makerAddress)
      if (event.type === 'ledger' || event.type === 'allowance') addresses.add(event.address)
    }
  }
  const makers = new Set<string>()
  const legacy = open({ path: join(dir, 'read'), noSubdir: false, maxDbs: 5 })
  const orders = legacy.openDB({ name: 'orders' })
  const trades = legacy.openDB({ name: 'trades' })
  const ledgerDb = legacy.openDB({ name: 'ledger' })
  for (const address of addresses) {
    for (const orderId of live.items('ordersByMaker', address)) {
      makers.add(address)
      void orders.put(orderId, live.order(orderId))
    }
    for (const tradeId of live.items('tradesByAddress', address)) void trades.put(tradeId, live.trade(tradeId))
    for (const record of live.items('ledgerByAddress', address)) {
      ledger.push(record)
      void ledgerDb.put(`${record.seq}/${record.index}`, record)
    }
  }
  await legacy.openDB({ name: 'meta' }).put('seq', live.seq)
  await legacy.close()
  t.ok(makers.size > 3 && ledger.length > 10, `${makers.size} makers, ${ledger.length} ledger records`)

  for (const run of ['migrated', 'reopened after the migration']) {
    const store = new ReadStore(dir)
    const model = new ReadModel(store)
    t.equal(store.loadInto(model), live.seq, `${run}: the stored seq`)
    for (const market of live.markets.values()) model.putMarket(market)
    const read = (m: ReadModel, address: string) => JSON.stringify([[...m.items('ordersByMaker', address)],
      [...m.items('tradesByAddress', address)], [...m.items('ledgerByAddress', address)],
      m.liveOrdersOfMaker(address).map((o) => o.orderId),
      m.portfolios.of(address)?.slice(0, m.portfolios.of(address)!.length, m.tokenOf.bind(m))])
    t.same([...addresses].filter((address) => read(model, address) !== read(live, address)), [],
      `${run}: every address reads as the live model`)
    t.same(model.totals, live.totals, `${run}: the totals`)
    await store.close()
  }
})

t.test('a lookup by a key longer than any stored one answers nothing, not an error', async (t) => {
  // LMDB refuses keys past about 2 KB ("String does not fit in target buffer"), and an order id,
  // trade id or list key comes from a request: a 4 165-character order id in a gRPC GetOrder
  // came back INTERNAL (the gRPC fuzz test, seed 1940288391). No stored id is longer than
  // ID_LENGTH_MAX, so a longer one is simply not there.
  const store = new ReadStore(dataDir(t))
  t.teardown(() => store.close())
  const long = 'x'.repeat(4_165)
  t.equal(store.order(long), undefined, 'order')
  t.equal(store.trade(long), undefined, 'trade')
  t.equal(store.count('ordersByMaker', long), 0, 'a list\'s count')
  t.same(store.range('ordersByMaker', long, 0, 10), [], 'a list\'s items')
})
