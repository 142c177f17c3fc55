/**
 * Price-time priority, execution at the maker's price with the improvement going to the taker,
 * partial fills, self-trade prevention, and the exact events and balances of a sweep. Every
 * expected number is worked out by hand in the comments.
 */
import t from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import { summaryOf } from '../../../src/engine/view.js'
import type { OrderPlaced } from '../../../src/engine/result.js'
import { tradeIdOf } from '../../../src/engine/ids.js'

const alice = addressOf(1)
const bob = addressOf(2)

function setup(): { h: Harness; m: { marketId: string; yes: string; no: string } } {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 1_000 * USDC)
  h.fund(bob, 1_000 * USDC)
  h.split(bob, m.marketId, 100 * USDC)
  return { h, m }
}

t.test('a sweep fills best price first, oldest first, at the makers\' prices', (t) => {
  const { h, m } = setup()
  const s1 = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 10 * USDC })
  const s2 = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 10 * USDC })
  const s3 = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 550_000, sizeMicros: 10 * USDC })
  for (const o of [s1, s2, s3]) h.place(o)
  const buy = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 620_000, sizeMicros: 25 * USDC })
  const applied = h.place(buy)
  const seq = h.engine.seq
  // 10 @ 0.55 (s3), then 10 @ 0.60 (s1, older), then 5 @ 0.60 (s2): 5.5 + 6 + 3 = 14.5 USDC.
  t.same(applied.result, {
    ok: true, orderId: buy.orderId, status: 'MATCHED', makingMicros: 14_500_000, takingMicros: 25 * USDC,
    feeMicros: 0, tradeIds: [tradeIdOf(seq, 0), tradeIdOf(seq, 1), tradeIdOf(seq, 2)],
  } satisfies OrderPlaced)
  const trades = Harness.eventsOf(applied, 'trade')
  t.same(trades.map((x) => [x.makerOrderId, x.priceMicros, x.sizeMicros, x.matchType]), [
    [s3.orderId, 550_000, 10 * USDC, 'normal'],
    [s1.orderId, 600_000, 10 * USDC, 'normal'],
    [s2.orderId, 600_000, 5 * USDC, 'normal'],
  ])
  t.same(applied.events.map((e) => e.type), [
    'orderAccepted', 'trade', 'orderUpdate', 'trade', 'orderUpdate', 'trade', 'orderUpdate', 'orderUpdate',
    'balance', 'balance', 'balance', 'balance', 'bookLevel', 'bookLevel',
  ])
  t.same(Harness.eventsOf(applied, 'orderUpdate').map((u) => [u.orderId, u.status, u.sizeMatchedMicros, u.remainingMicros]), [
    [s3.orderId, 'MATCHED', 10 * USDC, 0],
    [s1.orderId, 'MATCHED', 10 * USDC, 0],
    [s2.orderId, 'LIVE', 5 * USDC, 5 * USDC],
    [buy.orderId, 'MATCHED', 25 * USDC, 0],
  ])
  // alice: 1000 - 14.5; bob: 1000 - 100 (split) + 14.5, Yes 100 - 25 with 5 still held by s2.
  t.same(Harness.eventsOf(applied, 'balance').map((b) => [b.address, b.asset, b.balanceMicros, b.heldMicros]), [
    [alice, 'USDC', 985_500_000, 0],
    [alice, m.yes, 25 * USDC, 0],
    [bob, 'USDC', 914_500_000, 0],
    [bob, m.yes, 75 * USDC, 5 * USDC],
  ])
  t.same(Harness.eventsOf(applied, 'bookLevel').map((b) => [b.tokenId, b.side, b.priceMicros, b.sizeMicros]), [
    [m.yes, 'SELL', 550_000, 0],
    [m.yes, 'SELL', 600_000, 5 * USDC],
  ])
  const trade = trades[0]!
  t.same(trade, {
    type: 'trade', tradeId: tradeIdOf(seq, 0), marketId: m.marketId, matchType: 'normal',
    takerOrderId: buy.orderId, takerAddress: alice, takerOwner: buy.owner, tokenId: m.yes, outcome: 'Yes',
    side: 'BUY', priceMicros: 550_000, sizeMicros: 10 * USDC, feeMicros: 0, feeRateBps: 0,
    makerOrderId: s3.orderId, makerAddress: bob, makerOwner: s3.owner, makerTokenId: m.yes, makerOutcome: 'Yes',
    makerSide: 'SELL', makerPriceMicros: 550_000, timeMs: h.timeMs,
  })
  t.end()
})

