/**
 * Market administration and lifecycle (docs/engine.md, "Market status", validation step 4,
 * "Events"): createMarket validation and uniqueness, every status transition, orders only in
 * Active, cancels in every status, closing/resolving cancelling resting orders in acceptance
 * order, setTickSize and setFeeRate, and the marketCreated / marketUpdated events.
 */
import t, { type Test } from 'tap'
import { Harness, addressOf, T0_MS, USDC } from '../../support/harness.js'
import type { ApplyResult } from '../../../src/engine/engine.js'
import { CODE_MESSAGES, type Code } from '../../../src/engine/codes.js'
import type { MarketInput, MarketStatus } from '../../../src/engine/command.js'
import type { EngineEvent } from '../../../src/engine/event.js'
import type { ContextValue } from '../../../src/engine/result.js'
import type { StateSummary } from '../../../src/engine/summary.js'
import { summaryOf } from '../../../src/engine/view.js'


const alice = addressOf(1)
const bob = addressOf(2)
const carol = addressOf(3)
const dave = addressOf(4)
const erin = addressOf(5)

const STATUSES: readonly MarketStatus[] = ['Upcoming', 'Active', 'Paused', 'Closed', 'Resolving', 'Resolved']
/** docs/engine.md, "Market status" (Resolved only through resolveMarket). */
const ALLOWED: Readonly<Record<MarketStatus, readonly MarketStatus[]>> = {
  Upcoming: ['Active', 'Closed'],
  Active: ['Paused', 'Closed', 'Resolving'],
  Paused: ['Active', 'Closed', 'Resolving'],
  Closed: ['Resolving'],
  Resolving: ['Closed'],
  Resolved: [],
}

function stateOf(h: Harness): StateSummary {
  // seq and timeMs advance with every command; everything else must stay.
  return { ...summaryOf(h.engine), seq: 0, timeMs: 0 }
}

function marketOf(h: Harness, marketId: string) {
  return summaryOf(h.engine).markets.find((m) => m.marketId === marketId)
}

function isRejected(t: Test, applied: ApplyResult, code: Code, context: Record<string, ContextValue> | null, what: string): void {
  t.strictSame(applied.result, { ok: false, code, message: CODE_MESSAGES[code], context }, what)
}

function isRejectedCode(t: Test, applied: ApplyResult, code: Code, what: string): void {
  t.match(applied.result, { ok: false, code, message: CODE_MESSAGES[code] }, what)
}

function refusedUnchanged(t: Test, h: Harness, run: () => ApplyResult, what: string): ApplyResult {
  const before = stateOf(h)
  const applied = run()
  t.equal(applied.result.ok, false, `${what}: refused`)
  t.strictSame(applied.events, [], `${what}: no events`)
  t.strictSame(stateOf(h), before, `${what}: nothing changed`)
  return applied
}

function acceptedNoop(t: Test, h: Harness, run: () => ApplyResult, what: string): void {
  const before = stateOf(h)
  const applied = run()
  t.strictSame(applied.result, { ok: true }, `${what}: accepted`)
  t.strictSame(applied.events, [], `${what}: no events`)
  t.strictSame(stateOf(h), before, `${what}: nothing changed`)
}

function inputOf(id: string, overrides: Record<string, unknown> = {}): MarketInput {
  return {
    marketId: id,
    conditionId: `0xcond-${id}`,
    question: `Will ${id} happen?`,
    slug: `slug-${id}`,
    description: '',
    yesTokenId: `${id}-yes`,
    noTokenId: `${id}-no`,
    tickSizeMicros: 10_000,
    minOrderSizeMicros: 1_000_000,
    feeRateBps: 0,
    negRisk: false,
    endDateMs: 0,
    status: 'Active',
    ...overrides,
  } as MarketInput
}

/** A marketUpdated event; a resolved market carries its resolution's command time (the harness clock). */
function updated(marketId: string, status: MarketStatus, tickSizeMicros = 10_000, feeRateBps = 0, winningOutcome: 'Yes' | 'No' | null = null,
  resolvedMs = winningOutcome === null ? 0 : T0_MS) {
  return { type: 'marketUpdated', marketId, status, tickSizeMicros, feeRateBps, winningOutcome, resolvedMs }
}

function orderIdOf(applied: ApplyResult): string {
  return (applied.result as { orderId: string }).orderId
}

function statusOf(applied: ApplyResult): string | undefined {
  return (applied.result as { status?: string }).status
}

