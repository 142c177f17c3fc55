/**
 * Heartbeats over loopback (src/service/trading/heartbeats.ts, routes/heartbeats.ts): POST /heartbeats
 * natively, POST /compat/v1/heartbeats and /compat/heartbeats, L2 over the exact body; chained
 * UUIDs; a key that started a chain and stops has its open orders cancelled once the window
 * (timeout + grace) has passed and not before, shown on GET /data/orders and as CANCELLATION
 * events on /ws/user, other keys untouched; a revoked key's orders are cancelled too; bad bodies are a
 * 400 with a catalogue code, never a 500; and the unmodified clients, @polymarket/clob-client-v2
 * 1.1.0 (`postHeartbeat()` with '') and @polymarket/clob-client 5.8.1 (`postHeartbeat(null)`, a
 * pre-serialized body), start and follow chains.
 *
 * The server runs on a TestClock: the windows pass when the test advances it, never because the
 * machine was slow. Its wall clock moves too, so requests are signed with the server's time
 * (`signedNowSec`), and the clients use `useServerTime`.
 */
import t, { type Test } from 'tap'
import type { WalletClient } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { ClobClient as ClobClientV1 } from '@polymarket/clob-client'
import { ClobClient as ClobClientV2 } from '@polymarket/clob-client-v2'
import { l1Headers, l2Headers, type HeaderFamily } from '../../src/crypto/request-headers.js'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { orderBody, signLimitOrder } from '../../src/client/orders.js'
import { Wallet } from '../../src/crypto/wallet.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { HEARTBEAT_ID_LENGTH_MAX, HEARTBEAT_SWEEP_INTERVAL_MS, REST_SMALL_BODY_BYTES_MAX } from '../../src/limits.js'
import { HEARTBEAT_WINDOW_MS } from '../../src/service/trading/heartbeats.js'
import { CHAIN_ID, USDC, send, startServer, termsOf, type Trader } from '../support/rest-harness.js'
import { TestClock } from '../support/clock.js'
import { WsClient } from '../support/ws-client.js'
import { walletOf } from '../compat/support.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const clock = new TestClock()
const lines: string[] = []
const server = await startServer({ clock, log: (line) => lines.push(line) })
t.teardown(() => server.stop())
const heartbeats = server.predex.context.heartbeats
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const compatHost = `${server.base}/compat`

/** The server's wall clock in seconds: what a request must be signed with once the TestClock moved. */
function signedNowSec(): number {
  return Math.floor(clock.wallMs() / 1000)
}

/**
 * An L2 request signed with the server's time: native paths with the EXCHANGE-* headers, /compat
 * ones with POLY_* over the path without the prefix (as Polymarket's clients sign it).
 */
async function l2(trader: Trader, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)
  const compat = path.startsWith('/compat/')
  const family: HeaderFamily = compat ? 'POLY' : 'EXCHANGE'
  const signedPath = (compat ? path.slice('/compat'.length) : path).split('?')[0]!
  const headers = l2Headers(trader.credentials, trader.address, method, signedPath, text, signedNowSec(), family)
  return send(server, method, path, text, headers)
}

/** A wallet with API credentials (L1 signed with the server's time) and, if asked, funds. */
async function newTrader(usdcMicros = 0): Promise<Trader> {
  const wallet = Wallet.random()
  const address = wallet.address.toLowerCase()
  const reply = await send(server, 'POST', '/auth/api-key', '', l1Headers(wallet, CHAIN_ID, signedNowSec()))
  if (reply.status !== 200) throw new Error(`api key: ${reply.status} ${JSON.stringify(reply.body)}`)
  if (usdcMicros > 0) await server.fund(address, usdcMicros)
  return { wallet, address, credentials: reply.body as ApiCredentials }
}

/** A heartbeat on `path` with `id` (undefined: no body at all). */
function beat(trader: Trader, path: string, id?: unknown): Promise<{ status: number; body: any }> {
  return l2(trader, 'POST', path, id === undefined ? undefined : { heartbeat_id: id })
}

/** Places a resting BUY of 10 Yes at `price` for `trader`; its order id. */
async function rest(trader: Trader, m: MarketRecord, price = '0.40'): Promise<string> {
  const signed = signLimitOrder(trader.wallet, termsOf(m), { tokenId: m.yesTokenId, side: 'BUY', price, size: '10' })
  const reply = await l2(trader, 'POST', '/order', orderBody(signed, trader.credentials.apiKey, 'GTC'))
  if (reply.status !== 200 || reply.body.status !== 'live') throw new Error(`order: ${JSON.stringify(reply.body)}`)
  return signed.orderId
}

