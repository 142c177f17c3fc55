/**
 * The reference model alone, the ledger and a market's life: split, merge, resolve and redeem with
 * conservation at every step; market status, tick size, approvals; market creation and API keys;
 * the relay's checks.
 */
import t from 'tap'
import type { MarketInput } from '../../src/engine/command.js'
import type { CommandResult } from '../../src/engine/result.js'
import { ALICE, BOB, CAROL, M, USDC, setup, limit, ofType, update, checkConservation, marketInput } from './reference-harness.js'

// ---------------------------------------------------------------------------------------------
// Ledger and lifecycle
// ---------------------------------------------------------------------------------------------

t.test('split, merge, resolve, redeem: conservation at every step', (t) => {
  const h = setup([ALICE, BOB])
  const s0 = h.summary()
  checkConservation(t, s0)
  t.match(h.run({ kind: 'merge', address: ALICE, marketId: M.id, amountMicros: 30 * USDC }).result, { ok: true })
  t.equal(h.usdc(ALICE), 930 * USDC)
  t.match(h.market(M.id), { collateralMicros: 170 * USDC, mergedMicros: 30 * USDC })
  t.match(h.run({ kind: 'merge', address: ALICE, marketId: M.id, amountMicros: 71 * USDC }).result, {
    code: 'LEDGER_INSUFFICIENT_BALANCE', context: { asset: M.yes, requiredMicros: 71 * USDC, availableMicros: 70 * USDC },
  })
  t.match(h.run({ kind: 'split', address: ALICE, marketId: M.id, amountMicros: 931 * USDC }).result, {
    code: 'LEDGER_INSUFFICIENT_BALANCE', context: { asset: 'USDC', requiredMicros: 931 * USDC, availableMicros: 930 * USDC },
  })
  // Bob buys 20 Yes from Alice at 0.40; a resting order is cancelled by the resolution.
  h.place(limit('0xa1', ALICE, M.yes, 'SELL', 4_000, 2_000))
  h.place(limit('0xb1', BOB, M.yes, 'BUY', 4_000, 2_000))
  h.place(limit('0xb2', BOB, M.no, 'BUY', 3_000, 1_000))
  checkConservation(t, h.summary())
  t.match(h.run({ kind: 'redeem', address: ALICE, marketId: M.id }).result, {
    code: 'LEDGER_MARKET_NOT_RESOLVED', context: { marketId: M.id, status: 'Active' },
  })
  const resolved = h.run({ kind: 'resolveMarket', marketId: M.id, outcome: 'Yes' })
  // The cancels come first, then marketUpdated; then Bob's released hold and the book.
  t.strictSame(resolved.events.slice(0, 2), [
    update('0xb2', BOB, 'CANCELED', 0, 0, 'market-resolved'),
    { type: 'marketUpdated', marketId: M.id, status: 'Resolved', tickSizeMicros: 10_000, feeRateBps: 0, winningOutcome: 'Yes',
      resolvedMs: h.timeMs },
  ])
  // Alice: 50 Yes + 70 No; Bob: 120 Yes + 100 No.
  const alice = h.run({ kind: 'redeem', address: ALICE, marketId: M.id })
  t.match(ofType(alice.events, 'ledger'), [{ action: 'redeem', amountMicros: 120 * USDC, payoutMicros: 50 * USDC }])
  h.run({ kind: 'redeem', address: BOB, marketId: M.id })
  t.equal(h.usdc(BOB), 900 * USDC - 8 * USDC + 120 * USDC)
  t.match(h.market(M.id), {
    status: 'Resolved', collateralMicros: 0, mintedMicros: 200 * USDC, mergedMicros: 30 * USDC,
    redeemedYesMicros: 170 * USDC, redeemedNoMicros: 170 * USDC,
  })
  t.match(h.run({ kind: 'redeem', address: BOB, marketId: M.id }).result, { code: 'LEDGER_NOTHING_TO_REDEEM' })
  // The market's status is checked before the amount.
  t.match(h.run({ kind: 'split', address: BOB, marketId: M.id, amountMicros: 0 }).result, { code: 'LEDGER_MARKET_RESOLVED' })
  t.match(h.place(limit('0xb3', BOB, M.yes, 'BUY', 4_000, 100)).result, { code: 'MARKET_CLOSED', context: { status: 'Resolved' } })
  t.match(h.run({ kind: 'resolveMarket', marketId: M.id, outcome: 'No' }).result, {
    code: 'MARKET_STATUS_TRANSITION', context: { from: 'Resolved', to: 'Resolved' },
  })
  checkConservation(t, h.summary())
  t.end()
})

