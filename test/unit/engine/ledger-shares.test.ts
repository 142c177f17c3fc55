/**
 * Ledger commands, shares (docs/engine.md, "Ledger", "Events"): split, merge, resolve + redeem,
 * with the exact events each produces, and the balance events' order. Every expected number is
 * worked out by hand in a comment.
 */
import t from 'tap'
import { Harness, USDC } from '../../support/harness.js'
import { accountOf, marketOf, isRejected, isRejectedCode, refusedUnchanged } from '../../support/engine-checks.js'
import { summaryOf } from '../../../src/engine/view.js'
import { alice, bob, carol, credit, approve, ledgerEvent, balanceEvent } from './ledger-support.js'

// ---------------------------------------------------------------------------------------------
// split / merge
// ---------------------------------------------------------------------------------------------

t.test('split and merge: balances, collateral, minted/merged, events', (t) => {
  const h = new Harness()
  const m = h.market()
  credit(h, alice, 10 * USDC)
  // No approval: split does not need the allowance.
  const split = h.apply({ kind: 'split', address: alice, marketId: m.marketId, amountMicros: 3 * USDC })
  t.strictSame(split.result, { ok: true })
  // ledger, then balances: USDC first, then token ids ('m1-no' < 'm1-yes').
  t.strictSame(split.events, [
    ledgerEvent('split', alice, m.marketId, 3_000_000, 0),
    balanceEvent(alice, 'USDC', 7_000_000, 0), // 10 - 3
    balanceEvent(alice, m.no, 3_000_000, 0),
    balanceEvent(alice, m.yes, 3_000_000, 0),
  ])
  t.match(marketOf(h, m.marketId), { collateralMicros: 3_000_000, mintedMicros: 3_000_000, mergedMicros: 0 })
  t.strictSame(accountOf(h, alice)?.shares, [
    { tokenId: m.no, balanceMicros: 3_000_000, heldMicros: 0 },
    { tokenId: m.yes, balanceMicros: 3_000_000, heldMicros: 0 },
  ])

  const merge = h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: USDC })
  t.strictSame(merge.result, { ok: true })
  t.strictSame(merge.events, [
    ledgerEvent('merge', alice, m.marketId, 1_000_000, 0),
    balanceEvent(alice, 'USDC', 8_000_000, 0), // 7 + 1
    balanceEvent(alice, m.no, 2_000_000, 0), // 3 - 1
    balanceEvent(alice, m.yes, 2_000_000, 0),
  ])
  // collateral 3 - 1 = 2; minted stays 3; merged 1.
  t.match(marketOf(h, m.marketId), { collateralMicros: 2_000_000, mintedMicros: 3_000_000, mergedMicros: 1_000_000 })

  // Amounts need not be whole lots: one micro-set.
  const tiny = h.apply({ kind: 'split', address: alice, marketId: m.marketId, amountMicros: 1 })
  t.strictSame(tiny.events, [
    ledgerEvent('split', alice, m.marketId, 1, 0),
    balanceEvent(alice, 'USDC', 7_999_999, 0),
    balanceEvent(alice, m.no, 2_000_001, 0),
    balanceEvent(alice, m.yes, 2_000_001, 0),
  ])
  t.match(marketOf(h, m.marketId), { collateralMicros: 2_000_001, mintedMicros: 3_000_001, mergedMicros: 1_000_000 })
  t.end()
})

