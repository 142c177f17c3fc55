/**
 * Abuse of the REST face's input over loopback against a real server (rest-abuse-world.ts):
 * malformed JSON and wrong types, numbers in queries, the market rules the API checks before the
 * engine, sizes of bodies, queries and headers, prototype keys anywhere in the JSON, routes and
 * methods, and framing (a request whose length is ambiguous). Every bad request gets its exact
 * HTTP status and stable catalogue code in a JSON body `{error, code, ...}` (never a 500, never
 * HTML, never a dropped connection), and leaves the engine exactly as it was: same state hash,
 * same sequence number (no command journaled), same balances. Authentication, replays and
 * ownership: rest-abuse.test.ts.
 */
import { connect } from 'node:net'
import t from 'tap'
import { orderBody } from '../../src/client/orders.js'
import { nowSec } from '../support/rest-harness.js'
import {
  server, port, market, alice, terms, type Answer, engineState, call, l2Call, rawHttp, expectError, refused,
  aliceOrder, resignedText, editedBody
} from './rest-abuse-world.js'

// ---------------------------------------------------------------------------------------------
// Malformed JSON and wrong types

refused('malformed JSON on POST /order', 400, 'BAD_JSON', () => l2Call(alice, 'POST', '/order', '{"order": {"salt": 1,'))

refused('malformed JSON on a public batch read', 400, 'BAD_JSON', () => call('POST', '/books', '[{"token_id": "1"'))

refused('bytes that are not UTF-8 JSON', 400, 'BAD_JSON', async () => {
  const response = await fetch(`${server.base}/books`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0x81]) })
  return { status: response.status, body: await response.json(), contentType: response.headers.get('content-type'), headers: {} }
})

refused('JSON nested deeper than the bound', 400, 'BAD_JSON',
  () => call('POST', '/books', '['.repeat(40) + ']'.repeat(40)))

refused('an order body that is not an object', 400, 'INVALID_PARAMETER', () => l2Call(alice, 'POST', '/order', '"an order"'))

refused('side as a number', 400, 'INVALID_ORDER_PAYLOAD',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.order.side = 1 })),
  (t, a) => { t.equal(a.body.field, 'side') })

refused('makerAmount as a float', 400, 'INVALID_ORDER_PAYLOAD',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.order.makerAmount = 4000000.5 })),
  (t, a) => { t.equal(a.body.field, 'makerAmount') })

refused('makerAmount as a decimal string (signed amounts are 6-decimal integers)', 400, 'INVALID_ORDER_PAYLOAD',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.order.makerAmount = '4.000001' })),
  (t, a) => { t.equal(a.body.field, 'makerAmount') })

refused('takerAmount beyond uint256', 400, 'INVALID_ORDER_PAYLOAD',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.order.takerAmount = '9'.repeat(80) })),
  (t, a) => { t.equal(a.body.field, 'takerAmount') })

refused('orderType XYZ', 400, 'INVALID_ORDER_PAYLOAD',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.orderType = 'XYZ' })),
  (t, a) => { t.equal(a.body.field, 'orderType') })

refused('postOnly "yes"', 400, 'INVALID_ORDER_PAYLOAD',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.postOnly = 'yes' })),
  (t, a) => { t.equal(a.body.field, 'postOnly') })

refused('signatureType as a string', 400, 'INVALID_ORDER_PAYLOAD',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.order.signatureType = '0' })),
  (t, a) => { t.equal(a.body.field, 'signatureType') })

refused('salt as a negative number', 400, 'INVALID_ORDER_PAYLOAD',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.order.salt = -5 })),
  (t, a) => { t.equal(a.body.field, 'salt') })

refused('a batch that is not an array', 400, 'INVALID_PARAMETER',
  () => l2Call(alice, 'POST', '/orders', orderBody(aliceOrder(), alice.credentials.apiKey, 'GTC')))

