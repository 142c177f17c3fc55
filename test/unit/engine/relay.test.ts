/**
 * The gasless relay (docs/engine.md, "Relay"): a wallet-signed approve, split, merge or redeem
 * run for its owner. Checks in order: shape (RELAY_INVALID {field}), deadline
 * (RELAY_DEADLINE_PASSED {deadlineSec, nowSec}; in time up to and including the millisecond
 * deadlineSec * 1000), nonce (RELAY_NONCE_MISMATCH {expected, nonce}), then the action exactly as
 * the standalone command; the owner's relay nonce moves on only when the action succeeds, and a
 * refused relay changes nothing (same state hash as a no-op in its place). Every expected number
 * is worked out by hand in a comment; the harness checks the invariants after every command.
 */
import t, { type Test } from 'tap'
import { Harness, addressOf, T0_MS, USDC } from '../../support/harness.js'
import { stateOf, accountOf, isRejected } from '../../support/engine-checks.js'
import type { ApplyResult } from '../../../src/engine/engine.js'
import type { Code } from '../../../src/engine/codes.js'
import type { Relay, RelayAction } from '../../../src/engine/command.js'
import type { ContextValue } from '../../../src/engine/result.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../../src/engine/snapshot.js'
import { summaryOf } from '../../../src/engine/view.js'
import { AssertionError } from '../../../src/stdx/assert.js'
import { ALLOWANCE_MICROS_UNLIMITED } from '../../../src/engine/limits.js'

const alice = addressOf(1)
const bob = addressOf(2)
const carol = addressOf(3)

/** T0_MS = 1_700_000_000_000 is a whole second: 1_700_000_000. */
const NOW_SEC = T0_MS / 1000
/** Ten minutes ahead of the harness clock. */
const DEADLINE = NOW_SEC + 600

function relay(h: Harness, nonce: number, action: RelayAction, deadlineSec = DEADLINE): ApplyResult {
  return h.apply({ kind: 'relay', nonce, deadlineSec, action })
}

function nonceOf(h: Harness, address: string): number | undefined {
  return accountOf(h, address)?.relayNonce
}

/**
 * Applies a command that must be refused, and checks that it emitted nothing and changed
 * nothing: the summary (stamp aside), and the state hash, which must equal that of a copy of the
 * state that ran a no-op `expire` with the same stamp instead (stricter than engine-checks.ts's).
 */
function refusedUnchanged(t: Test, h: Harness, run: () => ApplyResult, what: string): ApplyResult {
  const before = stateOf(h)
  const twin = decodeSnapshot(encodeSnapshot(h.engine))
  const applied = run()
  const stamp = h.commands.at(-1)!
  twin.apply({ kind: 'expire', seq: stamp.seq, timeMs: stamp.timeMs })
  t.equal(applied.result.ok, false, `${what}: refused`)
  t.strictSame(applied.events, [], `${what}: no events`)
  t.strictSame(stateOf(h), before, `${what}: nothing changed`)
  t.equal(stateHashOf(h.engine), stateHashOf(twin), `${what}: same state hash as a no-op`)
  return applied
}

function ledgerEvent(action: 'split' | 'merge' | 'redeem', address: string, marketId: string, amountMicros: number, payoutMicros: number) {
  return { type: 'ledger', action, address, marketId, amountMicros, payoutMicros }
}

function balanceEvent(address: string, asset: string, balanceMicros: number, heldMicros: number) {
  return { type: 'balance', address, asset, balanceMicros, heldMicros }
}

function allowanceEvent(address: string, usdcAllowanceMicros: number, sharesApproved: boolean) {
  return { type: 'allowance', address, usdcAllowanceMicros, sharesApproved }
}

// ---------------------------------------------------------------------------------------------
// Accepted relays
// ---------------------------------------------------------------------------------------------

