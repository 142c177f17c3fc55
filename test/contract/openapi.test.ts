/**
 * GET /openapi.json against the route table and the live server (api.md: "an OpenAPI 3.1
 * document of the native API, version 1.0.0, generated from or checked against the route table
 * (a test fails when they drift)"; seed: version 1.0.0, the `hmac_signature` scheme in the
 * `EXCHANGE-SIGNATURE` header, 401 when signature authentication fails). The document covers
 * /compat too (issue: "/docs shows the native endpoints only"), and its version is package.json's.
 *
 * Both ways: the (method, path) pairs of the document are exactly the routes of the table on each
 * surface (native at /, Polymarket's under /compat), and every documented operation answers on the
 * running server with something other than "no such endpoint" or "method not allowed". GET / is
 * the index of the documents (a browser is sent to /docs); GET /price says which side is which.
 */
import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { allRoutes } from '../../src/api/rest/routes.js'
import { documentPath, surfacesOf } from '../../src/api/rest/openapi.js'
import { USDC, get, placeLimit, send, startServer } from '../support/rest-harness.js'
import { ResponseValidator } from '../support/openapi-validator.js'
import { ROOT } from '../support/compiled.js'

const PACKAGE_VERSION = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version

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

/** The routes of the table on a surface, as OpenAPI operations (`GET /compat/markets/{id}`). */
function tableOperations(surface: 'native' | 'compat'): string[] {
  return allRoutes.filter((route) => surfacesOf(route).includes(surface))
    .map((route) => `${route.method} ${documentPath(route, surface)}`).sort()
}

function native(): string[] {
  return tableOperations('native')
}

t.test('GET /openapi.json: an OpenAPI 3.1 document, version 1.0.0, which is package.json\'s', async (t) => {
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^application\/json/)
  t.match(doc.openapi, /^3\.1\.\d+$/)
  t.equal(doc.info.version, PACKAGE_VERSION, 'the server\'s version: one source, package.json')
  t.equal(doc.info.version, '1.0.0', 'the interface description carries version 1.0.0')
  t.equal((await get(server, '/health')).body.version, PACKAGE_VERSION, '/health says the same')
  t.equal(typeof doc.info.title, 'string')
  t.ok(doc.paths !== null && typeof doc.paths === 'object')
  for (const path of Object.keys(doc.paths)) {
    t.match(path, /^\/[^:]*$/, `${path}: OpenAPI templating, no :params`)
    // Polymarket's own paths keep theirs (/compat/v1/heartbeats).
    if (!path.startsWith('/compat')) t.notMatch(path, /^\/v\d+\//, `${path}: no version segment`)
  }
})

t.test('the document and the route table list the same operations, native and /compat', async (t) => {
  const inDoc = documented()
  const inTable = [...native(), ...tableOperations('compat')].sort()
  t.same(inDoc, inTable, 'the (method, path) pairs match')
  t.same(inDoc.filter((op) => !inTable.includes(op)), [], 'nothing documented that the table lacks')
  t.same(inTable.filter((op) => !inDoc.includes(op)), [], 'nothing in the table left undocumented')
  t.equal(new Set(inTable).size, inTable.length, 'no operation twice in the table')
  const compatOnly = allRoutes.filter((route) => route.surface === 'compat').map((route) => `${route.method} ${route.path}`)
    .filter((op) => !native().includes(op)) // GET / is Polymarket's liveness under /compat, the index natively
  for (const op of compatOnly) t.notOk(inDoc.includes(op), `${op}: compat only, not documented at /`)
  const compat = inDoc.filter((op) => op.split(' ')[1]!.startsWith('/compat'))
  t.same(compat, tableOperations('compat'), `/compat: the ${compat.length} operations the server answers there`)
  for (const op of ['GET /compat/', 'GET /compat/version', 'GET /compat/clob-markets/{condition_id}',
    'POST /compat/order', 'POST /compat/v1/heartbeats', 'GET /compat/prices-history', 'POST /compat/orders-scoring']) {
    t.ok(inDoc.includes(op), `${op} documented`)
  }
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
  t.match(doc.tags.find((tag: any) => tag.name === 'compat'), { 'x-displayName': 'Polymarket compatible' })
  for (const [route, surface] of allRoutes.flatMap((r) => surfacesOf(r).map((s) => [r, s] as const))) {
    const path = documentPath(route, surface)
    const operation = doc.paths[path]?.[route.method.toLowerCase()]
    const label = `${route.method} ${path}`
    if (!t.ok(operation, `${label} documented`)) continue
    t.ok(AREAS.includes(operation.tags?.[0]), `${label}: tag ${operation.tags?.[0]}`)
    if (surface === 'compat') t.same(operation.tags, ['compat'], `${label}: grouped as Polymarket compatible`)
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
    if (route.auth === 'l2') {
      t.same(security, surface === 'native' ? ['hmac_signature'] : ['poly_hmac_signature', 'hmac_signature'],
        `${label}: hmac_signature${surface === 'compat' ? ', Polymarket\'s headers first' : ''}`)
    }
  }
})