refused('a batch of 11 orders', 400, 'BATCH_TOO_LARGE', () => {
  const items = Array.from({ length: 11 }, () => JSON.parse(orderBody(aliceOrder(), alice.credentials.apiKey, 'GTC')))
  return l2Call(alice, 'POST', '/orders', JSON.stringify(items))
})

refused('a cancel with an order id that is not one', 400, 'INVALID_PARAMETER',
  () => l2Call(alice, 'DELETE', '/order', JSON.stringify({ orderID: 'abc' })))

// ---------------------------------------------------------------------------------------------
// Numbers in queries: integers where integers are asked, never a rounding. (No REST route takes a
// decimal amount yet: microsOfDecimal in src/api/wire.ts has no caller; the faucet and admin
// routes will be its first.)

refused('limit with decimals', 400, 'INVALID_PARAMETER', () => call('GET', '/markets?limit=1.5', ''),
  (t, a) => { t.equal(a.body.field, 'limit') })

refused('limit of zero', 400, 'INVALID_PARAMETER', () => call('GET', '/markets?limit=0', ''))

refused('a cursor that is not one of ours', 400, 'INVALID_PARAMETER', () => call('GET', '/markets?next_cursor=bm9wZQ==', ''))

refused('/price with an unknown side', 400, 'INVALID_PARAMETER', () => call('GET', `/price?token_id=${market.yesTokenId}&side=0.5`, ''))

refused('/prices with an unknown side', 400, 'INVALID_PARAMETER',
  () => call('POST', '/prices', JSON.stringify([{ token_id: market.yesTokenId, side: 'B' }])))

refused('/books with a token id that is a number', 400, 'INVALID_PARAMETER', () => call('POST', '/books', '[{"token_id": 0.55}]'))

// ---------------------------------------------------------------------------------------------
// Market rules the API checks before the engine sees the order (no command is journaled)

refused('an order price off the market\'s tick', 400, 'INVALID_ORDER_MIN_TICK_SIZE',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({ price: '0.405' }, { ...terms, tickSize: '0.001' }), alice.credentials.apiKey, 'GTC')),
  (t, a) => { t.equal(a.body.tickSizeMicros, 10_000) })

refused('an order below the minimum size', 400, 'INVALID_ORDER_MIN_SIZE',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({ size: '1' }), alice.credentials.apiKey, 'GTC')))

refused('an order with another fee rate than the market\'s', 400, 'INVALID_ORDER_FEE_RATE',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({}, { ...terms, feeRateBps: 10 }), alice.credentials.apiKey, 'GTC')))

refused('a well-signed order with a zero makerAmount', 400, 'INVALID_ORDER_PAYLOAD',
  () => l2Call(alice, 'POST', '/order', resignedText({ makerAmount: '0' })), (t, a) => { t.equal(a.body.field, 'makerAmountMicros') })

refused('a well-signed BUY at a price of 1', 400, 'INVALID_ORDER_PRICE',
  () => l2Call(alice, 'POST', '/order', resignedText({ makerAmount: '10000000', takerAmount: '10000000' })))

refused('a well-signed BUY of shares that are not whole lots', 400, 'INVALID_ORDER_AMOUNTS',
  () => l2Call(alice, 'POST', '/order', resignedText({ makerAmount: '4002000', takerAmount: '10005000' })),
  (t, a) => { t.equal(a.body.field, 'takerAmountMicros') })

refused('a well-signed order above the largest size', 400, 'INVALID_ORDER_SIZE_MAX',
  () => l2Call(alice, 'POST', '/order', resignedText({ makerAmount: '8000000000000', takerAmount: '20000000000000' })),
  (t, a) => { t.equal(a.body.field, 'takerAmountMicros') })

refused('a well-signed FOK BUY whose budget buys less than a lot', 400, 'INVALID_ORDER_MIN_SIZE',
  () => l2Call(alice, 'POST', '/order', resignedText({ makerAmount: '3', takerAmount: '10' }, 'FOK')))

