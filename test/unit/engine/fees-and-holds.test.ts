/**
 * Fees (the taker pays floor(rate x min(p, 1 - p) x shares) in USDC, to the exchange's fee
 * total) and holds (a BUY holds its cost plus the most fee it could owe; fills consume holds;
 * cancels release them; available = min(balance, allowance) - held).
 */
import t from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import { summaryOf } from '../../../src/engine/view.js'
import type { OrderPlaced, OrderRejection } from '../../../src/engine/result.js'

const alice = addressOf(1)
const bob = addressOf(2)

function account(h: Harness, address: string) {
  return summaryOf(h.engine).accounts.find((a) => a.address === address)!
}

t.test('the taker pays the fee; the maker pays none', (t) => {
  const h = new Harness()
  const m = h.market({ feeRateBps: 100 })
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(bob, m.marketId, 20 * USDC)
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 300_000, sizeMicros: 10 * USDC, feeRateBps: 100 }))
  const applied = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 300_000, sizeMicros: 10 * USDC, feeRateBps: 100 }))
  // 1 % x min(0.30, 0.70) x 10 shares = 0.03 USDC.
  t.equal((applied.result as OrderPlaced).feeMicros, 30_000)
  t.equal(Harness.eventsOf(applied, 'trade')[0]!.feeMicros, 30_000)
  t.equal(account(h, alice).usdcMicros, 100 * USDC - 3 * USDC - 30_000)
  t.equal(account(h, bob).usdcMicros, 80 * USDC + 3 * USDC, 'the maker receives the full price')
  t.equal(summaryOf(h.engine).feesMicros, 30_000)
  t.end()
})

t.test('buying No at 1 - p costs the same fee as buying Yes at p', (t) => {
  const h = new Harness()
  const m = h.market({ feeRateBps: 100 })
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(bob, m.marketId, 20 * USDC)
  h.place(h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 700_000, sizeMicros: 10 * USDC, feeRateBps: 100 }))
  const applied = h.place(h.order({ maker: alice, tokenId: m.no, side: 'BUY', priceMicros: 700_000, sizeMicros: 10 * USDC, feeRateBps: 100 }))
  t.equal((applied.result as OrderPlaced).feeMicros, 30_000, 'min(0.70, 0.30) = 0.30 again')
  t.end()
})

t.test('a SELL taker pays its fee out of the proceeds; fees round down per fill', (t) => {
  const h = new Harness()
  const m = h.market({ feeRateBps: 7, minOrderSizeMicros: 0 })
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(bob, m.marketId, 20 * USDC)
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 330_000, sizeMicros: 10_000, feeRateBps: 7 }))
  const applied = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 330_000, sizeMicros: 10_000, feeRateBps: 7 }))
  // One lot (0.01 share) at 0.33: 7 bps x 0.33 x 0.01 = 0.00000231 USDC = 2.31 micro -> 2.
  const result = applied.result as OrderPlaced
  t.same([result.takingMicros, result.feeMicros], [3_300, 2])
  t.equal(account(h, bob).usdcMicros, 80 * USDC + 3_300 - 2)
  t.end()
})

t.test('a BUY must hold its cost plus the most fee it could owe', (t) => {
  const h = new Harness()
  const m = h.market({ feeRateBps: 100, minOrderSizeMicros: 0 })
  // 10 shares at 0.30 cost 3 USDC; fee bound ceil(1 % x 3 USDC) = 0.03.
  h.fund(alice, 3_029_999)
  const order = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 300_000, sizeMicros: 10 * USDC, feeRateBps: 100 })
  const rejected = h.place(order).result as OrderRejection
  t.same(rejected.context, { asset: 'USDC', requiredMicros: 3_030_000, availableMicros: 3_029_999,
    balanceMicros: 3_029_999, allowanceMicros: Number.MAX_SAFE_INTEGER, heldMicros: 0 })
  h.apply({ kind: 'credit', address: alice, usdcMicros: 1, gasMicros: 0 })
  t.equal(h.place(order).result.ok, true)
  // Resting, it holds only its cost: makers pay no fee.
  t.equal(account(h, alice).usdcHeldMicros, 3 * USDC)
  t.end()
})

t.test('holds: partial fills consume them at the order\'s price, cancels release the rest', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(bob, m.marketId, 30 * USDC)
  const bid = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 450_000, sizeMicros: 20 * USDC })
  h.place(bid)
  t.equal(account(h, alice).usdcHeldMicros, 9 * USDC, '20 x 0.45')
  const ask = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 30 * USDC })
  h.place(ask)
  t.same(account(h, bob).shares.find((s) => s.tokenId === m.yes), { tokenId: m.yes, balanceMicros: 30 * USDC, heldMicros: 30 * USDC })
  h.apply({ kind: 'cancelOrder', address: bob, orderId: ask.orderId })
  t.same(account(h, bob).shares.find((s) => s.tokenId === m.yes), { tokenId: m.yes, balanceMicros: 30 * USDC, heldMicros: 0 })
  const sell = { ...h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 450_000, sizeMicros: 8 * USDC }), timeInForce: 'FAK' as const }
  // bob sells 8 into alice's bid at 0.45: she pays 3.6 out of her hold, which drops to 12 x 0.45.
  h.place(sell)
  t.same([account(h, alice).usdcMicros, account(h, alice).usdcHeldMicros], [100 * USDC - 3_600_000, 5_400_000])
  h.apply({ kind: 'cancelAll', address: alice })
  t.same([account(h, alice).usdcMicros, account(h, alice).usdcHeldMicros], [96_400_000, 0])
  t.end()
})

t.test('available USDC is min(balance, allowance) minus holds', (t) => {
  const h = new Harness()
  const m = h.market()
  h.apply({ kind: 'credit', address: alice, usdcMicros: 100 * USDC, gasMicros: 0 })
  h.apply({ kind: 'approve', address: alice, usdcAllowanceMicros: 10 * USDC })
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 12 * USDC }))
  const r = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC })).result as OrderRejection
  // Allowance 10 caps it: 10 - 6 held = 4 available, 5 needed.
  t.same(r.context, { asset: 'USDC', requiredMicros: 5 * USDC, availableMicros: 4 * USDC, balanceMicros: 100 * USDC,
    allowanceMicros: 10 * USDC, heldMicros: 6 * USDC })
  t.end()
})
