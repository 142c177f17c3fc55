/**
 * The engine's memory of ended orders is bounded (issue 14, bounded growth): it keeps at most
 * `endedOrdersRetained` ended order ids (ENDED_ORDERS_RETAINED for the server), forgets the one
 * that ended first when over, and never forgets a live order. While an ended id is kept, a
 * resubmission is a duplicate and a cancel answers "already matched/canceled"; once forgotten,
 * the id is new again. Eviction depends only on the command history, so snapshots stay canonical,
 * and a version-3 snapshot (every id, in acceptance order) still loads.
 */
import t from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import type { Command, OrderInput } from '../../../src/engine/command.js'
import { CODE_MESSAGES } from '../../../src/engine/codes.js'
import { Engine } from '../../../src/engine/engine.js'
import { checkInvariants } from '../../../src/engine/invariants.js'
import type { CommandResult } from '../../../src/engine/result.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'
import { summaryOf } from '../../../src/engine/view.js'
import { Workload } from '../../simulation/workload.js'
import { SNAPSHOT_V3_HEX } from './snapshot-v3.fixture.js'
import { v3State } from './snapshot-v3-state.js'

const alice = addressOf(1)
const bob = addressOf(2)

/** An engine with a small bound (a variable, not a literal: the option is checked at run time). */
function engineKeeping(endedOrdersRetained: number, hashSeed = 0): Engine {
  const options = { hashSeed, endedOrdersRetained }
  return new Engine(options)
}

function endedKept(engine: Engine): number {
  return engine.orders.size - engine.orders.live
}

/** A harness with one market and a funded alice, over an engine that keeps `retained` ended ids. */
function churnHarness(retained: number): { h: Harness; yes: string } {
  const h = new Harness(engineKeeping(retained))
  const m = h.market()
  h.fund(alice, 1_000 * USDC)
  h.fund(bob, 1_000 * USDC)
  h.split(bob, m.marketId, 500 * USDC)
  return { h, yes: m.yes }
}

/** Places an order that rests, then cancels it: one more ended id. */
function placeAndCancel(h: Harness, yes: string): OrderInput {
  const order = h.order({ maker: alice, tokenId: yes, side: 'BUY', priceMicros: 100_000, sizeMicros: 5 * USDC })
  h.place(order)
  h.apply({ kind: 'cancelOrder', address: alice, orderId: order.orderId })
  return order
}

function cancelReason(h: Harness, orderId: string): string | null {
  const result = h.apply({ kind: 'cancelOrder', address: alice, orderId }).result as CommandResult & {
    readonly notCanceled?: readonly { readonly reason: string }[]
  }
  return result.notCanceled?.[0]?.reason ?? null
}

t.test('many more orders than the bound: at most the bound of ended ids kept, snapshot size flat', (t) => {
  const { h, yes } = churnHarness(100)
  const live = h.order({ maker: alice, tokenId: yes, side: 'BUY', priceMicros: 50_000, sizeMicros: 5 * USDC })
  h.place(live)
  const sizes: number[] = []
  for (let i = 1; i <= 1_000; i++) {
    placeAndCancel(h, yes)
    if (i % 250 === 0) sizes.push(encodeSnapshot(h.engine).length)
  }
  t.equal(endedKept(h.engine), 100, 'ended ids kept: the bound')
  t.equal(h.engine.orders.size, 101, 'the index holds the bound plus the live order')
  t.equal(h.engine.orders.live, 1)
  // The counters in the header (seq, time, order number) may take a byte more; the ids do not.
  t.ok(sizes.at(-1)! - sizes[0]! <= 4, `snapshot bytes after 250, 500, 750, 1 000 orders: ${sizes.join(', ')}`)
  t.end()
})

t.test('a live order is never forgotten, however old; it is kept after it ends', (t) => {
  const { h, yes } = churnHarness(10)
  const old = h.order({ maker: alice, tokenId: yes, side: 'BUY', priceMicros: 50_000, sizeMicros: 5 * USDC })
  h.place(old)
  for (let i = 0; i < 50; i++) placeAndCancel(h, yes)
  t.equal(h.place(old).result.ok, false, 'the old live order is still a duplicate')
  t.match(h.results.at(-1)!.result,
    { ok: false, code: 'INVALID_ORDER_DUPLICATED', context: { orderId: old.orderId, status: 'LIVE' } })
  t.equal(cancelReason(h, old.orderId), null, 'it cancels')
  for (let i = 0; i < 9; i++) placeAndCancel(h, yes)
  t.equal(cancelReason(h, old.orderId), CODE_MESSAGES.ORDER_ALREADY_CANCELED, 'kept while among the last 10 ended')
  placeAndCancel(h, yes)
  t.equal(cancelReason(h, old.orderId), CODE_MESSAGES.ORDER_NOT_FOUND, 'forgotten once 10 more ended after it')
  t.end()
})

