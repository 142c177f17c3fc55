/**
 * Market administration and lifecycle (docs/engine.md, "Market status", validation step 4,
 * "Events"): createMarket validation and uniqueness, every status transition, orders only in
 * Active, cancels in every status, closing/resolving cancelling resting orders in acceptance
 * order, and the marketCreated / marketUpdated events. A market's terms: market-terms.test.ts.
 */
import t from 'tap'
import { Harness, USDC } from '../../support/harness.js'
import {
  stateOf, marketOf, isRejected, isRejectedCode, refusedUnchanged, acceptedNoop
} from '../../support/engine-checks.js'
import { CODE_MESSAGES, type Code } from '../../../src/engine/codes.js'
import type { MarketInput, MarketStatus } from '../../../src/engine/command.js'
import { summaryOf } from '../../../src/engine/view.js'
import {
  alice, bob, carol, dave, erin, STATUSES, ALLOWED, inputOf, updated, orderIdOf, statusOf, marketIn
} from './market-lifecycle-support.js'

// ---------------------------------------------------------------------------------------------
// createMarket
// ---------------------------------------------------------------------------------------------

t.test('createMarket: marketCreated carries the full record', (t) => {
  const h = new Harness()
  const input = inputOf('m1', { description: 'Some words', negRisk: true, endDateMs: 1_800_000_000_000, feeRateBps: 25, tickSizeMicros: 1_000, minOrderSizeMicros: 5_000_000 })
  const applied = h.apply({ kind: 'createMarket', market: input })
  t.strictSame(applied.result, { ok: true })
  t.strictSame(applied.events, [{
    type: 'marketCreated',
    market: {
      marketId: 'm1', conditionId: '0xcond-m1', question: 'Will m1 happen?', slug: 'slug-m1',
      description: 'Some words', yesTokenId: 'm1-yes', noTokenId: 'm1-no', tickSizeMicros: 1_000,
      minOrderSizeMicros: 5_000_000, feeRateBps: 25, negRisk: true, endDateMs: 1_800_000_000_000,
      status: 'Active', createdMs: h.timeMs, winningOutcome: null, resolvedMs: 0,
    },
  }])
  t.match(marketOf(h, 'm1'), {
    status: 'Active', tickSizeMicros: 1_000, feeRateBps: 25, winningOutcome: null,
    collateralMicros: 0, mintedMicros: 0, mergedMicros: 0, redeemedYesMicros: 0, redeemedNoMicros: 0,
  })
  const upcoming = h.apply({ kind: 'createMarket', market: inputOf('m2', { status: 'Upcoming' }) })
  t.match(upcoming.events, [{ type: 'marketCreated', market: { marketId: 'm2', status: 'Upcoming' } }])
  t.end()
})

t.test('createMarket: boundary values are accepted', (t) => {
  const h = new Harness()
  const id128 = 'i'.repeat(128)
  const cases: [string, Record<string, unknown>][] = [
    ['128-character ids', { marketId: id128, conditionId: 'c'.repeat(128), slug: 's'.repeat(128), yesTokenId: 'y'.repeat(128), noTokenId: 'n'.repeat(128) }],
    ['4096-character question and description', { question: 'q'.repeat(4096), description: 'd'.repeat(4096) }],
    ['fee rate FEE_RATE_BPS_MAX', { feeRateBps: 1_000 }],
    ['tick 0.1', { tickSizeMicros: 100_000 }],
    ['tick 0.005', { tickSizeMicros: 5_000 }],
    ['tick 0.0025', { tickSizeMicros: 2_500 }],
    ['tick 0.0001', { tickSizeMicros: 100 }],
  ]
  let n = 0
  for (const [what, overrides] of cases) {
    n++
    const base = inputOf(`ok${n}`)
    const applied = h.apply({ kind: 'createMarket', market: { ...base, ...overrides } as MarketInput })
    t.strictSame(applied.result, { ok: true }, what)
  }
  t.end()
})

