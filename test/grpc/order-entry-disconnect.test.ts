/**
 * How an order-entry session ends, and what cancel on disconnect then cancels: a client process
 * killed mid-session (scope KEY: every open order of the key, REST's included; scope SESSION:
 * only the session's own), a clean close (nothing), a half-close without close, the dead-man
 * timer (fires without requests, not while pings flow), a deadline that passes, and the server
 * stopping. Each cancel is an engine command (the read model, which only the engine's events
 * change, shows the orders CANCELED) and is logged with the key.
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { create, toBinary } from '@bufbuild/protobuf'
import { status as GrpcStatus } from '@grpc/grpc-js'
import { GrpcTransport } from '../../src/client/grpc/transport.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { ApiCode, ServiceCode } from '../../src/errors.js'
import { BATCH_ORDERS_MAX, CANCEL_IDS_MAX, GRPC_STREAMS_PER_KEY_MAX } from '../../src/limits.js'
import { CancelOnDisconnect } from '../../src/gen/predex/v1/order_entry_pb.js'
import { OrderRequestSchema } from '../../src/gen/predex/v1/trading_pb.js'
import { placeLimit, startServer, USDC, type TestServer, type Trader } from '../support/rest-harness.js'
import { orderRequest, signerOf, TestSession } from './order-entry-support.js'
import { eventually } from '../support/eventually.js'
import { siblingModule } from '../support/compiled.js'

const logged: string[] = []
const server = await startServer({ log: (line) => logged.push(line) })
t.teardown(() => server.stop())
const target = `127.0.0.1:${server.predex.grpcPort}`
const transport = new GrpcTransport(target)
t.teardown(() => transport.close())
const CANCEL_WITHIN_MS = 10_000

/** All GRPC_STREAMS_PER_KEY_MAX sessions of the key open (and close again): no slot was kept. */
async function allSlotsFree(trader: Trader): Promise<boolean> {
  const sessions = Array.from({ length: GRPC_STREAMS_PER_KEY_MAX }, () => new TestSession(transport, signerOf(trader)))
  const answers = await Promise.all(sessions.map((session) => session.ask({ case: 'ping', value: {} })
    .then((response) => response.result.case, () => 'refused')))
  await Promise.all(sessions.map((session) => session.close().catch(() => undefined)))
  return answers.every((answer) => answer === 'pong')
}

function statusOf(server: TestServer, orderId: string): string | undefined {
  return server.predex.context.read.order(orderId)?.status
}

async function restOrder(trader: Trader, market: MarketRecord, price: string): Promise<string> {
  const placed = await placeLimit(server, trader, market, { side: 'BUY', price, size: '5' })
  if (placed.status !== 200) throw new Error(`REST place: ${placed.status} ${JSON.stringify(placed.body)}`)
  return placed.signed.orderId
}

/** Runs the child client until it has placed `prices`' orders; returns their ids and the kill. */
async function childSession(trader: Trader, market: MarketRecord, scope: CancelOnDisconnect,
  prices: readonly string[]): Promise<{ orderIds: string[]; kill: () => Promise<void> }> {
  const requests = prices.map((price) => Buffer.from(toBinary(OrderRequestSchema,
    create(OrderRequestSchema, orderRequest(trader, market, { side: 'BUY', price, size: '5' }).request))).toString('base64'))
  const child = spawn(process.execPath, [...process.execArgv, siblingModule('order-entry-child', import.meta.url),
    target, JSON.stringify(signerOf(trader)), String(scope), ...requests], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const orderIds: string[] = []
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line.startsWith('placed ')) orderIds.push(line.slice('placed '.length))
    if (line === 'ready') break
  }
  clearTimeout(timer)
  return { orderIds, kill: async () => {
    child.kill('SIGKILL')
    await exited
  } }
}