/** The ids of `trader`'s open orders, as GET /data/orders lists them. */
async function openOrderIds(trader: Trader): Promise<string[]> {
  const reply = await l2(trader, 'GET', '/data/orders')
  if (reply.status !== 200) throw new Error(`open orders: ${JSON.stringify(reply.body)}`)
  return reply.body.data.map((order: { id: string }) => order.id).sort()
}

async function userSocket(trader: Trader): Promise<WsClient> {
  const client = await WsClient.open(`ws://127.0.0.1:${server.predex.port}/ws/user`)
  client.send({ type: 'user', auth: trader.credentials, markets: [] })
  client.send('PING')
  if ((await client.next()) !== 'PONG') throw new Error('expected PONG after the subscription')
  return client
}

function isBadRequest(t: Test, reply: { status: number; body: any }, code: string, what: string): void {
  t.equal(reply.status, 400, `${what}: 400`)
  t.equal(reply.body?.code, code, `${what}: ${code}`)
  t.type(reply.body?.error, 'string', `${what}: a message`)
}

/** Waits (real time, bounded) until `check` holds; the app's own sweep timer runs meanwhile. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not in ${timeoutMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

t.test('chained ids: each heartbeat answers a new UUID, on every path', async (t) => {
  const trader = await newTrader()
  const first = await beat(trader, '/heartbeats', null)
  t.equal(first.status, 200)
  t.same(Object.keys(first.body).sort(), ['heartbeat_id', 'status'])
  t.equal(first.body.status, 'ok')
  t.match(first.body.heartbeat_id, UUID)
  const ids = [first.body.heartbeat_id as string]
  const metrics = await (await fetch(`${server.base}/metrics`)).text()
  t.match(metrics, new RegExp(`^predex_heartbeat_chains ${heartbeats.watched}$`, 'm'), '/metrics counts the chains')
  t.ok(heartbeats.watched >= 1)
  for (const path of ['/heartbeats', '/compat/v1/heartbeats', '/compat/heartbeats', '/compat/v1/heartbeats']) {
    const next = await beat(trader, path, ids.at(-1))
    t.equal(next.status, 200, path)
    t.match(next.body, { heartbeat_id: UUID, status: 'ok' }, path)
    ids.push(next.body.heartbeat_id)
  }
  t.equal(new Set(ids).size, ids.length, 'every id is new')
  t.match((await beat(trader, '/compat/v1/heartbeats', '')).body, { heartbeat_id: UUID }, "'' starts a chain")
  t.match((await beat(trader, '/heartbeats')).body, { heartbeat_id: UUID }, 'so does no body')
  t.match((await beat(trader, '/heartbeats', ids[0])).body, { heartbeat_id: UUID }, 'a stale id is accepted')
  t.match((await beat(trader, '/heartbeats', 'x'.repeat(HEARTBEAT_ID_LENGTH_MAX))).body, { heartbeat_id: UUID },
    'so is an unknown one')
  t.equal((await beat(trader, '/v1/heartbeats', null)).status, 404, 'the /v1 path is the compat one')
  clock.advance(HEARTBEAT_WINDOW_MS) // the chain lapses (the key has no orders), so the next tests start clean
  t.equal(await heartbeats.sweep(), 1)
})

t.test('bad bodies and bad credentials: a 4xx with a catalogue code, never a 500', async (t) => {
  const trader = await newTrader()
  const watched = heartbeats.watched
  for (const path of ['/heartbeats', '/compat/v1/heartbeats']) {
    isBadRequest(t, await l2(trader, 'POST', path, '{"heartbeat_id":'), 'BAD_JSON', `${path}: not JSON`)
    isBadRequest(t, await l2(trader, 'POST', path, '["abc"]'), 'INVALID_PARAMETER', `${path}: an array`)
    isBadRequest(t, await l2(trader, 'POST', path, '"abc"'), 'INVALID_PARAMETER', `${path}: a string`)
    isBadRequest(t, await l2(trader, 'POST', path, 'null'), 'INVALID_PARAMETER', `${path}: null`)
    for (const id of [5, true, { id: 'a' }, ['a']]) {
      const reply = await beat(trader, path, id)
      isBadRequest(t, reply, 'INVALID_PARAMETER', `${path}: heartbeat_id ${JSON.stringify(id)}`)
      t.equal(reply.body.field, 'heartbeat_id')
    }
    const long = await beat(trader, path, 'x'.repeat(HEARTBEAT_ID_LENGTH_MAX + 1))
    isBadRequest(t, long, 'INVALID_PARAMETER', `${path}: an id too long`)
    t.equal(long.body.lengthMax, HEARTBEAT_ID_LENGTH_MAX)
    const huge = await l2(trader, 'POST', path, { heartbeat_id: 'x'.repeat(REST_SMALL_BODY_BYTES_MAX) })
    t.equal(huge.status, 413, `${path}: a body over the bound`)
    t.equal(huge.body.code, 'BODY_TOO_LARGE')
    const unsigned = await send(server, 'POST', path, '{"heartbeat_id":null}', {})
    t.equal(unsigned.status, 401, `${path}: no credentials`)
    t.match(unsigned.body.code, /^AUTH_/)
    const wrongBody = l2Headers(trader.credentials, trader.address, 'POST', path.replace('/compat', ''),
      '{"heartbeat_id":""}', signedNowSec(), path.startsWith('/compat') ? 'POLY' : 'EXCHANGE')
    const tampered = await send(server, 'POST', path, '{"heartbeat_id":null}', wrongBody)
    t.equal(tampered.status, 401, `${path}: the HMAC covers the exact body`)
  }
  t.equal(heartbeats.watched, watched, 'no refused heartbeat started a chain')
})

t.test("a lapsed chain cancels the key's open orders: /data/orders and /ws/user show it; others rest", async (t) => {
  const alice = await newTrader(100 * USDC)
  const bob = await newTrader(100 * USDC)
  const socket = await userSocket(alice)
  t.teardown(() => socket.socket.close())
  const aliceOrders = [await rest(alice, market, '0.40'), await rest(alice, market, '0.41')].sort()
  const bobOrder = await rest(bob, market, '0.39')
  const placements = [await socket.json(), await socket.json()]
  t.same(placements.map((e) => e.type), ['PLACEMENT', 'PLACEMENT'])
  t.same(await openOrderIds(alice), aliceOrders)

  let id = (await beat(alice, '/heartbeats', null)).body.heartbeat_id
  await beat(bob, '/compat/v1/heartbeats', '')
  for (let i = 0; i < 3; i++) { // heartbeats keep both chains alive, window after window
    clock.advance(HEARTBEAT_WINDOW_MS - 1)
    t.equal(await heartbeats.sweep(), 0, `window ${i + 1}: nothing lapses`)
    id = (await beat(alice, '/heartbeats', id)).body.heartbeat_id
    await beat(bob, '/compat/v1/heartbeats', null)
  }
  clock.advance(HEARTBEAT_WINDOW_MS - 1)
  await beat(bob, '/compat/v1/heartbeats', null) // Bob goes on; Alice has stopped
  t.equal(await heartbeats.sweep(), 0, '1 ms before the window ends')
  await new Promise((resolve) => setTimeout(resolve, 2 * HEARTBEAT_SWEEP_INTERVAL_MS))
  t.same(await openOrderIds(alice), aliceOrders, "the app's own sweeps did not cancel early either")
  clock.advance(1)
  t.equal(await heartbeats.sweep(), 1, "Alice's chain lapses")
  t.same(await openOrderIds(alice), [], 'GET /data/orders: none open')
  const cancellations = [await socket.json(), await socket.json()]
  t.same(cancellations.map((e) => [e.event_type, e.type, e.status]),
    [['order', 'CANCELLATION', 'CANCELED'], ['order', 'CANCELLATION', 'CANCELED']], '/ws/user: two cancellations')
  t.same(cancellations.map((e) => e.id).sort(), aliceOrders)
  t.same(await openOrderIds(bob), [bobOrder], "Bob's order rests")
  t.ok(lines.includes(`INFO heartbeats: a key stopped sending heartbeats; its open orders are canceled ${JSON.stringify({ apiKey: alice.credentials.apiKey,
    silentMs: HEARTBEAT_WINDOW_MS, canceled: 2, open: 2 })}`), 'one log line, with the key and the count')
  const after = await rest(alice, market, '0.40')
  clock.advance(2 * HEARTBEAT_WINDOW_MS)
  await beat(bob, '/compat/v1/heartbeats', null)
  t.equal(await heartbeats.sweep(), 0, 'the chain is over: the key is not watched')
  t.same(await openOrderIds(alice), [after], 'an order placed after the lapse rests')
  clock.advance(HEARTBEAT_WINDOW_MS) // Bob's chain lapses too (he has no orders): the next tests start clean
  t.equal(await heartbeats.sweep(), 1)
})

t.test('revoking the key does not end its chain: its orders are cancelled when the window passes', async (t) => {
  const trader = await newTrader(100 * USDC)
  const order = await rest(trader, market)
  t.equal((await beat(trader, '/heartbeats', null)).status, 200)
  const revoked = await l2(trader, 'DELETE', '/auth/api-key')
  t.same(revoked.body, { deleted: true })
  clock.advance(HEARTBEAT_WINDOW_MS)
  await heartbeats.sweep()
  t.equal(server.predex.context.read.order(order)?.status, 'CANCELED', 'the order is cancelled')
  t.equal(heartbeats.watched, 0)
})

/** A wallet for both sides: viem's for the client, ours (same key) to sign V1 orders. */
function keyPair(): { privateKey: `0x${string}`; wallet: Wallet; signer: WalletClient } {
  const privateKey = generatePrivateKey()
  return { privateKey, wallet: new Wallet(privateKey), signer: walletOf(privateKey) }
}

