/**
 * Abuse of the REST face's authentication over loopback against a real server
 * (rest-abuse-world.ts): requests replayed within and after the L2 window, L2 and L1
 * authentication on a valid order (so that any hole would place it), order signatures and
 * ownership, another account's order. Every bad request gets its exact status and catalogue code
 * and leaves the engine exactly as it was. The input's abuse: rest-input-abuse.test.ts.
 *
 * The server runs with a short L2 window (3 s past, 1 s ahead) so that the replay of a request
 * after its window can be shown without a long wait: headers captured in the first subtests are
 * replayed in the last one.
 */
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { orderBody, signLimitOrder, type SignedOrder } from '../../src/client/orders.js'
import { l1Headers, l2Headers } from '../../src/crypto/request-headers.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { CHAIN_ID, nowSec } from '../support/rest-harness.js'
import {
  PAST_SEC, FUTURE_SEC, clock, server, market, alice, bob, terms, engineState, call, signedHeaders, l2Call, rawHttp,
  expectError, refused, aliceOrder, editedBody
} from './rest-abuse-world.js'

// ---------------------------------------------------------------------------------------------
// A resting order of Alice's, and requests captured now to be replayed after their window.

const resting = aliceOrder()
const restingText = orderBody(resting, alice.credentials.apiKey, 'GTC')
let placedAt = 0
let placeHeaders: Record<string, string> = {}
let listHeaders: Record<string, string> = {}

t.test('setup: Alice\'s order rests', async (t) => {
  // The first signature check starts the verification thread (seconds): before the clock starts.
  const dryRun = await l2Call(alice, 'POST', '/order/verify', restingText)
  t.equal(dryRun.body?.valid, true, JSON.stringify(dryRun.body))
  placedAt = nowSec()
  placeHeaders = signedHeaders(alice, 'POST', '/order', restingText, placedAt)
  listHeaders = signedHeaders(alice, 'GET', '/data/orders', '', placedAt)
  const placed = await call('POST', '/order', restingText, placeHeaders)
  t.equal(placed.status, 200, JSON.stringify(placed.body))
  t.equal(placed.body.status, 'live')
  t.equal(placed.body.order_id, resting.orderId)
})

t.test('L2 headers may be reused within the window (clob-client pages with one set): no replay protection there', async (t) => {
  const first = await call('GET', '/data/orders', '', listHeaders)
  const second = await call('GET', '/data/orders', '', listHeaders)
  t.equal(first.status, 200, JSON.stringify(first.body))
  t.equal(second.status, 200, JSON.stringify(second.body))
  t.same(second.body.data.map((o: { id: string }) => o.id), [resting.orderId])
})

t.test('a placement replayed byte for byte within the window is a duplicate: no second order, no second hold', async (t) => {
  const before = await server.account(alice.address)
  const replay = await call('POST', '/order', restingText, placeHeaders)
  expectError(t, replay, 409, 'INVALID_ORDER_DUPLICATED')
  t.equal(replay.body.orderId, resting.orderId, 'the answer names the original order')
  t.equal(replay.body.status, 'LIVE', 'and its current status')
  t.same(await server.account(alice.address), before, 'holds unchanged')
  const book = await call('GET', `/book?token_id=${market.yesTokenId}`, '')
  t.same(book.body.bids, [{ price: '0.4', size: '10' }], 'one order in the book')
})

// ---------------------------------------------------------------------------------------------
// L2 authentication, on a valid order (so that any hole would place it)

function validOrderText(): string {
  return orderBody(aliceOrder(), alice.credentials.apiKey, 'GTC')
}

refused('no L2 headers at all', 401, 'AUTH_HEADERS_MISSING', () => call('POST', '/order', validOrderText()))