t.test('approve via relay for a new address: the account appears with relay nonce 1', (t) => {
  const h = new Harness()
  t.equal(accountOf(h, alice), undefined, 'alice is unknown: her next nonce is 0')
  const first = relay(h, 0, { kind: 'approve', address: alice, usdcAllowanceMicros: 5 * USDC })
  t.strictSame(first.result, { ok: true })
  // Only the allowance event: no balance changed.
  t.strictSame(first.events, [allowanceEvent(alice, 5_000_000, true)])
  t.strictSame(accountOf(h, alice), {
    address: alice, usdcMicros: 0, usdcHeldMicros: 0, usdcAllowanceMicros: 5_000_000,
    sharesApproved: true, gasMicros: 0, relayNonce: 1, shares: [],
  })

  // Her next relay uses nonce 1; a zero allowance revokes the shares too (nothing is held).
  const second = relay(h, 1, { kind: 'approve', address: alice, usdcAllowanceMicros: 0 })
  t.strictSame(second.result, { ok: true })
  t.strictSame(second.events, [allowanceEvent(alice, 0, false)])
  t.match(accountOf(h, alice), { usdcAllowanceMicros: 0, sharesApproved: false, relayNonce: 2 })

  // A standalone approve is not relayed: the relay nonce stays 2.
  h.apply({ kind: 'approve', address: alice, usdcAllowanceMicros: ALLOWANCE_MICROS_UNLIMITED })
  t.equal(nonceOf(h, alice), 2, 'standalone commands do not touch the relay nonce')
  t.end()
})

t.test('split, merge and redeem via relay: exact balances, events as the standalone commands', (t) => {
  const h = new Harness()
  const m = h.market()
  h.apply({ kind: 'credit', address: alice, usdcMicros: 10 * USDC, gasMicros: 0 })
  t.equal(nonceOf(h, alice), 0, 'a credited address starts at nonce 0')

  // Split 3 USDC: USDC 10 - 3 = 7, Yes 3, No 3 (no approval needed, as for split itself).
  const split = relay(h, 0, { kind: 'split', address: alice, marketId: m.marketId, amountMicros: 3 * USDC })
  t.strictSame(split.result, { ok: true })
  t.strictSame(split.events, [
    ledgerEvent('split', alice, m.marketId, 3_000_000, 0),
    balanceEvent(alice, 'USDC', 7_000_000, 0),
    balanceEvent(alice, m.no, 3_000_000, 0), // 'm1-no' < 'm1-yes'
    balanceEvent(alice, m.yes, 3_000_000, 0),
  ])
  t.equal(nonceOf(h, alice), 1)

  // Merge 1: USDC 7 + 1 = 8, Yes 3 - 1 = 2, No 2; collateral 3 - 1 = 2, minted 3, merged 1.
  const merge = relay(h, 1, { kind: 'merge', address: alice, marketId: m.marketId, amountMicros: USDC })
  t.strictSame(merge.result, { ok: true })
  t.strictSame(merge.events, [
    ledgerEvent('merge', alice, m.marketId, 1_000_000, 0),
    balanceEvent(alice, 'USDC', 8_000_000, 0),
    balanceEvent(alice, m.no, 2_000_000, 0),
    balanceEvent(alice, m.yes, 2_000_000, 0),
  ])
  t.equal(nonceOf(h, alice), 2)
  t.match(summaryOf(h.engine).markets[0], { collateralMicros: 2_000_000, mintedMicros: 3_000_000, mergedMicros: 1_000_000 })

  // Yes wins; redeem burns 2 Yes + 2 No = 4 shares and pays 2 USDC: USDC 8 + 2 = 10.
  h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'Yes' })
  const redeem = relay(h, 2, { kind: 'redeem', address: alice, marketId: m.marketId })
  t.strictSame(redeem.result, { ok: true })
  t.strictSame(redeem.events, [
    ledgerEvent('redeem', alice, m.marketId, 4_000_000, 2_000_000),
    balanceEvent(alice, 'USDC', 10_000_000, 0),
    balanceEvent(alice, m.no, 0, 0),
    balanceEvent(alice, m.yes, 0, 0),
  ])
  t.strictSame(accountOf(h, alice), {
    address: alice, usdcMicros: 10_000_000, usdcHeldMicros: 0, usdcAllowanceMicros: 0,
    sharesApproved: false, gasMicros: 0, relayNonce: 3, shares: [],
  })
  // collateral 2 - 2 = 0; redeemed Yes 2, No 2.
  t.match(summaryOf(h.engine).markets[0], { collateralMicros: 0, redeemedYesMicros: 2_000_000, redeemedNoMicros: 2_000_000 })
  t.end()
})

