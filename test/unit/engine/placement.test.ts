/**
 * Order validation, one test per step of docs/engine.md "Validation", each checking the code,
 * the context, that the order left no record, and that nothing else changed.
 */
import t, { type Test } from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import { summaryOf } from '../../../src/engine/view.js'
import type { OrderInput } from '../../../src/engine/command.js'
import type { BatchPlaced, OrderRejection } from '../../../src/engine/result.js'

const alice = addressOf(1)
const bob = addressOf(2)

function setup(): { h: Harness; m: { marketId: string; yes: string; no: string } } {
  const h = new Harness()
  const m = h.market({ tickSizeMicros: 10_000, minOrderSizeMicros: 5 * USDC })
  h.fund(alice, 1_000 * USDC)
  h.fund(bob, 1_000 * USDC)
  h.split(bob, m.marketId, 100 * USDC)
  return { h, m }
}

/** Places an order that must be rejected, and checks that only the rejection event came out. */
function rejected(t: Test, h: Harness, order: OrderInput): OrderRejection {
  const before = summaryOf(h.engine)
  const applied = h.place(order)
  t.equal(applied.result.ok, false, 'rejected')
  t.same(applied.events.map((e) => e.type), ['orderRejected'], 'only the rejection event')
  const after = summaryOf(h.engine)
  t.same({ ...after, seq: before.seq, timeMs: before.timeMs }, before, 'state unchanged')
  return applied.result as OrderRejection
}

t.test('shape: each field is checked in the documented order', (t) => {
  const { h, m } = setup()
  const good = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC })
  const cases: [Partial<Record<keyof OrderInput, unknown>>, string][] = [
    [{ orderId: '' }, 'orderId'],
    [{ owner: 5 }, 'owner'],
    [{ maker: 'x'.repeat(129) }, 'maker'],
    [{ signer: null }, 'signer'],
    [{ tokenId: '' }, 'tokenId'],
    [{ side: 'buy' }, 'side'],
    [{ timeInForce: 'IOC' }, 'timeInForce'],
    [{ makerAmountMicros: 0 }, 'makerAmountMicros'],
    [{ makerAmountMicros: 1.5 }, 'makerAmountMicros'],
    [{ takerAmountMicros: -1 }, 'takerAmountMicros'],
    [{ takerAmountMicros: 2 ** 53 }, 'takerAmountMicros'],
    [{ expirationSec: -1 }, 'expirationSec'],
    [{ feeRateBps: 0.5 }, 'feeRateBps'],
    [{ postOnly: 'yes' }, 'postOnly'],
    // Two bad fields: the first in the documented order wins.
    [{ side: 'x', orderId: '' }, 'orderId'],
  ]
  for (const [patch, field] of cases) {
    const r = rejected(t, h, { ...good, ...patch } as OrderInput)
    t.equal(r.code, 'INVALID_ORDER_PAYLOAD')
    t.same(r.context, { field }, `field ${field}`)
  }
  t.end()
})

t.test('duplicate names the original order and its current status', (t) => {
  const { h, m } = setup()
  const order = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC })
  t.equal(h.place(order).result.ok, true)
  let r = rejected(t, h, order)
  t.equal(r.code, 'INVALID_ORDER_DUPLICATED')
  t.same(r.context, { orderId: order.orderId, status: 'LIVE' })
  h.apply({ kind: 'cancelOrder', address: alice, orderId: order.orderId })
  r = rejected(t, h, order)
  t.same(r.context, { orderId: order.orderId, status: 'CANCELED' }, 'a cancelled order is still a duplicate')
  // An order that fills entirely: MATCHED.
  const sell = h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 10 * USDC })
  h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }))
  t.equal(h.place(sell).result.ok, true)
  r = rejected(t, h, sell)
  t.same(r.context, { orderId: sell.orderId, status: 'MATCHED' })
  t.end()
})

t.test('a rejected order leaves no record: the same id can be placed once fixed', (t) => {
  const { h, m } = setup()
  const bad = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 1 * USDC })
  t.equal(rejected(t, h, bad).code, 'INVALID_ORDER_MIN_SIZE')
  const fixed = { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 5 * USDC }), orderId: bad.orderId }
  t.equal(h.place(fixed).result.ok, true)
  t.end()
})

