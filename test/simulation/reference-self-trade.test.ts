/**
 * The reference model alone, self-trade prevention: each mode (cancel-maker, cancel-taker,
 * cancel-both) in a walk, in the FOK dry run and with FAK; a malformed mode; a batch's and a
 * cancel-replace's own modes. Numbers computed by hand from docs/engine.md.
 */
import t from 'tap'
import type { OrderInput } from '../../src/engine/command.js'
import { CODE_MESSAGES } from '../../src/engine/codes.js'
import { tradeIdOf } from '../../src/engine/ids.js'
import {
  ALICE, BOB, M, USDC, setup, limit, immediate, withMode, ofType, update, checkConservation
} from './reference-harness.js'

t.test('self-trade prevention cancels the resting order and walks on', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xa1', ALICE, M.yes, 'SELL', 5_000, 1_000))
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_100, 1_000))
  const { result, events } = h.place(limit('0xa2', ALICE, M.yes, 'BUY', 5_200, 500))
  t.strictSame(events.slice(0, 5).map((e) => e.type), ['orderAccepted', 'orderUpdate', 'trade', 'orderUpdate', 'orderUpdate'])
  t.strictSame(events[1], update('0xa1', ALICE, 'CANCELED', 0, 0, 'self-trade'))
  t.match(events[2], { makerOrderId: '0xb1', priceMicros: 510_000, sizeMicros: 5 * USDC })
  t.match(result, { status: 'MATCHED', makingMicros: 2_550_000 })
  t.equal(h.held(ALICE, M.yes), 0, 'the cancelled ask released its shares')
  // A taker with nothing left to take stops before its own order further down the book:
  // asks are Bob's 5 shares at 0.51, then Alice's at 0.53; Alice buys exactly Bob's 5.
  h.place(limit('0xa3', ALICE, M.yes, 'SELL', 5_300, 1_000))
  const again = h.place(limit('0xa4', ALICE, M.yes, 'BUY', 5_300, 500))
  t.match(again.result, { status: 'MATCHED', makingMicros: 2_550_000 })
  t.notOk(ofType(again.events, 'orderUpdate').some((u) => u.reason === 'self-trade'))
  t.equal(h.summary().openOrders.map((o) => o.orderId).join(), '0xa3')
  t.end()
})

t.test('self-trade prevention, cancel-maker named: as absent, the own order is cancelled and the walk goes on', (t) => {
  const h = setup([ALICE, BOB])
  // Asks: Bob 10 Yes at 0.50, Alice 10 at 0.51 (placed with cancel-taker: a resting order's mode
  // is moot), Bob 10 at 0.52.
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_000, 1_000))
  h.place(limit('0xa1', ALICE, M.yes, 'SELL', 5_100, 1_000, { stp: 'cancel-taker' }))
  h.place(limit('0xb2', BOB, M.yes, 'SELL', 5_200, 1_000))
  // Alice bids 0.53 for 25: 10 at 0.50 (5 USDC), her own ask cancelled, 10 at 0.52 (5.20 USDC),
  // and the last 5 rest at 0.53, holding 2.65 USDC.
  const { result, events } = h.place(limit('0xa2', ALICE, M.yes, 'BUY', 5_300, 2_500, { stp: 'cancel-maker' }))
  t.strictSame(result, {
    ok: true, orderId: '0xa2', status: 'LIVE', makingMicros: 10_200_000, takingMicros: 20 * USDC, feeMicros: 0,
    tradeIds: [tradeIdOf(h.seq, 0), tradeIdOf(h.seq, 1)],
  })
  t.strictSame(events.slice(0, 8).map((e) => e.type),
    ['orderAccepted', 'trade', 'orderUpdate', 'orderUpdate', 'trade', 'orderUpdate', 'orderUpdate', 'balance'])
  t.strictSame(ofType(events, 'orderUpdate'), [
    update('0xb1', BOB, 'MATCHED', 10 * USDC, 0, null),
    update('0xa1', ALICE, 'CANCELED', 0, 0, 'self-trade'),
    update('0xb2', BOB, 'MATCHED', 10 * USDC, 0, null),
    update('0xa2', ALICE, 'LIVE', 20 * USDC, 5 * USDC, null),
  ])
  t.match(ofType(events, 'trade'), [{ makerOrderId: '0xb1', priceMicros: 500_000 }, { makerOrderId: '0xb2', priceMicros: 520_000 }])
  t.equal(h.usdc(ALICE), 889_800_000)
  t.equal(h.held(ALICE, 'USDC'), 2_650_000)
  t.equal(h.held(ALICE, M.yes), 0, 'the cancelled ask released its shares')
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xa2'])
  checkConservation(t, h.summary())
  t.end()
})

