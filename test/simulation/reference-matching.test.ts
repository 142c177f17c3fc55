/**
 * The reference model alone, matching: small scenarios whose numbers were computed by hand from
 * docs/engine.md (normal, mint and merge matches, price-time priority across the Yes and No
 * books, FOK, FAK, post-only).
 */
import t from 'tap'
import { CODE_MESSAGES } from '../../src/engine/codes.js'
import { tradeIdOf } from '../../src/engine/ids.js'
import {
  ALICE, BOB, CAROL, DAVE, M, USDC, setup, limit, immediate, ofType, update, checkConservation
} from './reference-harness.js'

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

t.test('normal match: exact balances, events and their order', (t) => {
  const h = setup([ALICE, BOB])
  // Bob: 900 USDC, 100 Yes, 100 No. He offers 50 Yes at 0.60.
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 6_000, 5_000))
  t.equal(h.held(BOB, M.yes), 50 * USDC)
  // Alice bids 0.65 for 20 Yes: fills at the maker's 0.60, paying 12 USDC.
  const { result, events } = h.place(limit('0xa1', ALICE, M.yes, 'BUY', 6_500, 2_000))
  const tradeId = tradeIdOf(h.seq, 0)
  t.strictSame(result, {
    ok: true, orderId: '0xa1', status: 'MATCHED', makingMicros: 12 * USDC, takingMicros: 20 * USDC,
    feeMicros: 0, tradeIds: [tradeId],
  })
  t.strictSame(events.map((e) => e.type), [
    'orderAccepted', 'trade', 'orderUpdate', 'orderUpdate', 'balance', 'balance', 'balance', 'balance', 'bookLevel',
  ])
  t.match(events[0], { orderId: '0xa1', priceMicros: 650_000, originalSizeMicros: 20 * USDC, outcome: 'Yes', marketId: M.id })
  t.match(events[1], {
    tradeId, matchType: 'normal', takerOrderId: '0xa1', makerOrderId: '0xb1', side: 'BUY', makerSide: 'SELL',
    priceMicros: 600_000, makerPriceMicros: 600_000, sizeMicros: 20 * USDC, feeMicros: 0,
  })
  t.strictSame(events[2], update('0xb1', BOB, 'LIVE', 20 * USDC, 30 * USDC, null))
  t.strictSame(events[3], update('0xa1', ALICE, 'MATCHED', 20 * USDC, 0, null))
  t.strictSame(events.slice(4), [
    { type: 'balance', address: ALICE, asset: 'USDC', balanceMicros: 888 * USDC, heldMicros: 0 },
    { type: 'balance', address: ALICE, asset: M.yes, balanceMicros: 120 * USDC, heldMicros: 0 },
    { type: 'balance', address: BOB, asset: 'USDC', balanceMicros: 912 * USDC, heldMicros: 0 },
    { type: 'balance', address: BOB, asset: M.yes, balanceMicros: 80 * USDC, heldMicros: 30 * USDC },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 30 * USDC },
  ])
  checkConservation(t, h.summary())
  t.end()
})

t.test('mint match: two BUYs of different tokens make full sets', (t) => {
  const h = setup([ALICE, BOB])
  // Alice bids 0.40 for 10 Yes (holds 4 USDC); Bob bids 0.65 for 10 No: a Yes-space ask at 0.35.
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 1_000))
  t.equal(h.held(ALICE, 'USDC'), 4 * USDC)
  const { result, events } = h.place(limit('0xb1', BOB, M.no, 'BUY', 6_500, 1_000))
  // At Alice's level (Yes 0.40) Bob's No price is 0.60: 6 USDC from Bob, 4 from Alice's hold.
  t.match(result, { status: 'MATCHED', makingMicros: 6 * USDC, takingMicros: 10 * USDC, feeMicros: 0 })
  t.match(ofType(events, 'trade'), [{
    matchType: 'mint', tokenId: M.no, side: 'BUY', priceMicros: 600_000,
    makerTokenId: M.yes, makerSide: 'BUY', makerPriceMicros: 400_000, sizeMicros: 10 * USDC,
  }])
  t.equal(h.usdc(ALICE), 896 * USDC)
  t.equal(h.held(ALICE, 'USDC'), 0)
  t.equal(h.shares(ALICE, M.yes), 110 * USDC)
  t.equal(h.usdc(BOB), 894 * USDC)
  t.equal(h.shares(BOB, M.no), 110 * USDC)
  // Two splits of 100 plus 10 minted.
  t.match(h.market(M.id), { collateralMicros: 210 * USDC, mintedMicros: 210 * USDC, mergedMicros: 0 })
  checkConservation(t, h.summary())
  t.end()
})