t.test('unknown token, market status, post-only type, expiration, fee rate', (t) => {
  const { h, m } = setup()
  const base = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC })
  let r = rejected(t, h, { ...base, tokenId: 'nope' })
  t.same([r.code, r.context], ['TOKEN_NOT_FOUND', { tokenId: 'nope' }])

  r = rejected(t, h, { ...base, timeInForce: 'FOK', postOnly: true })
  t.same([r.code, r.context], ['INVALID_POST_ONLY_ORDER_TYPE', { timeInForce: 'FOK' }])

  // GTD needs an expiration at least 60 s after the command time (h.timeMs = T0).
  const earliestSec = Math.ceil((h.timeMs + 60_000) / 1000)
  r = rejected(t, h, { ...base, timeInForce: 'GTD', expirationSec: earliestSec - 1 })
  t.same([r.code, r.context], ['INVALID_ORDER_EXPIRATION', { expirationSec: earliestSec - 1, earliestSec }])
  r = rejected(t, h, { ...base, timeInForce: 'GTD', expirationSec: 0 })
  t.same(r.context, { expirationSec: 0, earliestSec })
  r = rejected(t, h, { ...base, expirationSec: earliestSec + 100 })
  t.same([r.code, r.context], ['INVALID_ORDER_EXPIRATION', { expirationSec: earliestSec + 100, earliestSec: 0 }],
    'only GTD orders may carry an expiration')
  t.equal(h.place({ ...base, orderId: '0xgtd', timeInForce: 'GTD', expirationSec: earliestSec }).result.ok, true,
    'exactly 60 s ahead is accepted')

  r = rejected(t, h, { ...base, feeRateBps: 10 })
  t.same([r.code, r.context], ['INVALID_ORDER_FEE_RATE', { feeRateBps: 10, marketFeeRateBps: 0 }])

  h.apply({ kind: 'setMarketStatus', marketId: m.marketId, status: 'Paused' })
  r = rejected(t, h, base)
  t.same([r.code, r.context], ['MARKET_CANCEL_ONLY', { marketId: m.marketId, status: 'Paused' }])
  t.end()
})

t.test('amounts: bounds, price range, lots, tick, minimum size', (t) => {
  const { h, m } = setup()
  const base = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC })
  let r = rejected(t, h, { ...base, makerAmountMicros: 10_000_000_000_001 })
  t.same([r.code, r.context], ['INVALID_ORDER_SIZE_MAX', { field: 'makerAmountMicros' }])
  r = rejected(t, h, { ...base, takerAmountMicros: 10_000_000_000_001 })
  t.same([r.code, r.context], ['INVALID_ORDER_SIZE_MAX', { field: 'takerAmountMicros' }])
  // Price 1 (maker == taker) and above are outside (0, 1).
  r = rejected(t, h, { ...base, makerAmountMicros: 10 * USDC })
  t.same([r.code, r.context], ['INVALID_ORDER_PRICE', null])
  r = rejected(t, h, { ...base, side: 'SELL', makerAmountMicros: 10 * USDC, takerAmountMicros: 11 * USDC })
  t.equal(r.code, 'INVALID_ORDER_PRICE')
  // 10.005 shares is not a whole number of lots (0.01 share).
  r = rejected(t, h, { ...base, takerAmountMicros: 10_005_000, makerAmountMicros: 5_002_500 })
  t.same([r.code, r.context], ['INVALID_ORDER_AMOUNTS', { field: 'takerAmountMicros', lotMicros: 10_000 }])
  r = rejected(t, h, { ...base, side: 'SELL', makerAmountMicros: 10_005_000, takerAmountMicros: 5_002_500 })
  t.same(r.context, { field: 'makerAmountMicros', lotMicros: 10_000 })
  // 0.555 is on the pip grid but not on the 0.01 tick; 5.555001 / 10 is not even a whole pip.
  r = rejected(t, h, { ...base, makerAmountMicros: 5_555_000 })
  t.same([r.code, r.context], ['INVALID_ORDER_MIN_TICK_SIZE', { tickSizeMicros: 10_000 }])
  r = rejected(t, h, { ...base, makerAmountMicros: 5_000_001 })
  t.equal(r.code, 'INVALID_ORDER_MIN_TICK_SIZE')
  // Minimum size 5 shares: 4.99 rejected, 5 accepted.
  r = rejected(t, h, h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 4_990_000 }))
  t.same([r.code, r.context], ['INVALID_ORDER_MIN_SIZE', { sizeMicros: 4_990_000, minOrderSizeMicros: 5 * USDC }])
  t.equal(h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 5 * USDC })).result.ok, true)
  t.end()
})

