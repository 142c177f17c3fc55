/**
 * The reference model alone, order groups: the fill window and its buckets, each side counted at
 * its own price, triggers (by a fill, in the FOK dry run, by hand), freezes, the command's checks
 * in order, and an order's group id.
 */
import t from 'tap'
import type { OrderInput } from '../../src/engine/command.js'
import type { EngineEvent, OrderGroupAction as GroupEventAction, OrderGroupChanged } from '../../src/engine/event.js'
import type { CommandResult, OrderRejection, Rejection } from '../../src/engine/result.js'
import { Code } from '../../src/engine/codes.js'
import { ORDER_AMOUNT_MICROS_MAX } from '../../src/engine/limits.js'
import { tradeIdOf } from '../../src/engine/ids.js'
import {
  type Body, ALICE, BOB, CAROL, M, USDC, setup, limit, immediate, withMode, ofType, update, checkConservation, KEY_A,
  KEY_B, refusal, stepEvents, groupCommand, inGroup, type Limits
} from './reference-harness.js'

// ---------------------------------------------------------------------------------------------
// Order groups
// ---------------------------------------------------------------------------------------------


function groupEvent(owner: string, groupId: string, action: GroupEventAction, l: Limits, triggered: boolean, timeMs: number): OrderGroupChanged {
  return {
    type: 'orderGroup', owner, groupId, action, contractsLimitMicros: l.contracts ?? 0, notionalLimitMicros: l.notional ?? 0,
    windowMs: l.windowMs ?? 5_000, freezeMs: l.freezeMs ?? 0, triggered, timeMs,
  }
}

t.test('order groups: a fill that brings the window to its limit cancels the group\'s resting orders in the same step', (t) => {
  const h = setup([ALICE, BOB])
  const mmp = { contracts: 10 * USDC }
  t.strictSame(h.run(groupCommand('create', KEY_A, 'mmp', mmp)), { result: { ok: true }, events: [groupEvent(KEY_A, 'mmp', 'created', mmp, false, h.timeMs)] })
  h.place(inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 4_500, 800), 'mmp'))
  h.place(inGroup(limit('0xa2', ALICE, M.yes, 'BUY', 4_400, 300), 'mmp'))
  h.place(inGroup(limit('0xa3', ALICE, M.yes, 'BUY', 4_300, 800), 'mmp'))
  h.place(limit('0xa4', ALICE, M.yes, 'BUY', 4_200, 800))
  t.equal(ofType(h.place(limit('0xb1', BOB, M.yes, 'SELL', 4_500, 600)).events, 'orderGroup').length, 0, '6 shares: below the limit')
  // 6 more down the book: 2 of a1 (8 in the window), 3 of a2 (11: the limit is reached, a2 filled
  // whole), so a3 is cancelled; Bob, of no group, walks on to a4, outside the group.
  const breach = h.place(limit('0xb2', BOB, M.yes, 'SELL', 4_000, 600))
  t.strictSame(stepEvents(breach.events).map((e) => e.type),
    ['orderAccepted', 'trade', 'orderUpdate', 'trade', 'orderUpdate', 'orderUpdate', 'orderGroup', 'trade', 'orderUpdate', 'orderUpdate'])
  t.strictSame(ofType(breach.events, 'trade').map((x) => [x.makerOrderId, x.sizeMicros, x.priceMicros]),
    [['0xa1', 2 * USDC, 450_000], ['0xa2', 3 * USDC, 440_000], ['0xa4', USDC, 420_000]])
  t.strictSame(ofType(breach.events, 'orderUpdate'), [
    update('0xa1', ALICE, 'MATCHED', 8 * USDC, 0, null),
    update('0xa2', ALICE, 'MATCHED', 3 * USDC, 0, null),
    update('0xa3', ALICE, 'CANCELED', 0, 0, 'order-group'),
    update('0xa4', ALICE, 'LIVE', USDC, 7 * USDC, null),
    update('0xb2', BOB, 'MATCHED', 6 * USDC, 0, null),
  ])
  const triggeredAt = h.timeMs
  t.strictSame(ofType(breach.events, 'orderGroup'), [groupEvent(KEY_A, 'mmp', 'triggered', mmp, true, triggeredAt)])
  t.equal(h.usdc(BOB), 900 * USDC + 600 * 4_500 + 200 * 4_500 + 300 * 4_400 + 100 * 4_200)
  t.equal(h.held(ALICE, 'USDC'), 700 * 4_200, 'a3\'s hold released: only a4 holds')
  // The group takes no order until it is reset (freeze 0); a reset reads no limits.
  t.strictSame(h.place(inGroup(limit('0xa5', ALICE, M.yes, 'BUY', 4_000, 100), 'mmp')).result,
    { ...refusal(Code.ORDER_GROUP_TRIGGERED, { orderGroupId: 'mmp', triggeredMs: triggeredAt }), orderId: '0xa5' })
  const reset = h.run(groupCommand('reset', KEY_A, 'mmp'))
  t.strictSame(reset, { result: { ok: true }, events: [groupEvent(KEY_A, 'mmp', 'reset', mmp, false, h.timeMs)] })
  t.match(h.place(inGroup(limit('0xa6', ALICE, M.yes, 'BUY', 4_000, 100), 'mmp')).result, { ok: true, status: 'LIVE' })
  checkConservation(t, h.summary())
  t.end()
})