t.test('scope KEY, client process killed: every open order of the key is canceled, REST ones too', async (t) => {
  const trader = await server.trader(1_000 * USDC)
  const market = await server.createMarket()
  const viaRest = await restOrder(trader, market, '0.10')
  const { orderIds, kill } = await childSession(trader, market, CancelOnDisconnect.KEY, ['0.11', '0.12', '0.13'])
  t.equal(orderIds.length, 3, 'the child placed its orders')
  t.ok([viaRest, ...orderIds].every((id) => statusOf(server, id) === 'LIVE'), 'all live while the client runs')
  await kill()
  const tookMs = await eventually(() => [viaRest, ...orderIds].every((id) => statusOf(server, id) === 'CANCELED'),
    CANCEL_WITHIN_MS, 'the key\'s orders canceled')
  t.pass(`all four canceled ${tookMs} ms after the kill`)
  t.ok(logged.some((line) => line.includes(trader.credentials.apiKey) && line.includes('"scope":"key"') &&
    line.includes('"canceled":4,"open":4')), 'logged with the key')
  t.ok(await allSlotsFree(trader), 'the stream slot was given back')
})

t.test('scope SESSION, client process killed: only the orders placed on the session', async (t) => {
  const trader = await server.trader(1_000 * USDC)
  const market = await server.createMarket()
  const viaRest = await restOrder(trader, market, '0.10')
  const { orderIds, kill } = await childSession(trader, market, CancelOnDisconnect.SESSION, ['0.11', '0.12'])
  await kill()
  await eventually(() => orderIds.every((id) => statusOf(server, id) === 'CANCELED'), CANCEL_WITHIN_MS,
    'the session\'s orders canceled')
  t.pass('the session\'s two orders canceled')
  t.equal(statusOf(server, viaRest), 'LIVE', 'the REST order of the same key stays')
})

t.test('more open orders than one cancel command takes: canceled in commands of CANCEL_IDS_MAX', async (t) => {
  const trader = await server.trader(10_000 * USDC)
  const market = await server.createMarket()
  const count = CANCEL_IDS_MAX + 100
  const orderIds = Array.from({ length: count }, () => `0x${randomBytes(32).toString('hex')}`)
  // Straight to the engine (the session's placement path is tested elsewhere; these only need to rest).
  const batches: Promise<unknown>[] = []
  for (let i = 0; i < count; i += BATCH_ORDERS_MAX) {
    batches.push(server.command({ kind: 'placeOrders', orders: orderIds.slice(i, i + BATCH_ORDERS_MAX).map((orderId) => ({
      orderId, owner: trader.credentials.apiKey, maker: trader.address, signer: trader.address,
      tokenId: market.yesTokenId, side: 'BUY' as const, makerAmountMicros: USDC, takerAmountMicros: 5 * USDC,
      expirationSec: 0, feeRateBps: 0, timeInForce: 'GTC' as const, postOnly: false, clientOrderId: '' })) }))
  }
  await Promise.all(batches)
  t.ok(orderIds.every((id) => statusOf(server, id) === 'LIVE'), `${count} orders rest`)
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.KEY)
  session.call.cancel()
  await eventually(() => orderIds.every((id) => statusOf(server, id) === 'CANCELED'), CANCEL_WITHIN_MS,
    'all canceled')
  t.pass(`all ${count} canceled`)
  await eventually(() => logged.some((line) => line.includes(trader.credentials.apiKey) &&
    line.includes(`"canceled":${count},"open":${count}`)), 5_000, 'the log line')
  t.pass('logged')
})

t.test('a clean close cancels nothing', async (t) => {
  const trader = await server.trader(1_000 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.KEY)
  const { signed, request } = orderRequest(trader, market, { side: 'BUY', price: '0.20', size: '5' })
  await session.ask({ case: 'place', value: request })
  t.equal(await session.close(), null)
  await new Promise((resolve) => setTimeout(resolve, 500))
  t.equal(statusOf(server, signed.orderId), 'LIVE')
})

t.test('a half-close without close is a disconnect: answered, canceled, then the stream ends OK', async (t) => {
  const trader = await server.trader(1_000 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.SESSION)
  const { signed, request } = orderRequest(trader, market, { side: 'BUY', price: '0.20', size: '5' })
  session.send({ case: 'place', value: request })
  session.call.end()
  t.equal((await session.next()).result.case, 'order', 'the place sent before the half-close is answered')
  t.equal(await session.ended, null)
  t.equal(statusOf(server, signed.orderId), 'CANCELED', 'canceled before the stream ended')
})