refused('POLY_* names over a raw socket: POLY_ADDRESS is read, the missing ones are named (uWS underscore patch)', 401,
  'AUTH_HEADERS_MISSING',
  () => rawHttp([`GET /data/orders HTTP/1.1\r\nHost: predex\r\nPOLY_ADDRESS: ${alice.address}\r\nPOLY_TIMESTAMP: ${nowSec()}\r\n` +
    'Connection: close\r\n\r\n']),
  (t, a) => {
    t.notMatch(a.body.error, /ADDRESS/, 'POLY_ADDRESS arrived')
    t.notMatch(a.body.error, /TIMESTAMP/, 'POLY_TIMESTAMP arrived')
    t.match(a.body.error, /SIGNATURE/, 'the signature is named missing')
  })

t.test('a complete POLY_* L2 request authenticates (uWS underscore patch)', async (t) => {
  const answer = await call('GET', '/data/orders', '', signedHeaders(alice, 'GET', '/data/orders', '', nowSec(), alice.credentials, 'POLY'))
  t.equal(answer.status, 200, JSON.stringify(answer.body))
})

refused('a bad HMAC (signed with another secret)', 401, 'AUTH_SIGNATURE', () => {
  const text = validOrderText()
  return call('POST', '/order', text, signedHeaders(alice, 'POST', '/order', text, nowSec(), { ...alice.credentials, secret: bob.credentials.secret }))
})

refused('a body changed after the HMAC', 401, 'AUTH_SIGNATURE', () => {
  const headers = signedHeaders(alice, 'POST', '/order', validOrderText())
  return call('POST', '/order', validOrderText(), headers)
})

refused('an HMAC over another path', 401, 'AUTH_SIGNATURE', () => {
  const text = validOrderText()
  return call('POST', '/order', text, signedHeaders(alice, 'POST', '/order/verify', text))
})

refused('an HMAC over another method', 401, 'AUTH_SIGNATURE', () => {
  const text = validOrderText()
  return call('POST', '/order', text, signedHeaders(alice, 'DELETE', '/order', text))
})

refused('a wrong passphrase', 401, 'AUTH_PASSPHRASE', () => {
  const text = validOrderText()
  return call('POST', '/order', text, signedHeaders(alice, 'POST', '/order', text, nowSec(), { ...alice.credentials, passphrase: bob.credentials.passphrase }))
})

refused('an unknown API key', 401, 'AUTH_UNKNOWN_KEY', () => {
  const text = validOrderText()
  return call('POST', '/order', text, signedHeaders(alice, 'POST', '/order', text, nowSec(), { ...alice.credentials, apiKey: randomUUID() }))
})

refused('a key used with another address than its owner\'s', 401, 'AUTH_ADDRESS', () => {
  const text = validOrderText()
  return call('POST', '/order', text, l2Headers(alice.credentials, bob.address, 'POST', '/order', text, nowSec(), 'EXCHANGE'))
})

refused(`a timestamp 10 s old (window ${PAST_SEC} s)`, 401, 'AUTH_TIMESTAMP', () => {
  const text = validOrderText()
  return call('POST', '/order', text, signedHeaders(alice, 'POST', '/order', text, nowSec() - 10))
}, (t, a) => { t.type(a.body.serverTime, 'number', 'the error gives the server time'); t.ok(a.body.deltaSec <= -10) })

refused(`a timestamp 5 s ahead (window ${FUTURE_SEC} s)`, 401, 'AUTH_TIMESTAMP', () => {
  const text = validOrderText()
  return call('POST', '/order', text, signedHeaders(alice, 'POST', '/order', text, nowSec() + 5))
}, (t, a) => { t.ok(a.body.deltaSec >= 4) })

refused('a timestamp that is not unix seconds', 401, 'AUTH_TIMESTAMP', () => {
  const text = validOrderText()
  const headers = signedHeaders(alice, 'POST', '/order', text)
  return call('POST', '/order', text, { ...headers, 'EXCHANGE-TIMESTAMP': '2026-11-23T00:00:00Z' })
})

t.test('timestamps inside the window are accepted (2 s old, 1 s ahead)', async (t) => {
  for (const timestamp of [nowSec() - 2, nowSec() + 1]) {
    const answer = await call('GET', '/data/orders', '', signedHeaders(alice, 'GET', '/data/orders', '', timestamp))
    t.equal(answer.status, 200, `${timestamp}: ${JSON.stringify(answer.body)}`)
  }
})