t.test('createMarket: each invalid field is MARKET_INVALID {field}', (t) => {
  const h = new Harness()
  const long129 = 'x'.repeat(129)
  const cases: [string, unknown][] = [
    ['marketId', ''], ['marketId', long129], ['marketId', 42],
    ['conditionId', ''], ['conditionId', long129],
    ['question', ''], ['question', 'q'.repeat(4097)], ['question', null],
    ['slug', ''], ['slug', long129],
    ['description', 'd'.repeat(4097)], ['description', 7],
    ['yesTokenId', ''], ['yesTokenId', long129],
    ['noTokenId', ''], ['noTokenId', long129], ['noTokenId', 'bad-yes'],
    ['tickSizeMicros', 0], ['tickSizeMicros', 7_500], ['tickSizeMicros', 20_000], ['tickSizeMicros', 1_000_000],
    ['tickSizeMicros', 50], ['tickSizeMicros', -10_000],
    ['minOrderSizeMicros', -1], ['minOrderSizeMicros', 1.5], ['minOrderSizeMicros', Number.NaN],
    ['feeRateBps', -1], ['feeRateBps', 1_001], ['feeRateBps', 2.5],
    ['negRisk', 'no'], ['negRisk', 0],
    ['endDateMs', -1], ['endDateMs', 1.5],
    ['status', 'Paused'], ['status', 'Closed'], ['status', 'Resolving'], ['status', 'Resolved'], ['status', 'active'],
  ]
  for (const [field, value] of cases) {
    const input = inputOf('bad', { yesTokenId: 'bad-yes', [field]: value })
    const applied = refusedUnchanged(t, h, () => h.apply({ kind: 'createMarket', market: input }), `${field} = ${String(value).slice(0, 20)}`)
    isRejected(t, applied, 'MARKET_INVALID', { field }, `${field} = ${String(value).slice(0, 20)}`)
  }
  t.equal(summaryOf(h.engine).markets.length, 0, 'no market was created')
  t.end()
})

t.test('createMarket: MARKET_EXISTS for each unique field', (t) => {
  const h = new Harness()
  t.strictSame(h.apply({ kind: 'createMarket', market: inputOf('m1') }).result, { ok: true })
  const cases: [string, string, Record<string, unknown>][] = [
    ['marketId', 'same market id', { marketId: 'm1' }],
    ['conditionId', 'same condition id', { conditionId: '0xcond-m1' }],
    ['slug', 'same slug', { slug: 'slug-m1' }],
    ['yesTokenId', 'same Yes token', { yesTokenId: 'm1-yes' }],
    ['noTokenId', 'same No token', { noTokenId: 'm1-no' }],
    ['yesTokenId', 'Yes token = an existing No token', { yesTokenId: 'm1-no' }],
    ['noTokenId', 'No token = an existing Yes token', { noTokenId: 'm1-yes' }],
  ]
  for (const [field, what, overrides] of cases) {
    const applied = refusedUnchanged(t, h, () => h.apply({ kind: 'createMarket', market: inputOf('m2', overrides) }), what)
    isRejectedCode(t, applied, 'MARKET_EXISTS', what)
    // The doc does not spell out the context; by the engine's convention it names the field.
    t.strictSame((applied.result as { context: unknown }).context, { field }, `${what}: context names ${field}`)
  }
  t.strictSame(h.apply({ kind: 'createMarket', market: inputOf('m2') }).result, { ok: true }, 'all fields new: accepted')
  t.end()
})

// ---------------------------------------------------------------------------------------------
// Status transitions
// ---------------------------------------------------------------------------------------------

