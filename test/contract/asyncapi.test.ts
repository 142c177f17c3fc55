/**
 * GET /asyncapi.json (AsyncAPI 3.0 of the WebSocket channels) against the live channels: the
 * document's shape, its version (package.json's, as the OpenAPI document's), schemas that compile
 * strictly and refuse drifted frames; then a live market channel and a live user channel driven
 * until each has sent every message the document says it sends, each frame validated against its
 * schema as it is read (test/support/ws-client.ts checks every frame of every contract test the same way).
 * One server for the file.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { PredexClient } from '../../src/client/predex-client.js'
import { WsClient } from '../support/ws-client.js'
import { WsMessageValidator, messageNameOf } from '../support/asyncapi-validator.js'
import { USDC, l2, placeLimit, send, startServer } from '../support/rest-harness.js'
import { ROOT } from '../support/compiled.js'

const PACKAGE_VERSION = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version

const server = await startServer()
t.teardown(() => server.stop())
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const admin = new PredexClient({ baseUrl: server.base, adminKey: server.predex.adminKey })
const ws = (address: string): string => `ws://127.0.0.1:${server.predex.port}${address}`

const answer = await send(server, 'GET', '/asyncapi.json', '', {})
const doc = answer.body
const validator = new WsMessageValidator(doc)

/** Reads frames (each validated by next()) until `done` holds of the names seen; returns the names in order. */
async function readUntil(client: WsClient, done: (seen: Set<string>) => boolean, timeoutMs = 5_000): Promise<string[]> {
  const names: string[] = []
  const deadline = Date.now() + timeoutMs
  while (!done(new Set(names))) {
    const text = await client.next(Math.max(1, deadline - Date.now()))
    names.push(messageNameOf(text, text === 'PONG' ? text : JSON.parse(text)))
  }
  return names
}

t.test('GET /asyncapi.json: AsyncAPI 3.0 of /ws/market and /ws/user, the server\'s version', async (t) => {
  t.equal(answer.status, 200)
  t.match(answer.headers.get('content-type'), /^application\/json/)
  t.equal(doc.asyncapi, '3.0.0')
  t.equal(doc.info.version, PACKAGE_VERSION, 'package.json\'s version')
  t.equal(doc.info.version, (await send(server, 'GET', '/openapi.json', '', {})).body.info.version, 'as /openapi.json')
  t.same(Object.fromEntries(Object.entries(doc.channels).map(([id, c]: [string, any]) => [id, c.address])),
    { market: '/ws/market', user: '/ws/user' })
  for (const [id, channel] of Object.entries(doc.channels) as [string, any][]) {
    const listed = Object.values(doc.operations).filter((o: any) => o.channel.$ref === `#/channels/${id}`)
      .flatMap((o: any) => o.messages.map((m: any) => m.$ref))
    t.same([...listed].sort(), Object.keys(channel.messages).map((name) => `#/channels/${id}/messages/${name}`).sort(),
      `${id}: each message is received or sent by one operation`)
  }
  t.same(validator.sentMessages('/ws/market').sort(), ['best_bid_ask', 'book', 'error', 'last_trade_price',
    'market_resolved', 'new_market', 'pong', 'price_change', 'tick_size_change'])
  t.same(validator.sentMessages('/ws/user').sort(), ['error', 'group_triggered', 'order', 'order_group', 'pong',
    'trade'])
  const text = JSON.stringify(doc)
  t.notMatch(text, /prefixItems/, 'draft-07 schemas (AsyncAPI\'s default format)')
  for (const ref of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
    t.ok(doc.components.schemas[ref[1]!], `${ref[1]} exists`)
  }
})

