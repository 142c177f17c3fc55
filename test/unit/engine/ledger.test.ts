/**
 * Ledger commands, USDC (docs/engine.md, "Ledger", "Holds and availability", "Events"): credit and
 * approve, with the exact `ledger`, `allowance` and `balance` events each produces. Shares (split,
 * merge, resolve, redeem): ledger-shares.test.ts. Every expected number is worked out by hand in
 * a comment.
 */
import t from 'tap'
import { Harness, USDC } from '../../support/harness.js'
import { accountOf, isRejected, isRejectedCode, refusedUnchanged } from '../../support/engine-checks.js'
import { summaryOf } from '../../../src/engine/view.js'
import { ALLOWANCE_MICROS_UNLIMITED, BALANCE_MICROS_MAX, SUPPLY_MICROS_MAX } from '../../../src/engine/limits.js'
import {
  alice, bob, carol, dave, erin, credit, approve, ledgerEvent, balanceEvent, allowanceEvent
} from './ledger-support.js'

// ---------------------------------------------------------------------------------------------
// credit
// ---------------------------------------------------------------------------------------------

t.test('credit: amounts, gas, events and the credited total', (t) => {
  const h = new Harness()
  const first = credit(h, alice, 5 * USDC, 7)
  t.strictSame(first.result, { ok: true })
  // ledger {credit, amount: usdc, payout: gas}, then the changed USDC balance (gas is no asset).
  t.strictSame(first.events, [
    ledgerEvent('credit', alice, '', 5_000_000, 7),
    balanceEvent(alice, 'USDC', 5_000_000, 0),
  ])
  t.strictSame(accountOf(h, alice), {
    address: alice, usdcMicros: 5_000_000, usdcHeldMicros: 0, usdcAllowanceMicros: 0,
    sharesApproved: false, gasMicros: 7, relayNonce: 0, shares: [],
  })
  t.equal(summaryOf(h.engine).creditedMicros, 5_000_000)

  // 5 + 2.5 = 7.5 USDC.
  const second = credit(h, alice, 2_500_000, 0)
  t.strictSame(second.events, [
    ledgerEvent('credit', alice, '', 2_500_000, 0),
    balanceEvent(alice, 'USDC', 7_500_000, 0),
  ])
  t.equal(summaryOf(h.engine).creditedMicros, 7_500_000)

  // Gas only: the USDC balance does not change, so there is no balance event; gas 7 + 3 = 10.
  const gas = credit(h, alice, 0, 3)
  t.strictSame(gas.result, { ok: true })
  t.strictSame(gas.events, [ledgerEvent('credit', alice, '', 0, 3)])
  t.equal(accountOf(h, alice)?.gasMicros, 10)
  t.equal(accountOf(h, alice)?.usdcMicros, 7_500_000)
  t.equal(summaryOf(h.engine).creditedMicros, 7_500_000, 'gas is not USDC supply')

  // A second address: balance events are per address.
  const other = credit(h, bob, 1, 0)
  t.strictSame(other.events, [ledgerEvent('credit', bob, '', 1, 0), balanceEvent(bob, 'USDC', 1, 0)])
  t.equal(summaryOf(h.engine).creditedMicros, 7_500_001)
  t.end()
})

t.test('credit: zero and malformed amounts are rejected (LEDGER_AMOUNT_INVALID)', (t) => {
  const h = new Harness()
  credit(h, alice, USDC)

  // Both zero: rejected; the doc says `{field}` without naming which of the two fields.
  const zero = refusedUnchanged(t, h, () => credit(h, alice, 0, 0), 'usdc 0 and gas 0')
  isRejectedCode(t, zero, 'LEDGER_AMOUNT_INVALID', 'usdc 0 and gas 0')
  if (!zero.result.ok) {
    const ctx = (zero.result as { context: Record<string, unknown> | null }).context
    t.ok(ctx !== null && (ctx.field === 'usdcMicros' || ctx.field === 'gasMicros'), 'context names one of the two fields')
  }
  // Never-seen address with zeros: not even an account appears.
  refusedUnchanged(t, h, () => credit(h, bob, 0, 0), 'zero credit to a new address')
  t.equal(accountOf(h, bob), undefined, 'a rejected credit creates no account')

  const cases: [number, number, string][] = [
    [-1, 0, 'usdcMicros'],
    [1.5, 0, 'usdcMicros'],
    [Number.NaN, 0, 'usdcMicros'],
    [Number.MAX_SAFE_INTEGER + 1, 0, 'usdcMicros'],
    [1, -1, 'gasMicros'],
    [1, 0.25, 'gasMicros'],
    [0, Number.POSITIVE_INFINITY, 'gasMicros'],
  ]
  for (const [usdc, gas, field] of cases) {
    const applied = refusedUnchanged(t, h, () => credit(h, alice, usdc, gas), `credit ${usdc} / ${gas}`)
    isRejected(t, applied, 'LEDGER_AMOUNT_INVALID', { field }, `credit ${usdc} / ${gas}`)
  }
  t.end()
})

