/**
 * The reference model alone, amend and cancel-replace: an order lowered keeping its place, its hold
 * shrinking; the refusals in their order; a replace's old order cancelled and new one placed, or
 * not, by which check refused it.
 */
import t from 'tap'
import type { OrderInput, Side } from '../../src/engine/command.js'
import type { StateSummary } from '../../src/engine/summary.js'
import { CODE_MESSAGES } from '../../src/engine/codes.js'
import { ORDER_AMOUNT_MICROS_MAX } from '../../src/engine/limits.js'
import { tradeIdOf } from '../../src/engine/ids.js'
import {
  type Body, ALICE, BOB, CAROL, ALICE_SIGNER, M, USDC, Harness, setup, limit, immediate, ofType, update,
  checkConservation
} from './reference-harness.js'

// ---------------------------------------------------------------------------------------------
// Amend and cancel-replace
// ---------------------------------------------------------------------------------------------

/** The summary without the stamp, to compare states across commands. */
function state(h: Harness): StateSummary {
  return { ...h.summary(), seq: 0, timeMs: 0 }
}

t.test('amend: lowers an order keeping its place in the queue; its hold shrinks to match', (t) => {
  const h = setup([ALICE, BOB, CAROL])
  // Alice, then Carol, bid 0.40 for 10 Yes: Alice is first at the level.
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 1_000))
  h.place(limit('0xc1', CAROL, M.yes, 'BUY', 4_000, 1_000))
  t.equal(h.held(ALICE, 'USDC'), 4 * USDC)
  const amended = h.run({ kind: 'amendOrder', address: ALICE, orderId: '0xa1', newSizeMicros: 6 * USDC, reduceByMicros: 0 })
  t.strictSame(amended.result, { ok: true, orderId: '0xa1', sizeMatchedMicros: 0, remainingMicros: 6 * USDC, reducedByMicros: 4 * USDC })
  t.strictSame(amended.events, [
    update('0xa1', ALICE, 'LIVE', 0, 6 * USDC, 'amended'),
    { type: 'balance', address: ALICE, asset: 'USDC', balanceMicros: 900 * USDC, heldMicros: 2_400_000 },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 16 * USDC },
  ])
  // By a reduction, from what rests now; her signer may amend too.
  const by = h.run({ kind: 'amendOrder', address: ALICE, orderId: '0xa1', newSizeMicros: 0, reduceByMicros: USDC })
  t.strictSame(by.result, { ok: true, orderId: '0xa1', sizeMatchedMicros: 0, remainingMicros: 5 * USDC, reducedByMicros: USDC })
  t.equal(h.held(ALICE, 'USDC'), 2 * USDC)
  // Bob sells 7: Alice's 5 first (she kept her place), then 2 of Carol's.
  const sale = h.place(limit('0xb1', BOB, M.yes, 'SELL', 4_000, 700))
  t.strictSame(ofType(sale.events, 'trade').map((x) => [x.makerOrderId, x.sizeMicros]), [['0xa1', 5 * USDC], ['0xc1', 2 * USDC]])
  t.equal(h.usdc(ALICE), 898 * USDC)
  t.equal(h.held(ALICE, 'USDC'), 0)
  t.match(h.summary().openOrders, [{ orderId: '0xc1', remainingMicros: 8 * USDC, heldMicros: 3_200_000 }])
  checkConservation(t, h.summary())
  t.end()
})

t.test('amend: a SELL gives back shares; a partly filled order amends what rests; the signer may amend', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 6_000, 1_000, { signer: CAROL }))
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 6_000, 400))
  const { result, events } = h.run({ kind: 'amendOrder', address: CAROL, orderId: '0xb1', newSizeMicros: 2 * USDC, reduceByMicros: 0 })
  t.strictSame(result, { ok: true, orderId: '0xb1', sizeMatchedMicros: 4 * USDC, remainingMicros: 2 * USDC, reducedByMicros: 4 * USDC })
  t.strictSame(events, [
    update('0xb1', BOB, 'LIVE', 4 * USDC, 2 * USDC, 'amended'),
    { type: 'balance', address: BOB, asset: M.yes, balanceMicros: 96 * USDC, heldMicros: 2 * USDC },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 2 * USDC },
  ])
  // A paused market's orders may be lowered too (an amend, like a cancel, only takes size off).
  h.run({ kind: 'setMarketStatus', marketId: M.id, status: 'Paused' })
  t.match(h.run({ kind: 'amendOrder', address: BOB, orderId: '0xb1', newSizeMicros: 0, reduceByMicros: USDC }).result,
    { ok: true, remainingMicros: USDC, reducedByMicros: USDC })
  t.end()
})