t.test('a relayed action gives the same result and events as the standalone command', (t) => {
  // Two engines, the same stream, one relayed and one not: identical results and events; the
  // states differ only in the relay nonce.
  const relayed = new Harness()
  const direct = new Harness()
  for (const h of [relayed, direct]) {
    const m = h.market()
    h.apply({ kind: 'credit', address: alice, usdcMicros: 20 * USDC, gasMicros: 0 })
    h.split(alice, m.marketId, USDC) // USDC 19, Yes 1, No 1
  }
  const actions: RelayAction[] = [
    { kind: 'approve', address: alice, usdcAllowanceMicros: 7 * USDC },
    { kind: 'split', address: alice, marketId: 'm1', amountMicros: 2_500_001 },
    { kind: 'split', address: alice, marketId: 'm1', amountMicros: 20 * USDC }, // refused: 19 - 2.500001 = 16.499999 free
    { kind: 'merge', address: alice, marketId: 'm1', amountMicros: 3_500_001 }, // all of 1 + 2.500001 sets
    { kind: 'merge', address: alice, marketId: 'm1', amountMicros: 1 }, // refused: nothing left
    { kind: 'redeem', address: alice, marketId: 'm1' }, // refused: not resolved
    { kind: 'approve', address: alice, usdcAllowanceMicros: -1 }, // refused: invalid amount
    { kind: 'split', address: alice, marketId: 'nope', amountMicros: 1 }, // refused: no market
  ]
  let nonce = 0
  for (const action of actions) {
    const a = relay(relayed, nonce, action)
    const b = direct.apply(action)
    t.strictSame(a, b, `${action.kind} ${JSON.stringify(action)}: same result and events`)
    if (a.result.ok) nonce += 1
  }
  // USDC 20 - 1 - 2.500001 + 3.500001 = 20; three actions succeeded (approve, split, merge).
  t.equal(nonceOf(relayed, alice), 3)
  t.equal(nonceOf(direct, alice), 0)
  t.strictSame({ ...stateOf(relayed), accounts: stateOf(relayed).accounts.map((a) => ({ ...a, relayNonce: 0 })) }, stateOf(direct))
  t.match(accountOf(relayed, alice), { usdcMicros: 20_000_000, shares: [] })
  t.end()
})

// ---------------------------------------------------------------------------------------------
// Refused relays
// ---------------------------------------------------------------------------------------------