t.test('market status, tick size and approvals', (t) => {
  const h = setup([ALICE])
  h.place(limit('0xa1', ALICE, M.yes, 'BUY', 4_000, 100))
  t.match(h.run({ kind: 'setMarketStatus', marketId: M.id, status: 'Paused' }).events, [{ type: 'marketUpdated', status: 'Paused' }])
  t.match(h.place(limit('0xa2', ALICE, M.yes, 'BUY', 4_000, 100)).result, { code: 'MARKET_CANCEL_ONLY' })
  t.strictSame(h.run({ kind: 'setMarketStatus', marketId: M.id, status: 'Paused' }).events, [], 'same status: no events')
  t.match(h.run({ kind: 'setMarketStatus', marketId: M.id, status: 'Upcoming' }).result, {
    code: 'MARKET_STATUS_TRANSITION', context: { from: 'Paused', to: 'Upcoming' },
  })
  h.run({ kind: 'setMarketStatus', marketId: M.id, status: 'Active' })
  t.match(h.run({ kind: 'setTickSize', marketId: M.id, tickSizeMicros: 7_500 }).result, { code: 'MARKET_TICK_SIZE_INVALID' })
  t.match(h.run({ kind: 'setTickSize', marketId: M.id, tickSizeMicros: 1_000 }).result, { ok: true })
  h.place(limit('0xa3', ALICE, M.yes, 'BUY', 4_010, 100))
  t.match(h.place(limit('0xa4', ALICE, M.yes, 'BUY', 4_015, 100)).result, {
    code: 'INVALID_ORDER_MIN_TICK_SIZE', context: { tickSizeMicros: 1_000 },
  })
  t.match(h.run({ kind: 'setTickSize', marketId: M.id, tickSizeMicros: 10_000 }).result, { code: 'MARKET_TICK_SIZE_OFF_GRID' })
  // Holds: 0.40 + 0.401 USDC; the allowance may not go below them, nor to zero with shares held.
  t.match(h.run({ kind: 'approve', address: ALICE, usdcAllowanceMicros: 800_000 }).result, {
    code: 'LEDGER_ALLOWANCE_BELOW_HOLDS', context: { asset: 'USDC', heldMicros: 801_000 },
  })
  t.match(h.run({ kind: 'approve', address: ALICE, usdcAllowanceMicros: 801_000 }).events, [
    { type: 'allowance', address: ALICE, usdcAllowanceMicros: 801_000, sharesApproved: true },
  ])
  const closed = h.run({ kind: 'setMarketStatus', marketId: M.id, status: 'Closed' })
  t.strictSame(closed.events.slice(0, 3).map((e) => e.type === 'orderUpdate' ? [e.orderId, e.reason] : e.type), [
    ['0xa1', 'market-closed'],
    ['0xa3', 'market-closed'],
    'marketUpdated',
  ])
  t.end()
})

t.test('market creation and API keys', (t) => {
  const h = setup([ALICE])
  const fresh = { id: 'market-n', yes: '3001', no: '3002' }
  const bad = (over: Partial<MarketInput>): CommandResult =>
    h.run({ kind: 'createMarket', market: { ...marketInput(fresh, 0), ...over } }).result
  t.match(bad({ question: '' }), { code: 'MARKET_INVALID', context: { field: 'question' } })
  t.match(bad({ noTokenId: fresh.yes }), { code: 'MARKET_INVALID', context: { field: 'noTokenId' } })
  t.match(bad({ tickSizeMicros: 7_500, feeRateBps: 2_000 }), { code: 'MARKET_INVALID', context: { field: 'tickSizeMicros' } })
  t.match(bad({ minOrderSizeMicros: 15_000 }), { code: 'MARKET_INVALID', context: { field: 'minOrderSizeMicros' } })
  t.match(bad({ feeRateBps: 1_001 }), { code: 'MARKET_INVALID', context: { field: 'feeRateBps' } })
  t.match(bad({ slug: M.id, noTokenId: M.no }), { code: 'MARKET_EXISTS', context: { field: 'slug' } })
  t.match(bad({ noTokenId: M.yes }), { code: 'MARKET_EXISTS', context: { field: 'noTokenId' } })
  const created = h.run({ kind: 'createMarket', market: { ...marketInput(fresh, 0), status: 'Upcoming' } })
  t.match(created.events, [{ type: 'marketCreated', market: { marketId: fresh.id, status: 'Upcoming', createdMs: h.timeMs, resolvedMs: 0, winningOutcome: null } }])
  t.match(h.place(limit('0xa1', ALICE, fresh.yes, 'BUY', 4_000, 100)).result, { code: 'MARKET_NOT_READY', context: { marketId: fresh.id, status: 'Upcoming' } })

  const key = { kind: 'registerApiKey', apiKey: 'key-1', address: ALICE, secret: 's', passphrase: 'p', nonce: 0 } as const
  t.match(h.run(key).events, [{ type: 'apiKey', action: 'registered', apiKey: 'key-1', address: ALICE, nonce: 0 }])
  t.match(h.run(key).result, { code: 'API_KEY_EXISTS', context: { field: 'apiKey' } })
  t.match(h.run({ ...key, apiKey: 'key-2' }).result, { code: 'API_KEY_EXISTS', context: { field: 'nonce' } })
  t.match(h.run({ ...key, apiKey: 'key-2', secret: '' }).result, { code: 'API_KEY_INVALID', context: { field: 'secret' } })
  t.match(h.run({ kind: 'revokeApiKey', apiKey: 'key-1' }).events, [{ type: 'apiKey', action: 'revoked', apiKey: 'key-1', address: ALICE, nonce: 0 }])
  t.match(h.run({ kind: 'revokeApiKey', apiKey: 'key-1' }).result, { code: 'API_KEY_NOT_FOUND', context: null })
  t.match(h.run({ ...key, apiKey: 'key-2' }).result, { ok: true }, 'revoking freed the (address, nonce) slot')
  t.end()
})