t.test('credit: BALANCE_MICROS_MAX per balance and SUPPLY_MICROS_MAX in total', (t) => {
  const h = new Harness()
  // Exactly the largest balance: accepted.
  const full = credit(h, alice, BALANCE_MICROS_MAX)
  t.strictSame(full.result, { ok: true })
  t.strictSame(full.events, [
    ledgerEvent('credit', alice, '', 1_000_000_000_000_000, 0),
    balanceEvent(alice, 'USDC', 1_000_000_000_000_000, 0),
  ])
  // One micro more: 10^15 + 1 > 10^15.
  const over = refusedUnchanged(t, h, () => credit(h, alice, 1), 'one micro above BALANCE_MICROS_MAX')
  isRejected(t, over, 'LEDGER_BALANCE_LIMIT', { asset: 'USDC' }, 'USDC balance limit')
  // A valid gas amount does not rescue an over-limit USDC amount.
  const both = refusedUnchanged(t, h, () => credit(h, alice, 1, 1), 'USDC over, gas fine')
  isRejected(t, both, 'LEDGER_BALANCE_LIMIT', { asset: 'USDC' }, 'USDC over, gas fine')

  // Gas: the same bound on the gas balance.
  t.strictSame(credit(h, bob, 0, BALANCE_MICROS_MAX).result, { ok: true }, 'gas exactly at the bound')
  const gasOver = refusedUnchanged(t, h, () => credit(h, bob, 0, 1), 'gas one above')
  isRejected(t, gasOver, 'LEDGER_BALANCE_LIMIT', { asset: 'GAS' }, 'gas balance limit')
  // A fine USDC amount is not credited when the gas part is over the bound.
  const gasWithUsdc = refusedUnchanged(t, h, () => credit(h, bob, 5, 1), 'USDC fine, gas over')
  isRejected(t, gasWithUsdc, 'LEDGER_BALANCE_LIMIT', { asset: 'GAS' }, 'USDC fine, gas over')
  // A single gas credit above the bound for a new address.
  const bigGas = refusedUnchanged(t, h, () => credit(h, carol, 1, BALANCE_MICROS_MAX + 1), 'gas 10^15 + 1 at once')
  isRejected(t, bigGas, 'LEDGER_BALANCE_LIMIT', { asset: 'GAS' }, 'gas 10^15 + 1 at once')
  t.equal(accountOf(h, carol), undefined, 'no account for a rejected credit')
  t.equal(summaryOf(h.engine).creditedMicros, BALANCE_MICROS_MAX, 'gas credits do not count as supply')

  // Supply: alice 10^15 + carol 10^15 + dave 10^15 = 3 * 10^15; erin 10^15 - 1 -> 4 * 10^15 - 1.
  t.strictSame(credit(h, carol, BALANCE_MICROS_MAX).result, { ok: true })
  t.strictSame(credit(h, dave, BALANCE_MICROS_MAX).result, { ok: true })
  t.strictSame(credit(h, erin, BALANCE_MICROS_MAX - 1).result, { ok: true })
  t.equal(summaryOf(h.engine).creditedMicros, SUPPLY_MICROS_MAX - 1, '4 * 10^15 - 1')
  // One more micro for bob reaches exactly 4 * 10^15 = SUPPLY_MICROS_MAX: accepted.
  t.strictSame(credit(h, bob, 1).result, { ok: true })
  t.equal(summaryOf(h.engine).creditedMicros, 4_000_000_000_000_000)
  // One more micro anywhere exceeds the supply, though bob's balance (2) is far below its bound.
  const supplyOver = refusedUnchanged(t, h, () => credit(h, bob, 1), 'one micro above SUPPLY_MICROS_MAX')
  isRejected(t, supplyOver, 'LEDGER_BALANCE_LIMIT', { asset: 'USDC' }, 'supply limit')
  t.equal(accountOf(h, bob)?.usdcMicros, 1)
  t.end()
})

// ---------------------------------------------------------------------------------------------
// approve
// ---------------------------------------------------------------------------------------------