t.test('nonce: a replay (too low) or a nonce ahead (too high) is refused, nothing consumed', (t) => {
  const h = new Harness()
  const m = h.market()
  h.apply({ kind: 'credit', address: alice, usdcMicros: 10 * USDC, gasMicros: 0 })
  const first: Omit<Relay, 'seq' | 'timeMs'> = {
    kind: 'relay', nonce: 0, deadlineSec: DEADLINE, action: { kind: 'split', address: alice, marketId: m.marketId, amountMicros: USDC },
  }
  t.strictSame(h.apply(first).result, { ok: true })
  t.strictSame(relay(h, 1, { kind: 'split', address: alice, marketId: m.marketId, amountMicros: USDC }).result, { ok: true })
  t.equal(nonceOf(h, alice), 2)

  // The very same signed message again: refused before the split runs (USDC stays 10 - 2 = 8).
  const replay = refusedUnchanged(t, h, () => h.apply(first), 'exact replay of nonce 0')
  isRejected(t, replay, 'RELAY_NONCE_MISMATCH', { expected: 2, nonce: 0 }, 'exact replay of nonce 0')
  const stale = refusedUnchanged(t, h, () => relay(h, 1, { kind: 'approve', address: alice, usdcAllowanceMicros: 1 }), 'stale nonce 1')
  isRejected(t, stale, 'RELAY_NONCE_MISMATCH', { expected: 2, nonce: 1 }, 'stale nonce 1')
  const ahead = refusedUnchanged(t, h, () => relay(h, 3, { kind: 'approve', address: alice, usdcAllowanceMicros: 1 }), 'nonce 3 ahead of 2')
  isRejected(t, ahead, 'RELAY_NONCE_MISMATCH', { expected: 2, nonce: 3 }, 'nonce 3 ahead of 2')
  // A new address expects 0: nonce 1 is refused and creates no account.
  const fresh = refusedUnchanged(t, h, () => relay(h, 1, { kind: 'approve', address: bob, usdcAllowanceMicros: USDC }), 'new address, nonce 1')
  isRejected(t, fresh, 'RELAY_NONCE_MISMATCH', { expected: 0, nonce: 1 }, 'new address, nonce 1')
  t.equal(accountOf(h, bob), undefined, 'a refused relay creates no account')

  t.match(accountOf(h, alice), { usdcMicros: 8_000_000, relayNonce: 2 })
  t.strictSame(relay(h, 2, { kind: 'approve', address: alice, usdcAllowanceMicros: 1 }).result, { ok: true }, 'the right nonce still works')
  t.equal(nonceOf(h, alice), 3)
  t.end()
})

t.test('deadline: in time up to its exact millisecond, refused from the next one', (t) => {
  const h = new Harness()
  const approval = (n: number): RelayAction => ({ kind: 'approve', address: alice, usdcAllowanceMicros: n })
  // timeMs = 1_700_000_000_000 = deadline 1_700_000_000 x 1000 exactly: in time.
  t.equal(h.timeMs, NOW_SEC * 1000)
  t.strictSame(relay(h, 0, approval(1), NOW_SEC).result, { ok: true }, 'at the deadline instant')
  // One millisecond later, the same deadline second has passed; nowSec = floor(...001 / 1000).
  h.timeMs += 1
  const late = refusedUnchanged(t, h, () => relay(h, 1, approval(2), NOW_SEC), 'one ms past the deadline')
  isRejected(t, late, 'RELAY_DEADLINE_PASSED', { deadlineSec: 1_700_000_000, nowSec: 1_700_000_000 }, 'one ms past the deadline')
  const older = refusedUnchanged(t, h, () => relay(h, 1, approval(2), NOW_SEC - 1), 'a second before')
  isRejected(t, older, 'RELAY_DEADLINE_PASSED', { deadlineSec: 1_699_999_999, nowSec: 1_700_000_000 }, 'a second before')
  const zero = refusedUnchanged(t, h, () => relay(h, 1, approval(2), 0), 'deadline 0')
  isRejected(t, zero, 'RELAY_DEADLINE_PASSED', { deadlineSec: 0, nowSec: 1_700_000_000 }, 'deadline 0')
  // The deadline is checked before the nonce: a passed deadline with a wrong nonce names the deadline.
  const both = refusedUnchanged(t, h, () => relay(h, 7, approval(2), NOW_SEC), 'passed deadline and wrong nonce')
  isRejected(t, both, 'RELAY_DEADLINE_PASSED', { deadlineSec: 1_700_000_000, nowSec: 1_700_000_000 }, 'passed deadline and wrong nonce')
  // ...999 ms is still before the next second's instant: deadline NOW_SEC + 1 is in time.
  h.timeMs = T0_MS + 999
  t.strictSame(relay(h, 1, approval(3), NOW_SEC + 1).result, { ok: true }, '999 ms before the deadline instant')
  h.timeMs = T0_MS + 1_000
  t.strictSame(relay(h, 2, approval(4), NOW_SEC + 1).result, { ok: true }, 'exactly at the next deadline instant')
  t.match(accountOf(h, alice), { usdcAllowanceMicros: 4, relayNonce: 3 })
  t.end()
})

