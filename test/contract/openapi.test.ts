/**
 * GET /openapi.json against the route table and the live server (api.md: "an OpenAPI 3.1
 * document of the native API, version 1.0.0, generated from or checked against the route table
 * (a test fails when they drift)"; seed: version 1.0.0, the `hmac_signature` scheme in the
 * `EXCHANGE-SIGNATURE` header, 401 when signature authentication fails).
 *
 * Both ways: the (method, path) pairs of the document are exactly the native routes of the
 * table, and every documented operation answers on the running server with something other
 * than "no such endpoint" or "method not allowed".
 */
import t from 'tap'
import { allRoutes } from '../../src/api/rest/routes.js'
import { get, send, startServer } from '../rest-harness.js'

const METHODS = ['get', 'post', 'delete', 'patch', 'put']
// The seed's functional areas.
const AREAS = ['health', 'markets', 'market-data', 'trading', 'account', 'auth', 'orders', 'trades', 'users', 'faucet', 'admin', 'compat']

const server = await startServer()
t.teardown(() => server.stop())
const market = await server.createMarket()

const response = await send(server, 'GET', '/openapi.json', '', {})
const doc = response.body

/** The (METHOD path) pairs of the document. */
function documented(): string[] {
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, item]) => Object.keys(item).filter((key) => METHODS.includes(key)).map((method) => `${method.toUpperCase()} ${path}`))
    .sort()
}

/** The native routes of the table, as OpenAPI paths. */
function native(): string[] {
  return allRoutes.filter((route) => route.surface !== 'compat')
    .map((route) => `${route.method} ${route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`)
    .sort()
}

t.test('GET /openapi.json: an OpenAPI 3.1 document, version 1.0.0', async (t) => {
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^application\/json/)
  t.match(doc.openapi, /^3\.1\.\d+$/)
  t.equal(doc.info.version, '1.0.0', 'the interface description carries version 1.0.0')
  t.equal(typeof doc.info.title, 'string')
  t.ok(doc.paths !== null && typeof doc.paths === 'object')
  for (const path of Object.keys(doc.paths)) {
    t.match(path, /^\/[^:]*$/, `${path}: OpenAPI templating, no :params`)
    t.notMatch(path, /^\/v\d+\//, `${path}: no version segment`)
    t.notMatch(path, /^\/compat(\/|$)/, `${path}: the native API only`)
  }
})

t.test('the document and the route table list the same native operations', async (t) => {
  const inDoc = documented()
  const inTable = native()
  t.same(inDoc, inTable, 'the (method, path) pairs match')
  t.same(inDoc.filter((op) => !inTable.includes(op)), [], 'nothing documented that the table lacks')
  t.same(inTable.filter((op) => !inDoc.includes(op)), [], 'nothing in the table left undocumented')
  t.equal(new Set(inTable).size, inTable.length, 'no operation twice in the table')
  const compatOnly = allRoutes.filter((route) => route.surface === 'compat').map((route) => `${route.method} ${route.path}`)
  for (const op of compatOnly) t.notOk(inDoc.includes(op), `${op}: compat only, not documented`)
  // The seed's endpoints, all present.
  for (const op of ['GET /data/orders', 'GET /balance-allowance', 'GET /markets', 'GET /markets/{id}', 'GET /markets/upcoming',
    'GET /markets/resolving', 'GET /book', 'GET /book/unified', 'POST /books', 'GET /midpoint', 'POST /midpoints', 'GET /price',
    'POST /prices', 'GET /spread', 'GET /last-trade-price', 'GET /tick-size', 'GET /fee-rate', 'POST /order', 'POST /orders',
    'DELETE /order', 'DELETE /orders', 'DELETE /cancel-all', 'GET /data/order/{id}', 'GET /data/trades', 'GET /orders',
    'GET /health', 'GET /ready', 'GET /metrics', 'POST /order/verify', 'POST /auth/api-key', 'GET /auth/derive-api-key',
    'GET /auth/api-keys', 'DELETE /auth/api-key', 'GET /openapi.json']) {
    t.ok(inDoc.includes(op), `${op} documented`)
  }
})