t.test('order groups: the window is the last windowMs / 100 buckets of 100 ms up to the fill\'s', (t) => {
  const h = setup([ALICE, BOB])
  const w = { contracts: 10 * USDC, windowMs: 1_000 }
  h.run(groupCommand('create', KEY_A, 'w', w))
  h.place(inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 5_000, 3_000), 'w'))
  const sell = (id: string, lots: number, advanceMs: number): { result: CommandResult; events: EngineEvent[] } =>
    h.run({ kind: 'placeOrder', order: limit(id, BOB, M.yes, 'SELL', 5_000, lots) }, advanceMs)
  // The harness's times are whole seconds so far: the first sale is in some bucket B.
  t.equal(h.timeMs % 1_000, 0)
  t.equal(ofType(sell('0xb1', 600, 1_000).events, 'orderGroup').length, 0, '6 in B')
  t.equal(ofType(sell('0xb2', 400, 1_000).events, 'orderGroup').length, 0, 'B + 10: the window is B + 1 to B + 10, so 4')
  t.equal(ofType(sell('0xb3', 500, 1_000).events, 'orderGroup').length, 0, 'B + 20: B + 10 has just left it, so 5')
  const breach = sell('0xb4', 500, 999)
  // 999 ms later is bucket B + 29: B + 20 is in its window, 5 + 5 = 10.
  t.strictSame(ofType(breach.events, 'orderGroup'), [groupEvent(KEY_A, 'w', 'triggered', w, true, h.timeMs)])
  t.strictSame(ofType(breach.events, 'orderUpdate'), [
    update('0xa1', ALICE, 'LIVE', 20 * USDC, 10 * USDC, null),
    update('0xa1', ALICE, 'CANCELED', 20 * USDC, 0, 'order-group'),
    update('0xb4', BOB, 'MATCHED', 5 * USDC, 0, null),
  ])
  t.end()
})

t.test('order groups: each side counts at its own price, the maker\'s group first; a taker whose group triggers stops', (t) => {
  const h = setup([ALICE, BOB, CAROL])
  const an = { notional: 3 * USDC }
  const bn = { notional: 7 * USDC }
  h.run(groupCommand('create', KEY_A, 'an', an))
  h.run(groupCommand('create', KEY_B, 'bn', bn, BOB))
  h.place(inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 3_000, 1_000), 'an'))
  h.place(limit('0xc1', CAROL, M.yes, 'BUY', 3_000, 1_000))
  // Bob buys 15 No at 0.70 (an ask at 0.30 in Yes-space): 10 from Alice's Yes bid, a mint. Alice's
  // group counts 10 x 0.30 = 3 USDC, Bob's 10 x 0.70 = 7 USDC: both limits. Bob stops 5 short and
  // does not rest; Carol's bid is not reached.
  const r = h.place(inGroup(limit('0xb1', BOB, M.no, 'BUY', 7_000, 1_500), 'bn'))
  t.strictSame(r.result, {
    ok: true, orderId: '0xb1', status: 'CANCELED', makingMicros: 7 * USDC, takingMicros: 10 * USDC, feeMicros: 0, tradeIds: [tradeIdOf(h.seq, 0)],
  })
  t.strictSame(stepEvents(r.events).map((e) => e.type), ['orderAccepted', 'trade', 'orderUpdate', 'orderGroup', 'orderGroup', 'orderUpdate'])
  t.equal(ofType(r.events, 'trade')[0]?.matchType, 'mint')
  t.strictSame(ofType(r.events, 'orderGroup'), [
    groupEvent(KEY_A, 'an', 'triggered', an, true, h.timeMs), groupEvent(KEY_B, 'bn', 'triggered', bn, true, h.timeMs),
  ])
  t.strictSame(ofType(r.events, 'orderUpdate'), [
    update('0xa1', ALICE, 'MATCHED', 10 * USDC, 0, null), update('0xb1', BOB, 'CANCELED', 10 * USDC, 0, 'order-group'),
  ])
  t.equal(h.held(BOB, 'USDC'), 0)
  t.equal(h.usdc(BOB), 893 * USDC)
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xc1'])
  t.end()
})