t.test('split and merge: rejections', (t) => {
  const h = new Harness()
  const m = h.market()
  credit(h, alice, 10 * USDC)
  h.split(alice, m.marketId, 2 * USDC) // USDC 8, Yes 2, No 2

  // 8_000_001 > 8_000_000 free USDC.
  const s1 = refusedUnchanged(t, h, () => h.apply({ kind: 'split', address: alice, marketId: m.marketId, amountMicros: 8_000_001 }), 'split above balance')
  isRejected(t, s1, 'LEDGER_INSUFFICIENT_BALANCE', { asset: 'USDC', requiredMicros: 8_000_001, availableMicros: 8_000_000 }, 'split above balance')
  // Unknown address: all zeros.
  const s2 = refusedUnchanged(t, h, () => h.apply({ kind: 'split', address: bob, marketId: m.marketId, amountMicros: 1 }), 'split by unknown')
  isRejected(t, s2, 'LEDGER_INSUFFICIENT_BALANCE', { asset: 'USDC', requiredMicros: 1, availableMicros: 0 }, 'split by unknown')

  // Merge 2_000_001 > 2_000_000 of both tokens: the doc does not say which token is reported first.
  const m1 = refusedUnchanged(t, h, () => h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: 2_000_001 }), 'merge above shares')
  t.match(m1.result, { ok: false, code: 'LEDGER_INSUFFICIENT_BALANCE', context: { requiredMicros: 2_000_001, availableMicros: 2_000_000 } })
  const asset = (m1.result as { context: { asset?: unknown } }).context.asset
  t.ok(asset === m.yes || asset === m.no, 'asset is one of the tokens')

  for (const [kind, amount] of [['split', 0], ['merge', 0], ['split', -1], ['merge', 1.5]] as const) {
    const applied = refusedUnchanged(t, h, () => h.apply({ kind, address: alice, marketId: m.marketId, amountMicros: amount }), `${kind} ${amount}`)
    isRejected(t, applied, 'LEDGER_AMOUNT_INVALID', { field: 'amountMicros' }, `${kind} ${amount}`)
  }
  for (const kind of ['split', 'merge', 'redeem'] as const) {
    const applied = refusedUnchanged(t, h, () => kind === 'redeem'
      ? h.apply({ kind, address: alice, marketId: 'nope' })
      : h.apply({ kind, address: alice, marketId: 'nope', amountMicros: USDC }), `${kind} unknown market`)
    isRejected(t, applied, 'MARKET_NOT_FOUND', { marketId: 'nope' }, `${kind} unknown market`)
  }
  t.end()
})

t.test('split and merge: held funds are not usable, the allowance is not needed', (t) => {
  const h = new Harness()
  const m = h.market()
  credit(h, alice, 10 * USDC)
  approve(h, alice, 10 * USDC)
  // BUY 10 Yes at 0.50 holds 5 USDC: balance - held = 5.
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC }))
  const s1 = refusedUnchanged(t, h, () => h.apply({ kind: 'split', address: alice, marketId: m.marketId, amountMicros: 5_000_001 }), 'split into held USDC')
  isRejected(t, s1, 'LEDGER_INSUFFICIENT_BALANCE', { asset: 'USDC', requiredMicros: 5_000_001, availableMicros: 5_000_000 }, 'split into held USDC')
  const s2 = h.apply({ kind: 'split', address: alice, marketId: m.marketId, amountMicros: 5 * USDC })
  t.strictSame(s2.events, [
    ledgerEvent('split', alice, m.marketId, 5_000_000, 0),
    balanceEvent(alice, 'USDC', 5_000_000, 5_000_000), // 10 - 5, still holding 5
    balanceEvent(alice, m.no, 5_000_000, 0),
    balanceEvent(alice, m.yes, 5_000_000, 0),
  ])

  // SELL 3 Yes at 0.60 holds 3 Yes: free Yes = 5 - 3 = 2, free No = 5.
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 3 * USDC }))
  const m1 = refusedUnchanged(t, h, () => h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: 2_000_001 }), 'merge into held Yes')
  isRejected(t, m1, 'LEDGER_INSUFFICIENT_BALANCE', { asset: m.yes, requiredMicros: 2_000_001, availableMicros: 2_000_000 }, 'merge into held Yes')
  const m2 = h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: 2 * USDC })
  t.strictSame(m2.events, [
    ledgerEvent('merge', alice, m.marketId, 2_000_000, 0),
    balanceEvent(alice, 'USDC', 7_000_000, 5_000_000), // 5 + 2
    balanceEvent(alice, m.no, 3_000_000, 0), // 5 - 2
    balanceEvent(alice, m.yes, 3_000_000, 3_000_000), // 5 - 2, 3 held
  ])
  // collateral 5 - 2 = 3; minted 5; merged 2.
  t.match(marketOf(h, m.marketId), { collateralMicros: 3_000_000, mintedMicros: 5_000_000, mergedMicros: 2_000_000 })

  // bob never approves: split uses balance - held only.
  credit(h, bob, 2 * USDC)
  const s3 = h.apply({ kind: 'split', address: bob, marketId: m.marketId, amountMicros: 2 * USDC })
  t.strictSame(s3.result, { ok: true })
  t.match(accountOf(h, bob), { usdcMicros: 0, usdcAllowanceMicros: 0, sharesApproved: false })
  // bob merges back without an approval too.
  t.strictSame(h.apply({ kind: 'merge', address: bob, marketId: m.marketId, amountMicros: 2 * USDC }).result, { ok: true })
  t.match(accountOf(h, bob), { usdcMicros: 2_000_000 })
  t.end()
})