t.test('shape: nonce, then deadlineSec, then action (RELAY_INVALID {field})', (t) => {
  const h = new Harness()
  h.apply({ kind: 'credit', address: alice, usdcMicros: USDC, gasMicros: 0 })
  const good: RelayAction = { kind: 'approve', address: alice, usdcAllowanceMicros: USDC }
  const bad = (nonce: unknown, deadlineSec: unknown, action: unknown): ApplyResult =>
    h.apply({ kind: 'relay', nonce, deadlineSec, action } as unknown as Omit<Relay, 'seq' | 'timeMs'>)
  for (const nonce of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, '0', null]) {
    const applied = refusedUnchanged(t, h, () => bad(nonce, DEADLINE, good), `nonce ${String(nonce)}`)
    isRejected(t, applied, 'RELAY_INVALID', { field: 'nonce' }, `nonce ${String(nonce)}`)
  }
  for (const deadlineSec of [-1, 2.5, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2, '1']) {
    const applied = refusedUnchanged(t, h, () => bad(0, deadlineSec, good), `deadlineSec ${String(deadlineSec)}`)
    isRejected(t, applied, 'RELAY_INVALID', { field: 'deadlineSec' }, `deadlineSec ${String(deadlineSec)}`)
  }
  const notRelayable: unknown[] = [
    null, undefined, 'approve', 5, {},
    { kind: 'credit', address: alice, usdcMicros: USDC, gasMicros: 0 },
    { kind: 'relay', nonce: 0, deadlineSec: DEADLINE, action: good },
    { kind: 'placeOrder', order: {} },
  ]
  for (const action of notRelayable) {
    const applied = refusedUnchanged(t, h, () => bad(0, DEADLINE, action), `action ${JSON.stringify(action)}`)
    isRejected(t, applied, 'RELAY_INVALID', { field: 'action' }, `action ${JSON.stringify(action)}`)
  }
  // The first bad field decides; shape comes before the deadline.
  isRejected(t, bad(-1, -1, null), 'RELAY_INVALID', { field: 'nonce' }, 'all three bad: nonce')
  isRejected(t, bad(0, -1, null), 'RELAY_INVALID', { field: 'deadlineSec' }, 'deadline and action bad: deadlineSec')
  isRejected(t, bad(0, 0, null), 'RELAY_INVALID', { field: 'action' }, 'passed deadline, bad action: action')
  t.equal(nonceOf(h, alice), 0)
  t.end()
})