t.test('a SELL taker receives the better bid prices', (t) => {
  const { h, m } = setup()
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }))
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 450_000, sizeMicros: 10 * USDC }))
  const sell = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 15 * USDC })
  const applied = h.place(sell)
  // 10 @ 0.45 + 5 @ 0.40 = 4.5 + 2.0 = 6.5 USDC for 15 shares.
  const result = applied.result as OrderPlaced
  t.same([result.status, result.makingMicros, result.takingMicros], ['MATCHED', 15 * USDC, 6_500_000])
  const after = summaryOf(h.engine)
  const bobAccount = after.accounts.find((a) => a.address === bob)!
  t.equal(bobAccount.usdcMicros, 900 * USDC + 6_500_000)
  const aliceAccount = after.accounts.find((a) => a.address === alice)!
  // alice's remaining bid: 5 @ 0.40 holds 2 USDC; she paid 6.5.
  t.same([aliceAccount.usdcMicros, aliceAccount.usdcHeldMicros], [993_500_000, 2 * USDC])
  t.end()
})

t.test('a GTC taker that is partly filled rests at its limit, holding only the rest', (t) => {
  const { h, m } = setup()
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 10 * USDC }))
  const buy = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 550_000, sizeMicros: 30 * USDC })
  const applied = h.place(buy)
  // 10 filled at 0.50 (5 USDC); 20 rest at 0.55, holding 11 USDC.
  t.same((applied.result as OrderPlaced).status, 'LIVE')
  const update = Harness.eventsOf(applied, 'orderUpdate').at(-1)!
  t.same([update.orderId, update.status, update.sizeMatchedMicros, update.remainingMicros], [buy.orderId, 'LIVE', 10 * USDC, 20 * USDC])
  const a = summaryOf(h.engine).accounts.find((x) => x.address === alice)!
  t.same([a.usdcMicros, a.usdcHeldMicros], [995 * USDC, 11 * USDC])
  t.same(Harness.eventsOf(applied, 'bookLevel').map((b) => [b.side, b.priceMicros, b.sizeMicros]), [
    ['BUY', 550_000, 20 * USDC], ['SELL', 500_000, 0],
  ])
  t.end()
})

t.test('self-trade prevention cancels the resting order and matching goes on', (t) => {
  const { h, m } = setup()
  h.split(alice, m.marketId, 10 * USDC)
  const own = h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 10 * USDC })
  h.place(own)
  const other = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 510_000, sizeMicros: 10 * USDC })
  h.place(other)
  const buy = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 510_000, sizeMicros: 10 * USDC })
  const applied = h.place(buy)
  t.same(applied.events.slice(0, 5).map((e) => e.type), ['orderAccepted', 'orderUpdate', 'trade', 'orderUpdate', 'orderUpdate'])
  const cancel = Harness.eventsOf(applied, 'orderUpdate')[0]!
  t.same([cancel.orderId, cancel.status, cancel.reason], [own.orderId, 'CANCELED', 'self-trade'])
  t.same(Harness.eventsOf(applied, 'trade').map((x) => x.makerOrderId), [other.orderId])
  // alice: her own sell's 10 Yes are released; she bought 10 more at 0.51.
  const a = summaryOf(h.engine).accounts.find((x) => x.address === alice)!
  t.same(a.shares.find((s) => s.tokenId === m.yes), { tokenId: m.yes, balanceMicros: 20 * USDC, heldMicros: 0 })
  t.end()
})

t.test('a filled taker stops: its own orders further down are not cancelled', (t) => {
  const { h, m } = setup()
  h.split(alice, m.marketId, 10 * USDC)
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 10 * USDC }))
  const own = h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 510_000, sizeMicros: 10 * USDC })
  h.place(own)
  const applied = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 520_000, sizeMicros: 10 * USDC }))
  t.equal(Harness.eventsOf(applied, 'orderUpdate').some((u) => u.orderId === own.orderId), false)
  t.equal(summaryOf(h.engine).openOrders.some((o) => o.orderId === own.orderId), true)
  t.end()
})

t.test('every order id stays queryable as a duplicate with its final status', (t) => {
  const { h, m } = setup()
  const sell = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 10 * USDC })
  h.place(sell)
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC }))
  const statuses = summaryOf(h.engine).orderStatuses
  t.same(statuses.map((s) => s.status), ['MATCHED', 'MATCHED'])
  t.end()
})