t.test('self-trade prevention, cancel-taker: the walk stops at the own order, which stays; the rest of the taker is cancelled', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_000, 1_000))
  h.place(limit('0xa1', ALICE, M.yes, 'SELL', 5_100, 1_000))
  h.place(limit('0xb2', BOB, M.yes, 'SELL', 5_200, 1_000))
  // Alice's GTC bids 0.53 for 25: 10 at 0.50 (5 USDC), then her own ask: she stops there. The 15
  // left do not rest: the order ends CANCELED, 10 matched, and holds nothing.
  const { result, events } = h.place(limit('0xa2', ALICE, M.yes, 'BUY', 5_300, 2_500, { stp: 'cancel-taker' }))
  t.strictSame(result, {
    ok: true, orderId: '0xa2', status: 'CANCELED', makingMicros: 5 * USDC, takingMicros: 10 * USDC, feeMicros: 0,
    tradeIds: [tradeIdOf(h.seq, 0)],
  })
  t.strictSame(events.slice(0, 4).map((e) => e.type), ['orderAccepted', 'trade', 'orderUpdate', 'orderUpdate'])
  t.strictSame(events.slice(2), [
    update('0xb1', BOB, 'MATCHED', 10 * USDC, 0, null),
    update('0xa2', ALICE, 'CANCELED', 10 * USDC, 0, 'self-trade'),
    { type: 'balance', address: ALICE, asset: 'USDC', balanceMicros: 895 * USDC, heldMicros: 0 },
    { type: 'balance', address: ALICE, asset: M.yes, balanceMicros: 110 * USDC, heldMicros: 10 * USDC },
    { type: 'balance', address: BOB, asset: 'USDC', balanceMicros: 905 * USDC, heldMicros: 0 },
    { type: 'balance', address: BOB, asset: M.yes, balanceMicros: 90 * USDC, heldMicros: 10 * USDC },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 0 },
  ])
  t.strictSame(h.summary().openOrders.map((o) => [o.orderId, o.remainingMicros]), [['0xa1', 10 * USDC], ['0xb2', 10 * USDC]])
  t.match(h.summary().orderStatuses.find((o) => o.orderId === '0xa2'), { status: 'CANCELED' })
  // Its own order first: nothing fills, nothing else changes, not even a balance.
  const first = h.place(limit('0xa3', ALICE, M.yes, 'BUY', 5_300, 500, { stp: 'cancel-taker' }))
  t.strictSame(first.result, {
    ok: true, orderId: '0xa3', status: 'CANCELED', makingMicros: 0, takingMicros: 0, feeMicros: 0, tradeIds: [],
  })
  t.strictSame(first.events.map((e) => e.type), ['orderAccepted', 'orderUpdate'])
  t.strictSame(first.events[1], update('0xa3', ALICE, 'CANCELED', 0, 0, 'self-trade'))
  // A taker that fills entirely before its own order never meets it: MATCHED, no self-trade.
  h.place(limit('0xb3', BOB, M.yes, 'SELL', 5_000, 300))
  const filled = h.place(limit('0xa4', ALICE, M.yes, 'BUY', 5_300, 300, { stp: 'cancel-taker' }))
  t.match(filled.result, { status: 'MATCHED', makingMicros: 1_500_000, takingMicros: 3 * USDC })
  t.notOk(ofType(filled.events, 'orderUpdate').some((u) => u.reason === 'self-trade'))
  checkConservation(t, h.summary())
  t.end()
})