/** A market brought to `status` by allowed steps. */
function marketIn(h: Harness, id: string, status: MarketStatus): string {
  const created = h.apply({ kind: 'createMarket', market: inputOf(id, { status: status === 'Upcoming' ? 'Upcoming' : 'Active' }) })
  if (!created.result.ok) throw new Error('createMarket failed')
  if (status === 'Paused' || status === 'Closed' || status === 'Resolving') {
    const moved = h.apply({ kind: 'setMarketStatus', marketId: id, status })
    if (!moved.result.ok) throw new Error(`to ${status} failed`)
  }
  if (status === 'Resolved') h.apply({ kind: 'resolveMarket', marketId: id, outcome: 'Yes' })
  if (marketOf(h, id)?.status !== status) throw new Error(`market not in ${status}`)
  return id
}

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

// ---------------------------------------------------------------------------------------------
// setTickSize
// ---------------------------------------------------------------------------------------------

t.test('setTickSize: refine, then orders on the finer grid rest and match', (t) => {
  const h = new Harness()
  const m = h.market() // tick 0.01
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  const a1 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(a1), 'LIVE')
  // 0.505 is off the 0.01 grid.
  const off = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: 2 * USDC }))
  t.match(off.result, { ok: false, code: 'INVALID_ORDER_MIN_TICK_SIZE', context: { tickSizeMicros: 10_000 } })

  const refine = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 1_000 })
  t.strictSame(refine.result, { ok: true })
  t.strictSame(refine.events, [updated(m.marketId, 'Active', 1_000)])
  t.equal(marketOf(h, m.marketId)?.tickSizeMicros, 1_000)
  acceptedNoop(t, h, () => h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 1_000 }), 'same tick again')

  // BUY Yes 0.505 x 2 now rests above the 0.50 bid.
  const a2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(a2), 'LIVE')
  t.strictSame(Harness.eventsOf(a2, 'bookLevel'), [
    { type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: 2_000_000 },
  ])
  // bob BUY No 0.495 x 2: Yes-space ask 1 - 0.495 = 0.505 meets the 0.505 bid: a mint.
  const b1 = h.place(h.order({ maker: bob, tokenId: m.no, side: 'BUY', priceMicros: 495_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(b1), 'MATCHED')
  t.match(Harness.eventsOf(b1, 'trade'), [{
    matchType: 'mint', takerOrderId: orderIdOf(b1), tokenId: m.no, side: 'BUY', priceMicros: 495_000, sizeMicros: 2_000_000,
    makerOrderId: orderIdOf(a2), makerTokenId: m.yes, makerSide: 'BUY', makerPriceMicros: 505_000, feeMicros: 0,
  }])
  // alice paid 0.505 x 2 = 1.01; bob 0.495 x 2 = 0.99; collateral 2.
  t.match(marketOf(h, m.marketId), { collateralMicros: 2_000_000, mintedMicros: 2_000_000 })
  const s = summaryOf(h.engine)
  t.match(s.accounts.find((a) => a.address === alice), { usdcMicros: 8_990_000, usdcHeldMicros: 1_000_000 }) // 0.50 x 2 still held
  t.match(s.accounts.find((a) => a.address === bob), { usdcMicros: 9_010_000, usdcHeldMicros: 0 })

  // Refine once more to 0.0001: 0.5051 rests; 0.50 still matches.
  t.strictSame(h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 100 }).events, [updated(m.marketId, 'Active', 100)])
  const a3 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_100, sizeMicros: USDC }))
  t.equal(statusOf(a3), 'LIVE')
  h.split(bob, m.marketId, 3 * USDC)
  // bob sells 3 Yes at 0.50: 1 at 0.5051 (a3), then 2 at 0.50 (a1).
  const b2 = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 3 * USDC }))
  t.equal(statusOf(b2), 'MATCHED')
  t.match(Harness.eventsOf(b2, 'trade'), [
    { makerOrderId: orderIdOf(a3), priceMicros: 505_100, sizeMicros: 1_000_000 },
    { makerOrderId: orderIdOf(a1), priceMicros: 500_000, sizeMicros: 2_000_000 },
  ])
  t.strictSame(summaryOf(h.engine).openOrders, [])
  t.end()
})

