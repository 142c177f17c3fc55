/**
 * The reference model alone, an order's life around matching: GTD expiry on the clock, fees held
 * and paid, duplicates, and the cancels' results. Numbers computed by hand from docs/engine.md.
 */
import t from 'tap'
import { CODE_MESSAGES } from '../../src/engine/codes.js'
import {
  ALICE, BOB, CAROL, ALICE_SIGNER, M, F, USDC, setup, limit, ofType, update, checkConservation
} from './reference-harness.js'

t.test('GTD orders expire on the clock, even when the command itself is rejected', (t) => {
  const h = setup([ALICE])
  const earliest = Math.ceil((h.timeMs + 1_000 + 60_000) / 1000)
  const soon = h.place(limit('0xa0', ALICE, M.yes, 'BUY', 4_000, 100, { tif: 'GTD', expirationSec: earliest - 1 }))
  t.match(soon.result, { code: 'INVALID_ORDER_EXPIRATION', context: { expirationSec: earliest - 1, earliestSec: earliest } })
  const zero = h.place(limit('0xa0', ALICE, M.yes, 'BUY', 4_000, 100, { tif: 'GTD', expirationSec: 0 }))
  t.match(zero.result, { code: 'INVALID_ORDER_EXPIRATION', context: { expirationSec: 0 } })
  const gtc = h.place(limit('0xa0', ALICE, M.yes, 'BUY', 4_000, 100, { expirationSec: earliest + 5 }))
  t.match(gtc.result, { code: 'INVALID_ORDER_EXPIRATION', context: { expirationSec: earliest + 5, earliestSec: 0 } })

  const exp = Math.ceil((h.timeMs + 1_000 + 60_000) / 1000) + 10
  t.match(h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100, { tif: 'GTD', expirationSec: exp })).result, { status: 'LIVE' })
  t.equal(h.held(ALICE, 'USDC'), 400_000)
  // One millisecond before: still live.
  t.strictSame(h.run({ kind: 'expire' }, exp * 1000 - 1 - h.timeMs).events, [])
  // A rejected credit at the expiry time still runs the clock first.
  const { result, events } = h.run({ kind: 'credit', address: ALICE, usdcMicros: 0, gasMicros: 0 }, 1)
  t.match(result, { ok: false, code: 'LEDGER_AMOUNT_INVALID' })
  t.strictSame(events, [
    update('0xa1', ALICE, 'CANCELED', 0, 0, 'expired'),
    { type: 'balance', address: ALICE, asset: 'USDC', balanceMicros: 900 * USDC, heldMicros: 0 },
    { type: 'bookLevel', marketId: M.id, tokenId: M.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 0 },
  ])
  t.end()
})

// ---------------------------------------------------------------------------------------------
// Fees
// ---------------------------------------------------------------------------------------------

t.test('fees: bound held up front, floor(rate x min(P, 1-P) x lots) paid per fill', (t) => {
  const h = setup([ALICE, BOB])
  h.run({ kind: 'split', address: BOB, marketId: F.id, amountMicros: 100 * USDC })
  h.place(limit('0xb1', BOB, F.yes, 'SELL', 3_000, 1_000, { feeRateBps: 100 }))
  // The order must carry the market's rate.
  t.match(h.place(limit('0xa0', ALICE, F.yes, 'BUY', 3_000, 1_000)).result, {
    code: 'INVALID_ORDER_FEE_RATE', context: { feeRateBps: 0, marketFeeRateBps: 100 },
  })
  // 10 shares at 0.30: cost 3 USDC, fee 100 bps x 0.30 x 10 = 0.03 USDC.
  const { result, events } = h.place(limit('0xa1', ALICE, F.yes, 'BUY', 3_000, 1_000, { feeRateBps: 100 }))
  t.match(result, { status: 'MATCHED', makingMicros: 3 * USDC, feeMicros: 30_000 })
  t.match(ofType(events, 'trade'), [{ feeMicros: 30_000, feeRateBps: 100 }])
  t.equal(h.usdc(ALICE), 896_970_000)
  t.equal(h.usdc(BOB), 803 * USDC)
  t.equal(h.summary().feesMicros, 30_000)
  // Rate 125 bps, 3 lots at 0.67 (Yes-space 0.67; min(P, 1-P) = 0.33): floor(123.75) = 123.
  h.run({ kind: 'setFeeRate', marketId: F.id, feeRateBps: 125 })
  h.place(limit('0xb2', BOB, F.no, 'SELL', 3_300, 3, { feeRateBps: 125 }))
  // Alice sells 3 lots of Yes into Bob's SELL No at 0.33 (a Yes-space bid at 0.67): a merge
  // where she receives 0.67 x 0.03 = 0.0201 USDC less the fee.
  const merge = h.place(limit('0xa2', ALICE, F.yes, 'SELL', 6_700, 3, { feeRateBps: 125 }))
  t.match(merge.result, { status: 'MATCHED', takingMicros: 20_100, feeMicros: 123 })
  // The bound for a BUY rests on the price: 1 lot at 0.99 needs 9900 + ceil(123.75) = 10024.
  h.run({ kind: 'approve', address: CAROL, usdcAllowanceMicros: 10_023 })
  h.run({ kind: 'credit', address: CAROL, usdcMicros: 10_023, gasMicros: 0 })
  t.match(h.place(limit('0xc1', CAROL, F.yes, 'BUY', 9_900, 1, { feeRateBps: 125 })).result, {
    code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE',
    context: { asset: 'USDC', requiredMicros: 10_024, availableMicros: 10_023, balanceMicros: 10_023, allowanceMicros: 10_023, heldMicros: 0 },
  })
  checkConservation(t, h.summary())
  t.end()
})

