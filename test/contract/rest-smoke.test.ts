/** The shortest path through the REST face: a trader gets a key, places a resting order, reads it back. */
import t from 'tap'
import { signLimitOrder, orderBody } from '../../src/client/orders.js'
import { CHAIN_ID, USDC, get, l2, startServer } from '../rest-harness.js'

t.test('a signed order rests, shows in the book and in the trader\'s orders', async (t) => {
  const server = await startServer()
  t.teardown(() => server.stop())
  const market = await server.createMarket()
  const trader = await server.trader(100 * USDC)
  const signed = signLimitOrder(trader.wallet, { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: CHAIN_ID },
    { tokenId: market.yesTokenId, side: 'BUY', price: '0.40', size: '10' })
  const placed = await l2(server, trader, 'POST', '/order', orderBody(signed, trader.credentials.apiKey, 'GTC'))
  t.equal(placed.status, 200, JSON.stringify(placed.body))
  t.equal(placed.body.status, 'live')
  t.equal(placed.body.order_id, signed.orderId)
  const book = await get(server, `/book?token_id=${market.yesTokenId}`)
  t.same(book.body.bids, [{ price: '0.4', size: '10' }])
  const account = await server.account(trader.address)
  t.equal(account.heldMicros, 4 * USDC)
  const order = await l2(server, trader, 'GET', `/data/order/${signed.orderId}`)
  t.equal(order.status, 200)
  t.equal(order.body.id, signed.orderId)
})