t.test('setTickSize: coarsen, refused off grid, resting orders keep working', (t) => {
  const h = new Harness()
  const m = h.market({ tickSizeMicros: 1_000 }) // 0.001
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  h.split(bob, m.marketId, 5 * USDC)

  // A Yes order at 0.505 is off the 0.01 grid.
  const a1 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: USDC }))
  const r1 = refusedUnchanged(t, h, () => h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 10_000 }), 'Yes order off the new grid')
  isRejectedCode(t, r1, 'MARKET_TICK_SIZE_OFF_GRID', 'Yes order off the new grid')
  h.apply({ kind: 'cancelOrder', address: alice, orderId: orderIdOf(a1) })

  // A No order at 0.455 (Yes-space 0.545) is off the 0.01 grid too.
  const b1 = h.place(h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 455_000, sizeMicros: USDC }))
  const r2 = refusedUnchanged(t, h, () => h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 10_000 }), 'No order off the new grid')
  isRejectedCode(t, r2, 'MARKET_TICK_SIZE_OFF_GRID', 'No order off the new grid')
  h.apply({ kind: 'cancelOrder', address: bob, orderId: orderIdOf(b1) })

  // A level that once held an off-grid order but is empty now does not block the change; neither
  // does a level emptied by a fill (alice 0.507 bought by bob).
  const a2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 507_000, sizeMicros: USDC }))
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 507_000, sizeMicros: USDC }))
  t.equal(summaryOf(h.engine).orderStatuses.find((x) => x.orderId === orderIdOf(a2))?.status, 'MATCHED')

  // On-grid resting orders for 0.1: BUY Yes 0.50 x 2 (alice), SELL Yes 0.70 x 1 (bob), SELL No 0.60
  // x 1 (bob; Yes-space bid 0.40).
  const a3 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 2 * USDC }))
  const b2 = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 700_000, sizeMicros: USDC }))
  const b3 = h.place(h.order({ maker: bob, tokenId: m.no, side: 'SELL', priceMicros: 600_000, sizeMicros: USDC }))
  const coarsen = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 100_000 })
  t.strictSame(coarsen.result, { ok: true }, 'every resting price is on the 0.1 grid')
  t.strictSame(coarsen.events, [updated(m.marketId, 'Active', 100_000)])
  t.strictSame(summaryOf(h.engine).openOrders.map((o) => o.orderId), [orderIdOf(a3), orderIdOf(b2), orderIdOf(b3)], 'orders kept')

  // 0.55 is off the new grid; 0.60 rests.
  const off = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 550_000, sizeMicros: USDC }))
  t.match(off.result, { ok: false, code: 'INVALID_ORDER_MIN_TICK_SIZE', context: { tickSizeMicros: 100_000 } })
  const a4 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 600_000, sizeMicros: USDC }))
  t.equal(statusOf(a4), 'LIVE')

  // carol sells 4 Yes at 0.40 through the bids: 0.60 x 1 (a4), 0.50 x 2 (a3), then the 0.40 bid
  // is bob's SELL No 0.60: a merge of 1.
  h.fund(carol, 10 * USDC)
  h.split(carol, m.marketId, 4 * USDC)
  const c1 = h.place(h.order({ maker: carol, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 4 * USDC }))
  t.equal(statusOf(c1), 'MATCHED')
  t.match(Harness.eventsOf(c1, 'trade'), [
    { matchType: 'normal', makerOrderId: orderIdOf(a4), priceMicros: 600_000, sizeMicros: 1_000_000 },
    { matchType: 'normal', makerOrderId: orderIdOf(a3), priceMicros: 500_000, sizeMicros: 2_000_000 },
    { matchType: 'merge', makerOrderId: orderIdOf(b3), priceMicros: 400_000, makerPriceMicros: 600_000, sizeMicros: 1_000_000 },
  ])
  // Only bob's SELL Yes 0.70 is left, and asks still work: alice buys it.
  const a5 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 700_000, sizeMicros: USDC }))
  t.equal(statusOf(a5), 'MATCHED')
  t.match(Harness.eventsOf(a5, 'trade'), [{ makerOrderId: orderIdOf(b2), priceMicros: 700_000, sizeMicros: 1_000_000 }])
  t.strictSame(summaryOf(h.engine).openOrders, [])
  t.end()
})

t.test('setTickSize: invalid ticks, every status', (t) => {
  const h = new Harness()
  const m = h.market()
  for (const tick of [0, 7_500, 20_000, 1_000_000, 50, -10_000, 1.5, 10]) {
    const applied = refusedUnchanged(t, h, () => h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: tick }), `tick ${tick}`)
    isRejectedCode(t, applied, 'MARKET_TICK_SIZE_INVALID', `tick ${tick}`)
  }
  // Allowed in every status.
  const steps: [MarketStatus, number][] = [['Paused', 1_000], ['Closed', 100], ['Resolving', 100_000]]
  for (const [status, tick] of steps) {
    h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status })
    const applied = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: tick })
    t.strictSame(applied.events, [updated(m.marketId, status, tick)], `setTickSize when ${status}`)
  }
  h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'Yes' })
  const resolved = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 10_000 })
  t.strictSame(resolved.events, [updated(m.marketId, 'Resolved', 10_000, 0, 'Yes')], 'setTickSize when Resolved')
  t.end()
})

// ---------------------------------------------------------------------------------------------
// setFeeRate
// ---------------------------------------------------------------------------------------------