t.test('clob-client-v2 1.1.0: postHeartbeat() starts a chain, its ids chain it, and stopping cancels', async (t) => {
  const { wallet, signer } = keyPair()
  const anonymous = new ClobClientV2({ host: compatHost, chain: CHAIN_ID, signer, useServerTime: true })
  const creds = await anonymous.createOrDeriveApiKey()
  t.type(creds.key, 'string')
  const trader: Trader = { wallet, address: wallet.address.toLowerCase(),
    credentials: { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase } }
  await server.fund(trader.address, 100 * USDC)
  const order = await rest(trader, market)
  const client = new ClobClientV2({ host: compatHost, chain: CHAIN_ID, signer, creds, useServerTime: true })
  const first = await client.postHeartbeat()
  t.match(first, { heartbeat_id: UUID, status: 'ok' }, "postHeartbeat() posts '' and gets an id")
  let id = first.heartbeat_id
  for (let i = 0; i < 3; i++) {
    clock.advance(HEARTBEAT_WINDOW_MS - 1)
    t.equal(await heartbeats.sweep(), 0)
    const next = await client.postHeartbeat(id)
    t.match(next, { heartbeat_id: UUID, status: 'ok' })
    t.not(next.heartbeat_id, id, 'a new id each time')
    id = next.heartbeat_id
  }
  t.same(await openOrderIds(trader), [order], 'kept alive')
  clock.advance(HEARTBEAT_WINDOW_MS)
  // No sweep called here: the app's own timer finds the lapsed chain.
  await eventually('the order is cancelled', async () => (await openOrderIds(trader)).length === 0)
  t.same((await client.getOpenOrders()), [], "the client's own view: nothing open")
})