t.test('order groups: a taker filled whole by the triggering fill is MATCHED; a FOK fills past its group\'s trigger', (t) => {
  const h = setup([ALICE, BOB])
  const f = { contracts: 3 * USDC }
  h.run(groupCommand('create', KEY_A, 'f', f))
  for (let i = 1; i <= 5; i++) h.place(limit(`0xb${i}`, BOB, M.yes, 'SELL', 5_000, 200))
  // 2 (2 in the window), 2 (4: the limit): it stops, 4 unfilled, and does not rest.
  const gtc = h.place(inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 5_000, 800), 'f'))
  t.strictSame(gtc.result, {
    ok: true, orderId: '0xa1', status: 'CANCELED', makingMicros: 2 * USDC, takingMicros: 4 * USDC, feeMicros: 0,
    tradeIds: [tradeIdOf(h.seq, 0), tradeIdOf(h.seq, 1)],
  })
  t.strictSame(ofType(gtc.events, 'orderUpdate').at(-1), update('0xa1', ALICE, 'CANCELED', 4 * USDC, 0, 'order-group'))
  t.equal(h.held(ALICE, 'USDC'), 0)
  h.run(groupCommand('reset', KEY_A, 'f'))
  // A FOK for 3 USDC at 0.50 buys the 6 shares left: its dry run promised them, so it goes on past
  // the trigger at 4 (its window then starts afresh: the last 2 do not reach 3 again).
  const fok = h.place(inGroup(immediate('0xa2', ALICE, M.yes, 'BUY', 3 * USDC, 6 * USDC, 'FOK'), 'f'))
  t.match(fok.result, { ok: true, status: 'MATCHED', makingMicros: 3 * USDC, takingMicros: 6 * USDC })
  t.strictSame(stepEvents(fok.events).map((e) => e.type),
    ['orderAccepted', 'trade', 'orderUpdate', 'trade', 'orderUpdate', 'orderGroup', 'trade', 'orderUpdate', 'orderUpdate'])
  h.run(groupCommand('reset', KEY_A, 'f'))
  // SPEC: filled whole by the fill that reaches the limit: no rest to cancel, so MATCHED, not CANCELED.
  h.place(limit('0xb6', BOB, M.yes, 'SELL', 5_000, 300))
  const whole = h.place(inGroup(limit('0xa3', ALICE, M.yes, 'BUY', 5_000, 300), 'f'))
  t.match(whole.result, { ok: true, status: 'MATCHED', takingMicros: 3 * USDC })
  t.strictSame(stepEvents(whole.events).map((e) => e.type), ['orderAccepted', 'trade', 'orderUpdate', 'orderGroup', 'orderUpdate'])
  t.strictSame(ofType(whole.events, 'orderUpdate').at(-1), update('0xa3', ALICE, 'MATCHED', 3 * USDC, 0, null))
  // The same for a FAK whose budget the triggering fill spends: filled (what is left buys no lot at its limit).
  h.run(groupCommand('reset', KEY_A, 'f'))
  h.place(limit('0xb7', BOB, M.yes, 'SELL', 5_000, 300))
  const fak = h.place(inGroup(immediate('0xa4', ALICE, M.yes, 'BUY', 1_504_000, 3_008_000, 'FAK'), 'f'))
  t.match(fak.result, { ok: true, status: 'MATCHED', makingMicros: 1_500_000, takingMicros: 3 * USDC })
  t.end()
})

