/**
 * GTD expiry on a quiet market, over loopback and in real time (the engine stamps commands with
 * the host's clock, and a GTD order must live at least GTD_MARGIN_MS, one minute): nothing else
 * reaches the engine, yet the order expires at its time, its hold released. Before the host's
 * expiry timer, it stayed LIVE until some other command came. About 66 s, mostly waiting.
 */
import t from 'tap'
import { GTD_MARGIN_MS } from '../../src/limits.js'
import { USDC, l2, placeLimit, startServer } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())

t.test('a GTD order on a quiet market expires at its time; its hold is released', async (t) => {
  const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
  const alice = await server.trader(10 * USDC)
  // A first order starts the verification thread (seconds on a loaded machine: it failed the GTD
  // order's margin once, with three test files at a time), so the GTD order's path is warm.
  const warmUp = await placeLimit(server, alice, market, { side: 'BUY', price: '0.10', size: '10' })
  t.equal(warmUp.status, 200, JSON.stringify(warmUp.body))
  t.equal((await l2(server, alice, 'DELETE', '/order', { orderID: warmUp.signed.orderId })).status, 200)
  // A few seconds over the margin: what signing and posting take.
  const expirationSec = Math.ceil((Date.now() + GTD_MARGIN_MS + 5_000) / 1000)
  const placed = await placeLimit(server, alice, market, { side: 'BUY', price: '0.40', size: '10', expiration: expirationSec },
    'GTD')
  t.equal(placed.status, 200, JSON.stringify(placed.body))
  t.equal((await server.account(alice.address)).heldMicros, 4 * USDC, 'it holds 4 USDC')
  const orderId = placed.signed.orderId
  const status = async (): Promise<string> => (await l2(server, alice, 'GET', `/data/order/${orderId}`)).body.status
  while (Date.now() < expirationSec * 1000 - 1_000) {
    t.equal(await status(), 'LIVE', 'live before its time') // (a read reaches no engine command)
    await new Promise((resolve) => setTimeout(resolve, 5_000))
  }
  const deadline = expirationSec * 1000 + 3_000
  while ((await status()) === 'LIVE' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  const order = (await l2(server, alice, 'GET', `/data/order/${orderId}`)).body
  t.match(order, { status: 'CANCELED' }, 'expired within 3 s of its time, with no other command')
  t.equal((await server.account(alice.address)).heldMicros, 0, 'its hold is released')
})