t.test('clob-client 5.8.1: postHeartbeat(null) with its pre-serialized body starts a chain too', async (t) => {
  const { wallet, signer } = keyPair()
  const creds = await new ClobClientV1(compatHost, CHAIN_ID, signer, undefined, undefined, undefined, undefined, true)
    .createOrDeriveApiKey()
  const trader: Trader = { wallet, address: wallet.address.toLowerCase(),
    credentials: { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase } }
  await server.fund(trader.address, 100 * USDC)
  const order = await rest(trader, market)
  const client = new ClobClientV1(compatHost, CHAIN_ID, signer, creds, undefined, undefined, undefined, true)
  const first = await client.postHeartbeat(null)
  t.match(first, { heartbeat_id: UUID, status: 'ok' })
  clock.advance(HEARTBEAT_WINDOW_MS - 1)
  t.equal(await heartbeats.sweep(), 0)
  const next = await client.postHeartbeat(first.heartbeat_id)
  t.match(next, { heartbeat_id: UUID, status: 'ok' })
  clock.advance(HEARTBEAT_WINDOW_MS)
  t.equal(await heartbeats.sweep(), 1)
  t.same(await openOrderIds(trader), [], 'cancelled')
  t.equal(server.predex.context.read.order(order)?.status, 'CANCELED')
})
