/**
 * The OpenAPI document's schemas against their source and against drift, without a server:
 * - src/api/rest/gen/schemas.ts is exactly what `npm run gen:schemas` generates from the shapes now
 *   (a shape changed without regenerating fails here);
 * - the document built from the route table has a schema for every route's answer and for every body
 *   a route reads, on each surface (native and /compat), each valid JSON Schema 2020-12 (ajv in
 *   strict mode compiles them all);
 * - the validator the contract suite runs every answer through (test/support/openapi-validator.ts)
 *   refuses drifted bodies: a missing field, a wrong type, a field no type declares, a wrong status
 *   or media type. The real answers are checked in test/contract (test/support/rest-harness.ts).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { allRoutes } from '../../../src/api/rest/routes.js'
import { documentPath, openApiDocument, surfacesOf } from '../../../src/api/rest/openapi.js'
import { asyncApiDocument } from '../../../src/api/rest/asyncapi.js'
import { COMPAT_REQUEST_SCHEMAS, COMPAT_RESPONSE_SCHEMAS, REQUEST_SCHEMAS, RESPONSE_SCHEMAS }
  from '../../../src/api/rest/gen/schemas.js'
import { docsPage } from '../../../src/api/rest/docs-page.js'
import { VERSION } from '../../../src/version.js'
import { SCHEMAS_FILE, schemasModuleText } from '../../../scripts/gen-schemas.js'
import { ResponseValidator, type Answer } from '../../support/openapi-validator.js'

const document = openApiDocument(allRoutes, VERSION) as any
const validator = new ResponseValidator(document)
const native = allRoutes.filter((route) => route.surface !== 'compat')
const compat = allRoutes.filter((route) => route.surface !== 'native')

t.test('src/api/rest/gen/schemas.ts is what npm run gen:schemas generates from the shapes now', { timeout: 120_000 },
  async (t) => {
    t.equal(readFileSync(SCHEMAS_FILE, 'utf8'), schemasModuleText(), 'stale: run npm run gen:schemas')
  })

t.test('every route of each surface: its answer and (when it reads one) its body have a generated schema', async (t) => {
  const surfaces = [['native', native, RESPONSE_SCHEMAS, REQUEST_SCHEMAS], ['compat', compat, COMPAT_RESPONSE_SCHEMAS,
    COMPAT_REQUEST_SCHEMAS]] as const
  for (const [surface, routes, responses, requests] of surfaces) {
    const keys = routes.map((route) => `${route.method} ${route.path}`)
    t.same(Object.keys(responses).sort(), [...keys].sort(), `${surface}: one answer schema per route`)
    const reading = routes.filter((route) => route.openapi.body !== undefined).map((route) => `${route.method} ${route.path}`)
    t.same(Object.keys(requests).sort(), reading.sort(), `${surface}: a body schema exactly for the routes that describe a body`)
    for (const route of routes) {
      const operation = document.paths[documentPath(route, surface)][route.method.toLowerCase()]
      const success = operation.responses[String(route.openapi.status ?? 200)]
      const media = route.openapi.mediaType ?? 'application/json'
      t.ok(success.content[media].schema, `${surface} ${route.method} ${route.path}: ${media} schema`)
    }
  }
  t.same(Object.keys(document.paths).filter((path) => path.startsWith('/compat')).length > 0, true)
  t.equal(allRoutes.flatMap((route) => surfacesOf(route)).length,
    Object.values(document.paths).flatMap((item: any) => Object.keys(item)).length, 'one operation per route and surface')
})

t.test('the document is OpenAPI 3.1 with JSON Schema 2020-12 schemas that resolve and compile strictly', async (t) => {
  t.equal(document.openapi, '3.1.0')
  const text = JSON.stringify(document)
  t.notMatch(text, /#\/definitions\//, 'no draft-07 references left')
  t.notMatch(text, /"items":\[/, 'no draft-07 tuples left')
  for (const name of Object.keys(document.components.schemas)) t.match(name, /^[A-Za-z0-9._-]+$/, `${name}: a valid name`)
  for (const ref of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
    t.ok(document.components.schemas[ref[1]!], `${ref[1]} exists`)
  }
  // Compiling a schema of each operation and status compiles everything it names (strict: no unknown keyword).
  let compiled = 0
  for (const [path, item] of Object.entries(document.paths as Record<string, any>)) {
    for (const [method, operation] of Object.entries(item as Record<string, any>)) {
      for (const status of Object.keys(operation.responses)) {
        const media = Object.keys(operation.responses[status].content ?? { 'application/json': {} })[0]!
        const body = media === 'application/json' ? { error: 'x', code: 'X' } : 'text'
        validator.mismatch({ method: method.toUpperCase(), path, status: status === 'default' ? 400 : Number(status),
          contentType: media, body })
        compiled += 1
      }
      if (operation.requestBody !== undefined) {
        validator.requestMismatch(method.toUpperCase(), path, 200, '{}', null)
        compiled += 1
      }
    }
  }
  t.ok(compiled > 100, `${compiled} schemas compiled`)
})

const MARKET = {
  id: '0b0f8f3e-1b9a-4c55-9f55-4a3ac2f0e1a1', condition_id: '0x' + 'ab'.repeat(32), question: 'Will it?', slug: 'will-it',
  description: '', status: 'Active', yes_token_id: '1', no_token_id: '2',
  tokens: [{ token_id: '1', outcome: 'Yes', price: null }, { token_id: '2', outcome: 'No', price: '0.4' }],
  tick_size: '0.01', min_order_size: '5', fee_rate_bps: 0, neg_risk: false, end_date: null,
  created_at: '2026-01-01T00:00:00.000Z', resolution: null, best_bid: null, best_ask: '0.6', last_trade_price: null,
  volume: '0',
}

function answer(path: string, body: unknown, status = 200, method = 'GET'): Answer {
  return { method, path, status, contentType: 'application/json', body }
}

t.test('a drifted answer fails validation, naming the route, the status and what is wrong', async (t) => {
  t.equal(validator.mismatch(answer('/markets/will-it', MARKET)), null, 'the well-formed market passes')
  const { volume: _volume, ...missing } = MARKET
  t.match(validator.mismatch(answer('/markets/will-it', missing)),
    /^GET \/markets\/\{id\} 200 .*must have required property 'volume'/, 'a missing field')
  t.match(validator.mismatch(answer('/markets/will-it', { ...MARKET, fee_rate_bps: '0' })),
    /fee_rate_bps must be number/, 'a wrong type')
  t.match(validator.mismatch(answer('/markets/will-it', { ...MARKET, rogue: 1 })),
    /must NOT have additional properties/, 'a field the type does not declare')
  t.match(validator.mismatch(answer('/markets/will-it', { ...MARKET, tokens: [MARKET.tokens[0]] })),
    /tokens must NOT have fewer than 2 items/, 'a tuple one short')
  t.match(validator.mismatch(answer('/markets/will-it', { ...MARKET, status: 'Open' })),
    /status must be equal to one of the allowed values/, 'a value outside its union')
  t.match(validator.mismatch(answer('/markets', { limit: 1, count: 1, next_cursor: 'LTE=', data: [{ ...MARKET, id: 7 }] })),
    /GET \/markets 200 .*data\/0\/id must be string/, 'an item of a page')
  t.equal(validator.mismatch(answer('/markets/upcoming', [MARKET])), null, 'a literal path wins over /markets/{id}')
})

t.test('a request body the server accepted must fit its request type', async (t) => {
  const address = '0x' + '11'.repeat(20)
  t.equal(validator.requestMismatch('POST', '/faucet', 200, JSON.stringify({ address }), null), null)
  t.equal(validator.requestMismatch('POST', '/faucet', 200, JSON.stringify({ address, amount: '5' }), null), null)
  t.match(validator.requestMismatch('POST', '/faucet', 200, JSON.stringify({ address, amout: '5' }), null),
    /^POST \/faucet accepted \(200\) a body outside its request type: body must NOT have additional properties/,
    'a misspelt field the server ignored')
  t.equal(validator.requestMismatch('POST', '/faucet', 400, JSON.stringify({ address: 7 }), null), null,
    'a refused body is the test\'s business')
  t.equal(validator.requestMismatch('DELETE', '/order', 200, JSON.stringify({ orderId: '0x' + '1'.repeat(64) }), null),
    null, 'either spelling of the order id')
  t.equal(validator.requestMismatch('POST', '/orders', 200, '[{}]', { total_failed: 1 }), null,
    'a batch that refused items says nothing of the body')
  t.match(validator.requestMismatch('POST', '/orders', 200, '[{}]', { total_failed: 0 }), /must have required property/)
})

t.test('errors: every status answers the error body; an unknown path may only fail', async (t) => {
  t.equal(validator.mismatch(answer('/markets/x', { error: 'no such market', code: 'MARKET_NOT_FOUND', id: 'x' }, 404)),
    null, 'context fields are allowed')
  t.match(validator.mismatch(answer('/markets/x', { message: 'no such market' }, 404)),
    /schema of default.*must have required property 'error'/)
  t.match(validator.mismatch(answer('/no-such-thing', { ok: true })), /not in the document/)
  t.match(validator.mismatch(answer('/compat/markets', { anything: true })),
    /^GET \/compat\/markets 200 .*must have required property 'limit'/, '/compat answers are the document\'s too')
  t.equal(validator.mismatch(answer('/compat/', 'OK')), null, 'Polymarket\'s liveness')
  t.match(validator.mismatch(answer('/compat/ok', 'ok')), /must be equal to constant/)
  t.match(validator.mismatch({ ...answer('/markets/x', MARKET), contentType: 'text/html' }), /content-type text\/html/)
  t.match(validator.mismatch(answer('/admin/markets', MARKET, 200, 'POST')), /schema of default/,
    'POST /admin/markets answers 201: a 200 is not its success')
  t.equal(validator.mismatch(answer('/admin/markets', MARKET, 201, 'POST')), null)
})

t.test('GET /docs: one self-contained page of the documents', async (t) => {
  const html = docsPage(document, asyncApiDocument(VERSION), 80002)
  t.match(html, /^<!doctype html>/)
  // Addresses in the text (a curl example) are words; nothing is loaded from them or linked to them.
  t.notMatch(html, /<script|<link|src=|href="?https?:|url\(/i, 'nothing fetched from elsewhere')
  for (const route of native) {
    t.ok(html.includes(`<code>${route.path.replace(/:([A-Za-z_]+)/g, '{$1}')}</code>`), `${route.method} ${route.path}`)
  }
  for (const tag of new Set(native.map((route) => route.openapi.tag))) t.match(html, `<h2 id="tag-${tag}"`)
  t.match(html, /<details id="schema-NativeMarket">/)
  t.match(html, /<a href="#schema-Page_NativeMarket">/, 'answers link to their schemas')
  t.match(html, /<details id="schema-OrderPost">/, 'request bodies are there too')
  for (const route of compat) {
    const path = documentPath(route, 'compat')
    t.ok(html.includes(`<details id="${route.method.toLowerCase()}-${path}">`), `${route.method} ${path}`)
  }
  t.match(html, '<h2 id="tag-compat">Polymarket compatible</h2>', '/compat grouped under its display name')
  t.match(html, '<h2 id="authentication">Authentication</h2>')
  t.match(html, '<h2 id="websocket">WebSocket</h2>')
  t.match(html, /<details id="schema-WsPriceChange">/, 'the WebSocket messages\' schemas too')
})