t.test('setFeeRate: range, no-op, orders must carry the new rate, every status', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  const set = h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 50 })
  t.strictSame(set.result, { ok: true })
  t.strictSame(set.events, [updated(m.marketId, 'Active', 10_000, 50)])
  acceptedNoop(t, h, () => h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 50 }), 'same rate')

  for (const bad of [1_001, -1, 2.5, Number.NaN]) {
    const applied = refusedUnchanged(t, h, () => h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: bad }), `rate ${bad}`)
    isRejected(t, applied, 'MARKET_FEE_RATE_INVALID', { feeRateBps: bad }, `rate ${bad}`)
  }
  // An order signed with the old rate 0.
  const old = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC }))
  t.match(old.result, { ok: false, code: 'INVALID_ORDER_FEE_RATE', context: { feeRateBps: 0, marketFeeRateBps: 50 } })
  const fresh = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC, feeRateBps: 50 }))
  t.equal(statusOf(fresh), 'LIVE')

  // The bounds: 1000 (FEE_RATE_BPS_MAX) and 0.
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 1_000 }).events, [updated(m.marketId, 'Active', 10_000, 1_000)])
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 0 }).events, [updated(m.marketId, 'Active', 10_000, 0)])

  // Status events carry the current tick and rate.
  h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 7 })
  h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 1_000 })
  const paused = h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Paused' })
  t.strictSame(paused.events, [updated(m.marketId, 'Paused', 1_000, 7)])
  // setFeeRate in every status.
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 8 }).events, [updated(m.marketId, 'Paused', 1_000, 8)])
  h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Closed' })
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 9 }).events, [updated(m.marketId, 'Closed', 1_000, 9)])
  h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'No' })
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: 10 }).events, [updated(m.marketId, 'Resolved', 1_000, 10, 'No')])
  const upcoming = h.apply({ kind: 'createMarket', market: inputOf('up', { status: 'Upcoming' }) })
  t.equal(upcoming.result.ok, true)
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: 'up', feeRateBps: 11 }).events, [updated('up', 'Upcoming', 10_000, 11)])
  t.end()
})

t.test('events of a rejected admin command: none (only expiry may appear)', (t) => {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 10 * USDC)
  // A GTD that expires at T0 + 61 s: the clock runs even when the command is then rejected.
  const expSec = Math.floor(h.timeMs / 1000) + 61
  const gtd = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: USDC, timeInForce: 'GTD', expirationSec: expSec }))
  t.equal(statusOf(gtd), 'LIVE')
  h.timeMs = expSec * 1000
  const applied = h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Resolved' })
  isRejected(t, applied, 'MARKET_STATUS_TRANSITION', { from: 'Active', to: 'Resolved' }, 'Active -> Resolved via setMarketStatus')
  const events: EngineEvent[] = applied.events
  t.strictSame(events, [
    { type: 'orderUpdate', orderId: orderIdOf(gtd), maker: alice, status: 'CANCELED', sizeMatchedMicros: 0, remainingMicros: 0, reason: 'expired' },
    { type: 'balance', address: alice, asset: 'USDC', balanceMicros: 10_000_000, heldMicros: 0 },
    { type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 0 },
  ], 'only the expiry')
  t.end()
})

t.test('ticks 0.005 and 0.0025 (CLOB V2): only prices on their grid; coarsening back needs an empty grid', (t) => {
  const h = new Harness()
  const m = h.market() // tick 0.01
  h.fund(alice, 10 * USDC)
  h.fund(bob, 10 * USDC)
  t.strictSame(h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 5_000 }).result, { ok: true })
  // clob-client-v2 rounds to 3 decimals on a 0.005 market, so 0.503 reaches the server: refused.
  const off = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 503_000, sizeMicros: 2 * USDC }))
  t.match(off.result, { ok: false, code: 'INVALID_ORDER_MIN_TICK_SIZE', context: { tickSizeMicros: 5_000 } })
  const a1 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 505_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(a1), 'LIVE', '0.505 rests on the 0.005 grid')
  // The complement of 0.505 is 0.495, on the grid too: a No buy there mints against it.
  const b1 = h.place(h.order({ maker: bob, tokenId: m.no, side: 'BUY', priceMicros: 495_000, sizeMicros: 2 * USDC }))
  t.equal(statusOf(b1), 'MATCHED')
  t.strictSame(h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 2_500 }).result, { ok: true })
  const a2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 502_500, sizeMicros: 2 * USDC }))
  t.equal(statusOf(a2), 'LIVE', '0.5025 rests on the 0.0025 grid')
  const off2 = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 501_000, sizeMicros: 2 * USDC }))
  t.match(off2.result, { ok: false, code: 'INVALID_ORDER_MIN_TICK_SIZE', context: { tickSizeMicros: 2_500 } })
  // 0.5025 is off the 0.005 grid: the tick cannot go back while it rests.
  const back = h.apply({ kind: 'setTickSize', marketId: m.marketId, tickSizeMicros: 5_000 })
  t.match(back.result, { ok: false, code: 'MARKET_TICK_SIZE_OFF_GRID' })
  t.end()
})