t.test('a revoked API key is refused at once, and the revocation replayed within the window too', async (t) => {
  const carol = await server.trader()
  const revokeHeaders = signedHeaders(carol, 'DELETE', '/auth/api-key', '')
  const revoked = await call('DELETE', '/auth/api-key', '', revokeHeaders)
  t.equal(revoked.status, 200, JSON.stringify(revoked.body))
  t.equal(revoked.body.deleted, true)
  const before = await engineState()
  expectError(t, await l2Call(carol, 'GET', '/data/orders', ''), 401, 'AUTH_UNKNOWN_KEY')
  expectError(t, await call('DELETE', '/auth/api-key', '', revokeHeaders), 401, 'AUTH_UNKNOWN_KEY')
  t.same(await engineState(), before)
})

t.test('a cancel replayed within the window has no second effect', async (t) => {
  const order = aliceOrder({ price: '0.30' })
  const placed = await l2Call(alice, 'POST', '/order', orderBody(order, alice.credentials.apiKey, 'GTC'))
  t.equal(placed.status, 200, JSON.stringify(placed.body))
  const text = JSON.stringify({ orderID: order.orderId })
  const headers = signedHeaders(alice, 'DELETE', '/order', text)
  const first = await call('DELETE', '/order', text, headers)
  t.same(first.body, { canceled: [order.orderId], not_canceled: {} })
  const afterCancel = await server.account(alice.address)
  const replay = await call('DELETE', '/order', text, headers)
  t.equal(replay.status, 200, JSON.stringify(replay.body))
  t.same(replay.body, { canceled: [], not_canceled: { [order.orderId]: 'the order is already canceled' } })
  t.same(await server.account(alice.address), afterCancel, 'holds and balances unchanged by the replay')
})

t.test('L1 key creation replayed, or raced, gives the one credential of (address, nonce)', async (t) => {
  const wallet = Wallet.random()
  const headers = l1Headers(wallet, CHAIN_ID, nowSec())
  const first = await call('POST', '/auth/api-key', '', headers)
  t.equal(first.status, 200, JSON.stringify(first.body))
  const before = await engineState()
  const replay = await call('POST', '/auth/api-key', '', headers)
  t.same(replay.body, first.body, 'the replay answers the same credential')
  t.same(await engineState(), before, 'and journals nothing')
  const racer = Wallet.random()
  const raced = await Promise.all(Array.from({ length: 4 }, () => call('POST', '/auth/api-key', '', l1Headers(racer, CHAIN_ID, nowSec(), 7))))
  t.same(raced.map((a) => a.status), [200, 200, 200, 200], JSON.stringify(raced.map((a) => a.body)))
  t.equal(new Set(raced.map((a) => a.body.apiKey)).size, 1, 'concurrent creates give one key')
})

// ---------------------------------------------------------------------------------------------
// L1 authentication on POST /auth/api-key (a created key would be journaled: the hash shows it)

const stranger = Wallet.random()

refused('L1 signed by another wallet', 401, 'AUTH_L1_SIGNATURE', () => {
  const headers = l1Headers(Wallet.random(), CHAIN_ID, nowSec())
  return call('POST', '/auth/api-key', '', { ...headers, POLY_ADDRESS: stranger.address })
}, (t, a) => { t.equal(a.body.chainId, CHAIN_ID) })

refused('L1 signed for another chain id', 401, 'AUTH_L1_SIGNATURE', () => call('POST', '/auth/api-key', '', l1Headers(stranger, 137, nowSec())))

refused('L1 with an expired timestamp', 401, 'AUTH_TIMESTAMP', () => call('POST', '/auth/api-key', '', l1Headers(stranger, CHAIN_ID, nowSec() - 600)))

refused('L1 with a timestamp from the future', 401, 'AUTH_TIMESTAMP', () => call('POST', '/auth/api-key', '', l1Headers(stranger, CHAIN_ID, nowSec() + 600)))