t.test('an inner rejection leaves the nonce unconsumed and the state unchanged', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  // A BUY of 10 Yes at 0.40 holds 4 USDC: free USDC 10 - 4 = 6.
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }))

  const cases: [string, RelayAction, Code, Record<string, ContextValue>][] = [
    ['split above the free USDC', { kind: 'split', address: alice, marketId: m.marketId, amountMicros: 6_000_001 },
      'LEDGER_INSUFFICIENT_BALANCE', { asset: 'USDC', requiredMicros: 6_000_001, availableMicros: 6_000_000 }],
    ['merge without shares', { kind: 'merge', address: alice, marketId: m.marketId, amountMicros: 1 },
      'LEDGER_INSUFFICIENT_BALANCE', { asset: m.yes, requiredMicros: 1, availableMicros: 0 }],
    ['redeem before resolution', { kind: 'redeem', address: alice, marketId: m.marketId },
      'LEDGER_MARKET_NOT_RESOLVED', { marketId: m.marketId, status: 'Active' }],
    ['approve below the USDC held', { kind: 'approve', address: alice, usdcAllowanceMicros: 3_999_999 },
      'LEDGER_ALLOWANCE_BELOW_HOLDS', { asset: 'USDC', heldMicros: 4_000_000 }],
    ['approve an invalid amount', { kind: 'approve', address: alice, usdcAllowanceMicros: 1.5 },
      'LEDGER_AMOUNT_INVALID', { field: 'usdcAllowanceMicros' }],
    ['split in an unknown market', { kind: 'split', address: alice, marketId: 'nope', amountMicros: 1 },
      'MARKET_NOT_FOUND', { marketId: 'nope' }],
  ]
  for (const [what, action, code, context] of cases) {
    const applied = refusedUnchanged(t, h, () => relay(h, 0, action), what)
    isRejected(t, applied, code, context, what)
    t.equal(nonceOf(h, alice), 0, `${what}: nonce 0 not consumed`)
  }
  // Split, merge and redeem by a new address are refused by the action itself: no account appears.
  const newcomer: [string, RelayAction, Code][] = [
    ['split by a new address', { kind: 'split', address: carol, marketId: m.marketId, amountMicros: 1 }, 'LEDGER_INSUFFICIENT_BALANCE'],
    ['merge by a new address', { kind: 'merge', address: carol, marketId: m.marketId, amountMicros: 1 }, 'LEDGER_INSUFFICIENT_BALANCE'],
    ['redeem by a new address', { kind: 'redeem', address: carol, marketId: m.marketId }, 'LEDGER_MARKET_NOT_RESOLVED'],
    ['approve -1 by a new address', { kind: 'approve', address: carol, usdcAllowanceMicros: -1 }, 'LEDGER_AMOUNT_INVALID'],
  ]
  for (const [what, action, code] of newcomer) {
    const applied = refusedUnchanged(t, h, () => relay(h, 0, action), what)
    t.equal(applied.result.ok ? null : applied.result.code, code, `${what}: ${code}`)
    t.equal(accountOf(h, carol), undefined, `${what}: no account`)
  }
  // Once resolved, a new address has nothing to redeem.
  h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'No' })
  const nothing = refusedUnchanged(t, h, () => relay(h, 0, { kind: 'redeem', address: carol, marketId: m.marketId }), 'redeem by a new address after resolution')
  isRejected(t, nothing, 'LEDGER_NOTHING_TO_REDEEM', { marketId: m.marketId }, 'redeem by a new address after resolution')

  // Nonce 0 is still alice's next: the resolution released her hold, so 6 USDC + 4 = 10 free.
  t.strictSame(relay(h, 0, { kind: 'approve', address: alice, usdcAllowanceMicros: 0 }).result, { ok: true })
  t.equal(nonceOf(h, alice), 1)
  t.end()
})

t.test('nonces are per address', (t) => {
  const h = new Harness()
  const approval = (address: string, n: number): RelayAction => ({ kind: 'approve', address, usdcAllowanceMicros: n })
  t.strictSame(relay(h, 0, approval(alice, 1)).result, { ok: true })
  t.strictSame(relay(h, 1, approval(alice, 2)).result, { ok: true })
  // Alice's next nonce (2) means nothing for bob, who starts at 0.
  const borrowed = refusedUnchanged(t, h, () => relay(h, 2, approval(bob, 1)), "bob with alice's next nonce")
  isRejected(t, borrowed, 'RELAY_NONCE_MISMATCH', { expected: 0, nonce: 2 }, "bob with alice's next nonce")
  t.strictSame(relay(h, 0, approval(bob, 1)).result, { ok: true }, 'bob starts at 0')
  // And bob's use of 0 did not touch alice's.
  const aliceZero = refusedUnchanged(t, h, () => relay(h, 0, approval(alice, 3)), 'alice replays 0')
  isRejected(t, aliceZero, 'RELAY_NONCE_MISMATCH', { expected: 2, nonce: 0 }, 'alice replays 0')
  t.strictSame(summaryOf(h.engine).accounts.map((a) => [a.address, a.relayNonce]), [[alice, 2], [bob, 1]])
  t.end()
})

// ---------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------

