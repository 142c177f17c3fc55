/**
 * Ledger commands (docs/engine.md, "Ledger", "Holds and availability", "Events"): credit,
 * approve, split, merge, resolve + redeem, with the exact `ledger`, `allowance` and `balance`
 * events each produces. Every expected number is worked out by hand in a comment.
 */
import t, { type Test } from 'tap'
import { Harness, addressOf, USDC } from '../../support/harness.js'
import type { ApplyResult } from '../../../src/engine/engine.js'
import { CODE_MESSAGES, type Code } from '../../../src/engine/codes.js'
import type { ContextValue } from '../../../src/engine/result.js'
import type { StateSummary } from '../../../src/engine/summary.js'
import { summaryOf } from '../../../src/engine/view.js'
import { ALLOWANCE_MICROS_UNLIMITED, BALANCE_MICROS_MAX, SUPPLY_MICROS_MAX } from '../../../src/engine/limits.js'

const alice = addressOf(1)
const bob = addressOf(2)
const carol = addressOf(3)
const dave = addressOf(4)
const erin = addressOf(5)


/** The state without the stamp that every command advances. */
function stateOf(h: Harness): StateSummary {
  // seq and timeMs advance with every command; everything else must stay.
  return { ...summaryOf(h.engine), seq: 0, timeMs: 0 }
}

function accountOf(h: Harness, address: string) {
  return summaryOf(h.engine).accounts.find((a) => a.address === address)
}

function marketOf(h: Harness, marketId: string) {
  return summaryOf(h.engine).markets.find((m) => m.marketId === marketId)
}

/** An exact rejection: code, catalogue message and context. */
function isRejected(t: Test, applied: ApplyResult, code: Code, context: Record<string, ContextValue> | null, what: string): void {
  t.strictSame(applied.result, { ok: false, code, message: CODE_MESSAGES[code], context }, what)
}

/** A rejection whose context the doc does not spell out: the code and message only. */
function isRejectedCode(t: Test, applied: ApplyResult, code: Code, what: string): void {
  t.equal(applied.result.ok, false, `${what}: rejected`)
  if (!applied.result.ok) {
    t.equal(applied.result.code, code, `${what}: code ${code}`)
    t.equal(applied.result.message, CODE_MESSAGES[code], `${what}: message`)
  }
}

/** Applies a command that must be rejected, and checks that it changed nothing and emitted nothing. */
function refusedUnchanged(t: Test, h: Harness, run: () => ApplyResult, what: string): ApplyResult {
  const before = stateOf(h)
  const applied = run()
  t.equal(applied.result.ok, false, `${what}: refused`)
  t.strictSame(applied.events, [], `${what}: no events`)
  t.strictSame(stateOf(h), before, `${what}: nothing changed`)
  return applied
}

function credit(h: Harness, address: string, usdcMicros: number, gasMicros = 0): ApplyResult {
  return h.apply({ kind: 'credit', address, usdcMicros, gasMicros })
}

function approve(h: Harness, address: string, usdcAllowanceMicros: number): ApplyResult {
  return h.apply({ kind: 'approve', address, usdcAllowanceMicros })
}

function ledgerEvent(action: 'credit' | 'split' | 'merge' | 'redeem', address: string, marketId: string, amountMicros: number, payoutMicros: number) {
  return { type: 'ledger', action, address, marketId, amountMicros, payoutMicros }
}

function balanceEvent(address: string, asset: string, balanceMicros: number, heldMicros: number) {
  return { type: 'balance', address, asset, balanceMicros, heldMicros }
}

function allowanceEvent(address: string, usdcAllowanceMicros: number, sharesApproved: boolean) {
  return { type: 'allowance', address, usdcAllowanceMicros, sharesApproved }
}

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