t.test('setMarketStatus: every transition, allowed or refused', (t) => {
  for (const from of STATUSES) {
    for (const to of STATUSES) {
      const h = new Harness()
      const id = marketIn(h, 'm1', from)
      const what = `${from} -> ${to}`
      const run = () => h.apply({ kind: 'setMarketStatus', marketId: id, status: to })
      if (from === to) {
        acceptedNoop(t, h, run, `${what} (same status)`)
      } else if (ALLOWED[from].includes(to)) {
        const applied = run()
        t.strictSame(applied.result, { ok: true }, `${what}: allowed`)
        t.strictSame(applied.events, [updated(id, to)], `${what}: marketUpdated`)
        t.equal(marketOf(h, id)?.status, to, `${what}: status`)
      } else {
        const applied = refusedUnchanged(t, h, run, what)
        // A Resolved market keeps its winning outcome either way.
        isRejected(t, applied, 'MARKET_STATUS_TRANSITION', { from, to }, `${what}: refused`)
      }
    }
  }
  t.end()
})

t.test('resolveMarket: from every status but Resolved', (t) => {
  for (const from of STATUSES) {
    const h = new Harness()
    const id = marketIn(h, 'm1', from)
    const run = () => h.apply({ kind: 'resolveMarket', marketId: id, outcome: 'No' })
    if (from === 'Resolved') {
      const applied = refusedUnchanged(t, h, run, 'Resolved -> Resolved')
      isRejected(t, applied, 'MARKET_STATUS_TRANSITION', { from: 'Resolved', to: 'Resolved' }, 'resolving twice')
      t.equal(marketOf(h, id)?.winningOutcome, 'Yes', 'the first outcome stays')
      continue
    }
    h.timeMs += 1_000
    const applied = run()
    t.strictSame(applied.result, { ok: true }, `resolve from ${from}`)
    t.strictSame(applied.events, [updated(id, 'Resolved', 10_000, 0, 'No', h.timeMs)], `resolve from ${from}: event`)
    t.match(marketOf(h, id), { status: 'Resolved', winningOutcome: 'No' })
  }
  t.end()
})

t.test('unknown market: MARKET_NOT_FOUND {marketId}', (t) => {
  const h = new Harness()
  h.market()
  const commands = [
    () => h.apply({ kind: 'setMarketStatus', marketId: 'nope', status: 'Paused' }),
    () => h.apply({ kind: 'setTickSize', marketId: 'nope', tickSizeMicros: 1_000 }),
    () => h.apply({ kind: 'setFeeRate', marketId: 'nope', feeRateBps: 10 }),
    () => h.apply({ kind: 'resolveMarket', marketId: 'nope', outcome: 'Yes' }),
  ]
  for (const run of commands) {
    const applied = refusedUnchanged(t, h, run, 'unknown market')
    isRejected(t, applied, 'MARKET_NOT_FOUND', { marketId: 'nope' }, 'unknown market')
  }
  t.end()
})

// ---------------------------------------------------------------------------------------------
// Orders only in Active, cancels everywhere
// ---------------------------------------------------------------------------------------------

t.test('orders are accepted only when Active', (t) => {
  const expected: [MarketStatus, Code][] = [
    ['Upcoming', 'MARKET_NOT_READY'],
    ['Paused', 'MARKET_CANCEL_ONLY'],
    ['Closed', 'MARKET_CLOSED'],
    ['Resolving', 'MARKET_CLOSED'],
    ['Resolved', 'MARKET_CLOSED'],
  ]
  for (const [status, code] of expected) {
    const h = new Harness()
    h.fund(alice, 10 * USDC)
    const id = marketIn(h, 'm1', status)
    const order = h.order({ maker: alice, tokenId: 'm1-yes', side: 'BUY', priceMicros: 500_000, sizeMicros: USDC })
    const before = stateOf(h)
    const applied = h.place(order)
    t.strictSame(applied.result, {
      ok: false, code, message: CODE_MESSAGES[code], context: { marketId: id, status }, orderId: order.orderId,
    }, `${status}: ${code}`)
    t.strictSame(applied.events, [{ type: 'orderRejected', orderId: order.orderId, maker: alice, code, message: CODE_MESSAGES[code] }], `${status}: one orderRejected`)
    t.strictSame(stateOf(h), before, `${status}: nothing changed`)
    // The same order again is not a duplicate: the rejection left no record.
    if (status === 'Upcoming' || status === 'Paused') {
      h.apply({ kind: 'setMarketStatus', marketId: id, status: 'Active' })
      const again = h.place(order)
      t.equal(statusOf(again), 'LIVE', `${status} -> Active: the same order is accepted`)
    }
  }
  t.end()
})

