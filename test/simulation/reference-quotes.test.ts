/**
 * The reference model alone, mass quotes: kept levels, the key's other orders cancelled first, the
 * new ones placed as placeOrder places them; refused whole for a malformed quote.
 */
import t from 'tap'
import type { OrderInput } from '../../src/engine/command.js'
import type { OrderPlaced, QuotesSet, Rejection } from '../../src/engine/result.js'
import { Code, CODE_MESSAGES } from '../../src/engine/codes.js'
import { tradeIdOf } from '../../src/engine/ids.js'
import {
  type Body, ALICE, BOB, CAROL, DAVE, M, F, USDC, setup, limit, ofType, update, checkConservation, KEY_A, KEY_B,
  quote, refusal, stepEvents, groupCommand, inGroup
} from './reference-harness.js'

/** A placement that changed nothing yet: resting whole (or refused by nothing). */
function rested(orderId: string): OrderPlaced {
  return { ok: true, orderId, status: 'LIVE', makingMicros: 0, takingMicros: 0, feeMicros: 0, tradeIds: [] }
}

t.test('mass quote: kept levels stay as they are, the key\'s unnamed ones on the market are cancelled first, the new placed', (t) => {
  const h = setup([ALICE, BOB, CAROL])
  // Bids at 0.40 and 0.39; asks at 0.60 (SELL Yes) and 0.61 (BUY No at 0.39).
  const ladder = [limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 1_000), limit('0xa2', ALICE, M.yes, 'BUY', 3_900, 1_000),
    limit('0xa3', ALICE, M.yes, 'SELL', 6_000, 1_000), limit('0xa4', ALICE, M.no, 'BUY', 3_900, 1_000)]
  const first = h.run(quote([], ladder))
  t.strictSame(first.result, { ok: true, canceledQuotes: [], keptQuotes: [], newQuotes: ladder.map((o) => rested(o.orderId)) })
  t.equal(h.held(ALICE, 'USDC'), 1_000 * 4_000 + 1_000 * 3_900 + 1_000 * 3_900)
  // Bob bids 0.40 behind Alice; the key's bid on market F is no quote of M.
  h.place(limit('0xb1', BOB, M.yes, 'BUY', 4_000, 500))
  h.place(limit('0xa9', ALICE, F.yes, 'BUY', 3_000, 1_000, { feeRateBps: 100 }))
  // Keep 0.40 and 0.60, move 0.39 to 0.38, drop the 0.61 ask.
  const second = h.run(quote(['0xa1', '0xa3'], [limit('0xa5', ALICE, M.yes, 'BUY', 3_800, 1_000)]))
  t.strictSame(second.result, {
    ok: true, canceledQuotes: ['0xa2', '0xa4'],
    keptQuotes: [{ orderId: '0xa1', reason: null }, { orderId: '0xa3', reason: null }], newQuotes: [rested('0xa5')],
  })
  t.strictSame(stepEvents(second.events).map((e) => e.type), ['orderUpdate', 'orderUpdate', 'orderAccepted'])
  t.strictSame(ofType(second.events, 'orderUpdate'), [
    update('0xa2', ALICE, 'CANCELED', 0, 0, 'replaced'), update('0xa4', ALICE, 'CANCELED', 0, 0, 'replaced'),
  ])
  // 0.40 kept its place: Carol's sale of 10 there fills Alice's bid, not Bob's behind it.
  const sale = h.place(limit('0xc1', CAROL, M.yes, 'SELL', 4_000, 1_000))
  t.strictSame(ofType(sale.events, 'trade').map((x) => x.makerOrderId), ['0xa1'])
  // Kept ids that ended or are not the key's quotes are reported in a cancel's words, never
  // placed; an empty ladder pulls the rest of the key's quotes on M (not its bid on F).
  const third = h.run(quote(['0xa1', '0xa2', '0xb1', '0xc1', '0xunknown', '0xa9'], []))
  t.strictSame(third.result, {
    ok: true, canceledQuotes: ['0xa3', '0xa5'],
    keptQuotes: [
      { orderId: '0xa1', reason: CODE_MESSAGES.ORDER_ALREADY_MATCHED },
      { orderId: '0xa2', reason: CODE_MESSAGES.ORDER_ALREADY_CANCELED },
      { orderId: '0xb1', reason: CODE_MESSAGES.ORDER_NOT_FOUND },
      { orderId: '0xc1', reason: CODE_MESSAGES.ORDER_NOT_FOUND },
      { orderId: '0xunknown', reason: CODE_MESSAGES.ORDER_NOT_FOUND },
      { orderId: '0xa9', reason: CODE_MESSAGES.ORDER_NOT_FOUND },
    ],
    newQuotes: [],
  })
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xb1', '0xa9'])
  t.equal(h.held(ALICE, 'USDC'), 1_000 * 3_000)
  checkConservation(t, h.summary())
  t.end()
})

