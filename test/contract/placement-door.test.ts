/**
 * A placement the signature pool could not take is refused at the door, before its body is read
 * and parsed (trading.checkPlacementLoad): while one trader's queue in the pool is full, its next
 * POST /orders gets 503 SIGNATURE_POOL_BUSY with Retry-After even when its body is not JSON (a
 * body read and parsed first would be a 400 BAD_JSON). Under the overload test's flood with the
 * native backend, parsing batches only to refuse them cost the front end more than its answers.
 * Another trader's placement still goes through: the door is per key.
 */
import t from 'tap'
import { l2, placeLimit, startServer, termsOf, USDC } from '../rest-harness.js'
import { orderBody, signLimitOrder } from '../../src/client/orders.js'
import { VERIFY_PENDING_PER_KEY_MAX } from '../../src/limits.js'

const BATCH = 10

t.test("a trader's full pool queue: its next placement is refused before its body is parsed", async (t) => {
  // noble: one thread of it keeps a queue full long enough to ask (native would drain it in milliseconds).
  const server = await startServer({ argv: ['--sig-workers', '1', '--sig-backend', 'noble'] })
  t.teardown(() => server.stop())
  const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
  const [flooder, other] = [await server.trader(1_000 * USDC), await server.trader(1_000 * USDC)]
  // Exactly the key's bound, in batches of up to ten: the queue is then full for one more order.
  const orders = Array.from({ length: VERIFY_PENDING_PER_KEY_MAX }, (_, i) => JSON.parse(orderBody(
    signLimitOrder(flooder.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.01',
      size: `${1 + i}` }), flooder.credentials.apiKey, 'GTC')) as unknown)
  const batches = Array.from({ length: Math.ceil(orders.length / BATCH) },
    (_, b) => JSON.stringify(orders.slice(b * BATCH, (b + 1) * BATCH)))
  const placed = batches.map((body) => l2(server, flooder, 'POST', '/orders', body))
  // One noble thread verifies a few hundred orders a second: the queue stays full for a while.
  const pool = server.predex.context.pool
  const deadlineMs = performance.now() + 10_000
  while (pool.queueSize < VERIFY_PENDING_PER_KEY_MAX && performance.now() < deadlineMs) {
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  t.equal(pool.queueSize, VERIFY_PENDING_PER_KEY_MAX, "the flooder's queue in the pool is full")
  const refused = await l2(server, flooder, 'POST', '/orders', 'this is not JSON')
  t.equal(refused.status, 503, `refused with 503 while ${pool.queueSize} orders wait`)
  t.equal(refused.body.code, 'SIGNATURE_POOL_BUSY', 'by the pool, before its body was parsed (not BAD_JSON)')
  t.equal(refused.headers.get('retry-after'), '1', 'saying when to retry')
  const another = await placeLimit(server, other, market, { side: 'BUY', price: '0.02', size: '5' })
  t.equal(another.status, 200, "another trader's order is placed meanwhile")
  const statuses = (await Promise.all(placed)).map((reply) => reply.status)
  t.ok(statuses.every((status) => status === 200), `the flooder's own ${statuses.length} batches were answered`)
})