t.test('the schemas refuse a drifted frame, naming the channel, the message and what is wrong', async (t) => {
  const change = { event_type: 'price_change', market: '0x' + 'ab'.repeat(32), timestamp: '1', seq: 1,
    price_changes: [{ asset_id: '1', price: '0.5', size: '1', side: 'BUY', hash: 'h', best_bid: '0.5', best_ask: '1' }] }
  t.equal(validator.mismatch('/ws/market', JSON.stringify(change)), null, 'a well-formed price_change')
  const { seq: _seq, ...unnumbered } = change
  t.match(validator.mismatch('/ws/market', JSON.stringify(unnumbered)), /^\/ws\/market price_change: .*'seq'/)
  t.match(validator.mismatch('/ws/market', JSON.stringify({ ...change, rogue: 1 })), /additional properties/)
  t.match(validator.mismatch('/ws/market', JSON.stringify({ ...change, event_type: 'gossip' })), /"gossip" is not one/)
  t.match(validator.mismatch('/ws/user', JSON.stringify(change)), /"price_change" is not one/, 'not on the user channel')
  t.equal(validator.mismatch('/ws/user', JSON.stringify({ event_type: 'error', error: 'x', code: 'X', field: 'f' })),
    null, 'an error event with its context')
  t.match(validator.mismatch('/ws/market', 'PONG!'), /neither JSON nor PONG/)
})

t.test('the market channel, live: every message it sends fits its schema', async (t) => {
  const client = await WsClient.open(ws('/ws/market'))
  t.teardown(() => client.socket.close())
  client.send({ type: 'market', assets_ids: [market.yesTokenId, market.noTokenId], custom_feature_enabled: true })
  client.send('PING')
  client.send({ type: 'market', assets_ids: ['not a token'] })
  const seen = await readUntil(client, (names) => ['book', 'pong', 'error'].every((n) => names.has(n)))
  const [alice, bob] = [await server.trader(100 * USDC), await server.trader(100 * USDC)]
  t.equal((await placeLimit(server, alice, market, { side: 'BUY', price: '0.40', size: '10' })).status, 200)
  // A mint: Bob's No bid at 0.60 meets Alice's Yes bid; both tokens trade.
  t.equal((await placeLimit(server, bob, market, { outcome: 'No', side: 'BUY', price: '0.60', size: '10' })).status, 200)
  seen.push(...await readUntil(client, (names) => ['price_change', 'best_bid_ask', 'last_trade_price']
    .every((n) => names.has(n))))
  await admin.updateMarket(market.marketId, { tick_size: '0.001' })
  seen.push(...await readUntil(client, (names) => names.has('tick_size_change')))
  await admin.createMarket({ question: 'Will the document tell?', slug: 'will-the-document-tell' } as never)
  const listed = server.predex.context.read.marketsBySlug.get('will-the-document-tell')!
  await admin.resolveMarket(listed.marketId, 'Yes')
  seen.push(...await readUntil(client, (names) => names.has('market_resolved')))
  t.same([...new Set(seen)].sort(), validator.sentMessages('/ws/market').sort(), 'every message of the document, live')
})

t.test('the user channel, live: every message it sends fits its schema', async (t) => {
  const [alice, bob] = [await server.trader(100 * USDC), await server.trader(100 * USDC)]
  const client = await WsClient.open(ws('/ws/user'))
  t.teardown(() => client.socket.close())
  client.send({ type: 'user', auth: alice.credentials, markets: [] })
  client.send('PING')
  client.send({ operation: 'subscribe', markets: 'not a list' })
  const seen = await readUntil(client, (names) => names.has('pong') && names.has('error'))
  await server.command({ kind: 'split', address: alice.address, marketId: market.marketId, amountMicros: 10 * USDC })
  const resting = await placeLimit(server, alice, market, { side: 'SELL', price: '0.90', size: '2', outcome: 'No' })
  t.equal(resting.status, 200)
  t.equal((await placeLimit(server, alice, market, { side: 'SELL', price: '0.55', size: '5' })).status, 200)
  t.equal((await placeLimit(server, bob, market, { side: 'BUY', price: '0.55', size: '2' })).status, 200)
  t.equal((await l2(server, alice, 'DELETE', '/order', { orderID: resting.signed.orderId })).status, 200)
  t.equal((await l2(server, alice, 'POST', '/order-groups', { group_id: 'doc', contracts_limit: '1',
    window_ms: 1_000 })).status, 201)
  t.equal((await l2(server, alice, 'POST', '/order-groups/doc/trigger')).status, 200)
  seen.push(...await readUntil(client, (names) => ['order', 'trade', 'order_group', 'group_triggered']
    .every((n) => names.has(n)), 10_000))
  t.same([...new Set(seen)].sort(), validator.sentMessages('/ws/user').sort(), 'every message of the document, live')
})