t.test('every documented operation answers on the live server (not "no such endpoint")', async (t) => {
  const values: Record<string, string> = { id: market.marketId, address: '0x' + '11'.repeat(20), symbol: market.slug,
    condition_id: market.conditionId, token_id: market.yesTokenId, builder_code: '0x' + 'ab'.repeat(32) }
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const method of Object.keys(item).filter((key) => METHODS.includes(key))) {
      const concrete = path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? 'x'))
      const upper = method.toUpperCase()
      const body = upper === 'GET' || upper === 'DELETE' ? '' : '{}'
      const answer = await send(server, upper, concrete, body, {})
      const label = `${upper} ${concrete}`
      // GET /assets/x is the catalogue's NOT_FOUND too (no such file of the web page): the server's own words tell.
      t.notMatch(String(answer.body?.error ?? ''), /^no such endpoint/, `${label}: the endpoint exists (${answer.status})`)
      t.not(answer.body?.code, 'METHOD_NOT_ALLOWED', `${label}: the method is served`)
      t.ok(answer.status < 500, `${label}: no server error (${answer.status})`)
      const route = allRoutes.find((r) => r.method === upper && surfacesOf(r).some((s) => documentPath(r, s) === path))
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
  for (const [route, surface] of allRoutes.flatMap((r) => surfacesOf(r).map((s) => [r, s] as const))) {
    const path = documentPath(route, surface)
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
  t.same(doc.paths['/compat/markets/{id}'].get.responses['200'].content['application/json'].schema,
    { $ref: '#/components/schemas/CompatMarket' }, 'GET /compat/markets/{id} answers Polymarket\'s market type')
  t.same(doc.paths['/compat/clob-markets/{condition_id}'].get.responses['200'].content['application/json'].schema,
    { $ref: '#/components/schemas/ClobMarketInfo' })
})

