/**
 * The state that test/unit/engine/snapshot-v3.fixture.ts holds, encoded by the version-3
 * encoder (before ended order ids were bounded): live orders (one with a client order id) and
 * ended ones (matched and canceled) interleaved in acceptance order, ending in an order other
 * than their acceptance, plus a key. The test builds it again with today's engine and compares.
 */
import { Harness, USDC, addressOf } from '../../support/harness.js'

export function v3State(): Harness {
  const [alice, bob, carol] = [addressOf(1), addressOf(2), addressOf(3)]
  const h = new Harness()
  const m = h.market()
  for (const who of [alice, bob, carol]) h.fund(who, 500 * USDC)
  h.split(bob, m.marketId, 50 * USDC)
  const first = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 300_000, sizeMicros: 5 * USDC })
  const second = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 310_000, sizeMicros: 5 * USDC })
  const third = h.order({ maker: carol, tokenId: m.yes, side: 'BUY', priceMicros: 320_000, sizeMicros: 5 * USDC,
    clientOrderId: 'carol-1' })
  const fourth = h.order({ maker: alice, tokenId: m.yes, side: 'BUY', priceMicros: 290_000, sizeMicros: 5 * USDC })
  for (const order of [first, second, third, fourth]) h.place(order)
  // Ends in the order fourth, second (canceled), then a sell fills third and first partly.
  h.apply({ kind: 'cancelOrder', address: alice, orderId: fourth.orderId })
  h.apply({ kind: 'cancelOrder', address: alice, orderId: second.orderId })
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 300_000, sizeMicros: 7 * USDC }))
  h.place(h.order({ maker: bob, tokenId: m.yes, side: 'SELL', priceMicros: 700_000, sizeMicros: 2 * USDC,
    clientOrderId: 'bob-ask' }))
  h.apply({ kind: 'registerApiKey', apiKey: 'key-1', address: alice, secret: 's'.repeat(44), passphrase: 'p', nonce: 0 })
  return h
}
