/**
 * The response shapes (src/api/shapes) against the two things that could drift from them: the
 * route table (every route of each surface has a declared body, and no declared body lacks its
 * route) and the SDK (each method returns exactly the body of its route, checked when this file
 * compiles; every native route has a method of the package's PredexClient, or a stated reason in
 * SDK_EXCLUDED not to). The runtime key lists are checked against real answers in
 * test/contract/sdk-client.test.ts; here, that the check itself can fail.
 */
import t from 'tap'
import { allRoutes } from '../../../src/api/rest/routes.js'
import type { NativeBodies, NativeRoute } from '../../../src/api/shapes/bodies.js'
import { COMPAT_ROUTES, NATIVE_ROUTES, VERIFY_CHECK_KEYS, keyDrift, keysOf } from '../../../src/api/shapes/keys.js'
import type { PredexClient } from '../../../src/client/index.js'

/** True only when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
type Answer<M extends keyof PredexClient> = PredexClient[M] extends (...args: never[]) => Promise<infer R> ? R : never

/** Each SDK method that answers a route's body as it is, and that route. */
const SDK_ROUTES = {
  health: 'GET /health', ready: 'GET /ready', metrics: 'GET /metrics', serverTime: 'GET /time', openApi: 'GET /openapi.json',
  version: 'GET /version',
  heartbeat: 'POST /heartbeats',
  markets: 'GET /markets', market: 'GET /markets/:id', upcomingMarkets: 'GET /markets/upcoming',
  resolvingMarkets: 'GET /markets/resolving',
  book: 'GET /book', unifiedBook: 'GET /book/unified', books: 'POST /books', midpoint: 'GET /midpoint',
  midpoints: 'POST /midpoints', price: 'GET /price', prices: 'POST /prices', spread: 'GET /spread',
  lastTradePrice: 'GET /last-trade-price', tickSize: 'GET /tick-size', feeRate: 'GET /fee-rate', negRisk: 'GET /neg-risk',
  candles: 'GET /ticks/:symbol',
  createApiKey: 'POST /auth/api-key', deriveApiKey: 'GET /auth/derive-api-key', apiKeys: 'GET /auth/api-keys',
  deleteApiKey: 'DELETE /auth/api-key',
  placeLimitOrder: 'POST /order', placeMarketOrder: 'POST /order', placeOrder: 'POST /order', placeOrders: 'POST /orders',
  verifyOrder: 'POST /order/verify', amendOrder: 'POST /order/amend', replaceOrder: 'POST /order/replace',
  massQuote: 'POST /quotes', orderGroups: 'GET /order-groups', createOrderGroup: 'POST /order-groups',
  updateOrderGroup: 'PATCH /order-groups/:id', triggerOrderGroup: 'POST /order-groups/:id/trigger',
  resetOrderGroup: 'POST /order-groups/:id/reset', deleteOrderGroup: 'DELETE /order-groups/:id',
  cancelOrder: 'DELETE /order', cancelOrders: 'DELETE /orders',
  cancelAll: 'DELETE /cancel-all', cancelMarketOrders: 'DELETE /cancel-market-orders', order: 'GET /data/order/:id',
  openOrders: 'GET /data/orders', trades: 'GET /data/trades', orders: 'GET /orders',
  balanceAllowance: 'GET /balance-allowance',
  faucet: 'POST /faucet', walletStatus: 'GET /wallet-status', approve: 'POST /relay', split: 'POST /relay',
  merge: 'POST /relay', redeem: 'POST /relay', relay: 'POST /relay',
  user: 'GET /users/:address', portfolioHistory: 'GET /users/:address/portfolio-history',
  activity: 'GET /users/:address/activity', userOrders: 'GET /users/:address/orders',
  userTrades: 'GET /users/:address/trades', userBalances: 'GET /users/:address/balances',
  redemptions: 'GET /users/:address/redemptions', userEvents: 'GET /users/:address/events',
  createMarket: 'POST /admin/markets', updateMarket: 'PATCH /admin/markets/:id',
  resolveMarket: 'POST /admin/markets/:id/resolve', adminStats: 'GET /admin/stats',
  adminStateHash: 'GET /admin/state-hash',
} as const satisfies { readonly [M in keyof PredexClient]?: NativeRoute }

/**
 * Native routes with no SDK method on purpose, and why. Each must still be a route of the table
 * (a stale entry fails), and none may also have a method.
 */