t.test('cancels are allowed when Paused', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  const o1 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }))
  const o2 = h.place(h.order({ maker: alice, tokenId: m.no, side: 'BUY', priceMicros: 300_000, sizeMicros: 2 * USDC }))
  // Held: 0.40 x 5 + 0.30 x 2 = 2 + 0.6 = 2.6 USDC.
  t.equal(summaryOf(h.engine).accounts[0]?.usdcHeldMicros, 2_600_000)
  h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Paused' })
  t.equal(summaryOf(h.engine).openOrders.length, 2, 'pausing cancels nothing')

  const c1 = h.apply({ kind: 'cancelOrder', address: alice, orderId: orderIdOf(o1) })
  t.strictSame(c1.result, { ok: true, canceled: [orderIdOf(o1)], notCanceled: [] })
  t.strictSame(c1.events, [
    { type: 'orderUpdate', orderId: orderIdOf(o1), maker: alice, status: 'CANCELED', sizeMatchedMicros: 0, remainingMicros: 0, reason: 'owner' },
    { type: 'balance', address: alice, asset: 'USDC', balanceMicros: 10_000_000, heldMicros: 600_000 }, // 2.6 - 2
    { type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 0 },
  ])
  const c2 = h.apply({ kind: 'cancelAll', address: alice })
  t.strictSame(c2.result, { ok: true, canceled: [orderIdOf(o2)], notCanceled: [] })
  t.equal(summaryOf(h.engine).accounts[0]?.usdcHeldMicros, 0)
  t.end()
})

/**
 * A book with five resting orders of four accounts, one partly filled, accepted in an order
 * that differs from the book's price order:
 *   o1 alice BUY Yes 0.40 x 10  (holds 4 USDC)
 *   o2 bob   SELL Yes 0.60 x 5  (holds 5 Yes)
 *   o3 carol BUY No 0.30 x 2    (holds 0.6 USDC; Yes-space ask 0.70)
 *   o4 alice BUY Yes 0.45 x 1   (holds 0.45 USDC)
 *   o5 dave  SELL No 0.50 x 4   (Yes-space bid 0.50), then erin buys 1 No at 0.50 from it:
 *      3 left, 3 No held.
 */
function closingBook(h: Harness, status: 'Active' | 'Paused') {
  const m = h.market()
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  h.fund(carol, 10 * USDC)
  h.fund(dave, 10 * USDC)
  h.fund(erin, 10 * USDC)
  h.split(bob, m.marketId, 5 * USDC)
  h.split(dave, m.marketId, 4 * USDC)
  const o1 = orderIdOf(h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC })))
  const o2 = orderIdOf(h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 5 * USDC })))
  const o3 = orderIdOf(h.place(h.order({ maker: carol, tokenId: m.no, side: 'BUY', priceMicros: 300_000, sizeMicros: 2 * USDC })))
  const o4 = orderIdOf(h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 450_000, sizeMicros: USDC })))
  const o5 = orderIdOf(h.place(h.order({ maker: dave, tokenId: m.no, side: 'SELL', priceMicros: 500_000, sizeMicros: 4 * USDC })))
  const o6 = h.place(h.order({ maker: erin, tokenId: m.no, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC }))
  if (statusOf(o6) !== 'MATCHED') throw new Error('erin should fill against dave')
  if (status === 'Paused') h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Paused' })
  return { m, o1, o2, o3, o4, o5, o6: orderIdOf(o6) }
}