// ---------------------------------------------------------------------------------------------
// Duplicates and cancels
// ---------------------------------------------------------------------------------------------

t.test('a duplicate names the original and its current status', (t) => {
  const h = setup([ALICE, BOB])
  const order = limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100)
  h.place(order)
  t.match(h.place(order).result, { code: 'INVALID_ORDER_DUPLICATED', context: { orderId: '0xa1', status: 'LIVE' } })
  h.run({ kind: 'cancelOrder', address: ALICE, orderId: '0xa1' })
  t.match(h.place(order).result, { context: { orderId: '0xa1', status: 'CANCELED' } })
  // A rejected order leaves no record: sent again once it is valid, it is accepted.
  const unapproved = limit('0xa2', ALICE, M.yes, 'SELL', 6_000, 100)
  h.run({ kind: 'approve', address: ALICE, usdcAllowanceMicros: 0 })
  t.match(h.place(unapproved).result, {
    code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE',
    context: { asset: M.yes, requiredMicros: USDC, availableMicros: 0, balanceMicros: 100 * USDC, heldMicros: 0, approved: false },
  })
  h.run({ kind: 'approve', address: ALICE, usdcAllowanceMicros: 1 })
  t.match(h.place(unapproved).result, { ok: true, status: 'LIVE' })
  h.place(limit('0xb1', BOB, M.yes, 'BUY', 6_000, 100))
  t.match(h.place(unapproved).result, { context: { status: 'MATCHED' } })
  t.end()
})

t.test('cancel results: own, other account, ended, unknown, repeats, signer', (t) => {
  const h = setup([ALICE, BOB])
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100, { signer: ALICE_SIGNER }))
  h.place(limit('0xa2', ALICE, M.yes, 'SELL', 6_000, 100))
  h.place(limit('0xb1', BOB, M.yes, 'BUY', 6_000, 100)) // fills 0xa2
  h.place(limit('0xa3', ALICE, M.yes, 'BUY', 3_000, 100))
  h.run({ kind: 'cancelOrder', address: ALICE, orderId: '0xa3' })
  h.place(limit('0xb2', BOB, M.yes, 'BUY', 3_500, 100))
  const { result, events } = h.run({
    kind: 'cancelOrders', address: ALICE, orderIds: ['0xb2', '0xa2', '0xa3', '0xnone', '0xb1', '0xa1', '0xa1'],
  })
  const notFound = CODE_MESSAGES.ORDER_NOT_FOUND
  t.strictSame(result, {
    ok: true,
    canceled: ['0xa1'],
    notCanceled: [
      { orderId: '0xb2', reason: notFound },
      { orderId: '0xa2', reason: CODE_MESSAGES.ORDER_ALREADY_MATCHED },
      { orderId: '0xa3', reason: CODE_MESSAGES.ORDER_ALREADY_CANCELED },
      { orderId: '0xnone', reason: notFound },
      { orderId: '0xb1', reason: notFound },
    ],
  })
  t.strictSame(events[0], update('0xa1', ALICE, 'CANCELED', 0, 0, 'owner'))
  // Ended orders remember only their maker: the signer gets the unknown answer for them.
  t.strictSame(h.run({ kind: 'cancelOrder', address: ALICE_SIGNER, orderId: '0xa1' }).result, {
    ok: true, canceled: [], notCanceled: [{ orderId: '0xa1', reason: notFound }],
  })
  // The signer may cancel by id; cancelAll from the signer's address cancels only its own maker orders.
  h.place(limit('0xa4', ALICE, M.yes, 'BUY', 4_000, 100, { signer: ALICE_SIGNER }))
  t.match(h.run({ kind: 'cancelAll', address: ALICE_SIGNER }).result, { canceled: [] })
  t.match(h.run({ kind: 'cancelOrder', address: ALICE_SIGNER, orderId: '0xa4' }).result, { canceled: ['0xa4'] })
  h.place(limit('0xa5', ALICE, M.yes, 'BUY', 4_000, 100))
  h.place(limit('0xa6', ALICE, F.no, 'BUY', 4_000, 100, { feeRateBps: 100 }))
  h.place(limit('0xa7', ALICE, M.no, 'BUY', 4_000, 100))
  t.match(h.run({ kind: 'cancelMarketOrders', address: ALICE, marketId: M.id, tokenId: M.no }).result, { canceled: ['0xa7'] })
  t.match(h.run({ kind: 'cancelMarketOrders', address: ALICE, marketId: 'nope', tokenId: '' }).result, {
    code: 'MARKET_NOT_FOUND', context: { marketId: 'nope' },
  })
  t.match(h.run({ kind: 'cancelMarketOrders', address: ALICE, marketId: M.id, tokenId: F.yes }).result, {
    code: 'TOKEN_NOT_FOUND', context: { tokenId: F.yes },
  })
  const all = h.run({ kind: 'cancelAll', address: ALICE })
  t.match(all.result, { canceled: ['0xa5', '0xa6'] })
  t.strictSame(ofType(all.events, 'orderUpdate').map((u) => u.reason), ['cancel-all', 'cancel-all'])
  const tooMany = Array.from({ length: 1_001 }, (_, i) => `0x${i}`)
  t.match(h.run({ kind: 'cancelOrders', address: ALICE, orderIds: tooMany }).result, { code: 'CANCEL_TOO_MANY', context: { max: 1_000 } })
  t.end()
})