t.test('amend: refusals, sizes first, then the order, then the new size; none changes anything', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 1_000, { signer: ALICE_SIGNER }))
  h.place(limit('0xa2', ALICE, M.yes, 'SELL', 6_000, 100))
  h.place(limit('0xb1', BOB, M.yes, 'BUY', 6_000, 100)) // fills 0xa2
  h.place(limit('0xa3', ALICE, M.yes, 'BUY', 3_000, 100))
  h.run({ kind: 'cancelOrder', address: ALICE, orderId: '0xa3' })
  const sizes = (newSizeMicros: unknown, reduceByMicros: unknown) => ({ newSizeMicros: String(newSizeMicros), reduceByMicros: String(reduceByMicros) })
  const cases: [string, string, string, unknown, unknown, string, Record<string, unknown>][] = [
    ['both sizes', ALICE, '0xa1', 5 * USDC, USDC, 'AMEND_SIZE_INVALID', sizes(5 * USDC, USDC)],
    ['neither size', ALICE, '0xa1', 0, 0, 'AMEND_SIZE_INVALID', sizes(0, 0)],
    ['not a whole lot', ALICE, '0xa1', 5_000_001, 0, 'AMEND_SIZE_INVALID', sizes(5_000_001, 0)],
    ['negative', ALICE, '0xa1', 0, -USDC, 'AMEND_SIZE_INVALID', sizes(0, -USDC)],
    ['not a number', ALICE, '0xa1', Number.NaN, 0, 'AMEND_SIZE_INVALID', { newSizeMicros: 'NaN', reduceByMicros: '0' }],
    ['a string', ALICE, '0xa1', '10000', 0, 'AMEND_SIZE_INVALID', sizes('10000', 0)],
    ['beyond an order', ALICE, '0xa1', ORDER_AMOUNT_MICROS_MAX + 10_000, 0, 'AMEND_SIZE_INVALID', sizes(ORDER_AMOUNT_MICROS_MAX + 10_000, 0)],
    ['sizes before the order', ALICE, '0xnone', USDC, USDC, 'AMEND_SIZE_INVALID', sizes(USDC, USDC)],
    ['an unknown order', ALICE, '0xnone', USDC, 0, 'ORDER_NOT_FOUND', { orderId: '0xnone' }],
    ["another account's order", BOB, '0xa1', USDC, 0, 'ORDER_NOT_FOUND', { orderId: '0xa1' }],
    ['a matched order', ALICE, '0xa2', USDC, 0, 'ORDER_ALREADY_MATCHED', { orderId: '0xa2' }],
    ['a cancelled order', ALICE, '0xa3', USDC, 0, 'ORDER_ALREADY_CANCELED', { orderId: '0xa3' }],
    ["the signer, an ended order (remembered by maker only)", ALICE_SIGNER, '0xa3', USDC, 0, 'ORDER_NOT_FOUND', { orderId: '0xa3' }],
    ['the same size', ALICE, '0xa1', 10 * USDC, 0, 'AMEND_NOT_REDUCING', { remainingMicros: 10 * USDC, requestedMicros: 10 * USDC }],
    ['a larger size', ALICE, '0xa1', 11 * USDC, 0, 'AMEND_NOT_REDUCING', { remainingMicros: 10 * USDC, requestedMicros: 11 * USDC }],
    ['by all of it', ALICE, '0xa1', 0, 10 * USDC, 'AMEND_NOT_REDUCING', { remainingMicros: 10 * USDC, requestedMicros: 0 }],
    ['by more than all', ALICE, '0xa1', 0, 12 * USDC, 'AMEND_NOT_REDUCING', { remainingMicros: 10 * USDC, requestedMicros: -2 * USDC }],
  ]
  for (const [what, address, orderId, newSizeMicros, reduceByMicros, code, context] of cases) {
    const before = state(h)
    const { result, events } = h.run({ kind: 'amendOrder', address, orderId, newSizeMicros, reduceByMicros } as Body)
    t.strictSame(result, { ok: false, code, message: CODE_MESSAGES[code as keyof typeof CODE_MESSAGES], context }, what)
    t.strictSame(events, [], `${what}: no events`)
    t.strictSame(state(h), before, `${what}: nothing changed`)
  }
  // -0 is 0: one size given, the other 0.
  t.match(h.run({ kind: 'amendOrder', address: ALICE_SIGNER, orderId: '0xa1', newSizeMicros: -0, reduceByMicros: USDC }).result,
    { ok: true, remainingMicros: 9 * USDC })
  t.end()
})

