import t from 'tap'
import { Harness, addressOf, USDC } from '../../harness.js'

t.test('a buy crosses a resting sell', (t) => {
  const h = new Harness()
  const m = h.market()
  const alice = addressOf(1)
  const bob = addressOf(2)
  h.fund(alice, 100 * USDC)
  h.fund(bob, 100 * USDC)
  h.split(bob, m.marketId, 10 * USDC)
  const sell = h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 600_000, sizeMicros: 10 * USDC }))
  t.ok(sell.result.ok)
  const buy = h.place(h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 600_000, sizeMicros: 4 * USDC }))
  t.ok(buy.result.ok)
  t.comment(JSON.stringify(buy, null, 1))
  t.end()
})