t.test('approve: events, invalid amounts', (t) => {
  const h = new Harness()
  // A new address: the allowance event only (no balance changed).
  const first = approve(h, alice, 4 * USDC)
  t.strictSame(first.result, { ok: true })
  t.strictSame(first.events, [allowanceEvent(alice, 4_000_000, true)], 'non-zero approves shares')
  t.equal(accountOf(h, alice)?.usdcAllowanceMicros, 4_000_000)
  t.equal(accountOf(h, alice)?.sharesApproved, true)

  const revoke = approve(h, alice, 0)
  t.strictSame(revoke.events, [allowanceEvent(alice, 0, false)], 'zero revokes shares')
  t.equal(accountOf(h, alice)?.sharesApproved, false)

  const unlimited = approve(h, alice, ALLOWANCE_MICROS_UNLIMITED)
  t.strictSame(unlimited.events, [allowanceEvent(alice, Number.MAX_SAFE_INTEGER, true)])

  for (const bad of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
    const applied = refusedUnchanged(t, h, () => approve(h, alice, bad), `approve ${bad}`)
    isRejected(t, applied, 'LEDGER_AMOUNT_INVALID', { field: 'usdcAllowanceMicros' }, `approve ${bad}`)
  }
  t.end()
})

t.test('approve: the allowance caps what orders may hold; available = min(balance, allowance) - held', (t) => {
  const h = new Harness()
  const m = h.market()
  credit(h, alice, 10 * USDC)
  approve(h, alice, 4 * USDC)

  // min(10, 4) - 0 = 4 USDC available: a BUY of 8 shares at 0.50 costs exactly 4 USDC (fee 0).
  const a1 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 8 * USDC }))
  t.equal(a1.result.ok && 'status' in a1.result ? a1.result.status : null, 'LIVE')
  t.equal(accountOf(h, alice)?.usdcHeldMicros, 4_000_000)

  // min(10, 4) - 4 = 0 left: one share at 0.50 (500 000) is refused, with the whole picture.
  const a2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC }))
  t.match(a2.result, {
    ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE',
    context: { asset: 'USDC', requiredMicros: 500_000, availableMicros: 0, balanceMicros: 10_000_000, allowanceMicros: 4_000_000, heldMicros: 4_000_000 },
  })
  t.strictSame((a2.result as { context: unknown }).context, {
    asset: 'USDC', requiredMicros: 500_000, availableMicros: 0, balanceMicros: 10_000_000,
    allowanceMicros: 4_000_000, heldMicros: 4_000_000,
  })

  // Raising the cap to 5: min(10, 5) - 4 = 1 USDC: two shares at 0.50 = 1 000 000 fit exactly.
  approve(h, alice, 5 * USDC)
  const a3 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 2 * USDC }))
  t.equal(a3.result.ok, true)
  t.equal(accountOf(h, alice)?.usdcHeldMicros, 5_000_000, '4 + 1 held')

  // The balance, not the allowance, binds: bob has 3 USDC and approves 100.
  credit(h, bob, 3 * USDC)
  approve(h, bob, 100 * USDC)
  // min(3, 100) - 0 = 3: 7 shares at 0.50 = 3.5 USDC is refused.
  const b1 = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 7 * USDC }))
  t.strictSame((b1.result as { context: unknown }).context, {
    asset: 'USDC', requiredMicros: 3_500_000, availableMicros: 3_000_000, balanceMicros: 3_000_000,
    allowanceMicros: 100_000_000, heldMicros: 0,
  })
  // 6 shares at 0.50 = 3 USDC: accepted (bid 0.50 does not cross anything).
  const b2 = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 6 * USDC }))
  t.equal(b2.result.ok, true)

  // The allowance is a cap, not consumed by trades: carol sells 8 Yes at 0.50 into alice's bid
  // (alice's 8 shares came first at that level).
  credit(h, carol, 10 * USDC)
  approve(h, carol, 10 * USDC)
  h.split(carol, m.marketId, 8 * USDC)
  const sell = h.place(h.order({ maker: carol, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 8 * USDC }))
  t.equal(sell.result.ok && 'status' in sell.result ? sell.result.status : null, 'MATCHED')
  // alice paid 4 USDC out of her hold: balance 10 - 4 = 6, held 5 - 4 = 1; allowance still 5.
  t.match(accountOf(h, alice), { usdcMicros: 6_000_000, usdcHeldMicros: 1_000_000, usdcAllowanceMicros: 5_000_000 })
  // Available now min(6, 5) - 1 = 4: 8 shares at 0.50 = 4 USDC fit, 4.01 USDC does not.
  const a4 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 10_000, sizeMicros: 401 * USDC }))
  t.strictSame((a4.result as { context: unknown }).context, {
    asset: 'USDC', requiredMicros: 4_010_000, availableMicros: 4_000_000, balanceMicros: 6_000_000,
    allowanceMicros: 5_000_000, heldMicros: 1_000_000,
  }, '0.01 x 401 = 4.01 USDC needed, 4 available')
  const a5 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 10_000, sizeMicros: 400 * USDC }))
  t.equal(a5.result.ok, true, '0.01 x 400 = 4 USDC fits exactly')
  t.end()
})