t.test('cancel-replace: the old order is cancelled and the new one placed, the client order id passed on', (t) => {
  const h = setup([ALICE, BOB])
  h.place({ ...limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 1_000), clientOrderId: 'q-1' })
  const a2 = { ...limit('0xa2', ALICE, M.yes, 'BUY', 4_500, 2_000), clientOrderId: 'q-1' }
  const { result, events } = h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa1', order: a2 })
  t.strictSame(result, {
    ok: true, canceledOrderId: '0xa1', canceledRemainingMicros: 10 * USDC,
    placed: { ok: true, orderId: '0xa2', status: 'LIVE', makingMicros: 0, takingMicros: 0, feeMicros: 0, tradeIds: [] },
  })
  t.strictSame(events.map((e) => e.type), ['orderUpdate', 'orderAccepted', 'balance', 'bookLevel', 'bookLevel'])
  t.strictSame(events[0], update('0xa1', ALICE, 'CANCELED', 0, 0, 'replaced'))
  t.match(events[1], { orderId: '0xa2', clientOrderId: 'q-1', priceMicros: 450_000 })
  t.strictSame(events.slice(2), [
    { type: 'balance', address: ALICE, asset: 'USDC', balanceMicros: 900 * USDC, heldMicros: 9 * USDC },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 0 },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'BUY', priceMicros: 450_000, sizeMicros: 20 * USDC },
  ])
  t.strictSame(h.summary().orderStatuses, [{ orderId: '0xa1', status: 'CANCELED' }, { orderId: '0xa2', status: 'LIVE' }])
  // Alice's ask replaced by a bid through it: the old ask is gone first, so no self-trade; the bid
  // takes Bob's ask instead, partly, and rests.
  h.place(limit('0xa3', ALICE, M.yes, 'SELL', 5_500, 500))
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_600, 200))
  const own = h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa3', order: limit('0xa4', ALICE, M.yes, 'BUY', 5_700, 500) })
  t.strictSame(own.result, {
    ok: true, canceledOrderId: '0xa3', canceledRemainingMicros: 5 * USDC,
    placed: { ok: true, orderId: '0xa4', status: 'LIVE', makingMicros: 1_120_000, takingMicros: 2 * USDC, feeMicros: 0, tradeIds: [tradeIdOf(h.seq, 0)] },
  })
  t.strictSame(ofType(own.events, 'orderUpdate').map((u) => [u.orderId, u.status, u.reason]), [
    ['0xa3', 'CANCELED', 'replaced'],
    ['0xb1', 'MATCHED', null],
    ['0xa4', 'LIVE', null],
  ])
  checkConservation(t, h.summary())
  t.end()
})

t.test('cancel-replace: an old order not live, or not the requester\'s, refuses the whole command', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 500))
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 4_000, 500)) // fills 0xa1
  h.place(limit('0xa2', ALICE, M.yes, 'BUY', 3_000, 500))
  const refused = (address: string, orderId: string, order: OrderInput, code: string, newOrderId: string): void => {
    const before = state(h)
    const { result, events } = h.run({ kind: 'cancelReplace', address, orderId, order })
    t.strictSame(result, { ok: false, code, message: CODE_MESSAGES[code as keyof typeof CODE_MESSAGES], context: { orderId, newOrderId } })
    t.strictSame(events, [], `${code}: no events, not even the new order's`)
    t.strictSame(state(h), before, `${code}: nothing changed`)
  }
  const next = limit('0xa9', ALICE, M.yes, 'BUY', 4_100, 500)
  refused(ALICE, '0xa1', next, 'ORDER_ALREADY_MATCHED', '0xa9')
  refused(BOB, '0xa2', limit('0xb9', BOB, M.yes, 'BUY', 4_100, 500), 'ORDER_NOT_FOUND', '0xb9')
  refused(ALICE, '0xnone', next, 'ORDER_NOT_FOUND', '0xa9')
  // The old order is judged first: a malformed new order does not matter yet (its id, not a string, is '').
  refused(ALICE, '0xa1', { ...next, orderId: 7 as unknown as string, side: 'HOLD' as Side }, 'ORDER_ALREADY_MATCHED', '')
  h.run({ kind: 'cancelOrder', address: ALICE, orderId: '0xa2' })
  refused(ALICE, '0xa2', next, 'ORDER_ALREADY_CANCELED', '0xa9')
  // Never placed: the id is still free.
  t.match(h.place(next).result, { ok: true, status: 'LIVE' })
  t.end()
})