t.test('duplicates and cancels while kept; an evicted id is unknown, and new again', (t) => {
  const { h, yes } = churnHarness(10)
  const orders = Array.from({ length: 30 }, () => placeAndCancel(h, yes))
  // A fully matched order ends as MATCHED: it is kept too, and pushes out the oldest.
  const ask = h.order({ maker: bob, tokenId: yes, side: 'SELL', priceMicros: 200_000, sizeMicros: 5 * USDC })
  h.place(ask)
  const take = h.order({ maker: alice, tokenId: yes, side: 'BUY', priceMicros: 200_000, sizeMicros: 5 * USDC })
  h.place(take)
  t.equal(endedKept(h.engine), 10)
  const retained = orders.slice(22)
  for (const order of retained) {
    const result = h.place(order).result
    t.match(result, { ok: false, code: 'INVALID_ORDER_DUPLICATED', context: { orderId: order.orderId, status: 'CANCELED' } })
    t.equal(cancelReason(h, order.orderId), CODE_MESSAGES.ORDER_ALREADY_CANCELED)
  }
  t.match(h.place(take).result, { ok: false, context: { status: 'MATCHED' } })
  t.equal(cancelReason(h, take.orderId), CODE_MESSAGES.ORDER_ALREADY_MATCHED)
  const unknown = cancelReason(h, '0x' + 'f'.repeat(64))
  t.equal(unknown, CODE_MESSAGES.ORDER_NOT_FOUND)
  for (const order of orders.slice(0, 22)) {
    t.equal(cancelReason(h, order.orderId), unknown, 'an evicted id cancels like an unknown one')
  }
  const again = h.place(orders[0]!)
  t.match(again.result, { ok: true, status: 'LIVE' }, 'an evicted id is accepted again, as a new order')
  t.equal(h.engine.orders.get(orders[0]!.orderId) !== undefined, true)
  t.end()
})

t.test('seeded workload with eviction: live, replayed and resumed-from-snapshot engines agree', (t) => {
  const seed = Number(process.env.ENDED_SEED ?? 7)
  t.comment(`seed ${seed} (ENDED_SEED=${seed} to reproduce)`)
  const commandCount = 6_000
  const retained = 40
  const live = engineKeeping(retained, seed)
  const workload = new Workload({ seed, lifecycleEvery: 2_000 })
  const commands: Command[] = []
  const snapshots = new Map<number, Uint8Array>()
  for (let i = 1; i <= commandCount; i++) {
    const command = workload.next()
    commands.push(command)
    const applied = live.apply(command)
    workload.observe(command, applied.result, applied.events)
    if (i % 1_500 === 0) snapshots.set(i, encodeSnapshot(live))
  }
  checkInvariants(live)
  t.equal(endedKept(live), retained, 'ended ids at the bound')
  t.ok(live.orderNumber > 10 * retained, `${live.orderNumber} orders accepted, so eviction happened many times`)
  const hash = stateHashOf(live)
  const replay = engineKeeping(retained, seed + 1)
  for (const command of commands) replay.apply(command)
  t.equal(stateHashOf(replay), hash, 'the same commands with another hash seed: the same state hash')
  for (const [at, bytes] of snapshots) {
    const resumed = decodeSnapshot(bytes, { hashSeed: seed + 2, endedOrdersRetained: retained })
    t.same(encodeSnapshot(resumed), bytes, `snapshot at ${at} loads and encodes to the same bytes`)
    for (const command of commands.slice(at)) resumed.apply(command)
    t.equal(stateHashOf(resumed), hash, `snapshot at ${at} + the rest = the uninterrupted run`)
  }
  t.end()
})

t.test('a version-3 snapshot loads: same state, written in the current version', (t) => {
  const bytes = Uint8Array.from(Buffer.from(SNAPSHOT_V3_HEX, 'hex'))
  t.equal(bytes[8], 3, 'the fixture is version 3 (the byte after the length-prefixed magic)')
  const built = v3State()
  const loaded = decodeSnapshot(bytes)
  t.same(summaryOf(loaded), summaryOf(built.engine), 'the same state as the one it was taken from')
  const rewritten = encodeSnapshot(loaded)
  t.ok(rewritten[8]! > 3, `written in the current version (${rewritten[8]})`)
  t.same(encodeSnapshot(decodeSnapshot(rewritten)), rewritten, 'the current version round-trips')
  // The same next command gives the same events on the loaded and on the original engine.
  const next = built.order({ maker: bob, tokenId: 'm1-yes', side: 'SELL', priceMicros: 300_000, sizeMicros: 3 * USDC })
  const original = built.place(next)
  t.same(loaded.apply(built.commands.at(-1)!).events, original.events)
  t.end()
})

t.test('a version-3 snapshot over the bound: the ids accepted first are forgotten first', (t) => {
  // v3 wrote no end order: its ended ids (2, 3, 4, 5; they ended as 4, 2, 3, 5) queue in acceptance order.
  const bytes = Uint8Array.from(Buffer.from(SNAPSHOT_V3_HEX, 'hex'))
  const loaded = decodeSnapshot(bytes, { endedOrdersRetained: 2 })
  const id = (n: number): string => '0x' + n.toString(16).padStart(64, '0')
  t.same([2, 3, 4, 5].map((n) => loaded.orders.get(id(n)) !== undefined), [false, false, true, true])
  t.equal(loaded.orders.live, 2)
  // A live engine with the same bound forgets in end order: 4 and 2 went first.
  const built = new Harness(engineKeeping(2))
  const reference = v3State()
  for (const command of reference.commands) built.engine.apply(command)
  t.same([2, 3, 4, 5].map((n) => built.engine.orders.get(id(n)) !== undefined), [false, true, false, true])
  t.end()
})