t.test('approve: refused with LEDGER_ALLOWANCE_BELOW_HOLDS while orders hold USDC or shares', (t) => {
  const h = new Harness()
  const m = h.market()
  credit(h, alice, 10 * USDC)
  approve(h, alice, 10 * USDC)
  // A BUY of 5 shares at 0.40 holds 2 USDC.
  const buy = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }))
  t.equal(accountOf(h, alice)?.usdcHeldMicros, 2_000_000)

  // Lowering the cap to exactly what is held is fine.
  const equal = approve(h, alice, 2 * USDC)
  t.strictSame(equal.result, { ok: true })
  t.strictSame(equal.events, [allowanceEvent(alice, 2_000_000, true)])
  // One micro below the hold, or zero, is refused and changes nothing.
  const below = refusedUnchanged(t, h, () => approve(h, alice, 1_999_999), 'allowance 1 below the USDC held')
  isRejectedCode(t, below, 'LEDGER_ALLOWANCE_BELOW_HOLDS', 'allowance below USDC held')
  const zero = refusedUnchanged(t, h, () => approve(h, alice, 0), 'zero allowance while USDC is held')
  isRejectedCode(t, zero, 'LEDGER_ALLOWANCE_BELOW_HOLDS', 'zero while USDC held')
  t.match(accountOf(h, alice), { usdcAllowanceMicros: 2_000_000, sharesApproved: true })

  // Cancel the BUY: nothing held. Split 3 USDC and offer 2 Yes at 0.60: 2 shares held, no USDC.
  h.apply({ kind: 'cancelOrder', address: alice, orderId: (buy.result as { orderId: string }).orderId })
  h.split(alice, m.marketId, 3 * USDC)
  const sell = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 2 * USDC }))
  t.equal(sell.result.ok, true)
  t.match(accountOf(h, alice), { usdcMicros: 7_000_000, usdcHeldMicros: 0, shares: [{ tokenId: m.no, balanceMicros: 3_000_000, heldMicros: 0 }, { tokenId: m.yes, balanceMicros: 3_000_000, heldMicros: 2_000_000 }] })

  // A non-zero allowance below nothing: fine, shares stay approved.
  const one = approve(h, alice, 1)
  t.strictSame(one.events, [allowanceEvent(alice, 1, true)])
  // Zero would revoke the shares that the SELL holds: refused, nothing changes.
  const revoke = refusedUnchanged(t, h, () => approve(h, alice, 0), 'zero allowance while shares are held')
  isRejectedCode(t, revoke, 'LEDGER_ALLOWANCE_BELOW_HOLDS', 'zero while shares held')
  t.equal(accountOf(h, alice)?.sharesApproved, true)

  // Cancel the SELL; now zero is accepted and revokes the shares.
  h.apply({ kind: 'cancelOrder', address: alice, orderId: (sell.result as { orderId: string }).orderId })
  const zeroOk = approve(h, alice, 0)
  t.strictSame(zeroOk.events, [allowanceEvent(alice, 0, false)])
  // With shares revoked a SELL sees 0 available (balance 3, held 0, approved false).
  const sell2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: USDC }))
  t.strictSame((sell2.result as { context: unknown }).context, {
    asset: m.yes, requiredMicros: 1_000_000, availableMicros: 0, balanceMicros: 3_000_000, heldMicros: 0, approved: false,
  })
  // And a BUY sees min(7, 0) - 0 = 0.
  const buy2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 100_000, sizeMicros: USDC }))
  t.strictSame((buy2.result as { context: unknown }).context, {
    asset: 'USDC', requiredMicros: 100_000, availableMicros: 0, balanceMicros: 7_000_000, allowanceMicros: 0, heldMicros: 0,
  })
  // Approving again restores both.
  approve(h, alice, 1)
  const sell3 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: USDC }))
  t.equal(sell3.result.ok, true, 'shares approved again by a non-zero approval')
  t.end()
})
