/**
 * Order rows are reused (src/engine/order-table.ts): the row of an order that ended goes to the
 * next order. Nothing that named the old order may then reach the new one: not a GTD order's
 * entry in the expiry queue, not the event log's memory of where it listed the old order's id in
 * the batch. Each case first checks that the new order really took the old order's row. And the
 * table grows by doubling: every field survives it (a field left out of `grow` fails the last case).
 */
import t from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import { readEvents } from '../../../src/engine/event-reader.js'
import type { Command, OrderInput } from '../../../src/engine/command.js'
import type { OrderAccepted } from '../../../src/engine/event.js'
import type { Engine } from '../../../src/engine/engine.js'
import { rowOfEntry } from '../../../src/engine/order-index.js'
import { checkInvariants } from '../../../src/engine/invariants.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'

const alice = addressOf(1)

function rowOf(engine: Engine, orderId: string): number {
  const entry = engine.orders.get(orderId)
  if (entry === undefined) throw new Error(`order ${orderId} is unknown`)
  return rowOfEntry(entry)
}

function bid(h: Harness, tokenId: string, priceMicros: number): OrderInput {
  return h.order({ maker: alice, tokenId, side: 'BUY', priceMicros, sizeMicros: 10 * USDC })
}

t.test('a cancelled GTD order\'s expiry does not reach the order that took its row', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 1_000 * USDC)
  const nowSec = h.timeMs / 1000
  const gtd = { ...bid(h, m.yes, 400_000), timeInForce: 'GTD' as const, expirationSec: nowSec + 100 }
  h.place(gtd)
  const gtdRow = rowOf(h.engine, gtd.orderId)
  h.apply({ kind: 'cancelOrder', address: alice, orderId: gtd.orderId })
  const gtc = bid(h, m.yes, 300_000)
  h.place(gtc)
  t.equal(rowOf(h.engine, gtc.orderId), gtdRow, 'the GTC order took the GTD order\'s row')
  h.timeMs += 200_000
  t.same(h.apply({ kind: 'expire' }).events, [], 'the GTD order\'s time passes: nothing expires')
  t.equal(h.engine.orders.get(gtc.orderId), -1 - gtdRow, 'the GTC order is still live in that row')
  t.end()
})

t.test('an order that takes a row freed in the same batch is named by its own id', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 1_000 * USDC)
  const first = bid(h, m.yes, 400_000)
  const second = bid(h, m.yes, 300_000)
  const engine = h.engine
  const stamp = (command: Record<string, unknown>): Command =>
    ({ ...command, seq: engine.seq + 1, timeMs: h.timeMs }) as unknown as Command
  engine.log.clear()
  engine.execute(stamp({ kind: 'placeOrder', order: first }))
  const firstRow = rowOf(engine, first.orderId)
  engine.execute(stamp({ kind: 'cancelOrder', address: alice, orderId: first.orderId }))
  engine.execute(stamp({ kind: 'placeOrder', order: second }))
  t.equal(rowOf(engine, second.orderId), firstRow, 'the second order took the first one\'s row')
  const accepted = readEvents(engine.log.take()).filter((e): e is OrderAccepted => e.type === 'orderAccepted')
  t.same(accepted.map((e) => e.orderId), [first.orderId, second.orderId], 'each acceptance names its own order')
  t.end()
})

t.test('the table doubles past its first rows and reuses freed ones: books, holds and snapshots stay sound', (t) => {
  // 4 096 rows to start (order-table.ts): 10 000 resting orders take it through two doublings.
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 1_000_000 * USDC)
  const engine = h.engine
  let seq = engine.seq
  const apply = (command: Record<string, unknown>): void => {
    const { result } = engine.apply({ ...command, seq: ++seq, timeMs: h.timeMs } as unknown as Command)
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`)
  }
  const placed: OrderInput[] = []
  for (let i = 0; i < 10_000; i++) {
    const order = bid(h, m.yes, 10_000 * (1 + (i % 90)))
    placed.push(order)
    apply({ kind: 'placeOrder', order })
  }
  t.equal(engine.orderTable.inUse, 10_000, 'every order rests in a row of its own')
  t.doesNotThrow(() => checkInvariants(engine), 'sound after the doublings')
  // Cancel every other order, then place as many again: they take the freed rows first.
  for (let i = 0; i < placed.length; i += 2) apply({ kind: 'cancelOrder', address: alice, orderId: placed[i]!.orderId })
  const rowsBefore = engine.orderTable.rowsEver
  for (let i = 0; i < 5_000; i++) apply({ kind: 'placeOrder', order: bid(h, m.yes, 10_000 * (1 + (i % 90))) })
  t.equal(engine.orderTable.rowsEver, rowsBefore, 'the new orders took freed rows, no new ones')
  t.equal(engine.orderTable.inUse, 10_000, 'as many rows in use as before')
  t.doesNotThrow(() => checkInvariants(engine), 'sound after the reuse')
  const loaded = decodeSnapshot(encodeSnapshot(engine), { hashSeed: 5 })
  t.equal(stateHashOf(loaded), stateHashOf(engine), 'a snapshot round trip keeps the state')
  t.equal(loaded.orderTable.inUse, 10_000, 'the loaded engine rests them all')
  t.end()
})