t.test('merge match: two SELLs of different tokens unmake full sets', (t) => {
  const h = setup([ALICE, BOB])
  // Alice asks 0.70 for 10 Yes; Bob sells 10 No at 0.25 or better: a Yes-space bid at 0.75.
  h.place(limit('0xa1', ALICE, M.yes, 'SELL', 7_000, 1_000))
  const { result, events } = h.place(limit('0xb1', BOB, M.no, 'SELL', 2_500, 1_000))
  // At Alice's level Bob's No price is 0.30: he gets 3 USDC, Alice 7.
  t.match(result, { status: 'MATCHED', makingMicros: 10 * USDC, takingMicros: 3 * USDC, feeMicros: 0 })
  t.match(ofType(events, 'trade'), [{
    matchType: 'merge', tokenId: M.no, side: 'SELL', priceMicros: 300_000,
    makerTokenId: M.yes, makerSide: 'SELL', makerPriceMicros: 700_000,
  }])
  t.equal(h.usdc(ALICE), 907 * USDC)
  t.equal(h.shares(ALICE, M.yes), 90 * USDC)
  t.equal(h.held(ALICE, M.yes), 0)
  t.equal(h.usdc(BOB), 903 * USDC)
  t.equal(h.shares(BOB, M.no), 90 * USDC)
  t.match(h.market(M.id), { collateralMicros: 190 * USDC, mintedMicros: 200 * USDC, mergedMicros: 10 * USDC })
  checkConservation(t, h.summary())
  t.end()
})

t.test('price-time priority across the Yes and No books', (t) => {
  const h = setup()
  // Yes-space asks: Carol Yes 0.55 (#1), Alice BUY No 0.46 = 0.54 (#2), Bob Yes 0.54 (#3).
  h.place(limit('0xc1', CAROL, M.yes, 'SELL', 5_500, 1_000))
  h.place(limit('0xa1', ALICE, M.no, 'BUY', 4_600, 1_000))
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_400, 1_000))
  const { result, events } = h.place(limit('0xd1', DAVE, M.yes, 'BUY', 5_600, 2_500))
  const trades = ofType(events, 'trade')
  t.strictSame(trades.map((x) => [x.makerOrderId, x.matchType, x.priceMicros, x.sizeMicros]), [
    ['0xa1', 'mint', 540_000, 10 * USDC],
    ['0xb1', 'normal', 540_000, 10 * USDC],
    ['0xc1', 'normal', 550_000, 5 * USDC],
  ])
  t.strictSame(trades.map((x) => x.tradeId), [0, 1, 2].map((k) => tradeIdOf(h.seq, k)))
  // 5.40 + 5.40 + 2.75 USDC for 25 shares.
  t.match(result, { status: 'MATCHED', makingMicros: 13_550_000, takingMicros: 25 * USDC })
  t.strictSame(ofType(events, 'orderUpdate').at(-2), update('0xc1', CAROL, 'LIVE', 5 * USDC, 5 * USDC, null))
  // Book levels that changed, sorted by token, side, price: No bids gone; Yes asks.
  t.strictSame(ofType(events, 'bookLevel').map((l) => [l.tokenId, l.side, l.priceMicros, l.sizeMicros]), [
    [M.yes, 'SELL', 540_000, 0],
    [M.yes, 'SELL', 550_000, 5 * USDC],
    [M.no, 'BUY', 460_000, 0],
  ])
  t.end()
})

// ---------------------------------------------------------------------------------------------
// Immediate orders, post-only, self-trades, expiry
// ---------------------------------------------------------------------------------------------

t.test('FOK BUY spends its budget; a FOK that cannot fill is rejected with no effect', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_000, 1_000))
  h.place(limit('0xb2', BOB, M.yes, 'SELL', 6_000, 1_000))
  // 8 USDC at a limit of 8/13.333333 = 0.600000015, floor to 6000 pips (not on any grid).
  const fok = h.place(immediate('0xa1', ALICE, M.yes, 'BUY', 8 * USDC, 13_333_333, 'FOK'))
  // 10 shares at 0.50 (5 USDC), then 5 at 0.60 (3 USDC): the budget is spent exactly.
  t.match(fok.result, { status: 'MATCHED', makingMicros: 8 * USDC, takingMicros: 15 * USDC })
  t.match(ofType(fok.events, 'orderAccepted'), [{ priceMicros: 600_000, originalSizeMicros: 13_333_333 }])
  t.strictSame(ofType(fok.events, 'orderUpdate').slice(1), [
    update('0xb2', BOB, 'LIVE', 5 * USDC, 5 * USDC, null),
    update('0xa1', ALICE, 'MATCHED', 15 * USDC, 0, null),
  ])
  t.equal(h.usdc(ALICE), 892 * USDC)
  // 20 USDC cannot be spent: only 5 shares at 0.60 are left.
  const before = h.summary()
  const big = h.place(immediate('0xa2', ALICE, M.yes, 'BUY', 20 * USDC, 33_333_333, 'FOK'))
  t.strictSame(big.result, {
    ok: false, code: 'FOK_ORDER_NOT_FILLED', message: CODE_MESSAGES.FOK_ORDER_NOT_FILLED, context: null, orderId: '0xa2',
  })
  t.strictSame(big.events, [
    { type: 'orderRejected', orderId: '0xa2', maker: ALICE, code: 'FOK_ORDER_NOT_FILLED', message: CODE_MESSAGES.FOK_ORDER_NOT_FILLED },
  ])
  t.strictSame({ ...h.summary(), seq: before.seq, timeMs: before.timeMs }, before, 'nothing changed')
  // A FOK SELL of 5 shares at 0.45 or better against Alice's bid... none: Bob's ask is the book.
  h.place(limit('0xa3', ALICE, M.yes, 'BUY', 4_500, 400))
  const sell = h.place(immediate('0xb3', BOB, M.yes, 'SELL', 5 * USDC, 2_250_000, 'FOK'))
  t.match(sell.result, { ok: false, code: 'FOK_ORDER_NOT_FILLED' }, '4 shares bid, 5 offered')
  const sell4 = h.place(immediate('0xb4', BOB, M.yes, 'SELL', 4 * USDC, 1_700_001, 'FOK'))
  // Limit ceil(1.700001 / 4 * 10000) = 4251 pips; fills 4 shares at 0.45 = 1.80 USDC.
  t.match(sell4.result, { status: 'MATCHED', makingMicros: 4 * USDC, takingMicros: 1_800_000 })
  t.match(ofType(sell4.events, 'orderAccepted'), [{ priceMicros: 425_100 }])
  t.end()
})