t.test('Closed, Resolving and resolve cancel resting orders in acceptance order', (t) => {
  const variants: [string, 'Active' | 'Paused', 'Closed' | 'Resolving' | 'resolve', 'market-closed' | 'market-resolved'][] = [
    ['Active -> Closed', 'Active', 'Closed', 'market-closed'],
    ['Active -> Resolving', 'Active', 'Resolving', 'market-closed'],
    ['Paused -> Closed', 'Paused', 'Closed', 'market-closed'],
    ['Paused -> Resolving', 'Paused', 'Resolving', 'market-closed'],
    ['resolve from Active', 'Active', 'resolve', 'market-resolved'],
    ['resolve from Paused', 'Paused', 'resolve', 'market-resolved'],
  ]
  for (const [what, start, action, reason] of variants) {
    const h = new Harness()
    const { m, o1, o2, o3, o4, o5, o6 } = closingBook(h, start)
    t.equal(summaryOf(h.engine).openOrders.length, 5, `${what}: five resting orders`)
    const applied = action === 'resolve'
      ? h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'Yes' })
      : h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: action })
    t.strictSame(applied.result, { ok: true }, `${what}: accepted`)
    const cancel = (orderId: string, maker: string, matched: number) =>
      ({ type: 'orderUpdate', orderId, maker, status: 'CANCELED', sizeMatchedMicros: matched, remainingMicros: 0, reason })
    const own = applied.events.filter((e) => e.type !== 'balance' && e.type !== 'bookLevel')
    // Acceptance order o1..o5, not book order (which would put o4 before o1).
    t.strictSame(own.filter((e) => e.type === 'orderUpdate'), [
      cancel(o1, alice, 0), cancel(o2, bob, 0), cancel(o3, carol, 0), cancel(o4, alice, 0), cancel(o5, dave, 1_000_000),
    ], `${what}: cancels in acceptance order`)
    const newStatus = action === 'resolve' ? 'Resolved' : action
    t.strictSame(own.filter((e) => e.type === 'marketUpdated'),
      [updated(m.marketId, newStatus, 10_000, 0, action === 'resolve' ? 'Yes' : null)], `${what}: marketUpdated`)
    t.equal(own.length, 6, `${what}: five cancels and one marketUpdated`)
    // Aggregates come last: holds released exactly, sorted by address then asset.
    t.strictSame(applied.events.slice(own.length), [
      { type: 'balance', address: alice, asset: 'USDC', balanceMicros: 10_000_000, heldMicros: 0 }, // 4.45 released
      { type: 'balance', address: bob, asset: m.yes, balanceMicros: 5_000_000, heldMicros: 0 }, // 5 Yes released
      { type: 'balance', address: carol, asset: 'USDC', balanceMicros: 10_000_000, heldMicros: 0 }, // 0.6 released
      { type: 'balance', address: dave, asset: m.no, balanceMicros: 3_000_000, heldMicros: 0 }, // 4 - 1 sold; 3 released
      // Native books: m1-no (BUY 0.30 from carol, SELL 0.50 from dave), then m1-yes.
      { type: 'bookLevel', marketId: m.marketId, tokenId: m.no, side: 'BUY', priceMicros: 300_000, sizeMicros: 0 },
      { type: 'bookLevel', marketId: m.marketId, tokenId: m.no, side: 'SELL', priceMicros: 500_000, sizeMicros: 0 },
      { type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 0 },
      { type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'BUY', priceMicros: 450_000, sizeMicros: 0 },
      { type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 0 },
    ], `${what}: balance and bookLevel events`)
    const s = summaryOf(h.engine)
    t.strictSame(s.openOrders, [], `${what}: the book is empty`)
    t.ok(s.accounts.every((a) => a.usdcHeldMicros === 0 && a.shares.every((x) => x.heldMicros === 0)), `${what}: nothing held`)
    const statuses = new Map(s.orderStatuses.map((x) => [x.orderId, x.status]))
    t.strictSame([o1, o2, o3, o4, o5, o6].map((id) => statuses.get(id)), ['CANCELED', 'CANCELED', 'CANCELED', 'CANCELED', 'CANCELED', 'MATCHED'], `${what}: order statuses`)
  }
  t.end()
})