refused('a GTD order that expired already', 400, 'INVALID_ORDER_EXPIRATION',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({ expiration: nowSec() - 10 }), alice.credentials.apiKey, 'GTD')))

refused('a GTD order expiring within the 60 s margin', 400, 'INVALID_ORDER_EXPIRATION',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({ expiration: nowSec() + 30 }), alice.credentials.apiKey, 'GTD')))

refused('a GTC order with an expiration', 400, 'INVALID_ORDER_EXPIRATION',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({ expiration: nowSec() + 3600 }), alice.credentials.apiKey, 'GTC')))

refused('a post-only FOK order', 400, 'INVALID_POST_ONLY_ORDER_TYPE',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder(), alice.credentials.apiKey, 'FOK', true)))

refused('an order for an unknown token id', 404, 'TOKEN_NOT_FOUND',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({ tokenId: '123456789' }), alice.credentials.apiKey, 'GTC')))

refused('a book of an unknown token id', 404, 'TOKEN_NOT_FOUND', () => call('GET', '/book?token_id=123456789', ''))

refused('a book of a token id with bad characters', 400, 'INVALID_PARAMETER', () => call('GET', '/book?token_id=%3Cscript%3E', ''))

refused('a book without a token id', 400, 'INVALID_PARAMETER', () => call('GET', '/book', ''))

t.test('a batch whose orders all fail the API\'s checks answers per order and journals nothing', async (t) => {
  const before = await engineState()
  const offTick = JSON.parse(orderBody(aliceOrder({ price: '0.405' }, { ...terms, tickSize: '0.001' }), alice.credentials.apiKey, 'GTC'))
  const otherChain = JSON.parse(orderBody(aliceOrder({}, { ...terms, chainId: 137 }), alice.credentials.apiKey, 'GTC'))
  const answer = await l2Call(alice, 'POST', '/orders', JSON.stringify([offTick, otherChain]))
  t.equal(answer.status, 200, JSON.stringify(answer.body))
  t.equal(answer.body.total_successful, 0)
  t.equal(answer.body.total_failed, 2)
  t.same(answer.body.results.map((r: { code: string }) => r.code), ['INVALID_ORDER_MIN_TICK_SIZE', 'INVALID_SIGNATURE'])
  t.same(await engineState(), before, 'nothing journaled')
})

// ---------------------------------------------------------------------------------------------
// Sizes: bodies, queries, headers

function rawPost(path: string, headers: string, bodyParts: readonly string[]): Promise<Answer> {
  return rawHttp([`POST ${path} HTTP/1.1\r\nHost: predex\r\nContent-Type: application/json\r\n${headers}\r\n`, ...bodyParts])
}

refused('a declared Content-Length above the cap of POST /order (16 KiB)', 413, 'BODY_TOO_LARGE',
  () => rawPost('/order', 'Content-Length: 16385\r\n', ['{"order":']), (t, a) => { t.equal(a.body.bytesMax, 16_384) })
// (uWS itself drops, without an answer, a Content-Length of 10 digits or more: it is not HTTP it parses.)
refused('a declared Content-Length of 999 999 999 bytes on POST /books', 413, 'BODY_TOO_LARGE',
  () => rawPost('/books', 'Content-Length: 999999999\r\n', ['[']))

refused('a chunked body on POST /order that grows past 16 KiB', 413, 'BODY_TOO_LARGE', () => {
  const chunk = (text: string): string => `${text.length.toString(16)}\r\n${text}\r\n`
  const parts = [chunk('{"order":{"salt":"')]
  for (let i = 0; i < 40; i++) parts.push(chunk('1'.repeat(1_000)))
  return rawPost('/order', 'Transfer-Encoding: chunked\r\n', parts)
})

refused('a body above the cap sent whole by fetch', 413, 'BODY_TOO_LARGE',
  () => call('POST', '/order', JSON.stringify({ pad: 'x'.repeat(20_000) })))