t.test('FAK fills what it can and cancels the rest; an immediate BUY too small is refused', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_000, 1_000))
  // 10 USDC at a limit of 0.55: 10 shares at 0.50 cost 5; the other 5 USDC find nothing.
  const fak = h.place(immediate('0xa1', ALICE, M.yes, 'BUY', 10 * USDC, 18_181_818, 'FAK'))
  t.match(fak.result, { status: 'CANCELED', makingMicros: 5 * USDC, takingMicros: 10 * USDC })
  t.strictSame(ofType(fak.events, 'orderUpdate'), [
    update('0xb1', BOB, 'MATCHED', 10 * USDC, 0, null),
    update('0xa1', ALICE, 'CANCELED', 10 * USDC, 0, 'unfilled'),
  ])
  // Nothing left to take: rejected, not cancelled.
  const none = h.place(immediate('0xa2', ALICE, M.yes, 'BUY', 10 * USDC, 18_181_818, 'FAK'))
  t.match(none.result, { ok: false, code: 'FAK_ORDER_NOT_FILLED', context: null })
  // A FAK SELL of 7 shares against 3 bid: 3 fill, 4 are cancelled.
  h.place(limit('0xb2', BOB, M.yes, 'BUY', 4_000, 300))
  const sell = h.place(immediate('0xa3', ALICE, M.yes, 'SELL', 7 * USDC, 2_800_000, 'FAK'))
  t.match(sell.result, { status: 'CANCELED', makingMicros: 3 * USDC, takingMicros: 1_200_000 })
  // 0.003 USDC at a limit of 0.75 cannot buy one lot (0.01 share at 0.75 costs 0.0075 USDC).
  const tiny = h.place(immediate('0xa4', ALICE, M.yes, 'BUY', 3_000, 4_000, 'FAK'))
  t.match(tiny.result, { ok: false, code: 'INVALID_ORDER_MIN_SIZE', context: { budgetMicros: 3_000, minBudgetMicros: 7_500 } })
  t.end()
})

t.test('post-only orders that would cross are rejected, whoever owns the other side', (t) => {
  const h = setup([ALICE, BOB, CAROL])
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_500, 1_000))
  // Carol's BUY No at 0.56 is a Yes-space ask at 0.44: it reaches Alice's bid.
  const carol = h.place(limit('0xc1', CAROL, M.no, 'BUY', 5_600, 1_000, { postOnly: true }))
  t.strictSame(carol.result, {
    ok: false, code: 'INVALID_POST_ONLY_ORDER', message: CODE_MESSAGES.INVALID_POST_ONLY_ORDER, context: null, orderId: '0xc1',
  })
  // Alice's own ask at her bid's price crosses too.
  t.match(h.place(limit('0xa2', ALICE, M.yes, 'SELL', 4_500, 1_000, { postOnly: true })).result, { code: 'INVALID_POST_ONLY_ORDER' })
  // One tick away it rests.
  t.match(h.place(limit('0xc2', CAROL, M.no, 'BUY', 5_400, 1_000, { postOnly: true })).result, { ok: true, status: 'LIVE' })
  const typed = h.place({ ...immediate('0xb1', BOB, M.yes, 'BUY', USDC, 2 * USDC, 'FAK'), postOnly: true })
  t.match(typed.result, { code: 'INVALID_POST_ONLY_ORDER_TYPE', context: { timeInForce: 'FAK' } })
  t.end()
})