t.test('order groups: the FOK dry run walks the makers the walk would meet: a trigger on the way pulls its group\'s orders', (t) => {
  const h = setup([ALICE, BOB, CAROL])
  const bq = { contracts: 2 * USDC }
  h.run(groupCommand('create', KEY_B, 'bq', bq, BOB))
  h.place(inGroup(limit('0xb1', BOB, M.yes, 'BUY', 5_000, 200), 'bq'))
  h.place(inGroup(limit('0xb2', BOB, M.yes, 'BUY', 5_000, 200), 'bq'))
  h.place(inGroup(limit('0xb3', BOB, M.yes, 'BUY', 4_900, 200), 'bq'))
  h.place(limit('0xc1', CAROL, M.yes, 'BUY', 4_800, 200))
  // SPEC: Alice sells 6 Yes at 0.49 or better. 6 rest at 0.49 and above, but the first 2 bring Bob's
  // group to its limit and its trigger pulls the other 4; Carol's 0.48 is below the limit. Not filled
  // entirely: refused, nothing happens (never filled in part).
  const before = h.summary()
  const refused = h.place(immediate('0xa1', ALICE, M.yes, 'SELL', 6 * USDC, 2_940_000, 'FOK'))
  t.strictSame(refused.result, { ...refusal(Code.FOK_ORDER_NOT_FILLED, null), orderId: '0xa1' })
  t.strictSame(refused.events.map((e) => e.type), ['orderRejected'])
  t.strictSame({ ...h.summary(), seq: before.seq, timeMs: before.timeMs }, before, 'nothing changed')
  // 2 only: b1 fills it, and then its fill triggers Bob's group.
  const two = h.place(immediate('0xa2', ALICE, M.yes, 'SELL', 2 * USDC, 980_000, 'FOK'))
  t.match(two.result, { ok: true, status: 'MATCHED', makingMicros: 2 * USDC, takingMicros: USDC })
  t.strictSame(ofType(two.events, 'orderUpdate'), [
    update('0xb1', BOB, 'MATCHED', 2 * USDC, 0, null),
    update('0xb2', BOB, 'CANCELED', 0, 0, 'order-group'),
    update('0xb3', BOB, 'CANCELED', 0, 0, 'order-group'),
    update('0xa2', ALICE, 'MATCHED', 2 * USDC, 0, null),
  ])
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xc1'])

  // The other way: the taker's own group pulls its own bid before the walk reaches it.
  const ag = { contracts: 2 * USDC }
  h.run(groupCommand('create', KEY_A, 'ag', ag))
  h.place(limit('0xb4', BOB, M.yes, 'BUY', 5_100, 200))
  h.place(inGroup(limit('0xa3', ALICE, M.yes, 'BUY', 5_000, 500), 'ag'))
  h.place(limit('0xb5', BOB, M.yes, 'BUY', 5_000, 200))
  // Alice sells 4 at 0.50 or better, cancel-both, in her group: 2 to Bob at 0.51 reach its limit,
  // the trigger pulls her own bid at 0.50, and the walk goes on to Bob's 0.50 behind it without
  // meeting her own order: filled. (The fills after a trigger count afresh: a second trigger.)
  const fok = h.place(inGroup(withMode(immediate('0xa4', ALICE, M.yes, 'SELL', 4 * USDC, 2 * USDC, 'FOK'), 'cancel-both'), 'ag'))
  t.match(fok.result, { ok: true, status: 'MATCHED', makingMicros: 4 * USDC, takingMicros: 200 * 5_100 + 200 * 5_000 })
  t.strictSame(stepEvents(fok.events).map((e) => e.type),
    ['orderAccepted', 'trade', 'orderUpdate', 'orderUpdate', 'orderGroup', 'trade', 'orderUpdate', 'orderGroup', 'orderUpdate'])
  t.strictSame(ofType(fok.events, 'orderUpdate').map((u) => [u.orderId, u.status, u.reason]),
    [['0xb4', 'MATCHED', null], ['0xa3', 'CANCELED', 'order-group'], ['0xb5', 'MATCHED', null], ['0xa4', 'MATCHED', null]])
  checkConservation(t, h.summary())
  t.end()
})