t.test('self-trade prevention, cancel-both: the own order is cancelled and the walk stops there, the rest of the taker cancelled', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_000, 1_000))
  h.place(limit('0xa1', ALICE, M.yes, 'SELL', 5_100, 1_000))
  h.place(limit('0xb2', BOB, M.yes, 'SELL', 5_200, 1_000))
  const { result, events } = h.place(limit('0xa2', ALICE, M.yes, 'BUY', 5_300, 2_500, { stp: 'cancel-both' }))
  t.strictSame(result, {
    ok: true, orderId: '0xa2', status: 'CANCELED', makingMicros: 5 * USDC, takingMicros: 10 * USDC, feeMicros: 0,
    tradeIds: [tradeIdOf(h.seq, 0)],
  })
  // The maker's cancel comes before the taker's.
  t.strictSame(events.slice(2), [
    update('0xb1', BOB, 'MATCHED', 10 * USDC, 0, null),
    update('0xa1', ALICE, 'CANCELED', 0, 0, 'self-trade'),
    update('0xa2', ALICE, 'CANCELED', 10 * USDC, 0, 'self-trade'),
    { type: 'balance', address: ALICE, asset: 'USDC', balanceMicros: 895 * USDC, heldMicros: 0 },
    { type: 'balance', address: ALICE, asset: M.yes, balanceMicros: 110 * USDC, heldMicros: 0 },
    { type: 'balance', address: BOB, asset: 'USDC', balanceMicros: 905 * USDC, heldMicros: 0 },
    { type: 'balance', address: BOB, asset: M.yes, balanceMicros: 90 * USDC, heldMicros: 10 * USDC },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 0 },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'SELL', priceMicros: 510_000, sizeMicros: 0 },
  ])
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xb2'], "Bob's ask beyond is untouched")
  // The No book is the same unified book: Alice's BUY No at 0.50 is a Yes-space ask at 0.50,
  // ahead of Bob's at 0.52; her SELL No at 0.45 (a Yes-space bid at 0.55) meets it first and both
  // are cancelled, nothing filled.
  h.place(limit('0xa3', ALICE, M.no, 'BUY', 5_000, 100))
  const no = h.place(limit('0xa4', ALICE, M.no, 'SELL', 4_500, 100, { stp: 'cancel-both' }))
  t.match(no.result, { status: 'CANCELED', makingMicros: 0, takingMicros: 0, tradeIds: [] })
  t.strictSame(ofType(no.events, 'orderUpdate'), [
    update('0xa3', ALICE, 'CANCELED', 0, 0, 'self-trade'),
    update('0xa4', ALICE, 'CANCELED', 0, 0, 'self-trade'),
  ])
  t.equal(h.held(ALICE, 'USDC'), 0)
  t.equal(h.held(ALICE, M.no), 0)
  checkConservation(t, h.summary())
  t.end()
})