refused('L1 with a malformed signature', 401, 'AUTH_L1_SIGNATURE',
  () => call('POST', '/auth/api-key', '', { ...l1Headers(stranger, CHAIN_ID, nowSec()), POLY_SIGNATURE: '0x1234' }))

refused('L1 with an address header that is not an address', 401, 'AUTH_ADDRESS',
  () => call('POST', '/auth/api-key', '', { ...l1Headers(stranger, CHAIN_ID, nowSec()), POLY_ADDRESS: 'alice' }))

refused('L1 headers missing', 401, 'AUTH_HEADERS_MISSING', () => call('POST', '/auth/api-key', '', {}))

refused('L2 headers on an L1 route (the HMAC is no wallet signature)', 401, 'AUTH_L1_SIGNATURE',
  () => call('GET', '/auth/derive-api-key', '', signedHeaders(alice, 'GET', '/auth/derive-api-key', '')))

// ---------------------------------------------------------------------------------------------
// Order signatures and ownership

refused('an order signed by another key than its signer', 400, 'INVALID_SIGNATURE', () => {
  const good = aliceOrder()
  const forged: SignedOrder = { ...good, ...bob.wallet.signOrder(good.order, CHAIN_ID, false) }
  return l2Call(alice, 'POST', '/order', orderBody(forged, alice.credentials.apiKey, 'GTC'))
}, (t, a) => { t.equal(a.body.check, 'signature-signer'); t.equal(a.body.recovered, bob.address) })

refused('an order signed for another chain id', 400, 'INVALID_SIGNATURE',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({}, { ...terms, chainId: 137 }), alice.credentials.apiKey, 'GTC')),
  (t, a) => { t.equal(a.body.check, 'signature-chain'); t.equal(a.body.signedForChain, 137) })

refused('an order signed for the neg-risk exchange in a market that is not neg-risk', 400, 'INVALID_SIGNATURE',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({}, { ...terms, negRisk: true }), alice.credentials.apiKey, 'GTC')),
  (t, a) => { t.equal(a.body.check, 'signature-domain'); t.equal(a.body.negRisk, false) })

refused('an amount changed after signing', 400, 'INVALID_SIGNATURE',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.order.makerAmount = String(Number(b.order.makerAmount) + 100_000) })),
  (t, a) => { t.equal(a.body.check, 'signature-signer') })

refused('a signature of 64 bytes', 400, 'INVALID_SIGNATURE',
  () => l2Call(alice, 'POST', '/order', editedBody(aliceOrder(), (b) => { b.order.signature = b.order.signature.slice(0, 130) })),
  (t, a) => { t.equal(a.body.check, 'signature-length') })

refused('signature type 0 with a maker other than the signer', 400, 'INVALID_SIGNATURE',
  () => l2Call(alice, 'POST', '/order', orderBody(signLimitOrder(alice.wallet, terms,
    { tokenId: market.yesTokenId, side: 'BUY', price: '0.40', size: '10' }, { maker: bob.wallet.address }), alice.credentials.apiKey, 'GTC')),
  (t, a) => { t.equal(a.body.check, 'signature-type') })

refused('an order whose owner is not the API key used', 403, 'NOT_OWNER',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder(), bob.credentials.apiKey, 'GTC')))

refused('an order whose signer is not the API key\'s address (Bob\'s signed order sent by Alice)', 403, 'NOT_OWNER',
  () => l2Call(alice, 'POST', '/order', orderBody(aliceOrder({}, terms, bob.wallet), alice.credentials.apiKey, 'GTC')),
  (t, a) => { t.equal(a.body.signer, bob.address) })

// ---------------------------------------------------------------------------------------------
// Another account's order