t.test('order groups: a freeze ends on its own; `triggered` in events says triggered and not reset', (t) => {
  const h = setup([ALICE, BOB])
  const fz = { contracts: USDC, freezeMs: 5_000 }
  h.run(groupCommand('create', KEY_A, 'fz', fz))
  h.place(inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 5_000, 200), 'fz'))
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_000, 100))
  const at = h.timeMs
  const bid = (id: string): Body => ({ kind: 'placeOrder', order: inGroup(limit(id, ALICE, M.yes, 'BUY', 5_000, 100), 'fz') })
  t.strictSame(h.run(bid('0xa2'), 4_999).result, { ...refusal(Code.ORDER_GROUP_TRIGGERED, { orderGroupId: 'fz', triggeredMs: at }), orderId: '0xa2' })
  t.match(h.run(bid('0xa3'), 1).result, { ok: true, status: 'LIVE' }, 'taking orders at the freeze\'s end')
  const updated = h.run(groupCommand('update', KEY_A, 'fz', { contracts: USDC }))
  t.strictSame(updated.events, [groupEvent(KEY_A, 'fz', 'updated', { contracts: USDC }, true, h.timeMs)])
  // SPEC: the freeze is read as it is now: no freeze (until reset) holds the group again.
  t.strictSame(h.run(bid('0xa4')).result, { ...refusal(Code.ORDER_GROUP_TRIGGERED, { orderGroupId: 'fz', triggeredMs: at }), orderId: '0xa4' })
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xa3'])
  t.end()
})

