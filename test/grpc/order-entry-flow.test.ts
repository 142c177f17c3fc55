/**
 * The order-entry session's gate and bounds: authentication once at open (no credentials, a bad
 * HMAC: UNAUTHENTICATED with the catalogue code), at most GRPC_STREAMS_PER_KEY_MAX sessions per
 * key (TOO_MANY_STREAMS, and the slot comes back when one ends), a client that stops reading
 * (ended with SLOW_CONSUMER while a session of another client keeps its acks prompt), and more
 * than ORDER_ENTRY_IN_FLIGHT_MAX requests unanswered (SESSION_PROTOCOL; on a fake call, where a
 * burst of requests can be delivered in one go).
 */
import t from 'tap'
import { EventEmitter } from 'node:events'
import { create, toBinary } from '@bufbuild/protobuf'
import { Metadata, status as GrpcStatus, type ServiceError, type StatusObject } from '@grpc/grpc-js'
import { Gate } from '../../src/auth/gate.js'
import { GrpcTransport, callErrorOf, l2Metadata } from '../../src/client/grpc/transport.js'
import { ApiCode, AuthCode } from '../../src/errors.js'
import { CancelOnDisconnect, OrderEntryService, SessionRequestSchema } from '../../src/gen/predex/v1/order_entry_pb.js'
import { GRPC_STREAM_BACKLOG_MESSAGES_MAX, GRPC_STREAMS_PER_KEY_MAX, ORDER_ENTRY_IN_FLIGHT_MAX } from '../../src/limits.js'
import type { GrpcFace } from '../../src/api/grpc/call.js'
import { OrderEntry } from '../../src/api/grpc/order-entry.js'
import { CODE_TRAILER } from '../../src/api/grpc/status.js'
import { StreamSlots } from '../../src/api/grpc/stream-slots.js'
import { l2, startServer, USDC } from '../support/rest-harness.js'
import { orderRequest, signerOf, TestSession } from './order-entry-support.js'
import { eventually } from '../support/eventually.js'
import { lineLog, SILENT_LOG } from '../../src/log.js'
import { KeyRevocations } from '../../src/service/account/key-revocations.js'

const server = await startServer()
t.teardown(() => server.stop())
const target = `127.0.0.1:${server.predex.grpcPort}`
const transport = new GrpcTransport(target)
t.teardown(() => transport.close())

t.test('authentication at open: no credentials, a bad HMAC', async (t) => {
  const trader = await server.trader(0)
  const method = OrderEntryService.method.session
  const path = `/${method.parent.typeName}/${method.name}`
  const openWith = (metadata: Metadata): Promise<ServiceError> => new Promise((resolve) => {
    const call = transport.client.makeBidiStreamRequest(path, (b: Buffer) => b, (b: Buffer) => b, metadata, {})
    call.on('error', resolve)
    call.on('data', () => undefined)
  })
  const bare = callErrorOf(await openWith(new Metadata()))
  t.equal(bare.grpcCode, GrpcStatus.UNAUTHENTICATED)
  t.equal(bare.code, AuthCode.AUTH_HEADERS_MISSING)
  const forged = signerOf({ ...trader, credentials: { ...trader.credentials, secret: Buffer.alloc(32, 7).toString('base64') } })
  const badHmac = callErrorOf(await openWith(l2Metadata(forged, method, new Uint8Array(0))))
  t.equal(badHmac.grpcCode, GrpcStatus.UNAUTHENTICATED)
  t.equal(badHmac.code, AuthCode.AUTH_SIGNATURE)
  const signedOverBytes = callErrorOf(await openWith(l2Metadata(signerOf(trader), method, new Uint8Array([1]))))
  t.equal(signedOverBytes.code, AuthCode.AUTH_SIGNATURE, 'a session is signed over no request bytes')
})

t.test('too many sessions for one key: TOO_MANY_STREAMS, and a slot comes back when a session ends', async (t) => {
  const trader = await server.trader(0)
  const sessions = Array.from({ length: GRPC_STREAMS_PER_KEY_MAX }, () => new TestSession(transport, signerOf(trader)))
  for (const session of sessions) t.equal((await session.ask({ case: 'ping', value: {} })).result.case, 'pong')
  const extra = new TestSession(transport, signerOf(trader))
  const refused = await extra.ended
  t.equal(refused?.grpcCode, GrpcStatus.RESOURCE_EXHAUSTED)
  t.equal(refused?.code, ApiCode.TOO_MANY_STREAMS)
  t.same(refused?.context, { max: GRPC_STREAMS_PER_KEY_MAX })
  const other = new TestSession(transport, signerOf(await server.trader(0)))
  t.equal((await other.ask({ case: 'ping', value: {} })).result.case, 'pong', 'another key has its own slots')
  t.equal(await sessions[0]!.close(), null)
  const again = new TestSession(transport, signerOf(trader))
  t.equal((await again.ask({ case: 'ping', value: {} })).result.case, 'pong', 'the closed session\'s slot')
  for (const session of [...sessions.slice(1), again, other]) t.equal(await session.close(), null)
})