t.test('mass quote: refused whole, with no event, for an unknown market, an id named twice, an order of another market or key, too many a side', (t) => {
  const h = setup([ALICE, BOB])
  h.run(quote([], [limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100)]))
  const before = h.summary()
  const bids = (n: number): OrderInput[] => Array.from({ length: n }, (_, i) => limit(`0xq${i}`, ALICE, M.yes, 'BUY', 1_000 + 100 * i, 100))
  const yesAsks = Array.from({ length: 11 }, (_, i) => limit(`0xy${i}`, ALICE, M.yes, 'SELL', 6_000 + 100 * i, 100))
  const noBids = Array.from({ length: 10 }, (_, i) => limit(`0xn${i}`, ALICE, M.no, 'BUY', 1_000 + 100 * i, 100))
  const cases: [string, Body, Rejection][] = [
    ['an unknown market, first of all', quote(['0xa1', '0xa1'], [], { marketId: 'nope' }), refusal(Code.MARKET_NOT_FOUND, { marketId: 'nope' })],
    ['a kept id twice', quote(['0xa1', '0xa1'], []), refusal(Code.MASS_QUOTE_INVALID, { orderId: '0xa1', reason: 'named twice' })],
    ['a new order named as kept', quote(['0xa1'], [limit('0xa1', ALICE, M.yes, 'BUY', 3_000, 100)]),
      refusal(Code.MASS_QUOTE_INVALID, { orderId: '0xa1', reason: 'named twice' })],
    ['two new orders with one id', quote([], [limit('0xd1', ALICE, M.yes, 'BUY', 3_000, 100), limit('0xd1', ALICE, M.yes, 'BUY', 2_000, 100)]),
      refusal(Code.MASS_QUOTE_INVALID, { orderId: '0xd1', reason: 'named twice' })],
    // SPEC: an id that is not a string is "named twice" under its String().
    ['a kept id that is not a string', quote([7], []), refusal(Code.MASS_QUOTE_INVALID, { orderId: '7', reason: 'named twice' })],
    ['the kept ids before the new orders', quote(['0xa1', '0xa1'], [limit('0xf1', ALICE, F.yes, 'BUY', 3_000, 100, { feeRateBps: 100 })]),
      refusal(Code.MASS_QUOTE_INVALID, { orderId: '0xa1', reason: 'named twice' })],
    ['an order of another market', quote([], [limit('0xf1', ALICE, F.yes, 'BUY', 3_000, 100, { feeRateBps: 100 })]),
      refusal(Code.MASS_QUOTE_INVALID, { orderId: '0xf1', reason: 'an order of another market' })],
    ['an unknown token', quote([], [{ ...limit('0xt1', ALICE, M.yes, 'BUY', 3_000, 100), tokenId: '999' }]),
      refusal(Code.MASS_QUOTE_INVALID, { orderId: '0xt1', reason: 'an order of another market' })],
    ['an order of another key', quote([], [{ ...limit('0xk1', ALICE, M.yes, 'BUY', 3_000, 100), owner: KEY_B }]),
      refusal(Code.MASS_QUOTE_INVALID, { orderId: '0xk1', reason: 'an order of another API key' })],
    ['21 bids: 20 new and the kept one', quote(['0xa1'], bids(20)), refusal(Code.MASS_QUOTE_TOO_LARGE, { max: 20, bids: 21, asks: 0 })],
    ['21 asks: Yes asks and No bids together', quote([], [...yesAsks, ...noBids]), refusal(Code.MASS_QUOTE_TOO_LARGE, { max: 20, bids: 0, asks: 21 })],
  ]
  for (const [what, body, expected] of cases) t.strictSame(h.run(body), { result: expected, events: [] }, what)
  t.strictSame({ ...h.summary(), seq: before.seq, timeMs: before.timeMs }, before, 'nothing changed')
  // 20 a side is the most: the kept bid and 19 new ones, and an ask; kept ids that ended or are
  // unknown count on no side.
  h.place(limit('0xa0', ALICE, M.yes, 'BUY', 4_500, 100))
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 4_500, 100))
  const most = h.run(quote(['0xa1', '0xa0', '0xzz'], [...bids(19), limit('0xy', ALICE, M.yes, 'SELL', 9_000, 100)]))
  t.match(most.result, {
    ok: true, canceledQuotes: [],
    keptQuotes: [
      { orderId: '0xa1', reason: null },
      { orderId: '0xa0', reason: CODE_MESSAGES.ORDER_ALREADY_MATCHED },
      { orderId: '0xzz', reason: CODE_MESSAGES.ORDER_NOT_FOUND },
    ],
  })
  t.equal(h.summary().openOrders.length, 21)
  t.end()
})