t.test('self-trade prevention and FOK: the dry run stops at an own order with cancel-taker and cancel-both', (t) => {
  const h = setup([ALICE, BOB])
  // Bids: Bob 10 Yes at 0.50, Alice 10 at 0.49, Bob 10 at 0.48.
  h.place(limit('0xb1', BOB, M.yes, 'BUY', 5_000, 1_000))
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_900, 1_000))
  h.place(limit('0xb2', BOB, M.yes, 'BUY', 4_800, 1_000))
  // Alice sells 20 Yes at 0.48 or better: 10 from Bob at 0.50, then her own bid.
  const sell20 = (id: string): OrderInput => immediate(id, ALICE, M.yes, 'SELL', 20 * USDC, 9_600_000, 'FOK')
  const before = h.summary()
  for (const mode of ['cancel-taker', 'cancel-both'] as const) {
    const refused = h.place(withMode(sell20(`0xa-${mode}`), mode))
    t.strictSame(refused.result, {
      ok: false, code: 'FOK_ORDER_NOT_FILLED', message: CODE_MESSAGES.FOK_ORDER_NOT_FILLED, context: null, orderId: `0xa-${mode}`,
    }, `${mode}: not filled`)
    t.strictSame(refused.events.map((e) => e.type), ['orderRejected'], `${mode}: nothing happens, not even the own bid's cancel`)
  }
  t.strictSame({ ...h.summary(), seq: before.seq, timeMs: before.timeMs }, before, 'nothing changed')
  // 10 only: filled at Bob's bid before the walk reaches the own one, which stays.
  const sell10 = h.place(withMode(immediate('0xa2', ALICE, M.yes, 'SELL', 10 * USDC, 4_800_000, 'FOK'), 'cancel-taker'))
  t.match(sell10.result, { status: 'MATCHED', makingMicros: 10 * USDC, takingMicros: 5 * USDC })
  t.notOk(ofType(sell10.events, 'orderUpdate').some((u) => u.reason === 'self-trade'))
  // cancel-maker skips the own bid in the dry run (10 at 0.48 from Bob fill it) and cancels it in the walk.
  const skip = h.place(withMode(immediate('0xa3', ALICE, M.yes, 'SELL', 10 * USDC, 4_800_000, 'FOK'), 'cancel-maker'))
  t.match(skip.result, { status: 'MATCHED', makingMicros: 10 * USDC, takingMicros: 4_800_000 })
  t.strictSame(ofType(skip.events, 'orderUpdate'), [
    update('0xa1', ALICE, 'CANCELED', 0, 0, 'self-trade'),
    update('0xb2', BOB, 'MATCHED', 10 * USDC, 0, null),
    update('0xa3', ALICE, 'MATCHED', 10 * USDC, 0, null),
  ])

  // A FOK BUY for a budget. Asks: Bob 10 Yes at 0.50, Alice 10 at 0.55.
  h.place(limit('0xb3', BOB, M.yes, 'SELL', 5_000, 1_000))
  h.place(limit('0xa4', ALICE, M.yes, 'SELL', 5_500, 1_000))
  // 5.004 USDC at a limit of 0.60: Bob's 10 cost 5; the 0.004 left cannot buy a lot at 0.55, so
  // the walk stops before her ask, filled (0.004 < 0.60): accepted, and her ask stays.
  const stop = h.place(withMode(immediate('0xa5', ALICE, M.yes, 'BUY', 5_004_000, 8_340_000, 'FOK'), 'cancel-both'))
  t.match(stop.result, { ok: true, status: 'MATCHED', makingMicros: 5 * USDC, takingMicros: 10 * USDC })
  t.notOk(ofType(stop.events, 'orderUpdate').some((u) => u.reason === 'self-trade'))
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xa4'])
  // SPEC: 5.0057 USDC at a limit of 0.60 (5.0057 / 8.342833 = 0.6000002): Bob's 10 cost 5; the
  // 0.0057 left cannot buy a lot at 0.60, so the budget alone would count as filled, but it can
  // buy one at her own 0.55: the walk would reach her ask and stop there, the FOK ending
  // CANCELED (self-trade) with 10 bought. That is not filled entirely: refused.
  h.place(limit('0xb4', BOB, M.yes, 'SELL', 5_000, 1_000))
  const reach = h.place(withMode(immediate('0xa6', ALICE, M.yes, 'BUY', 5_005_700, 8_342_833, 'FOK'), 'cancel-taker'))
  t.match(reach.result, { ok: false, code: 'FOK_ORDER_NOT_FILLED' })
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xa4', '0xb4'])
  checkConservation(t, h.summary())
  t.end()
})

