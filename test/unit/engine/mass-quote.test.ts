/**
 * Mass quote (docs/engine.md, "Mass quote"): one command sets a key's ladder on a market. Kept
 * orders keep their place, the key's unnamed orders on the market are cancelled first, the new
 * ones placed; the whole command is refused, with nothing changed, when it is malformed.
 */
import t from 'tap'
import { Harness, addressOf, USDC } from '../../support/harness.js'
import type { OrderInput } from '../../../src/engine/command.js'
import type { QuotesSet } from '../../../src/engine/result.js'
import { summaryOf } from '../../../src/engine/view.js'
import { queueAheadMicros } from '../../../src/engine/queue.js'
import { MASS_QUOTE_LEVELS_MAX } from '../../../src/engine/limits.js'

const maker = addressOf(1)
const other = addressOf(2)
const KEY = `key-${maker}`

function setUp() {
  const h = new Harness()
  const m = h.market()
  const m2 = h.market()
  h.fund(maker, 1_000 * USDC)
  h.fund(other, 1_000 * USDC)
  h.split(maker, m.marketId, 100 * USDC)
  const bid = (priceMicros: number, size = 10, market = m) =>
    h.order({ maker, tokenId: market.yes, side: 'BUY', priceMicros, sizeMicros: size * USDC })
  const ask = (priceMicros: number, size = 10) => h.order({ maker, tokenId: m.yes, side: 'SELL', priceMicros, sizeMicros: size * USDC })
  const quote = (keep: readonly string[], orders: readonly OrderInput[], marketId = m.marketId) =>
    h.apply({ kind: 'massQuote', address: maker, owner: KEY, marketId, keep, orders })
  return { h, m, m2, bid, ask, quote }
}

function openIds(h: Harness): string[] {
  return summaryOf(h.engine).openOrders.map((o) => o.orderId)
}

t.test('a first ladder is placed; the next keeps what it names, cancels the rest, places the new', (t) => {
  const { h, m, m2, bid, ask, quote } = setUp()
  const [b40, b39, a60, a61] = [bid(400_000), bid(390_000), ask(600_000), ask(610_000)]
  const first = quote([], [b40, b39, a60, a61])
  const set = first.result as QuotesSet
  t.strictSame(set.canceledQuotes, [])
  t.strictSame(set.newQuotes.map((r) => r.ok && 'status' in r ? r.status : null), ['LIVE', 'LIVE', 'LIVE', 'LIVE'])
  // Another trader bids 0.40 behind the key's bid; an order of the key on another market stays out of it.
  h.place(h.order({ maker: other, tokenId: m.yes, side: 'BUY', priceMicros: 400_000, sizeMicros: 5 * USDC }))
  const elsewhere = bid(300_000, 10, m2)
  h.place(elsewhere)
  // Move the 0.39 bid to 0.38 and drop the 0.61 ask: keep 0.40 and 0.60.
  const b38 = bid(380_000)
  const second = quote([b40.orderId, a60.orderId], [b38])
  const moved = second.result as QuotesSet
  t.strictSame(moved.canceledQuotes, [b39.orderId, a61.orderId], 'the unnamed quotes, oldest first')
  t.strictSame(moved.keptQuotes, [{ orderId: b40.orderId, reason: null }, { orderId: a60.orderId, reason: null }])
  t.match(moved.newQuotes, [{ ok: true, orderId: b38.orderId, status: 'LIVE' }])
  t.match(second.events.filter((e) => e.type === 'orderUpdate'), [
    { orderId: b39.orderId, status: 'CANCELED', reason: 'replaced' }, { orderId: a61.orderId, reason: 'replaced' }])
  t.equal(queueAheadMicros(h.engine, b40.orderId), 0, 'the kept bid is still first at 0.40')
  t.ok(openIds(h).includes(elsewhere.orderId), 'the other market untouched')
  t.end()
})

t.test('a kept id that ended is reported and never placed; an empty quote pulls the ladder', (t) => {
  const { h, m, bid, quote } = setUp()
  const b40 = bid(400_000)
  quote([], [b40])
  h.fund(addressOf(3), 100 * USDC)
  h.split(addressOf(3), m.marketId, 20 * USDC)
  h.place(h.order({ maker: addressOf(3), tokenId: m.yes, side: 'SELL', priceMicros: 400_000, sizeMicros: 10 * USDC }))
  const after = quote([b40.orderId], []).result as QuotesSet
  t.strictSame(after.keptQuotes, [{ orderId: b40.orderId, reason: 'Order already matched' }])
  const b41 = bid(410_000)
  quote([], [b41])
  const pulled = quote([], []).result as QuotesSet
  t.strictSame(pulled.canceledQuotes, [b41.orderId], 'an empty quote cancels the key\'s ladder on the market')
  t.strictSame(openIds(h), [])
  t.end()
})

t.test('a malformed quote is refused whole, with nothing changed', (t) => {
  const { h, m, m2, bid, ask, quote } = setUp()
  const b40 = bid(400_000)
  quote([], [b40])
  const before = summaryOf(h.engine)
  const tooMany = Array.from({ length: MASS_QUOTE_LEVELS_MAX + 1 }, (_, i) => bid(100_000 + i * 10_000, 1))
  const cases: [string, ReturnType<typeof quote>, string][] = [
    ['an unknown market', quote([], [bid(380_000)], 'nope'), 'MARKET_NOT_FOUND'],
    ['an order of another market', quote([], [bid(380_000, 10, m2)]), 'MASS_QUOTE_INVALID'],
    ['an order of another key', quote([], [{ ...bid(380_000), owner: 'key-else' }]), 'MASS_QUOTE_INVALID'],
    ['an id named twice', quote([b40.orderId], [b40]), 'MASS_QUOTE_INVALID'],
    ['more than the levels of a side', quote([], tooMany), 'MASS_QUOTE_TOO_LARGE'],
  ]
  for (const [what, applied, code] of cases) {
    t.match(applied.result, { ok: false, code }, what)
    t.strictSame(applied.events, [], `${what}: no event`)
  }
  t.strictSame({ ...summaryOf(h.engine), seq: 0, timeMs: 0 }, { ...before, seq: 0, timeMs: 0 }, 'state unchanged')
  t.match(quote([], [...tooMany.slice(0, MASS_QUOTE_LEVELS_MAX), ask(900_000, 1)]).result, { ok: true },
    'the most a side, and one on the other, is fine')
  t.equal(m.marketId.length > 0, true)
  t.end()
})