t.test('cancel-replace: a new order refused for its terms leaves the old one live', (t) => {
  const h = setup([ALICE, BOB])
  h.place({ ...limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 500), clientOrderId: 'q-1' })
  h.place({ ...limit('0xa2', ALICE, M.yes, 'BUY', 3_000, 500), clientOrderId: 'q-2' })
  const refused = (order: OrderInput, code: string, context: Record<string, unknown> | null): void => {
    const before = state(h)
    const { result, events } = h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa1', order })
    const message = CODE_MESSAGES[code as keyof typeof CODE_MESSAGES]
    t.strictSame(result, { ok: false, code, message, context, orderId: order.orderId }, code)
    t.strictSame(events, [{ type: 'orderRejected', orderId: order.orderId, maker: ALICE, code, message }])
    t.strictSame(state(h), before, `${code}: nothing changed, the old order still rests`)
  }
  const next = { ...limit('0xa9', ALICE, M.yes, 'BUY', 4_100, 500), clientOrderId: 'q-1' }
  refused({ ...next, makerAmountMicros: 4_100 * 500 + 1 }, 'INVALID_ORDER_MIN_TICK_SIZE', { tickSizeMicros: 10_000 })
  refused({ ...next, clientOrderId: 'q-2' }, 'CLIENT_ORDER_ID_DUPLICATED', { orderId: '0xa2', status: 'LIVE', clientOrderId: 'q-2' })
  refused({ ...next, orderId: '0xa1' }, 'INVALID_ORDER_DUPLICATED', { orderId: '0xa1', status: 'LIVE' })
  refused({ ...next, feeRateBps: 5 }, 'INVALID_ORDER_FEE_RATE', { feeRateBps: 5, marketFeeRateBps: 0 })
  refused({ ...next, tokenId: '999' }, 'TOKEN_NOT_FOUND', { tokenId: '999' })
  h.run({ kind: 'setMarketStatus', marketId: M.id, status: 'Paused' })
  refused(next, 'MARKET_CANCEL_ONLY', { marketId: M.id, status: 'Paused' })
  h.run({ kind: 'setMarketStatus', marketId: M.id, status: 'Active' })
  // The old order's own client order id is no twin.
  t.match(h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa1', order: next }).result,
    { ok: true, placed: { ok: true, orderId: '0xa9', status: 'LIVE' } })
  t.end()
})

t.test('cancel-replace: a new order refused by funds or the book leaves the old one cancelled, and says so', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 500))
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_000, 500))
  // Post-only at 0.50 reaches Bob's ask: refused after the cancel.
  const postOnly = limit('0xa2', ALICE, M.yes, 'BUY', 5_000, 500, { postOnly: true })
  const { result, events } = h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa1', order: postOnly })
  const message = CODE_MESSAGES.INVALID_POST_ONLY_ORDER
  t.strictSame(result, {
    ok: true, canceledOrderId: '0xa1', canceledRemainingMicros: 5 * USDC,
    placed: { ok: false, code: 'INVALID_POST_ONLY_ORDER', message, context: null, orderId: '0xa2' },
  })
  t.strictSame(events, [
    update('0xa1', ALICE, 'CANCELED', 0, 0, 'replaced'),
    { type: 'orderRejected', orderId: '0xa2', maker: ALICE, code: 'INVALID_POST_ONLY_ORDER', message },
    { type: 'balance', address: ALICE, asset: 'USDC', balanceMicros: 900 * USDC, heldMicros: 0 },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 0 },
  ])
  // Funds: the old order's hold is released first, so a new one may use it (Alice holds 900 USDC
  // and 100 Yes; her 100 Yes on offer are released before the 100 Yes of the new one are asked).
  h.place(limit('0xa3', ALICE, M.yes, 'SELL', 9_000, 10_000))
  t.match(h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa3', order: limit('0xa4', ALICE, M.yes, 'SELL', 8_900, 10_000) }).result,
    { ok: true, placed: { ok: true, status: 'LIVE' } })
  const tooMuch = h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa4', order: limit('0xa5', ALICE, M.yes, 'SELL', 8_800, 10_100) })
  t.match(tooMuch.result, {
    ok: true, canceledOrderId: '0xa4', canceledRemainingMicros: 100 * USDC,
    placed: { ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', orderId: '0xa5',
      context: { asset: M.yes, requiredMicros: 101 * USDC, availableMicros: 100 * USDC, heldMicros: 0 } },
  })
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xb1'])
  // FOK: a dry run after the cancel; it finds only Bob's 5 shares.
  h.place(limit('0xa6', ALICE, M.yes, 'BUY', 3_000, 100))
  t.match(h.run({ kind: 'cancelReplace', address: ALICE, orderId: '0xa6', order: immediate('0xa7', ALICE, M.yes, 'BUY', 10 * USDC, 20 * USDC - 1, 'FOK') }).result,
    { ok: true, canceledOrderId: '0xa6', placed: { ok: false, code: 'FOK_ORDER_NOT_FILLED' } })
  checkConservation(t, h.summary())
  t.end()
})