t.test('order groups: the command\'s checks, in order; none changes anything', (t) => {
  const h = setup([ALICE, BOB])
  const ok = { contracts: USDC }
  const cases: [string, Body, Rejection][] = [
    ['an empty id', groupCommand('create', KEY_A, '', ok), refusal(Code.ORDER_GROUP_INVALID, { field: 'groupId' })],
    ['an id of 65', groupCommand('create', KEY_A, 'g'.repeat(65), ok), refusal(Code.ORDER_GROUP_INVALID, { field: 'groupId' })],
    ['a tab in the id', groupCommand('reset', KEY_A, 'tab\there', ok), refusal(Code.ORDER_GROUP_INVALID, { field: 'groupId' })],
    ['an id not a string', groupCommand('delete', KEY_A, 7, ok), refusal(Code.ORDER_GROUP_INVALID, { field: 'groupId' })],
    ['no limit', groupCommand('create', KEY_A, 'g', {}), refusal(Code.ORDER_GROUP_INVALID, { field: 'contractsLimitMicros' })],
    ['a negative contracts limit, a bad window too', groupCommand('create', KEY_A, 'g', { contracts: -1, windowMs: 900 }),
      refusal(Code.ORDER_GROUP_INVALID, { field: 'contractsLimitMicros' })],
    ['a limit above an order\'s bound', groupCommand('create', KEY_A, 'g', { contracts: ORDER_AMOUNT_MICROS_MAX + 1 }),
      refusal(Code.ORDER_GROUP_INVALID, { field: 'contractsLimitMicros' })],
    ['a notional limit not whole', groupCommand('create', KEY_A, 'g', { contracts: USDC, notional: 1.5 }),
      refusal(Code.ORDER_GROUP_INVALID, { field: 'notionalLimitMicros' })],
    ['a window under a second', groupCommand('create', KEY_A, 'g', { ...ok, windowMs: 900 }), refusal(Code.ORDER_GROUP_INVALID, { field: 'windowMs' })],
    ['a window off the 100 ms grid', groupCommand('create', KEY_A, 'g', { ...ok, windowMs: 1_050 }), refusal(Code.ORDER_GROUP_INVALID, { field: 'windowMs' })],
    ['a window over a minute', groupCommand('create', KEY_A, 'g', { ...ok, windowMs: 60_100 }), refusal(Code.ORDER_GROUP_INVALID, { field: 'windowMs' })],
    ['a freeze over an hour', groupCommand('create', KEY_A, 'g', { ...ok, freezeMs: 3_600_001 }), refusal(Code.ORDER_GROUP_INVALID, { field: 'freezeMs' })],
    ['a negative freeze', groupCommand('create', KEY_A, 'g', { ...ok, freezeMs: -1 }), refusal(Code.ORDER_GROUP_INVALID, { field: 'freezeMs' })],
    ['update of an unknown group', groupCommand('update', KEY_A, 'nope', ok), refusal(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: 'nope' })],
    ['trigger of an unknown group', groupCommand('trigger', KEY_A, 'nope'), refusal(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: 'nope' })],
    ['reset of an unknown group', groupCommand('reset', KEY_A, 'nope'), refusal(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: 'nope' })],
    ['delete of an unknown group', groupCommand('delete', KEY_A, 'nope'), refusal(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: 'nope' })],
    // SPEC: an unknown action looks for the group first.
    ['an unknown action on an unknown group', groupCommand('cancel', KEY_A, 'nope'), refusal(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: 'nope' })],
  ]
  for (const [what, body, expected] of cases) t.strictSame(h.run(body), { result: expected, events: [] }, what)
  t.match(h.run(groupCommand('create', KEY_A, 'g', ok)).result, { ok: true })
  const known: [string, Body, Rejection][] = [
    ['create again, whatever the limits', groupCommand('create', KEY_A, 'g', {}), refusal(Code.ORDER_GROUP_EXISTS, { orderGroupId: 'g' })],
    ['an unknown action on a known group', groupCommand('cancel', KEY_A, 'g'), refusal(Code.ORDER_GROUP_INVALID, { field: 'action' })],
    ['an update with bad limits', groupCommand('update', KEY_A, 'g', { ...ok, windowMs: 0 }), refusal(Code.ORDER_GROUP_INVALID, { field: 'windowMs' })],
    ['another key\'s group', groupCommand('trigger', KEY_B, 'g', {}, BOB), refusal(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: 'g' })],
  ]
  for (const [what, body, expected] of known) t.strictSame(h.run(body), { result: expected, events: [] }, what)
  // 16 a key.
  for (let i = 2; i <= 16; i++) t.match(h.run(groupCommand('create', KEY_A, `g${i}`, ok)).result, { ok: true })
  t.strictSame(h.run(groupCommand('create', KEY_A, 'g17', ok)).result, refusal(Code.ORDER_GROUPS_FULL, { perKeyMax: 16 }))
  t.match(h.run(groupCommand('create', KEY_B, 'g17', ok, BOB)).result, { ok: true }, 'another key has room')
  t.match(h.run(groupCommand('delete', KEY_A, 'g16')).result, { ok: true })
  t.match(h.run(groupCommand('create', KEY_A, 'g17', ok)).result, { ok: true }, 'a delete makes room')
  t.end()
})