t.test('the relay nonce survives a snapshot and is part of the state hash', (t) => {
  const h = new Harness()
  const m = h.market()
  h.apply({ kind: 'credit', address: alice, usdcMicros: 5 * USDC, gasMicros: 0 })
  relay(h, 0, { kind: 'approve', address: alice, usdcAllowanceMicros: USDC })
  relay(h, 1, { kind: 'split', address: alice, marketId: m.marketId, amountMicros: USDC })
  relay(h, 0, { kind: 'approve', address: bob, usdcAllowanceMicros: USDC })

  const bytes = encodeSnapshot(h.engine)
  const loaded = decodeSnapshot(bytes)
  t.equal(stateHashOf(loaded), stateHashOf(h.engine))
  t.strictSame(summaryOf(loaded), summaryOf(h.engine))
  t.equal(loaded.accountsByAddress.get(alice)?.relayNonce, 2)
  t.equal(loaded.accountsByAddress.get(bob)?.relayNonce, 1)

  // The restored engine answers as the original: the old nonce is a replay, the next one works.
  const resumed = new Harness(loaded)
  resumed.timeMs = h.timeMs
  isRejected(t, resumed.apply({ kind: 'relay', nonce: 1, deadlineSec: DEADLINE, action: { kind: 'approve', address: alice, usdcAllowanceMicros: 0 } }),
    'RELAY_NONCE_MISMATCH', { expected: 2, nonce: 1 }, 'replay after restore')
  t.strictSame(resumed.apply({ kind: 'relay', nonce: 2, deadlineSec: DEADLINE, action: { kind: 'approve', address: alice, usdcAllowanceMicros: 0 } }).result,
    { ok: true }, 'next nonce after restore')

  // Two states that differ only in a relay nonce hash differently.
  const a = new Harness()
  const b = new Harness()
  a.apply({ kind: 'approve', address: alice, usdcAllowanceMicros: USDC })
  b.apply({ kind: 'relay', nonce: 0, deadlineSec: DEADLINE, action: { kind: 'approve', address: alice, usdcAllowanceMicros: USDC } })
  t.strictSame({ ...stateOf(a), accounts: [] }, { ...stateOf(b), accounts: [] })
  t.not(stateHashOf(a.engine), stateHashOf(b.engine), 'the relay nonce is in the state hash')
  t.end()
})

t.test('a version-1 snapshot (written before the relay) still loads, with relay nonces 0', (t) => {
  // One account and nothing else: its record ends the accounts with gas 0, relay nonce 0 and no
  // shares, followed by 0 orders and 0 API keys. Version 1 is the same without the relay nonce.
  const h = new Harness()
  h.apply({ kind: 'credit', address: alice, usdcMicros: 3 * USDC, gasMicros: 0 })
  h.apply({ kind: 'approve', address: alice, usdcAllowanceMicros: USDC })
  // Without orders, the current version (4) writes what version 2 did but for the orders: their one
  // count became two (live orders, ended ids) in version 4.
  const current = encodeSnapshot(h.engine)
  // "PDXSNAP" is written as its length (7) and 7 bytes: the version is byte 8.
  t.equal(current[8], 4, 'snapshots are written as version 4')
  t.strictSame([...current.subarray(current.length - 6)], [0, 0, 0, 0, 0, 0],
    'gas, relay nonce, shares, live orders, ended ids, keys')
  const v1 = new Uint8Array([...current.subarray(0, current.length - 2)])
  v1[8] = 1
  const loaded = decodeSnapshot(v1)
  t.equal(loaded.accountsByAddress.get(alice)?.relayNonce, 0)
  t.strictSame(summaryOf(loaded), summaryOf(h.engine))
  t.strictSame(encodeSnapshot(loaded), current, 'and it is written back in the current version')
  const unknown = current.slice()
  unknown[8] = 5
  t.throws(() => decodeSnapshot(unknown), AssertionError, 'an unknown version does not load')
  t.end()
})
