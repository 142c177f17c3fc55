/**
 * Complementary matching: the Yes and No books are one book. A BUY Yes meets a BUY No (mint),
 * a SELL Yes meets a SELL No (merge), and price-time priority runs across both books. Also the
 * per-token and unified book views.
 */
import t from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import { bookOf, summaryOf } from '../../../src/engine/view.js'
import type { OrderPlaced } from '../../../src/engine/result.js'

const alice = addressOf(1)
const bob = addressOf(2)
const carol = addressOf(3)
const dave = addressOf(4)

function setup(): { h: Harness; m: { marketId: string; yes: string; no: string } } {
  const h = new Harness()
  const m = h.market()
  for (const who of [alice, bob, carol, dave]) h.fund(who, 1_000 * USDC)
  return { h, m }
}

function account(h: Harness, address: string) {
  return summaryOf(h.engine).accounts.find((a) => a.address === address)!
}

t.test('mint: a BUY Yes and a BUY No together mint full sets', (t) => {
  const { h, m } = setup()
  // bob bids 0.45 for No: a Yes-space ask at 0.55.
  h.place(h.order({ maker: bob, tokenId: m.no, side: 'BUY', priceMicros: 450_000, sizeMicros: 10 * USDC }))
  const applied = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 600_000, sizeMicros: 10 * USDC }))
  const trade = Harness.eventsOf(applied, 'trade')[0]!
  t.same([trade.matchType, trade.side, trade.priceMicros, trade.makerSide, trade.makerTokenId, trade.makerPriceMicros],
    ['mint', 'BUY', 550_000, 'BUY', m.no, 450_000])
  // alice pays 0.55 x 10 = 5.5 (improved from 0.60); bob pays 0.45 x 10 = 4.5 from his hold.
  t.same([account(h, alice).usdcMicros, account(h, alice).shares], [994_500_000, [{ tokenId: m.yes, balanceMicros: 10 * USDC, heldMicros: 0 }]])
  t.same([account(h, bob).usdcMicros, account(h, bob).usdcHeldMicros, account(h, bob).shares],
    [995_500_000, 0, [{ tokenId: m.no, balanceMicros: 10 * USDC, heldMicros: 0 }]])
  const market = summaryOf(h.engine).markets[0]!
  t.same([market.collateralMicros, market.mintedMicros], [10 * USDC, 10 * USDC])
  t.end()
})

t.test('merge: a SELL Yes and a SELL No together merge full sets back into USDC', (t) => {
  const { h, m } = setup()
  h.split(bob, m.marketId, 10 * USDC)
  h.split(carol, m.marketId, 10 * USDC)
  // bob asks 0.40 for No: a Yes-space bid at 0.60.
  h.place(h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 400_000, sizeMicros: 10 * USDC }))
  const sell = h.order({ maker: carol, tokenId: m.yes, side: 'SELL', priceMicros: 550_000, sizeMicros: 10 * USDC })
  const applied = h.place(sell)
  const trade = Harness.eventsOf(applied, 'trade')[0]!
  t.same([trade.matchType, trade.side, trade.priceMicros, trade.makerPriceMicros], ['merge', 'SELL', 600_000, 400_000])
  t.same((applied.result as OrderPlaced).takingMicros, 6 * USDC, 'carol receives 0.60 x 10, more than her 0.55')
  // carol: 990 + 6 = 996, only No left; bob: 990 + 4 = 994, only Yes left.
  t.same([account(h, carol).usdcMicros, account(h, carol).shares], [996 * USDC, [{ tokenId: m.no, balanceMicros: 10 * USDC, heldMicros: 0 }]])
  t.same([account(h, bob).usdcMicros, account(h, bob).shares], [994 * USDC, [{ tokenId: m.yes, balanceMicros: 10 * USDC, heldMicros: 0 }]])
  const market = summaryOf(h.engine).markets[0]!
  t.same([market.collateralMicros, market.mintedMicros, market.mergedMicros], [10 * USDC, 20 * USDC, 10 * USDC])
  t.end()
})

