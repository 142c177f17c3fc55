/**
 * REST handlers answer their route's declared body (src/api/rest/typed-route.ts), checked by the
 * compiler: the build fails on a `@ts-expect-error` below that no longer finds its error, so each
 * wrong route here must stay a compile error. At run time: every route of the table is a typed
 * route of a key the shapes declare, and a cached book's JSON is the JSON of its summary.
 */
import t from 'tap'
import { allRoutes } from '../../../src/api/rest/routes.js'
import type { TypedRoute } from '../../../src/api/rest/typed-route.js'
import { jsonOf } from '../../../src/api/json-text.js'
import type { OrderBookSummary } from '../../../src/api/shapes/book.js'
import { COMPAT_ROUTES, NATIVE_ROUTES } from '../../../src/api/shapes/keys.js'

const base = { auth: 'none', bodyMax: 0, openapi: { tag: 'x', summary: 'x', response: 'x' } } as const

/** Routes the compiler must refuse, one per way of getting it wrong. */
export const refused: TypedRoute[] = [
  // @ts-expect-error GET /time answers a number (ServerTime), not an object
  { ...base, method: 'GET', path: '/time', handler: () => ({ body: { time: 1 } }) },
  // @ts-expect-error GET /midpoint answers {mid, mid_price}: a field missing
  { ...base, method: 'GET', path: '/midpoint', handler: () => ({ body: { mid: '0.5' } }) },
  // @ts-expect-error no route is GET /nowhere: there is no shape to answer
  { ...base, method: 'GET', path: '/nowhere', handler: () => ({ body: null }) },
  // @ts-expect-error a book's JSON text must be made from a book (jsonOf), not any string
  { ...base, method: 'GET', path: '/book', handler: () => ({ body: null, json: '{}' }) },
  // @ts-expect-error the JSON of another shape is not a book's
  { ...base, method: 'GET', path: '/book', handler: () => ({ body: null, json: jsonOf({ mid: '0.5' }) }) },
]

/** And ones it takes: the body itself, or its JSON made from a value of the shape. */
const book: OrderBookSummary = { market: '0x', asset_id: '1', timestamp: '0', hash: '', bids: [], asks: [],
  min_order_size: '1', tick_size: '0.01', neg_risk: false, last_trade_price: '' }
export const accepted: TypedRoute[] = [
  { ...base, method: 'GET', path: '/time', handler: () => ({ body: 1 }) },
  { ...base, method: 'GET', path: '/book', handler: () => ({ body: null, json: jsonOf(book) }) },
]

t.test('every route of the table is declared by the shapes, with the body the compiler held it to', (t) => {
  const declared = new Set<string>([...NATIVE_ROUTES, ...COMPAT_ROUTES])
  const undeclared = allRoutes.map((route) => `${route.method} ${route.path}`).filter((key) => !declared.has(key))
  t.same(undeclared, [], 'no route outside the shapes')
  t.equal(accepted.length, 2)
  t.equal(refused.length, 5, 'the refused routes are kept, so their errors stay checked')
  t.end()
})