t.test('order groups: an update keeps the window unless its length changes; trigger by hand; delete cancels the group\'s orders', (t) => {
  const h = setup([ALICE, BOB])
  const u = { contracts: 5 * USDC }
  h.run(groupCommand('create', KEY_A, 'u', u))
  const bid = (id: string): OrderInput => inGroup(limit(id, ALICE, M.yes, 'BUY', 5_000, 2_000), 'u')
  const sell = (id: string, lots: number): EngineEvent[] => h.place(limit(id, BOB, M.yes, 'SELL', 5_000, lots)).events
  h.place(bid('0xa1'))
  sell('0xb1', 300)
  // Lowered to 4, the same window: the 3 stay in it, and 1 more reaches 4. (No fill, no trigger.)
  t.strictSame(h.run(groupCommand('update', KEY_A, 'u', { contracts: 4 * USDC })).events,
    [groupEvent(KEY_A, 'u', 'updated', { contracts: 4 * USDC }, false, h.timeMs)])
  t.strictSame(ofType(sell('0xb2', 100), 'orderGroup').map((e) => e.action), ['triggered'])
  h.run(groupCommand('reset', KEY_A, 'u'))
  h.place(bid('0xa2'))
  sell('0xb3', 300)
  // A new window length starts an empty window: 1 more is 1, then 3 more are 4.
  h.run(groupCommand('update', KEY_A, 'u', { contracts: 4 * USDC, windowMs: 6_000 }))
  t.equal(ofType(sell('0xb4', 100), 'orderGroup').length, 0)
  t.strictSame(ofType(sell('0xb5', 300), 'orderGroup').map((e) => e.action), ['triggered'])
  // By hand: its resting orders are cancelled, then its event; a trigger of a triggered group too.
  const limits = { contracts: 4 * USDC, windowMs: 6_000 }
  h.run(groupCommand('reset', KEY_A, 'u'))
  h.place(bid('0xa3'))
  h.place(bid('0xa4'))
  const manual = h.run(groupCommand('trigger', KEY_A, 'u'))
  t.strictSame(stepEvents(manual.events), [
    update('0xa3', ALICE, 'CANCELED', 0, 0, 'order-group'), update('0xa4', ALICE, 'CANCELED', 0, 0, 'order-group'),
    groupEvent(KEY_A, 'u', 'triggered', limits, true, h.timeMs),
  ])
  t.strictSame(h.run(groupCommand('trigger', KEY_A, 'u')).events, [groupEvent(KEY_A, 'u', 'triggered', limits, true, h.timeMs)])
  h.run(groupCommand('reset', KEY_A, 'u'))
  h.place(bid('0xa5'))
  const deleted = h.run(groupCommand('delete', KEY_A, 'u'))
  t.strictSame(stepEvents(deleted.events), [update('0xa5', ALICE, 'CANCELED', 0, 0, 'order-group'), groupEvent(KEY_A, 'u', 'deleted', limits, false, h.timeMs)])
  t.strictSame(h.place(bid('0xa6')).result, { ...refusal(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: 'u' }), orderId: '0xa6' })
  // Created again, it is a new group: empty window, not triggered.
  t.strictSame(h.run(groupCommand('create', KEY_A, 'u', u)).events, [groupEvent(KEY_A, 'u', 'created', u, false, h.timeMs)])
  t.match(h.place(bid('0xa7')).result, { ok: true, status: 'LIVE' })
  t.equal(h.held(ALICE, 'USDC'), 2_000 * 5_000)
  t.end()
})

t.test('order groups: an order\'s group id: its shape at step 1 (after the mode), the group after the client order id, before the token', (t) => {
  const h = setup([ALICE, BOB])
  h.run(groupCommand('create', KEY_A, 'mmp', { contracts: 100 * USDC }))
  const payload = (id: string, field: string): OrderRejection => ({ ...refusal(Code.INVALID_ORDER_PAYLOAD, { field }), orderId: id })
  t.strictSame(h.place(inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), 'g'.repeat(65))).result, payload('0xa1', 'orderGroupId'))
  t.strictSame(h.place(inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), 'caf\u00e9')).result, payload('0xa1', 'orderGroupId'))
  t.strictSame(h.place(inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), 7)).result, payload('0xa1', 'orderGroupId'))
  t.strictSame(h.place(withMode(inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), 7), 'none')).result, payload('0xa1', 'selfTradePrevention'))
  // An unknown group on an unknown token: the group is checked first.
  t.strictSame(h.place({ ...inGroup(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), 'nope'), tokenId: '999' }).result,
    { ...refusal(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: 'nope' }), orderId: '0xa1' })
  t.strictSame(h.place(inGroup(limit('0xb1', BOB, M.yes, 'BUY', 4_000, 100), 'mmp')).result,
    { ...refusal(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: 'mmp' }), orderId: '0xb1' }, 'another key\'s group')
  // The duplicate id and the client order id come first.
  h.place({ ...limit('0xa2', ALICE, M.yes, 'BUY', 4_000, 100), clientOrderId: 'c1' })
  t.match(h.place(inGroup(limit('0xa2', ALICE, M.yes, 'BUY', 4_000, 100), 'nope')).result, { ok: false, code: 'INVALID_ORDER_DUPLICATED' })
  t.match(h.place({ ...inGroup(limit('0xa3', ALICE, M.yes, 'BUY', 4_000, 100), 'nope'), clientOrderId: 'c1' }).result,
    { ok: false, code: 'CLIENT_ORDER_ID_DUPLICATED' })
  // '' is no group.
  t.match(h.place(inGroup(limit('0xa4', ALICE, M.yes, 'BUY', 4_000, 100), '')).result, { ok: true, status: 'LIVE' })
  t.end()
})
