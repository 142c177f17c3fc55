/**
 * A placement the signature pool could not take is refused at the door, before its body is read
 * and parsed (trading.checkPlacementLoad): while one trader's queue in the pool is full, its next
 * POST /orders gets 503 SIGNATURE_POOL_BUSY with Retry-After even when its body is not JSON (a
 * body read and parsed first would be a 400 BAD_JSON). Under the overload test's flood with the
 * native backend, parsing batches only to refuse them cost the front end more than its answers.
 * Another trader's placement still goes through: the door is per key.
 */
import t from 'tap'
import { l2, placeLimit, startServer, termsOf, USDC } from '../support/rest-harness.js'
import { orderBody, signLimitOrder } from '../../src/client/orders.js'
import { VERIFY_PENDING_PER_KEY_MAX } from '../../src/limits.js'
import { eventually } from '../support/eventually.js'

const BATCH = 10

t.test("a trader's full pool queue: its next placement is refused before its body is parsed", async (t) => {
  const server = await startServer({ argv: ['--sig-workers', '1'] })
  t.teardown(() => server.stop())
  const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
  const [flooder, other] = [await server.trader(1_000 * USDC), await server.trader(1_000 * USDC)]
  // Exactly the key's bound, in batches of up to ten: the queue is then full for one more order.
  const orders = Array.from({ length: VERIFY_PENDING_PER_KEY_MAX }, (_, i) => JSON.parse(orderBody(
    signLimitOrder(flooder.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.01',
      size: `${1 + i}` }), flooder.credentials.apiKey, 'GTC')) as unknown)
  const batches = Array.from({ length: Math.ceil(orders.length / BATCH) },
    (_, b) => JSON.stringify(orders.slice(b * BATCH, (b + 1) * BATCH)))
  // The pool's thread is held, so the queue stays full until the test says: without the hold, the
  // thread drained it while the batches were still arriving, on a loaded machine.
  const pool = server.predex.context.pool
  const release = pool.hold()
  t.teardown(release)
  const placed = batches.map((body) => l2(server, flooder, 'POST', '/orders', body))
  await eventually(() => pool.queueSize >= VERIFY_PENDING_PER_KEY_MAX, 10_000, 'the batches admitted', 2)
  t.equal(pool.queueSize, VERIFY_PENDING_PER_KEY_MAX, "the flooder's queue in the pool is full")
  const refused = await l2(server, flooder, 'POST', '/orders', 'this is not JSON')
  t.equal(refused.status, 503, `refused with 503 while ${pool.queueSize} orders wait`)
  t.equal(refused.body.code, 'SIGNATURE_POOL_BUSY', 'by the pool, before its body was parsed (not BAD_JSON)')
  t.equal(refused.headers.get('retry-after'), '1', 'saying when to retry')
  const another = placeLimit(server, other, market, { side: 'BUY', price: '0.02', size: '5' })
  await eventually(() => pool.queueSize > VERIFY_PENDING_PER_KEY_MAX, 10_000, "the other trader's order admitted", 2)
  t.equal(pool.queueSize, VERIFY_PENDING_PER_KEY_MAX + 1, "another trader's order is let in meanwhile: the door is per key")
  release()
  t.equal((await another).status, 200, 'and placed once the thread verifies it')
  const statuses = (await Promise.all(placed)).map((reply) => reply.status)
  t.ok(statuses.every((status) => status === 200), `the flooder's own ${statuses.length} batches were answered`)
})