t.test('relay: shape, deadline, nonce, then the action; the nonce moves only on success', (t) => {
  const h = setup([ALICE])
  const account = (address: string) => h.summary().accounts.find((a) => a.address === address)
  // Each command comes 1 s after the last; a deadline of the next command's second is in time.
  const inTime = (): number => (h.timeMs + 1_000) / 1_000
  const approveBob = { kind: 'approve', address: BOB, usdcAllowanceMicros: 5 * USDC } as const
  t.match(h.run({ kind: 'relay', nonce: 0, deadlineSec: inTime(), action: approveBob }), {
    result: { ok: true }, events: [{ type: 'allowance', address: BOB, usdcAllowanceMicros: 5 * USDC, sharesApproved: true }],
  })
  t.match(account(BOB), { usdcAllowanceMicros: 5 * USDC, relayNonce: 1 })
  t.match(h.run({ kind: 'relay', nonce: 0, deadlineSec: inTime(), action: approveBob }).result,
    { code: 'RELAY_NONCE_MISMATCH', context: { expected: 1, nonce: 0 } })
  const late = inTime() - 1
  t.match(h.run({ kind: 'relay', nonce: 1, deadlineSec: late, action: approveBob }).result,
    { code: 'RELAY_DEADLINE_PASSED', context: { deadlineSec: late, nowSec: late + 1 } })
  t.match(h.run({ kind: 'relay', nonce: 1.5, deadlineSec: -1, action: approveBob }).result, { code: 'RELAY_INVALID', context: { field: 'nonce' } })
  // ALICE holds 900 USDC after her setup split; 901 is refused as by split itself, nonce kept.
  const tooMuch = { kind: 'split', address: ALICE, marketId: M.id, amountMicros: 901 * USDC } as const
  t.match(h.run({ kind: 'relay', nonce: 0, deadlineSec: inTime(), action: tooMuch }).result,
    { code: 'LEDGER_INSUFFICIENT_BALANCE', context: { asset: 'USDC', requiredMicros: 901 * USDC, availableMicros: 900 * USDC } })
  t.match(account(ALICE), { usdcMicros: 900 * USDC, relayNonce: 0 })
  t.match(h.run({ kind: 'relay', nonce: 0, deadlineSec: inTime(), action: { ...tooMuch, amountMicros: 900 * USDC } }).events, [
    { type: 'ledger', action: 'split', address: ALICE, marketId: M.id, amountMicros: 900 * USDC, payoutMicros: 0 },
    { type: 'balance', address: ALICE, asset: 'USDC', balanceMicros: 0 },
  ])
  t.match(account(ALICE), { usdcMicros: 0, relayNonce: 1 })
  t.match(h.run({ kind: 'relay', nonce: 0, deadlineSec: inTime(), action: { kind: 'redeem', address: CAROL, marketId: M.id } }).result,
    { code: 'LEDGER_MARKET_NOT_RESOLVED' })
  t.equal(account(CAROL), undefined, 'a refused relay creates no account')
  t.end()
})