t.test('Bob cannot cancel or read Alice\'s order: the answer is the one for an unknown id, and it stays live', async (t) => {
  const aliceBefore = await server.account(alice.address)
  const unknownId = '0x' + 'ab'.repeat(32)
  const notFound = 'Order not found or already canceled'

  const one = await l2Call(bob, 'DELETE', '/order', JSON.stringify({ orderID: resting.orderId }))
  t.equal(one.status, 200, JSON.stringify(one.body))
  t.same(one.body, { canceled: [], not_canceled: { [resting.orderId]: notFound } })
  const unknown = await l2Call(bob, 'DELETE', '/order', JSON.stringify({ orderID: unknownId }))
  t.same(unknown.body, { canceled: [], not_canceled: { [unknownId]: notFound } }, 'same answer as for an unknown id')

  const many = await l2Call(bob, 'DELETE', '/orders', JSON.stringify([resting.orderId]))
  t.equal(many.status, 200, JSON.stringify(many.body))
  t.same(many.body, { canceled: [], not_canceled: { [resting.orderId]: notFound } })

  const all = await l2Call(bob, 'DELETE', '/cancel-all', '')
  t.same(all.body, { canceled: [], not_canceled: {} }, 'cancel-all touches only Bob\'s orders')
  const byMarket = await l2Call(bob, 'DELETE', '/cancel-market-orders', JSON.stringify({ market: market.marketId }))
  t.same(byMarket.body, { canceled: [], not_canceled: {} })

  expectError(t, await l2Call(bob, 'GET', `/data/order/${resting.orderId}`, ''), 404, 'ORDER_UNKNOWN')
  const listed = await l2Call(bob, 'GET', '/data/orders', '')
  t.same(listed.body.data, [], 'Bob lists none of Alice\'s orders')

  const mine = await l2Call(alice, 'GET', `/data/order/${resting.orderId}`, '')
  t.equal(mine.status, 200)
  t.equal(mine.body.status, 'LIVE', 'Alice\'s order is still live')
  t.same(await server.account(alice.address), aliceBefore, 'Alice\'s balance and hold are unchanged')
  const book = await call('GET', `/book?token_id=${market.yesTokenId}`, '')
  t.same(book.body.bids, [{ price: '0.4', size: '10' }], 'the book still holds it')
})

// A filter of the wrong type is not "no filter": {"market": 123} cancelled every open order of the
// caller (issue 14, low items). Each is refused before the engine, on both surfaces.
for (const [what, text] of [
  ['a numeric market', '{"market": 123}'],
  ['a market that is an object', '{"market": {"id": "x"}}'],
  ['a numeric asset_id', '{"asset_id": 5}'],
  ['a body that is an array', '[]'],
] as const) {
  for (const prefix of ['', '/compat']) {
    refused(`DELETE ${prefix}/cancel-market-orders with ${what}: 400, nothing cancelled`, 400, 'INVALID_PARAMETER',
      // The HMAC covers the path without /compat, as clob-client signs it.
      () => call('DELETE', `${prefix}/cancel-market-orders`, text,
        signedHeaders(alice, 'DELETE', '/cancel-market-orders', text)))
  }
}

// ---------------------------------------------------------------------------------------------
// Replay after the window: the headers captured at the start. Last in the file: it moves the
// server's clock past the window, so a request signed with the real time after it would be stale
// too: the cancel-market-orders filter tests, when they came after it, failed so in fresh-clone
// CI whenever the file ran fast enough for the clock to move by more than the window.

refused('the placement\'s L2 headers replayed after the window', 401, 'AUTH_TIMESTAMP', async () => {
  // The server's clock moves past the window at once (headers signed from now on would be stale too).
  clock.advance(Math.max(0, (placedAt + PAST_SEC + 2 - nowSec()) * 1000))
  return call('POST', '/order', restingText, placeHeaders)
}, (t, a) => { t.ok(a.body.deltaSec < -PAST_SEC) })

refused('a listing\'s L2 headers replayed after the window', 401, 'AUTH_TIMESTAMP', () => call('GET', '/data/orders', '', listHeaders))

t.test('the engine\'s invariants hold at the end', async (t) => {
  const answer = await server.predex.context.host.query({ kind: 'stateHash' })
  t.equal(answer.kind === 'stateHash' && answer.invariantsHold, true)
})