t.test('self-trade prevention and FAK: with cancel-taker and cancel-both an own order first is no match', (t) => {
  const h = setup([ALICE, BOB])
  // Bids: Alice 10 Yes at 0.50, then Bob 10 at 0.49.
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 5_000, 1_000))
  h.place(limit('0xb1', BOB, M.yes, 'BUY', 4_900, 1_000))
  const sell5 = (id: string): OrderInput => immediate(id, ALICE, M.yes, 'SELL', 5 * USDC, 2_250_000, 'FAK')
  const before = h.summary()
  for (const mode of ['cancel-taker', 'cancel-both'] as const) {
    const refused = h.place(withMode(sell5(`0xa-${mode}`), mode))
    t.strictSame(refused.result, {
      ok: false, code: 'FAK_ORDER_NOT_FILLED', message: CODE_MESSAGES.FAK_ORDER_NOT_FILLED, context: null, orderId: `0xa-${mode}`,
    }, `${mode}: no match`)
    t.strictSame(refused.events.map((e) => e.type), ['orderRejected'])
  }
  t.strictSame({ ...h.summary(), seq: before.seq, timeMs: before.timeMs }, before, 'nothing changed')
  // Absent (cancel-maker): Bob's bid is a match; the walk cancels Alice's and sells 5 to Bob.
  const walkOn = h.place(sell5('0xa2'))
  t.match(walkOn.result, { status: 'MATCHED', makingMicros: 5 * USDC, takingMicros: 2_450_000 })
  t.strictSame(ofType(walkOn.events, 'orderUpdate'), [
    update('0xa1', ALICE, 'CANCELED', 0, 0, 'self-trade'),
    update('0xb1', BOB, 'LIVE', 5 * USDC, 5 * USDC, null),
    update('0xa2', ALICE, 'MATCHED', 5 * USDC, 0, null),
  ])
  // Bids now: Bob 5 at 0.49, Alice 10 at 0.48. A FAK of 15 with cancel-taker: a match (Bob's
  // first), 5 sold, then her own bid stops it: CANCELED for self-trade, not 'unfilled'.
  h.place(limit('0xa3', ALICE, M.yes, 'BUY', 4_800, 1_000))
  const sell15 = (id: string): OrderInput => immediate(id, ALICE, M.yes, 'SELL', 15 * USDC, 6_750_000, 'FAK')
  const stopped = h.place(withMode(sell15('0xa4'), 'cancel-taker'))
  t.strictSame(stopped.result, {
    ok: true, orderId: '0xa4', status: 'CANCELED', makingMicros: 5 * USDC, takingMicros: 2_450_000, feeMicros: 0,
    tradeIds: [tradeIdOf(h.seq, 0)],
  })
  t.strictSame(ofType(stopped.events, 'orderUpdate'), [
    update('0xb1', BOB, 'MATCHED', 10 * USDC, 0, null),
    update('0xa4', ALICE, 'CANCELED', 5 * USDC, 0, 'self-trade'),
  ])
  // Only her own bid left: no match for cancel-maker either (it would only be cancelled), and
  // nothing happens to it.
  const alone = h.place(withMode(sell5('0xa5'), 'cancel-maker'))
  t.match(alone.result, { ok: false, code: 'FAK_ORDER_NOT_FILLED' })
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xa3'])
  // cancel-both after a fill: Bob bids 5 at 0.49 again; 5 sold, her bid cancelled, the rest too.
  h.place(limit('0xb2', BOB, M.yes, 'BUY', 4_900, 500))
  const both = h.place(withMode(sell15('0xa6'), 'cancel-both'))
  t.match(both.result, { status: 'CANCELED', makingMicros: 5 * USDC, takingMicros: 2_450_000 })
  t.strictSame(ofType(both.events, 'orderUpdate'), [
    update('0xb2', BOB, 'MATCHED', 5 * USDC, 0, null),
    update('0xa3', ALICE, 'CANCELED', 0, 0, 'self-trade'),
    update('0xa6', ALICE, 'CANCELED', 5 * USDC, 0, 'self-trade'),
  ])
  t.strictSame(h.summary().openOrders, [])
  checkConservation(t, h.summary())
  t.end()
})