t.test('merge: only the No token short', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  h.split(alice, m.marketId, 4 * USDC)
  // SELL 3 No at 0.40 holds 3 No: free No = 1, free Yes = 4.
  h.place(h.order({ maker: alice, tokenId: m.no, side: 'SELL', priceMicros: 400_000, sizeMicros: 3 * USDC }))
  const m1 = refusedUnchanged(t, h, () => h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: 1_000_001 }), 'merge into held No')
  isRejected(t, m1, 'LEDGER_INSUFFICIENT_BALANCE', { asset: m.no, requiredMicros: 1_000_001, availableMicros: 1_000_000 }, 'merge into held No')
  t.end()
})

// ---------------------------------------------------------------------------------------------
// resolve and redeem
// ---------------------------------------------------------------------------------------------

t.test('resolve and redeem: winners pay 1 USDC, losers 0, both burned', (t) => {
  const h = new Harness()
  const m = h.market()
  credit(h, alice, 10 * USDC)
  approve(h, alice, 10 * USDC)
  h.split(alice, m.marketId, 6 * USDC) // alice: USDC 4, Yes 6, No 6
  h.fund(bob, 10 * USDC)
  // alice sells 2 Yes at 0.70 to bob: bob pays 1.4 USDC.
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 700_000, sizeMicros: 2 * USDC }))
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 700_000, sizeMicros: 2 * USDC }))
  // alice: USDC 4 + 1.4 = 5.4, Yes 4, No 6; bob: USDC 10 - 1.4 = 8.6, Yes 2.
  t.match(accountOf(h, alice), { usdcMicros: 5_400_000 })
  t.match(accountOf(h, bob), { usdcMicros: 8_600_000 })

  const early = refusedUnchanged(t, h, () => h.apply({ kind: 'redeem', address: alice, marketId: m.marketId }), 'redeem before resolution')
  isRejectedCode(t, early, 'LEDGER_MARKET_NOT_RESOLVED', 'redeem before resolution')

  const resolve = h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'Yes' })
  t.strictSame(resolve.result, { ok: true })
  t.strictSame(resolve.events, [{ type: 'marketUpdated', marketId: m.marketId, status: 'Resolved', tickSizeMicros: 10_000, feeRateBps: 0, winningOutcome: 'Yes',
    resolvedMs: h.timeMs }])

  // Split is refused once resolved; merge is still allowed.
  const split = refusedUnchanged(t, h, () => h.apply({ kind: 'split', address: alice, marketId: m.marketId, amountMicros: USDC }), 'split after resolution')
  isRejectedCode(t, split, 'LEDGER_MARKET_RESOLVED', 'split after resolution')
  const merge = h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: USDC })
  t.strictSame(merge.events, [
    ledgerEvent('merge', alice, m.marketId, 1_000_000, 0),
    balanceEvent(alice, 'USDC', 6_400_000, 0), // 5.4 + 1
    balanceEvent(alice, m.no, 5_000_000, 0), // 6 - 1
    balanceEvent(alice, m.yes, 3_000_000, 0), // 4 - 1
  ])
  // collateral 6 - 1 = 5 = Yes supply (alice 3 + bob 2).
  t.match(marketOf(h, m.marketId), { collateralMicros: 5_000_000, mintedMicros: 6_000_000, mergedMicros: 1_000_000 })

  // alice redeems: burns 3 Yes + 5 No = 8 shares, paid 3 USDC (Yes won).
  const r1 = h.apply({ kind: 'redeem', address: alice, marketId: m.marketId })
  t.strictSame(r1.result, { ok: true })
  t.strictSame(r1.events, [
    ledgerEvent('redeem', alice, m.marketId, 8_000_000, 3_000_000),
    balanceEvent(alice, 'USDC', 9_400_000, 0), // 6.4 + 3
    balanceEvent(alice, m.no, 0, 0),
    balanceEvent(alice, m.yes, 0, 0),
  ])
  t.strictSame(accountOf(h, alice)?.shares, [], 'no shares left')
  // collateral 5 - 3 = 2; redeemed Yes 3, No 5.
  t.match(marketOf(h, m.marketId), { collateralMicros: 2_000_000, redeemedYesMicros: 3_000_000, redeemedNoMicros: 5_000_000 })

  const again = refusedUnchanged(t, h, () => h.apply({ kind: 'redeem', address: alice, marketId: m.marketId }), 'redeem twice')
  isRejectedCode(t, again, 'LEDGER_NOTHING_TO_REDEEM', 'redeem twice')
  const stranger = refusedUnchanged(t, h, () => h.apply({ kind: 'redeem', address: carol, marketId: m.marketId }), 'redeem by unknown')
  isRejectedCode(t, stranger, 'LEDGER_NOTHING_TO_REDEEM', 'redeem by unknown')

  // bob: 2 Yes, never had No: one ledger event, USDC and Yes balances.
  const r2 = h.apply({ kind: 'redeem', address: bob, marketId: m.marketId })
  t.strictSame(r2.events, [
    ledgerEvent('redeem', bob, m.marketId, 2_000_000, 2_000_000),
    balanceEvent(bob, 'USDC', 10_600_000, 0), // 8.6 + 2
    balanceEvent(bob, m.yes, 0, 0),
  ])
  // collateral 2 - 2 = 0; redeemed Yes 3 + 2 = 5.
  t.match(marketOf(h, m.marketId), { collateralMicros: 0, redeemedYesMicros: 5_000_000, redeemedNoMicros: 5_000_000 })
  // USDC: 9.4 + 10.6 = 20 = credited.
  t.equal(summaryOf(h.engine).creditedMicros, 20_000_000)
  t.end()
})