t.test('GET /docs: the document as one self-contained, browsable HTML page', async (t) => {
  const page = await send(server, 'GET', '/docs', '', {})
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  t.match(page.body, /^<!doctype html>/)
  // Addresses in the text (a curl example) are words; nothing is loaded from them or linked to them.
  t.notMatch(page.body, /<script|<link|src=|href="?https?:|url\(/i, 'no script, stylesheet or anything fetched from elsewhere')
  for (const op of documented()) {
    const [method, path] = op.split(' ')
    t.ok(page.body.includes(`<details id="${method!.toLowerCase()}-${path}">`), `${op}: a collapsible section`)
  }
  t.match(page.body, /<details id="schema-NativeMarket">/, 'the schemas follow')
  t.match(page.body, '<h2 id="tag-compat">Polymarket compatible</h2>', '/compat grouped under its own heading')
  for (const id of ['authentication', 'auth-l1', 'auth-l2', 'auth-admin', 'websocket', 'ws-market', 'ws-user']) {
    t.match(page.body, `id="${id}"`, `#${id}`)
  }
  const ws = (await send(server, 'GET', '/asyncapi.json', '', {})).body
  for (const [id, channel] of Object.entries(ws.channels) as [string, any][]) {
    for (const name of Object.keys(channel.messages)) {
      t.ok(page.body.includes(`<details id="ws-${id}-${name}">`), `WebSocket ${id}: ${name}, from /asyncapi.json`)
    }
  }
})

t.test('GET /: the documents\' index; a browser gets the web page, or is sent to /docs without one', async (t) => {
  const index = { name: 'Predex', version: PACKAGE_VERSION, docs: '/docs', openapi: '/openapi.json',
    asyncapi: '/asyncapi.json', compat: '/compat' }
  for (const accept of [{}, { accept: 'application/json' }, { accept: '*/*' }] as Record<string, string>[]) {
    const answer = await send(server, 'GET', '/', '', accept)
    t.equal(answer.status, 200, `Accept ${JSON.stringify(accept)}`)
    t.same(answer.body, index)
    t.equal(answer.headers.get('vary'), 'accept', 'a cache keeps the two answers apart')
  }
  t.equal((await get(server, '/compat/')).body, 'OK', 'Polymarket\'s liveness under /compat is unchanged')
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
  const response = await fetch(`${server.base}/`, { headers: { accept: browser }, redirect: 'manual' })
  const validator = new ResponseValidator(doc)
  t.ok(doc.paths['/'].get.responses['302'].headers.Location, 'GET / documents its redirect')
  t.ok(doc.paths['/'].get.responses['200'].content['text/html'], 'and the page a browser gets instead')
  // Which a browser gets depends on dist/web, which npm test builds: the page itself is
  // test/contract/web-page.test.ts's, its absence test/unit/api/web-page.test.ts's.
  if (existsSync(`${ROOT}dist/web/index.html`)) {
    t.equal(response.status, 200, 'a browser: the web page (dist/web is built)')
    const page = await response.text()
    t.match(page, /^<!doctype html>/i)
    t.equal(validator.mismatch({ method: 'GET', path: '/', status: 200,
      contentType: response.headers.get('content-type'), body: page }), null, 'the page fits the document')
    return
  }
  t.equal(response.status, 302, 'a browser, the web page not built')
  t.equal(response.headers.get('location'), '/docs')
  const body = await response.json()
  t.same(body, index, 'the same body')
  t.equal(validator.mismatch({ method: 'GET', path: '/', status: 302,
    contentType: response.headers.get('content-type'), body }), null, 'the 302 fits the document')
  t.equal((await fetch(`${server.base}/`, { headers: { accept: browser } })).url, `${server.base}/docs`,
    'followed: the page')
})

t.test('GET /price: side=buy answers the best bid, side=sell the best ask, and the document says so', async (t) => {
  const description = doc.paths['/price'].get.description
  t.match(description, /side=buy answers the best bid/)
  t.match(description, /side=sell the best ask/)
  t.match(description, /Polymarket/)
  t.equal(doc.paths['/compat/price'].get.description, description, 'the same under /compat')
  t.equal(doc.paths['/prices'].post.description, description, 'POST /prices too')
  const quoted = await server.createMarket()
  const [bidder, asker] = [await server.trader(100 * USDC), await server.trader(100 * USDC)]
  await server.command({ kind: 'split', address: asker.address, marketId: quoted.marketId, amountMicros: 10 * USDC })
  t.equal((await placeLimit(server, bidder, quoted, { side: 'BUY', price: '0.40', size: '5' })).status, 200)
  t.equal((await placeLimit(server, asker, quoted, { side: 'SELL', price: '0.70', size: '5' })).status, 200)
  for (const prefix of ['', '/compat']) {
    const price = async (side: string) => (await get(server, `${prefix}/price?token_id=${quoted.yesTokenId}&side=${side}`)).body
    t.same(await price('buy'), { price: '0.4' }, `${prefix}/price side=buy: the best bid`)
    t.same(await price('SELL'), { price: '0.7' }, `${prefix}/price side=sell: the best ask`)
  }
})