t.test('a client that stops reading is ended (SLOW_CONSUMER); another client\'s acks stay prompt', async (t) => {
  const slowTrader = await server.trader(100 * USDC)
  const market = await server.createMarket()
  const slow = new TestSession(transport, signerOf(slowTrader))
  await slow.open(CancelOnDisconnect.KEY)
  const { signed, request } = orderRequest(slowTrader, market, { side: 'BUY', price: '0.20', size: '5' })
  await slow.ask({ case: 'place', value: request })
  slow.call.pause()
  // Answers of ~80 bytes: HTTP/2's window holds a thousand or so, the server's backlog the rest.
  const pings = GRPC_STREAM_BACKLOG_MESSAGES_MAX + 5_000
  const idOf = (i: number): string => String(i).padStart(64, '0')
  for (let i = 0; i < pings; i++) slow.send({ case: 'ping', value: {} }, idOf(i))
  const otherTransport = new GrpcTransport(target)
  t.teardown(() => otherTransport.close())
  const prompt = new TestSession(otherTransport, signerOf(await server.trader(0)))
  const roundTripsMs: number[] = []
  while (server.predex.context.read.order(signed.orderId)?.status === 'LIVE') {
    const started = Date.now()
    await prompt.ask({ case: 'ping', value: {} })
    roundTripsMs.push(Date.now() - started)
    if (roundTripsMs.length > 600) break
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  t.equal(server.predex.context.read.order(signed.orderId)?.status, 'CANCELED',
    'the slow session was ended (its cancel on disconnect ran)')
  const slowestMs = Math.max(...roundTripsMs)
  t.ok(slowestMs < 1_000, `${roundTripsMs.length} pings of another client meanwhile, the slowest ${slowestMs} ms`)
  slow.call.resume()
  const ending = await slow.ended
  t.equal(ending?.grpcCode, GrpcStatus.RESOURCE_EXHAUSTED)
  t.equal(ending?.code, ApiCode.SLOW_CONSUMER)
  t.ok(slow.pending < pings, `the backlog was dropped: ${slow.pending} of ${pings} answers reached the client`)
  t.equal(await prompt.close(), null)
})

/** A grpc-js server call as far as the session's face uses it, with what was written and how it ended. */
class FakeCall extends EventEmitter {
  readonly written: unknown[] = []
  status: Partial<StatusObject> | null = null
  cancelled = false

  constructor(readonly metadata: Metadata) {
    super()
    // As grpc-js's own: an 'error' is the call's status.
    this.on('error', (status: Partial<StatusObject>) => void (this.status = status))
  }

  getPeer(): string {
    return '127.0.0.1:5000'
  }

  write(message: unknown): boolean {
    this.written.push(message)
    return true
  }

  end(): void {
    this.status = { code: GrpcStatus.OK }
  }
}

t.test('more than ORDER_ENTRY_IN_FLIGHT_MAX requests unanswered end the session (SESSION_PROTOCOL)', async (t) => {
  const trader = await server.trader(0)
  const { apiKey, secret, passphrase } = trader.credentials
  const lookup = (key: string) => (key === apiKey ? { apiKey, address: trader.address, secret, passphrase, nonce: 0 }
    : undefined)
  const gate = new Gate({ chainId: 80002, window: { pastSec: 60, futureSec: 10 }, adminKey: 'k'.repeat(40), lookup,
    clock: { nowSec: () => Math.floor(Date.now() / 1000), nowMs: () => performance.now() }, limiter: null,
    log: SILENT_LOG })
  const logged: string[] = []
  const face = { context: server.predex.context, gate, log: lineLog((line) => logged.push(line)),
    keyStreams: new StreamSlots('streams', GRPC_STREAMS_PER_KEY_MAX),
    revocations: new KeyRevocations() } as unknown as GrpcFace
  const orderEntry = new OrderEntry(face)
  const call = new FakeCall(l2Metadata(signerOf(trader), OrderEntryService.method.session, new Uint8Array(0)))
  orderEntry.implementation()['session']!(call as never, undefined as never)
  const ping = Buffer.from(toBinary(SessionRequestSchema, create(SessionRequestSchema,
    { requestId: 'p', action: { case: 'ping', value: {} } })))
  // All at once, before any answer can be written (answers are written from promise callbacks).
  for (let i = 0; i <= ORDER_ENTRY_IN_FLIGHT_MAX; i++) call.emit('data', ping)
  await eventually(() => call.status !== null, 5_000, 'the end')
  t.equal(call.status?.code, GrpcStatus.INVALID_ARGUMENT)
  t.equal(call.status?.metadata?.get(CODE_TRAILER)[0], ApiCode.SESSION_PROTOCOL)
  t.match(call.status?.details, /more than 1000 requests/)
  t.equal(call.written.length, ORDER_ENTRY_IN_FLIGHT_MAX, 'the requests in the bound were answered')
  t.equal(face.keyStreams.openOf(apiKey), 0, 'the slot was given back')
  t.same(call.eventNames(), ['error'], 'no listener of the session left on the call')
})

t.test("revoking the session's key ends it at once (AUTH_UNKNOWN_KEY), with its cancel on disconnect", async (t) => {
  const trader = await server.trader(100 * USDC)
  const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.KEY)
  const { signed, request } = orderRequest(trader, market, { side: 'BUY', price: '0.20', size: '5' })
  const placed = await session.ask({ case: 'place', value: request })
  t.equal(placed.result.case, 'order')
  const revoked = await l2(server, trader, 'DELETE', '/auth/api-key')
  t.same(revoked.body, { deleted: true })
  const ending = await session.ended
  t.equal(ending?.grpcCode, GrpcStatus.UNAUTHENTICATED)
  t.equal(ending?.code, AuthCode.AUTH_UNKNOWN_KEY, 'the session ends with the reason')
  await eventually(() => server.predex.context.read.order(signed.orderId)?.status === 'CANCELED', 5_000,
    'its cancel on disconnect')
  t.pass('the key\'s order was cancelled as the session asked')
})