t.test('every operation: a tag of the seed\'s areas, a summary, path parameters, security as its route', async (t) => {
  const schemes = doc.components.securitySchemes
  t.same(schemes.hmac_signature, { ...schemes.hmac_signature, type: 'apiKey', in: 'header', name: 'EXCHANGE-SIGNATURE' },
    'the seed\'s scheme: hmac_signature in the EXCHANGE-SIGNATURE header')
  t.same(doc.components.schemas.Error.required, ['error', 'code'])
  for (const route of allRoutes.filter((r) => r.surface !== 'compat')) {
    const path = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')
    const operation = doc.paths[path]?.[route.method.toLowerCase()]
    const label = `${route.method} ${path}`
    if (!t.ok(operation, `${label} documented`)) continue
    t.ok(AREAS.includes(operation.tags?.[0]), `${label}: tag ${operation.tags?.[0]}`)
    t.equal(typeof operation.summary, 'string')
    t.ok(operation.summary.length > 0)
    t.ok(operation.responses?.['200'] ?? operation.responses?.['201'], `${label}: a success response`)
    t.ok(operation.responses?.default, `${label}: the error response`)
    const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])
    t.same((operation.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name), pathParams, `${label}: path parameters`)
    for (const parameter of operation.parameters ?? []) if (parameter.in === 'path') t.equal(parameter.required, true)
    for (const parameter of operation.parameters ?? []) t.equal(typeof parameter.schema, 'object', `${label}: ${parameter.name} has a schema`)
    const security = (operation.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s))
    for (const name of security) t.ok(name in schemes, `${label}: scheme ${name} is defined`)
    if (route.auth === 'none') t.same(security, [], `${label}: public`)
    else {
      t.ok(security.length > 0, `${label}: authenticated (${route.auth})`)
      t.ok(operation.responses?.['401'], `${label}: documents the 401 of failed authentication`)
    }
    if (route.auth === 'l2') t.same(security, ['hmac_signature'], `${label}: hmac_signature`)
  }
})

t.test('every documented operation answers on the live server (not "no such endpoint")', async (t) => {
  const values: Record<string, string> = { id: market.marketId, address: '0x' + '11'.repeat(20), symbol: market.slug }
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const method of Object.keys(item).filter((key) => METHODS.includes(key))) {
      const concrete = path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? 'x'))
      const upper = method.toUpperCase()
      const body = upper === 'GET' || upper === 'DELETE' ? '' : '{}'
      const answer = await send(server, upper, concrete, body, {})
      const label = `${upper} ${concrete}`
      t.not(answer.body?.code, 'NOT_FOUND', `${label}: the endpoint exists (${answer.status})`)
      t.not(answer.body?.code, 'METHOD_NOT_ALLOWED', `${label}: the method is served`)
      t.ok(answer.status < 500, `${label}: no server error (${answer.status})`)
      const route = allRoutes.find((r) => r.surface !== 'compat' && r.method === upper &&
        r.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}') === path)
      if (route !== undefined && route.auth !== 'none') t.equal(answer.status, 401, `${label}: needs authentication`)
    }
  }
  // And the reverse holds on the live server: an undocumented path is not found.
  const unknown = await get(server, '/no-such-endpoint')
  t.equal(unknown.status, 404)
  t.equal(unknown.body.code, 'NOT_FOUND')
})

t.test('bodies are typed: each answer and request body is a schema generated from the shapes', async (t) => {
  const named = (schema: any): boolean => typeof schema?.$ref === 'string' || typeof schema?.type === 'string'
  for (const route of allRoutes.filter((r) => r.surface !== 'compat')) {
    const path = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')
    const operation = doc.paths[path][route.method.toLowerCase()]
    const label = `${route.method} ${path}`
    const success = operation.responses[String(route.openapi.status ?? 200)]
    const [media, content] = Object.entries(success.content as Record<string, any>)[0]!
    t.ok(named(content.schema), `${label}: ${media} answer schema`)
    if (route.openapi.body !== undefined) {
      t.ok(named(operation.requestBody.content['application/json'].schema), `${label}: request body schema`)
    }
  }
  t.same(doc.paths['/markets/{id}'].get.responses['200'].content['application/json'].schema,
    { $ref: '#/components/schemas/NativeMarket' }, 'GET /markets/{id} answers the NativeMarket type')
  t.equal(doc.components.schemas.NativeMarket.additionalProperties, false, 'a field the type lacks is drift')
  t.ok(doc.paths['/admin/markets'].post.responses['201'], 'POST /admin/markets documents its 201')
})

t.test('GET /docs: the document as one self-contained, browsable HTML page', async (t) => {
  const page = await send(server, 'GET', '/docs', '', {})
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  t.match(page.body, /^<!doctype html>/)
  t.notMatch(page.body, /<script|<link|src=|https?:\/\//i, 'no script, stylesheet or anything fetched from elsewhere')
  for (const op of documented()) {
    const [method, path] = op.split(' ')
    t.ok(page.body.includes(`<details id="${method!.toLowerCase()}-${path}">`), `${op}: a collapsible section`)
  }
  t.match(page.body, /<details id="schema-NativeMarket">/, 'the schemas follow')
})