t.test('self-trade prevention: a malformed mode is refused at shape, after the client order id', (t) => {
  const h = setup([ALICE, BOB])
  for (const bad of ['cancel-oldest', 'CANCEL-TAKER', 'none', '', 0, 1, null, true, ['cancel-maker']]) {
    const { result, events } = h.place(withMode(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), bad))
    t.strictSame(result, {
      ok: false, code: 'INVALID_ORDER_PAYLOAD', message: CODE_MESSAGES.INVALID_ORDER_PAYLOAD,
      context: { field: 'selfTradePrevention' }, orderId: '0xa1',
    }, `${JSON.stringify(bad)} refused`)
    t.strictSame(events, [{ type: 'orderRejected', orderId: '0xa1', maker: ALICE, code: 'INVALID_ORDER_PAYLOAD', message: CODE_MESSAGES.INVALID_ORDER_PAYLOAD }])
  }
  // The client order id is checked first; the shape before the duplicate id.
  const both = { ...withMode(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), 'none'), clientOrderId: 'tab\there' }
  t.match(h.place(both).result, { code: 'INVALID_ORDER_PAYLOAD', context: { field: 'clientOrderId' } })
  // An explicit undefined is as absent.
  t.match(h.place(withMode(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), undefined)).result, { ok: true, status: 'LIVE' })
  t.match(h.place(withMode(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), 'x')).result,
    { code: 'INVALID_ORDER_PAYLOAD', context: { field: 'selfTradePrevention' } })
  t.match(h.place(withMode(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100), 'cancel-both')).result,
    { code: 'INVALID_ORDER_DUPLICATED', context: { orderId: '0xa1', status: 'LIVE' } })
  // In a batch each order is judged alone; a cancel-replace's new order is refused with its terms.
  const batch = h.run({ kind: 'placeOrders', orders: [
    withMode(limit('0xa2', ALICE, M.yes, 'BUY', 4_000, 100), 0),
    withMode(limit('0xa3', ALICE, M.yes, 'BUY', 4_000, 100), 'cancel-taker'),
  ] })
  t.match(batch.result, { ok: true, results: [
    { ok: false, code: 'INVALID_ORDER_PAYLOAD', context: { field: 'selfTradePrevention' }, orderId: '0xa2' },
    { ok: true, orderId: '0xa3', status: 'LIVE' },
  ] })
  const replace = h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa1', order: withMode(limit('0xa4', ALICE, M.yes, 'BUY', 4_100, 100), 'Cancel-Maker') })
  t.match(replace.result, { ok: false, code: 'INVALID_ORDER_PAYLOAD', context: { field: 'selfTradePrevention' }, orderId: '0xa4' })
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xa1', '0xa3'], 'the old order stays')
  t.end()
})

t.test('self-trade prevention: each order of a batch and a cancel-replace\'s new order carry their own mode', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xa1', ALICE, M.yes, 'SELL', 5_000, 1_000))
  h.place(limit('0xa2', ALICE, M.yes, 'SELL', 5_100, 1_000))
  // The first bid stops at her ask at 0.50 (which stays); the second cancels both asks and rests.
  const batch = h.run({ kind: 'placeOrders', orders: [
    limit('0xa3', ALICE, M.yes, 'BUY', 5_100, 500, { stp: 'cancel-taker' }),
    limit('0xa4', ALICE, M.yes, 'BUY', 5_100, 500),
  ] })
  t.match(batch.result, { ok: true, results: [
    { ok: true, orderId: '0xa3', status: 'CANCELED', makingMicros: 0 },
    { ok: true, orderId: '0xa4', status: 'LIVE', makingMicros: 0 },
  ] })
  t.strictSame(ofType(batch.events, 'orderUpdate'), [
    update('0xa3', ALICE, 'CANCELED', 0, 0, 'self-trade'),
    update('0xa1', ALICE, 'CANCELED', 0, 0, 'self-trade'),
    update('0xa2', ALICE, 'CANCELED', 0, 0, 'self-trade'),
  ])
  // Her bid at 0.51 replaced by one at 0.53 with cancel-both: it meets her new ask at 0.52.
  h.place(limit('0xa5', ALICE, M.yes, 'SELL', 5_200, 1_000))
  const replace = h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa4',
    order: limit('0xa6', ALICE, M.yes, 'BUY', 5_300, 500, { stp: 'cancel-both' }) })
  t.strictSame(replace.result, {
    ok: true, canceledOrderId: '0xa4', canceledRemainingMicros: 5 * USDC,
    placed: { ok: true, orderId: '0xa6', status: 'CANCELED', makingMicros: 0, takingMicros: 0, feeMicros: 0, tradeIds: [] },
  })
  t.strictSame(ofType(replace.events, 'orderUpdate'), [
    update('0xa4', ALICE, 'CANCELED', 0, 0, 'replaced'),
    update('0xa5', ALICE, 'CANCELED', 0, 0, 'self-trade'),
    update('0xa6', ALICE, 'CANCELED', 0, 0, 'self-trade'),
  ])
  t.strictSame(h.summary().openOrders, [])
  t.equal(h.held(ALICE, 'USDC'), 0)
  t.equal(h.held(ALICE, M.yes), 0)
  t.end()
})