const SDK_EXCLUDED: Readonly<Record<string, string>> = {
  'GET /docs': 'an HTML page for a browser; the document it shows is openApi() (GET /openapi.json)',
  'GET /': 'an index of the documents\' paths for a person or a browser (redirected to /docs); the SDK knows them',
  'GET /asyncapi.json': 'describes the WebSocket channels, which the SDK does not speak (it has no WebSocket client)',
  'GET /assets/:file': 'the web page\'s scripts and styles, which a browser loads as index.html names them; no data',
}

/**
 * The methods that do not answer a body as it is, and what they answer instead: `relayNonce` unwraps
 * GET /relay/nonce, `allOpenOrders` follows GET /data/orders to the end, `signLimitOrder` sends nothing.
 */
const SDK_DERIVED = {
  relayNonce: 'GET /relay/nonce', allOpenOrders: 'GET /data/orders', signLimitOrder: null,
} as const satisfies { readonly [M in keyof PredexClient]?: NativeRoute | null }

// The methods whose answer is not exactly their route's body; this line does not compile unless there are none.
type Mismatched = { [M in keyof typeof SDK_ROUTES]: Equal<Answer<M>, NativeBodies[(typeof SDK_ROUTES)[M]]> extends true ? never : M }
const mismatched: [Mismatched[keyof typeof SDK_ROUTES]] extends [never] ? 'none' : Mismatched[keyof typeof SDK_ROUTES] = 'none'
// And every public method is listed in one of the two tables.
type Unlisted = Exclude<keyof PredexClient, keyof typeof SDK_ROUTES | keyof typeof SDK_DERIVED>
const unlisted: [Unlisted] extends [never] ? 'none' : Unlisted = 'none'
const relayNonceIsTheNonce: Equal<Answer<'relayNonce'>, NativeBodies['GET /relay/nonce']['nonce']> = true
const allOpenOrdersAreItsItems: Equal<Answer<'allOpenOrders'>, NativeBodies['GET /data/orders']['data'][number][]> = true

function tableRoutes(surface: 'native' | 'compat'): string[] {
  const other = surface === 'native' ? 'compat' : 'native'
  return allRoutes.filter((route) => (route.surface ?? 'both') !== other).map((route) => `${route.method} ${route.path}`).sort()
}

t.test('every route of the table has a declared body on its surface, and every declared body a route', async (t) => {
  t.same([...NATIVE_ROUTES].sort(), tableRoutes('native'), 'native: src/api/shapes/bodies.ts NativeBodies')
  t.same([...COMPAT_ROUTES].sort(), tableRoutes('compat'), 'compat: src/api/shapes/bodies.ts CompatBodies')
})

t.test('the SDK has a method for every native route, returning exactly its body', async (t) => {
  t.equal(mismatched, 'none')
  t.equal(unlisted, 'none')
  t.ok(relayNonceIsTheNonce && allOpenOrdersAreItsItems)
  const covered = new Set<string>([...Object.values(SDK_ROUTES), ...Object.values(SDK_DERIVED).filter((r) => r !== null)])
  const excluded = Object.keys(SDK_EXCLUDED)
  t.same(NATIVE_ROUTES.filter((route) => !covered.has(route) && !excluded.includes(route)), [],
    'native routes without an SDK method (add one, or an entry with its reason to SDK_EXCLUDED)')
  t.same(excluded.filter((route) => !(NATIVE_ROUTES as readonly string[]).includes(route)), [], 'stale exclusions')
  t.same(excluded.filter((route) => covered.has(route)), [], 'an excluded route that has a method after all')
})

t.test('keyDrift finds undeclared and missing keys, and allows only the optional ones to be absent', async (t) => {
  const point = keysOf<{ x: number; y?: number }>()(['x', 'y'], ['y'])
  t.same(keyDrift({ x: 1, y: 2 }, point), [])
  t.same(keyDrift({ x: 1 }, point), [], 'an optional key may be absent')
  t.same(keyDrift({ y: 2 }, point), ['missing key x'])
  t.same(keyDrift({ x: 1, z: 3 }, point), ['undeclared key z'])
  t.same(keyDrift([1], point), ['not an object'])
  t.same(keyDrift(null, point), ['not an object'])
  t.same(keyDrift({ check: 'shape', ok: true, message: 'ok' }, VERIFY_CHECK_KEYS), [], 'a passed check has no code')
})