t.test('mass quote: the key\'s orders are cancelled wallet by wallet: the requester\'s, the new orders\' makers\', the kept orders\'', (t) => {
  const h = setup([ALICE, BOB, CAROL, DAVE])
  // Carol's and Dave's wallets quote for Alice's key too (proxy wallets of one key).
  const ofKeyA = (o: OrderInput): OrderInput => ({ ...o, owner: KEY_A })
  h.place(ofKeyA(limit('0xc1', CAROL, M.yes, 'BUY', 4_100, 100)))
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100))
  h.place(ofKeyA(limit('0xc2', CAROL, M.yes, 'SELL', 7_000, 100)))
  h.place(limit('0xa2', ALICE, M.yes, 'SELL', 7_100, 100))
  h.place(ofKeyA(limit('0xd1', DAVE, M.yes, 'BUY', 3_000, 100)))
  h.place(ofKeyA(limit('0xd2', DAVE, M.yes, 'SELL', 8_000, 100)))
  h.place(limit('0xb1', BOB, M.yes, 'BUY', 2_000, 100))
  // Alice's wallet quotes one new order made by Carol's: Alice's orders go first, then Carol's,
  // each wallet's oldest first (c1, older than a1, goes after a2); Dave's wallet is not looked at.
  const first = h.run(quote([], [ofKeyA(limit('0xc3', CAROL, M.yes, 'BUY', 3_500, 100))]))
  t.strictSame(first.result, { ok: true, canceledQuotes: ['0xa1', '0xa2', '0xc1', '0xc2'], keptQuotes: [], newQuotes: [rested('0xc3')] })
  t.strictSame(ofType(first.events, 'orderUpdate').map((u) => [u.orderId, u.reason]),
    [['0xa1', 'replaced'], ['0xa2', 'replaced'], ['0xc1', 'replaced'], ['0xc2', 'replaced']])
  // Bob's wallet sends the key's quote keeping d1: Dave's wallet is looked at for its sake, so d2
  // goes; Carol's c3 stays (no order of this quote is hers), and Bob's own bid is not the key's.
  const second = h.run(quote(['0xd1'], [], { address: BOB }))
  t.strictSame(second.result, { ok: true, canceledQuotes: ['0xd2'], keptQuotes: [{ orderId: '0xd1', reason: null }], newQuotes: [] })
  t.strictSame(h.summary().openOrders.map((o) => o.orderId), ['0xd1', '0xb1', '0xc3'])
  // An ended order of Carol's wallet is not found for Alice's: ended orders remember their maker only.
  t.strictSame((h.run(quote(['0xc1'], [])).result as QuotesSet).keptQuotes, [{ orderId: '0xc1', reason: CODE_MESSAGES.ORDER_NOT_FOUND }])
  t.end()
})