t.test('the dead-man timer: no request for dead_man_ms cancels and ends the session', async (t) => {
  const trader = await server.trader(1_000 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader))
  const opened = await session.open(CancelOnDisconnect.KEY, 1_000)
  t.equal(opened.result.case === 'opened' && opened.result.value.deadManMs, 1_000)
  const { signed, request } = orderRequest(trader, market, { side: 'BUY', price: '0.20', size: '5' })
  await session.ask({ case: 'place', value: request })
  const started = Date.now()
  const ending = await session.ended
  const afterMs = Date.now() - started
  t.equal(ending?.grpcCode, GrpcStatus.UNAVAILABLE)
  t.equal(ending?.code, ApiCode.DEAD_MAN_TIMER)
  t.match(ending?.message, /dead-man timer fired/)
  t.same(ending?.context, { deadManMs: 1_000 })
  t.ok(afterMs >= 800 && afterMs < 5_000, `ended ${afterMs} ms after the last request`)
  t.equal(statusOf(server, signed.orderId), 'CANCELED', 'the order was canceled before the stream ended')
})

t.test('pings keep the dead-man timer from firing', async (t) => {
  const trader = await server.trader(1_000 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.KEY, 1_000)
  const { signed, request } = orderRequest(trader, market, { side: 'BUY', price: '0.20', size: '5' })
  await session.ask({ case: 'place', value: request })
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 300))
    if (!t.equal((await session.ask({ case: 'ping', value: {} })).result.case, 'pong')) t.bailout()
  }
  t.equal(statusOf(server, signed.orderId), 'LIVE', 'three seconds of pings: still live')
  t.equal(await session.close(), null)
  t.equal(statusOf(server, signed.orderId), 'LIVE')
})

t.test('a deadline that passes: DEADLINE_EXCEEDED to the client, the server cleans up and cancels', async (t) => {
  const trader = await server.trader(1_000 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader), { deadline: Date.now() + 1_500 })
  await session.open(CancelOnDisconnect.KEY)
  const { signed, request } = orderRequest(trader, market, { side: 'BUY', price: '0.20', size: '5' })
  await session.ask({ case: 'place', value: request })
  const ending = await session.ended
  t.equal(ending?.grpcCode, GrpcStatus.DEADLINE_EXCEEDED)
  await eventually(() => statusOf(server, signed.orderId) === 'CANCELED', CANCEL_WITHIN_MS, 'canceled')
  t.pass('canceled')
  t.ok(await allSlotsFree(trader), 'the stream slot was given back')
})

t.test('the server stopping: cancel on disconnect first, then UNAVAILABLE', async (t) => {
  const other = await startServer()
  const otherTransport = new GrpcTransport(`127.0.0.1:${other.predex.grpcPort}`)
  t.teardown(() => otherTransport.close())
  const trader = await other.trader(1_000 * USDC)
  const market = await other.createMarket()
  const canceling = new TestSession(otherTransport, signerOf(trader))
  await canceling.open(CancelOnDisconnect.SESSION)
  const plain = new TestSession(otherTransport, signerOf(trader))
  await plain.open(CancelOnDisconnect.UNSPECIFIED)
  const first = orderRequest(trader, market, { side: 'BUY', price: '0.20', size: '5' })
  const second = orderRequest(trader, market, { side: 'BUY', price: '0.21', size: '5' })
  await canceling.ask({ case: 'place', value: first.request })
  await plain.ask({ case: 'place', value: second.request })
  const stopping = other.stop()
  for (const session of [canceling, plain]) {
    const ending = await session.ended
    t.equal(ending?.grpcCode, GrpcStatus.UNAVAILABLE)
    t.equal(ending?.code, ServiceCode.ENGINE_UNAVAILABLE)
  }
  // Read as the streams end, while the server is still stopping: its read store closes last.
  t.equal(statusOf(other, first.signed.orderId), 'CANCELED', 'the canceling session\'s order')
  t.equal(statusOf(other, second.signed.orderId), 'LIVE', 'the other session asked for nothing')
  await stopping
})