t.test('redeem: a losing-only holder is paid nothing; No can win', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  h.split(alice, m.marketId, 5 * USDC) // alice USDC 5, Yes 5, No 5
  // bob buys 3 Yes at 0.20 from alice: bob pays 0.6.
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 200_000, sizeMicros: 3 * USDC }))
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 200_000, sizeMicros: 3 * USDC }))
  // alice: USDC 5.6, Yes 2, No 5; bob: USDC 9.4, Yes 3.
  h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'No' })
  t.equal(marketOf(h, m.marketId)?.winningOutcome, 'No')

  // bob's Yes lost: 3 shares burned, 0 paid, no USDC balance event.
  const rb = h.apply({ kind: 'redeem', address: bob, marketId: m.marketId })
  t.strictSame(rb.events, [ledgerEvent('redeem', bob, m.marketId, 3_000_000, 0), balanceEvent(bob, m.yes, 0, 0)])
  t.equal(accountOf(h, bob)?.usdcMicros, 9_400_000)
  // alice: 2 Yes + 5 No burned = 7, paid 5 (No won).
  const ra = h.apply({ kind: 'redeem', address: alice, marketId: m.marketId })
  t.strictSame(ra.events, [
    ledgerEvent('redeem', alice, m.marketId, 7_000_000, 5_000_000),
    balanceEvent(alice, 'USDC', 10_600_000, 0), // 5.6 + 5
    balanceEvent(alice, m.no, 0, 0),
    balanceEvent(alice, m.yes, 0, 0),
  ])
  // collateral 5 - 5 = 0; redeemed Yes 3 + 2 = 5, No 5.
  t.match(marketOf(h, m.marketId), { collateralMicros: 0, mintedMicros: 5_000_000, redeemedYesMicros: 5_000_000, redeemedNoMicros: 5_000_000 })
  t.end()
})

