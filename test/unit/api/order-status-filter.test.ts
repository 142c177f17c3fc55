/**
 * GET /orders' status filter (and gRPC's ListOrders, which takes the same): open, matched,
 * canceled or all, in any case; anything else is INVALID_PARAMETER. A name every object has
 * (`toString`, `constructor`, `__proto__`) is not a filter: it was taken for one (an `in` check on
 * the filter table) and answered 200 with whatever that compared to.
 */
import t from 'tap'
import { tradingRoutes } from '../../../src/api/rest/routes/trading.js'
import type { RestRequest } from '../../../src/api/rest/route.js'
import { PredexError } from '../../../src/errors.js'
import { fakeWorld } from '../service/fake-context.js'

const route = tradingRoutes.find((r) => r.method === 'GET' && r.path === '/orders')!
const { context } = fakeWorld()
const identity = { apiKey: 'key-a', address: `0x${'a'.repeat(40)}`, nonce: 0 }

function ask(status: string | null): unknown {
  const query = new URLSearchParams(status === null ? {} : { status })
  const request: RestRequest = { method: 'GET', path: '/orders', params: [], query, headers: () => undefined,
    body: new Uint8Array(0), compat: false, remoteAddress: '10.0.0.1' }
  try {
    return route.handler(request, identity, context)
  } catch (error) {
    return error
  }
}

t.test('the four filters in any case, and none, are answered', (t) => {
  for (const status of [null, 'open', 'MATCHED', 'Canceled', 'all']) {
    t.notOk(ask(status) instanceof PredexError, `status ${status}`)
  }
  t.end()
})

t.test('anything else is INVALID_PARAMETER {field: status}, prototype names too', (t) => {
  for (const status of ['', 'live', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
    t.match(ask(status), { code: 'INVALID_PARAMETER', context: { field: 'status' } }, `status ${JSON.stringify(status)}`)
  }
  t.end()
})
