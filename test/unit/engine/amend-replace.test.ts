/**
 * Amend and cancel-replace (docs/engine.md, "Amend", "Cancel-replace"): an amend lowers a live
 * order's size and keeps its place in the queue, its hold shrinking to match; a cancel-replace
 * places the new order only when the old one was live and is now cancelled.
 */
import t, { type Test } from 'tap'
import { Harness, addressOf, USDC } from '../../support/harness.js'
import { stateOf, accountOf } from '../../support/engine-checks.js'
import type { ApplyResult } from '../../../src/engine/engine.js'
import type { OrderInput } from '../../../src/engine/command.js'
import { summaryOf } from '../../../src/engine/view.js'

const alice = addressOf(1)
const bob = addressOf(2)
const carol = addressOf(3)

function openIds(h: Harness): string[] {
  return summaryOf(h.engine).openOrders.map((o) => o.orderId)
}

function live(h: Harness, order: OrderInput): string {
  const applied = h.place(order)
  if ((applied.result as { status?: string }).status !== 'LIVE') throw new Error(JSON.stringify(applied.result))
  return order.orderId
}

/** A command that must change nothing and write no event but, at most, an order's refusal. */
function noEffect(t: Test, h: Harness, run: () => ApplyResult, what: string): ApplyResult {
  const before = stateOf(h)
  const applied = run()
  t.strictSame(applied.events.filter((e) => e.type !== 'orderRejected'), [], `${what}: no change events`)
  t.strictSame(stateOf(h), before, `${what}: state unchanged`)
  return applied
}

function setUp(): { h: Harness; m: { marketId: string; yes: string; no: string } } {
  const h = new Harness()
  const m = h.market()
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.fund(carol, 100 * USDC)
  h.split(bob, m.marketId, 50 * USDC)
  return { h, m }
}

t.test('amend: lower the size keeping the place in the queue; the hold shrinks to match', (t) => {
  const { h, m } = setUp()
  // alice then carol bid 0.40 for 10: alice is first in the queue.
  const a1 = live(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }))
  const c1 = live(h, h.order({ maker: carol, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }))
  t.match(accountOf(h, alice), { usdcHeldMicros: 4_000_000 })

  const applied = h.apply({ kind: 'amendOrder', address: alice, orderId: a1, newSizeMicros: 6 * USDC, reduceByMicros: 0 })
  t.strictSame(applied.result, { ok: true, orderId: a1, sizeMatchedMicros: 0, remainingMicros: 6_000_000,
    reducedByMicros: 4_000_000 })
  t.strictSame(applied.events, [
    { type: 'orderUpdate', orderId: a1, maker: alice, status: 'LIVE', sizeMatchedMicros: 0, remainingMicros: 6_000_000,
      reason: 'amended' },
    { type: 'balance', address: alice, asset: 'USDC', balanceMicros: 100 * USDC, heldMicros: 2_400_000 },
    { type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 16_000_000 },
  ])
  t.match(accountOf(h, alice), { usdcHeldMicros: 2_400_000 })

  // reduce_by on what is left; still first: bob's sale of 7 fills alice's 5 first, then 2 of carol's.
  const by = h.apply({ kind: 'amendOrder', address: alice, orderId: a1, newSizeMicros: 0, reduceByMicros: USDC })
  t.match(by.result, { ok: true, remainingMicros: 5_000_000, reducedByMicros: 1_000_000 })
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 7 * USDC }))
  t.strictSame(openIds(h), [c1], 'alice was filled first: she kept her place')
  t.match(summaryOf(h.engine).openOrders[0], { orderId: c1, remainingMicros: 8_000_000 })
  t.match(accountOf(h, alice), { usdcHeldMicros: 0, usdcMicros: 98 * USDC })
  t.end()
})

t.test('amend: a SELL gives back shares; a partly filled order amends what rests', (t) => {
  const { h, m } = setUp()
  const b1 = live(h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 10 * USDC }))
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 600_000, sizeMicros: 4 * USDC }))
  const applied = h.apply({ kind: 'amendOrder', address: bob, orderId: b1, newSizeMicros: 2 * USDC, reduceByMicros: 0 })
  t.strictSame(applied.result, { ok: true, orderId: b1, sizeMatchedMicros: 4_000_000, remainingMicros: 2_000_000,
    reducedByMicros: 4_000_000 })
  const yes = summaryOf(h.engine).accounts.find((a) => a.address === bob)!.shares.find((s) => s.tokenId === m.yes)
  t.match(yes, { balanceMicros: 46_000_000, heldMicros: 2_000_000 })
  t.end()
})