t.test('price-time priority across the Yes and No books', (t) => {
  const { h, m } = setup()
  h.split(bob, m.marketId, 10 * USDC)
  // Yes-space asks: bob SELL Yes 0.55 (first), carol BUY No 0.45 = 0.55 (second), dave BUY No 0.46 = 0.54.
  const bobSell = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 550_000, sizeMicros: 10 * USDC })
  const carolBuyNo = h.order({ maker: carol, tokenId: m.no, side: 'BUY', priceMicros: 450_000, sizeMicros: 10 * USDC })
  const daveBuyNo = h.order({ maker: dave, tokenId: m.no, side: 'BUY', priceMicros: 460_000, sizeMicros: 10 * USDC })
  for (const o of [bobSell, carolBuyNo, daveBuyNo]) h.place(o)
  const applied = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 560_000, sizeMicros: 25 * USDC }))
  t.same(Harness.eventsOf(applied, 'trade').map((x) => [x.makerOrderId, x.matchType, x.priceMicros, x.sizeMicros]), [
    [daveBuyNo.orderId, 'mint', 540_000, 10 * USDC],
    [bobSell.orderId, 'normal', 550_000, 10 * USDC],
    [carolBuyNo.orderId, 'mint', 550_000, 5 * USDC],
  ])
  // alice pays 5.4 + 5.5 + 2.75 = 13.65.
  t.equal(account(h, alice).usdcMicros, 1_000 * USDC - 13_650_000)
  // carol's BUY No keeps 5 shares at 0.45: 2.25 held; the No book shows it as a bid.
  t.equal(account(h, carol).usdcHeldMicros, 2_250_000)
  t.same(bookOf(h.engine, m.no, false)!.bids, [{ priceMicros: 450_000, sizeMicros: 5 * USDC }])
  t.end()
})

t.test('a No taker meets normal No sellers and Yes buyers (mint) in one walk', (t) => {
  const { h, m } = setup()
  h.split(bob, m.marketId, 10 * USDC)
  // No asks: bob SELL No 0.42 (Yes-space bid 0.58); implied: carol BUY Yes 0.59 = SELL No 0.41.
  const bobSellNo = h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 420_000, sizeMicros: 10 * USDC })
  const carolBuyYes = h.order({ maker: carol, tokenId: m.yes, side: 'BUY', priceMicros: 590_000, sizeMicros: 10 * USDC })
  h.place(bobSellNo)
  h.place(carolBuyYes)
  const applied = h.place(h.order({ maker: alice, tokenId: m.no, side: 'BUY', priceMicros: 420_000, sizeMicros: 20 * USDC }))
  t.same(Harness.eventsOf(applied, 'trade').map((x) => [x.makerOrderId, x.matchType, x.priceMicros, x.makerPriceMicros]), [
    [carolBuyYes.orderId, 'mint', 410_000, 590_000],
    [bobSellNo.orderId, 'normal', 420_000, 420_000],
  ])
  t.equal(account(h, alice).usdcMicros, 1_000 * USDC - 4_100_000 - 4_200_000)
  t.end()
})

t.test('book views: own book and unified book with implied liquidity', (t) => {
  const { h, m } = setup()
  h.split(bob, m.marketId, 50 * USDC)
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }))
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 20 * USDC }))
  h.place(h.order({ maker: carol, tokenId: m.no, side: 'BUY', priceMicros: 350_000, sizeMicros: 30 * USDC }))
  h.place(h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 580_000, sizeMicros: 40 * USDC }))
  // Yes-space bids: 0.42 (SELL No 0.58, 40) and 0.40 (BUY Yes, 10); asks: 0.60 (SELL Yes, 20), 0.65 (BUY No 0.35, 30).
  t.same(bookOf(h.engine, m.yes, false), { marketId: m.marketId, tokenId: m.yes,
    bids: [{ priceMicros: 400_000, sizeMicros: 10 * USDC }], asks: [{ priceMicros: 600_000, sizeMicros: 20 * USDC }] })
  t.same(bookOf(h.engine, m.yes, true)!.bids, [{ priceMicros: 420_000, sizeMicros: 40 * USDC }, { priceMicros: 400_000, sizeMicros: 10 * USDC }])
  t.same(bookOf(h.engine, m.yes, true)!.asks, [{ priceMicros: 600_000, sizeMicros: 20 * USDC }, { priceMicros: 650_000, sizeMicros: 30 * USDC }])
  t.same(bookOf(h.engine, m.no, false), { marketId: m.marketId, tokenId: m.no,
    bids: [{ priceMicros: 350_000, sizeMicros: 30 * USDC }], asks: [{ priceMicros: 580_000, sizeMicros: 40 * USDC }] })
  t.same(bookOf(h.engine, m.no, true)!.bids, [{ priceMicros: 400_000, sizeMicros: 20 * USDC }, { priceMicros: 350_000, sizeMicros: 30 * USDC }])
  t.same(bookOf(h.engine, m.no, true)!.asks, [{ priceMicros: 580_000, sizeMicros: 40 * USDC }, { priceMicros: 600_000, sizeMicros: 10 * USDC }])
  t.equal(bookOf(h.engine, 'nope', true), null)
  t.end()
})

t.test('book levels of both tokens are reported from one Yes-space level', (t) => {
  const { h, m } = setup()
  h.split(bob, m.marketId, 10 * USDC)
  const applied = h.place(h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 300_000, sizeMicros: 10 * USDC }))
  t.same(Harness.eventsOf(applied, 'bookLevel').map((b) => [b.tokenId, b.side, b.priceMicros, b.sizeMicros]),
    [[m.no, 'SELL', 300_000, 10 * USDC]], 'a SELL No is reported on the No book only')
  t.end()
})