t.test('mass quote: each new order is placed as placeOrder places it, after the cancels; a paused market refuses them one by one', (t) => {
  const h = setup([ALICE, BOB])
  const mq = { contracts: USDC }
  h.run(groupCommand('create', KEY_A, 'mq', mq))
  // Asks at 0.50: Alice's own first, then Bob's; Bob's 0.55 above.
  h.place(limit('0xa0', ALICE, M.yes, 'SELL', 5_000, 100))
  h.place(limit('0xb1', BOB, M.yes, 'SELL', 5_000, 100))
  h.place(limit('0xb2', BOB, M.yes, 'SELL', 5_500, 100))
  // Alice's old ask is cancelled first, so her new bid at 0.50 meets Bob's, not her own. Its one
  // share reaches its group's limit: the group triggers, and the next order naming it is refused.
  const r = h.run(quote([], [
    inGroup(limit('0xn1', ALICE, M.yes, 'BUY', 5_000, 100), 'mq'),
    inGroup(limit('0xn2', ALICE, M.yes, 'BUY', 4_500, 100), 'mq'),
    limit('0xn3', ALICE, M.yes, 'BUY', 6_000, 100, { postOnly: true }),
  ]))
  t.strictSame(r.result, {
    ok: true, canceledQuotes: ['0xa0'], keptQuotes: [],
    newQuotes: [
      { ok: true, orderId: '0xn1', status: 'MATCHED', makingMicros: USDC / 2, takingMicros: USDC, feeMicros: 0, tradeIds: [tradeIdOf(h.seq, 0)] },
      { ...refusal(Code.ORDER_GROUP_TRIGGERED, { orderGroupId: 'mq', triggeredMs: h.timeMs }), orderId: '0xn2' },
      { ...refusal(Code.INVALID_POST_ONLY_ORDER, null), orderId: '0xn3' },
    ],
  })
  t.strictSame(stepEvents(r.events).map((e) => e.type),
    ['orderUpdate', 'orderAccepted', 'trade', 'orderUpdate', 'orderGroup', 'orderUpdate', 'orderRejected', 'orderRejected'])
  t.strictSame(ofType(r.events, 'orderUpdate'), [
    update('0xa0', ALICE, 'CANCELED', 0, 0, 'replaced'),
    update('0xb1', BOB, 'MATCHED', USDC, 0, null),
    // SPEC: filled whole by the fill that triggered its group: nothing left to cancel, MATCHED.
    update('0xn1', ALICE, 'MATCHED', USDC, 0, null),
  ])
  // SPEC: a paused market does not refuse the quote: the unnamed quotes are cancelled, each new
  // order is refused on its own (MARKET_CANCEL_ONLY).
  h.place(limit('0xa3', ALICE, M.yes, 'BUY', 4_000, 100))
  h.run({ kind: 'setMarketStatus', marketId: M.id, status: 'Paused' })
  const paused = h.run(quote([], [limit('0xn4', ALICE, M.yes, 'BUY', 4_100, 100)]))
  t.strictSame(paused.result, {
    ok: true, canceledQuotes: ['0xa3'], keptQuotes: [],
    newQuotes: [{ ...refusal(Code.MARKET_CANCEL_ONLY, { marketId: M.id, status: 'Paused' }), orderId: '0xn4' }],
  })
  checkConservation(t, h.summary())
  t.end()
})