t.test('amend: refusals change nothing', (t) => {
  const { h, m } = setUp()
  const a1 = live(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }))
  const cases: [string, { newSizeMicros: number; reduceByMicros: number; address?: string; orderId?: string }, string][] = [
    ['both sizes', { newSizeMicros: 5 * USDC, reduceByMicros: USDC }, 'AMEND_SIZE_INVALID'],
    ['neither size', { newSizeMicros: 0, reduceByMicros: 0 }, 'AMEND_SIZE_INVALID'],
    ['not a whole lot', { newSizeMicros: 5_000_001, reduceByMicros: 0 }, 'AMEND_SIZE_INVALID'],
    ['negative', { newSizeMicros: -USDC, reduceByMicros: 0 }, 'AMEND_SIZE_INVALID'],
    ['not a number', { newSizeMicros: Number.NaN, reduceByMicros: 0 }, 'AMEND_SIZE_INVALID'],
    ['the same size', { newSizeMicros: 10 * USDC, reduceByMicros: 0 }, 'AMEND_NOT_REDUCING'],
    ['a larger size', { newSizeMicros: 11 * USDC, reduceByMicros: 0 }, 'AMEND_NOT_REDUCING'],
    ['reduce by all of it', { newSizeMicros: 0, reduceByMicros: 10 * USDC }, 'AMEND_NOT_REDUCING'],
    ["another account's order", { newSizeMicros: USDC, reduceByMicros: 0, address: bob }, 'ORDER_NOT_FOUND'],
    ['an unknown order', { newSizeMicros: USDC, reduceByMicros: 0, orderId: 'nope' }, 'ORDER_NOT_FOUND'],
  ]
  for (const [what, c, code] of cases) {
    const applied = noEffect(t, h, () => h.apply({ kind: 'amendOrder', address: c.address ?? alice,
      orderId: c.orderId ?? a1, newSizeMicros: c.newSizeMicros, reduceByMicros: c.reduceByMicros }), what)
    t.match(applied.result, { ok: false, code }, `${what}: ${code}`)
  }
  h.apply({ kind: 'cancelOrder', address: alice, orderId: a1 })
  const ended = noEffect(t, h, () => h.apply({ kind: 'amendOrder', address: alice, orderId: a1, newSizeMicros: USDC,
    reduceByMicros: 0 }), 'a cancelled order')
  t.match(ended.result, { ok: false, code: 'ORDER_ALREADY_CANCELED', context: { orderId: a1 } })
  t.end()
})

t.test('cancel-replace: the old order is cancelled and the new one placed, in one command', (t) => {
  const { h, m } = setUp()
  const a1 = live(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC,
    clientOrderId: 'q-1' }))
  // The new quote reuses the client order id: the old one ends in the same command.
  const a2 = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 450_000, sizeMicros: 20 * USDC,
    clientOrderId: 'q-1' })
  const applied = h.apply({ kind: 'cancelReplace', address: alice, orderId: a1, order: a2 })
  t.match(applied.result, { ok: true, canceledOrderId: a1, canceledRemainingMicros: 10_000_000,
    placed: { ok: true, orderId: a2.orderId, status: 'LIVE' } })
  t.match(applied.events.slice(0, 2), [
    { type: 'orderUpdate', orderId: a1, status: 'CANCELED', reason: 'replaced' },
    { type: 'orderAccepted', orderId: a2.orderId, clientOrderId: 'q-1' },
  ])
  t.strictSame(openIds(h), [a2.orderId])
  // 0.45 x 20 = 9 USDC held; alice's 100 could not hold both 4 and 9 plus more, but only one lives.
  t.match(accountOf(h, alice), { usdcHeldMicros: 9_000_000 })
  t.end()
})

t.test('cancel-replace: an old order no longer live refuses the whole command; the new one is not placed', (t) => {
  const { h, m } = setUp()
  const a1 = live(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }))
  // Filled before the replace arrives.
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 5 * USDC }))
  const a2 = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 410_000, sizeMicros: 5 * USDC })
  const applied = noEffect(t, h, () => h.apply({ kind: 'cancelReplace', address: alice, orderId: a1, order: a2 }),
    'the old order was filled')
  t.match(applied.result, { ok: false, code: 'ORDER_ALREADY_MATCHED', context: { orderId: a1, newOrderId: a2.orderId } })
  t.strictSame(openIds(h), [])
  const other = noEffect(t, h, () => h.apply({ kind: 'cancelReplace', address: bob, orderId: a1, order: a2 }),
    "another account's order")
  t.match(other.result, { ok: false, code: 'ORDER_NOT_FOUND' })
  t.end()
})

t.test('cancel-replace: a new order refused for its terms leaves the old one live', (t) => {
  const { h, m } = setUp()
  const a1 = live(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }))
  const offTick = { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }),
    makerAmountMicros: 2_000_050 }
  const applied = noEffect(t, h, () => h.apply({ kind: 'cancelReplace', address: alice, orderId: a1, order: offTick }),
    'the new order breaks the tick')
  t.match(applied.result, { ok: false, orderId: offTick.orderId })
  t.match(applied.events, [{ type: 'orderRejected', orderId: offTick.orderId }])
  t.strictSame(openIds(h), [a1])
  t.end()
})

t.test('cancel-replace: a new order refused by funds or the book leaves the old one cancelled, and says so', (t) => {
  const { h, m } = setUp()
  const a1 = live(h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }))
  live(h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 5 * USDC }))
  // Post-only at 0.50 crosses bob's ask: refused after the cancel.
  const a2 = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 5 * USDC,
    postOnly: true })
  const applied = h.apply({ kind: 'cancelReplace', address: alice, orderId: a1, order: a2 })
  t.match(applied.result, { ok: true, canceledOrderId: a1, canceledRemainingMicros: 5_000_000,
    placed: { ok: false, code: 'INVALID_POST_ONLY_ORDER', orderId: a2.orderId } })
  t.strictSame(openIds(h).includes(a1), false)
  t.match(accountOf(h, alice), { usdcHeldMicros: 0 })
  t.end()
})