t.test('a body exactly at the cap is read (POST /books: 64 KiB)', async (t) => {
  const at = '[' + ' '.repeat(64 * 1024 - 2) + ']'
  const answer = await call('POST', '/books', at)
  t.equal(answer.status, 200, JSON.stringify(answer.body))
  t.same(answer.body, [])
  expectError(t, await call('POST', '/books', at + ' '), 413, 'BODY_TOO_LARGE')
})

refused('a query longer than 4096 characters', 414, 'QUERY_TOO_LONG', () => call('GET', `/markets?x=${'a'.repeat(4_095)}`, ''))

t.test('a query of exactly 4096 characters is read', async (t) => {
  const answer = await call('GET', `/markets?x=${'a'.repeat(4_094)}`, '')
  t.equal(answer.status, 200, JSON.stringify(answer.body))
})

refused('one header of 17 KB', 431, 'HEADERS_TOO_LARGE',
  () => rawHttp([`GET /markets HTTP/1.1\r\nHost: predex\r\nX-Big: ${'a'.repeat(17_000)}\r\nConnection: close\r\n\r\n`]))

refused('20 headers of 1 KB (more than 16 KiB together)', 431, 'HEADERS_TOO_LARGE', () => {
  const headers = Array.from({ length: 20 }, (_, i) => `X-Pad-${i}: ${'b'.repeat(1_000)}\r\n`).join('')
  return rawHttp([`GET /markets HTTP/1.1\r\nHost: predex\r\n${headers}Connection: close\r\n\r\n`])
})

// ---------------------------------------------------------------------------------------------
// Prototype keys anywhere in the JSON

refused('__proto__ at the top of an order', 400, 'FORBIDDEN_KEY',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), () => undefined).replace('{', '{"__proto__":{"polluted":true},')),
  (t, a) => { t.equal(a.body.key, '__proto__') })

refused('constructor at the top of an order', 400, 'FORBIDDEN_KEY',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.constructor = { prototype: { polluted: true } } })),
  (t, a) => { t.equal(a.body.key, 'constructor') })

refused('__proto__ inside the signed order', 400, 'FORBIDDEN_KEY',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), () => undefined).replace('"order":{', '"order":{"__proto__":{"side":"SELL"},')))

refused('constructor inside the signed order', 400, 'FORBIDDEN_KEY',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.order.constructor = 'x' })))

refused('__proto__ in an element of a batch', 400, 'FORBIDDEN_KEY', () => {
  const item = orderBody(aliceOrder(), alice.credentials.apiKey, 'GTC').replace('{', '{"__proto__":{"polluted":true},')
  return l2Call(alice, 'POST', '/orders', `[${item}]`)
})

refused('__proto__ deep in a public batch read', 400, 'FORBIDDEN_KEY',
  () => call('POST', '/books', '[{"token_id":"1","x":{"y":[{"__proto__":{"polluted":true}}]}}]'))

refused('prototype as a key', 400, 'FORBIDDEN_KEY', () => call('POST', '/midpoints', '[{"token_id":"1","prototype":{}}]'))

t.test('no prototype was polluted by any of it', async (t) => {
  t.equal(({} as Record<string, unknown>).polluted, undefined)
  t.equal((Object.prototype as unknown as Record<string, unknown>).side, undefined)
})

// ---------------------------------------------------------------------------------------------
// Routes and methods, paths

refused('an unknown route', 404, 'NOT_FOUND', () => call('GET', '/no/such/route', ''))

refused('an unknown route under /compat', 404, 'NOT_FOUND', () => call('GET', '/compat/no-such-route', ''))

refused('a known path with the wrong method', 405, 'METHOD_NOT_ALLOWED', () => call('GET', '/order', ''),
  (t, a) => { t.match(a.headers.allow ?? '', /POST/, 'Allow names the methods'); t.match(a.headers.allow ?? '', /DELETE/) })