t.test('merge is allowed in every status; split is refused only when resolved', (t) => {
  const h = new Harness()
  const m = h.market({ status: 'Upcoming' })
  credit(h, alice, 10 * USDC)
  const path: ('Upcoming' | 'Active' | 'Paused' | 'Closed' | 'Resolving')[] = ['Upcoming', 'Active', 'Paused', 'Closed', 'Resolving']
  let usdc = 10_000_000
  for (const status of path) {
    if (status !== 'Upcoming') t.strictSame(h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status }).result, { ok: true }, `to ${status}`)
    t.strictSame(h.apply({ kind: 'split', address: alice, marketId: m.marketId, amountMicros: 2 * USDC }).result, { ok: true }, `split when ${status}`)
    t.strictSame(h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: USDC }).result, { ok: true }, `merge when ${status}`)
    usdc -= 1_000_000 // split 2, merge 1
    t.equal(accountOf(h, alice)?.usdcMicros, usdc, `USDC after ${status}`)
  }
  // Five rounds: minted 10, merged 5, collateral 5.
  t.match(marketOf(h, m.marketId), { collateralMicros: 5_000_000, mintedMicros: 10_000_000, mergedMicros: 5_000_000 })
  h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'Yes' })
  t.strictSame(h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: USDC }).result, { ok: true }, 'merge when Resolved')
  t.end()
})

t.test('balance events: sorted by address, then USDC, then token id, by UTF-16 code units', (t) => {
  const h = new Harness()
  // U+FF5E is one code unit (0xFF5E); U+1F600 is a surrogate pair starting 0xD83D. By UTF-16 code
  // units U+1F600 sorts first (0xD83D < 0xFF5E); by code points it would sort last.
  const yes = '\uFF5E'
  const no = '\u{1F600}'
  const created = h.apply({ kind: 'createMarket', market: {
    marketId: 'u1', conditionId: '0xcond-u1', question: 'Unicode?', slug: 'u1', description: '',
    yesTokenId: yes, noTokenId: no, tickSizeMicros: 10_000, minOrderSizeMicros: 1_000_000,
    feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active',
  } })
  t.strictSame(created.result, { ok: true })
  credit(h, alice, 5 * USDC)
  const split = h.apply({ kind: 'split', address: alice, marketId: 'u1', amountMicros: 2 * USDC })
  t.strictSame(split.events, [
    ledgerEvent('split', alice, 'u1', 2_000_000, 0),
    balanceEvent(alice, 'USDC', 3_000_000, 0),
    balanceEvent(alice, no, 2_000_000, 0), // U+1F600 first
    balanceEvent(alice, yes, 2_000_000, 0),
  ])

  // Addresses: '0xBBBB' < '0xaaaa' by code units ('B' = 0x42 < 'a' = 0x61), unlike a
  // case-insensitive or locale order.
  const lower = '0xaaaa'
  const upper = '0xBBBB'
  credit(h, lower, 5 * USDC)
  approve(h, lower, 5 * USDC)
  h.apply({ kind: 'split', address: lower, marketId: 'u1', amountMicros: USDC })
  credit(h, upper, 5 * USDC)
  approve(h, upper, 5 * USDC)
  h.place(h.order({ maker: lower, tokenId: yes, side: 'SELL', priceMicros: 300_000, sizeMicros: USDC }))
  const buy = h.place(h.order({ maker: upper, tokenId: yes, side: 'BUY', priceMicros: 300_000, sizeMicros: USDC }))
  t.strictSame(Harness.eventsOf(buy, 'balance'), [
    balanceEvent(upper, 'USDC', 4_700_000, 0), // 5 - 0.3
    balanceEvent(upper, yes, 1_000_000, 0),
    balanceEvent(lower, 'USDC', 4_300_000, 0), // 5 - 1 (split) + 0.3
    balanceEvent(lower, yes, 0, 0),
  ])
  t.end()
})