t.test('immediate orders: the limit ratio may be off the grid; a useless limit is refused', (t) => {
  const { h, m } = setup()
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 570_000, sizeMicros: 100 * USDC }))
  // clob-client's market BUY for $10 at 0.57: taker = 17.5438 shares; ratio 0.57000194 -> 5700 pips.
  const buy: OrderInput = { ...h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 500_000, sizeMicros: 10 * USDC }),
    makerAmountMicros: 10_000_000, takerAmountMicros: 17_543_800, timeInForce: 'FOK' }
  const applied = h.place(buy)
  t.equal(applied.result.ok, true)
  const accepted = Harness.eventsOf(applied, 'orderAccepted')[0]!
  t.equal(accepted.priceMicros, 570_000, 'limit floor(10 / 17.5438 * 10^4) = 5700 pips')
  t.equal(accepted.originalSizeMicros, 17_543_800, 'a BUY\'s original size is its takerAmount')
  // A budget of 56 micro-USDC at a limit of floor(56 / 98 * 10^4) = 5714 pips cannot buy one lot.
  const tiny: OrderInput = { ...buy, orderId: '0xtiny', makerAmountMicros: 56, takerAmountMicros: 98 }
  const r = rejected(t, h, tiny)
  t.same([r.code, r.context], ['INVALID_ORDER_MIN_SIZE', { budgetMicros: 56, minBudgetMicros: 5714 }])
  // A ratio below one pip can never fill.
  const hopeless: OrderInput = { ...buy, orderId: '0xlow', makerAmountMicros: 1, takerAmountMicros: 20_000 }
  t.same(rejected(t, h, hopeless).code, 'INVALID_ORDER_PRICE')
  // A SELL whose ratio rounds up to a price of 1 can never fill.
  const high: OrderInput = { ...h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 500_000, sizeMicros: 1 * USDC }),
    orderId: '0xhigh', timeInForce: 'FAK', makerAmountMicros: 1_000_000, takerAmountMicros: 999_999 }
  t.same(rejected(t, h, high).code, 'INVALID_ORDER_PRICE')
  t.end()
})

t.test('balance: the rejection says which asset, what was needed, available and held', (t) => {
  const { h, m } = setup()
  // alice has 1000 USDC; a resting bid of 1000 shares at 0.60 holds 600.
  t.equal(h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 600_000, sizeMicros: 1_000 * USDC })).result.ok, true)
  let r = rejected(t, h, h.order({ maker: alice, tokenId: m.no, side: 'BUY', priceMicros: 300_000, sizeMicros: 2_000 * USDC }))
  t.same([r.code, r.context], ['INVALID_ORDER_NOT_ENOUGH_BALANCE', {
    asset: 'USDC', requiredMicros: 600 * USDC, availableMicros: 400 * USDC, balanceMicros: 1_000 * USDC,
    allowanceMicros: Number.MAX_SAFE_INTEGER, heldMicros: 600 * USDC,
  }])
  // bob holds 100 Yes; selling 150 needs 150.
  r = rejected(t, h, h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 700_000, sizeMicros: 150 * USDC }))
  t.same(r.context, { asset: m.yes, requiredMicros: 150 * USDC, availableMicros: 100 * USDC,
    balanceMicros: 100 * USDC, heldMicros: 0, approved: true })
  // An unknown account has nothing.
  r = rejected(t, h, h.order({ maker: addressOf(99), tokenId: m.yes, side: 'SELL', priceMicros: 700_000, sizeMicros: 5 * USDC }))
  t.same(r.context, { asset: m.yes, requiredMicros: 5 * USDC, availableMicros: 0, balanceMicros: 0, heldMicros: 0, approved: false })
  t.end()
})

t.test('batches: each order stands alone; more than 10 is refused whole', (t) => {
  const { h, m } = setup()
  const orders = [
    h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 10 * USDC }),
    h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 405_000, sizeMicros: 10 * USDC }),
    h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 410_000, sizeMicros: 10 * USDC }),
  ]
  orders.push(orders[0]!)
  const applied = h.apply({ kind: 'placeOrders', orders })
  t.equal(applied.result.ok, true)
  const results = (applied.result as BatchPlaced).results as readonly { ok: boolean; code?: string }[]
  t.same(results.map((x) => x.ok), [true, false, true, false])
  t.same(results.map((x) => x.code), [undefined, 'INVALID_ORDER_MIN_TICK_SIZE', undefined, 'INVALID_ORDER_DUPLICATED'])
  const sixteen = Array.from({ length: 16 }, (_, i) => h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 100_000 + i * 10_000, sizeMicros: 5 * USDC }))
  const before = summaryOf(h.engine)
  const big = h.apply({ kind: 'placeOrders', orders: sixteen })
  t.same(big.result, { ok: false, code: 'BATCH_TOO_LARGE', message: 'Too many orders in payload', context: { max: 15 } })
  t.same(big.events, [])
  t.same(summaryOf(h.engine).openOrders, before.openOrders)
  t.end()
})