refused('PUT on a market-data path', 405, 'METHOD_NOT_ALLOWED', () => call('PUT', '/book', '{}'),
  (t, a) => { t.equal(a.headers.allow, 'GET') })

refused('a compat-only path on the native surface', 404, 'NOT_FOUND', () => call('POST', '/spreads', '[]'))

refused('a native-only path under /compat', 404, 'NOT_FOUND', () => call('GET', '/compat/health', ''))

refused('a native-only path under /compat with another method', 404, 'NOT_FOUND', () => call('POST', '/compat/order/verify', '{}'))

refused('a path parameter with a broken percent-encoding', 400, 'INVALID_PARAMETER', () => call('GET', '/markets/%E0%A4%A', ''))

refused('an unknown market', 404, 'MARKET_NOT_FOUND', () => call('GET', '/markets/no-such-market', ''))

// ---------------------------------------------------------------------------------------------
// Framing: a request whose length is ambiguous is refused and its connection closed, so nothing
// after it on the connection can run as a request of its own (request smuggling behind a proxy
// that reads the framing differently).

/** Writes `text` on a fresh connection and returns everything the server sent until it closed (or `waitMs`). */
function rawExchange(text: string, waitMs = 1_500): Promise<{ received: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    let received = ''
    let closed = false
    const timer = setTimeout(() => {
      socket.destroy()
      resolve({ received, closed })
    }, waitMs)
    socket.on('connect', () => socket.write(text))
    socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1') })
    socket.on('error', () => undefined)
    socket.on('close', () => {
      closed = true
      clearTimeout(timer)
      resolve({ received, closed })
    })
  })
}

const SMUGGLED = 'GET /time HTTP/1.1\r\nHost: predex\r\n\r\n'

for (const [label, framing] of [
  ['two different Content-Length values', `Content-Length: 2\r\nContent-Length: ${2 + SMUGGLED.length}\r\n`],
  ['the same Content-Length twice', 'Content-Length: 2\r\nContent-Length: 2\r\n'],
] as const) {
  t.test(`framing: ${label} is 400 and the connection is closed`, async (t) => {
    const { received, closed } = await rawExchange(
      `POST /books HTTP/1.1\r\nHost: predex\r\nContent-Type: application/json\r\n${framing}\r\n[]`)
    t.same(received.match(/HTTP\/1\.1 \d{3}/g), ['HTTP/1.1 400'], 'one answer, a 400')
    t.match(received, /"code":"BAD_REQUEST"/)
    t.ok(closed, 'the server closed the connection')
  })
  t.test(`framing: ${label}, a request smuggled behind it never runs`, async (t) => {
    const { received, closed } = await rawExchange(
      `POST /books HTTP/1.1\r\nHost: predex\r\nContent-Type: application/json\r\n${framing}\r\n[]${SMUGGLED}`)
    t.same((received.match(/HTTP\/1\.1 \d{3}/g) ?? []).filter((line) => line !== 'HTTP/1.1 400'), [],
      'no answer but a 400: GET /time did not run')
    t.ok(closed, 'the connection is closed')
  })
}

// uWS itself drops a request with both Content-Length and Transfer-Encoding, unanswered.
t.test('framing: Content-Length beside Transfer-Encoding: the connection is closed, nothing after it runs', async (t) => {
  const { received, closed } = await rawExchange('POST /books HTTP/1.1\r\nHost: predex\r\nContent-Type: application/json\r\n' +
    `Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n[]${SMUGGLED}`)
  t.same((received.match(/HTTP\/1\.1 \d{3}/g) ?? []).filter((line) => line !== 'HTTP/1.1 400'), [])
  t.ok(closed)
})

t.test('the engine\'s invariants hold at the end', async (t) => {
  const answer = await server.predex.context.host.query({ kind: 'stateHash' })
  t.equal(answer.kind === 'stateHash' && answer.invariantsHold, true)
})
