/**
 * The order-entry session (OrderEntryService.Session) against an in-process Predex: settings at
 * open, one answer per request in request order with its id and the engine's sequence number,
 * commands applied in request order while requests are pipelined (a cancel right behind its
 * place never misses it), batches with a bad order, every kind of refusal a session sees, client
 * order ids (a repeat answers with the original; reuse once it ended; cancel by client id), and
 * the rate budgets it shares with REST. Cancel on disconnect, the dead-man timer, deadlines and
 * the server's stop: order-entry-disconnect.test.ts; authentication, stream bounds and slow
 * readers: order-entry-flow.test.ts.
 */
import t from 'tap'
import { status as GrpcStatus, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js'
import { fromBinary } from '@bufbuild/protobuf'
import { GrpcTransport, l2Metadata } from '../../src/client/grpc/transport.js'
import { ApiCode } from '../../src/errors.js'
import type { ErrorDetail } from '../../src/gen/predex/v1/common_pb.js'
import { Code } from '../../src/engine/codes.js'
import {
  CancelOnDisconnect, OrderEntryService, SessionResponseSchema, type SessionResponse,
} from '../../src/gen/predex/v1/order_entry_pb.js'
import { ORDER_ENTRY_DEAD_MAN_MS_DEFAULT, ORDER_ENTRY_IN_FLIGHT_MAX, RATE_RULES } from '../../src/limits.js'
import { l2, startServer, USDC } from '../support/rest-harness.js'
import { orderRequest, signerOf, TestSession } from './order-entry-support.js'

const server = await startServer()
t.teardown(() => server.stop())
const transport = new GrpcTransport(`127.0.0.1:${server.predex.grpcPort}`)
t.teardown(() => transport.close())

/** Orders that rest: bids at 0.01..0.49 (no sells on the book). */
function bidPrice(i: number): string {
  return (0.01 + (i % 49) * 0.01).toFixed(2)
}

type Result = SessionResponse['result']
type ResultValue<C extends Result['case']> = Extract<Result, { case: C }>['value']

/** The answer's result of the kind expected (a failed test names what came instead). */
function resultOf<C extends Exclude<Result['case'], undefined>>(response: SessionResponse, expected: C): ResultValue<C> {
  if (response.result.case !== expected) {
    throw new Error(`expected ${expected}, got ${response.result.case}: ${JSON.stringify(response.result.value)}`)
  }
  return response.result.value as ResultValue<C>
}

t.test('open, ping and close: the settings as applied, a pong, then the stream ends OK', async (t) => {
  const trader = await server.trader(0)
  const session = new TestSession(transport, signerOf(trader))
  const opened = resultOf(await session.open(CancelOnDisconnect.SESSION), 'opened')
  t.equal(opened.cancelOnDisconnect, CancelOnDisconnect.SESSION)
  t.equal(opened.deadManMs, ORDER_ENTRY_DEAD_MAN_MS_DEFAULT, 'dead-man 0 asks for the default')
  t.equal(opened.inFlightMax, ORDER_ENTRY_IN_FLIGHT_MAX)
  const pong = await session.ask({ case: 'ping', value: {} })
  t.equal(pong.result.case, 'pong')
  t.equal(pong.engineSeq, 0n, 'a ping never reaches the engine')
  t.equal(pong.rateLimit, undefined, 'pings are free: no budget to show')
  t.equal(await session.close(), null, 'the stream ends OK after closed')
})

t.test('a later open, bad settings and a request without an action are refused; the session goes on', async (t) => {
  const trader = await server.trader(0)
  const session = new TestSession(transport, signerOf(trader))
  const badDeadMan = await session.open(CancelOnDisconnect.KEY, 500)
  t.equal(resultOf(badDeadMan, 'error').code, ApiCode.INVALID_PARAMETER, 'a dead-man interval under 1000 ms')
  const second = await session.open(CancelOnDisconnect.KEY)
  t.equal(resultOf(second, 'error').code, ApiCode.SESSION_PROTOCOL, 'open is only valid first')
  const empty = await session.ask(undefined as never)
  t.equal(resultOf(empty, 'error').code, ApiCode.BAD_REQUEST)
  const longId = 'x'.repeat(65)
  session.send({ case: 'ping', value: {} }, longId)
  const refused = await session.next()
  t.equal(refused.requestId, longId, 'echoed even when refused')
  t.equal(resultOf(refused, 'error').code, ApiCode.INVALID_PARAMETER)
  t.equal((await session.ask({ case: 'ping', value: {} })).result.case, 'pong')
  t.equal(await session.close(), null)
  const plain = new TestSession(transport, signerOf(trader))
  const deadManAlone = await plain.open(CancelOnDisconnect.UNSPECIFIED, 5_000)
  t.equal(resultOf(deadManAlone, 'error').code, ApiCode.INVALID_PARAMETER, 'a dead-man interval needs a cancel')
  t.equal(await plain.close(), null)
})

t.test('bytes that are not a request: an error answer with no id, and the session goes on', async (t) => {
  const trader = await server.trader(0)
  const method = OrderEntryService.method.session
  const call: ClientDuplexStream<Buffer, Buffer> = transport.client.makeBidiStreamRequest(
    `/${method.parent.typeName}/${method.name}`, (b: Buffer) => b, (b: Buffer) => b,
    l2Metadata(signerOf(trader), method, new Uint8Array(0)), {})
  const answers: SessionResponse[] = []
  const ended = new Promise<number>((resolve) => {
    call.on('error', (error: ServiceError) => resolve(error.code))
    call.on('status', (status) => resolve(status.code))
  })
  call.on('data', (bytes: Buffer) => answers.push(fromBinary(SessionResponseSchema, bytes)))
  call.write(Buffer.from([0xff, 0xff, 0xff]))
  call.write(Buffer.from([0x0a, 0x01, 0x62, 0x52, 0x00])) // request_id "b", ping
  call.write(Buffer.from([0x0a, 0x01, 0x63, 0x5a, 0x00])) // request_id "c", close
  t.equal(await ended, GrpcStatus.OK)
  t.same(answers.map((a) => [a.requestId, a.result.case]), [['', 'error'], ['b', 'pong'], ['c', 'closed']])
  t.equal(answers[0]!.result.case === 'error' && answers[0]!.result.value.code, ApiCode.BAD_REQUEST)
})

t.test('hundreds of pipelined requests of every kind: answered in order, ids echoed, seqs increasing', async (t) => {
  const trader = await server.trader(10_000 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.UNSPECIFIED)
  const sent: { id: string; kind: string }[] = []
  const placed: string[] = []
  for (let i = 0; i < 400; i++) {
    const kind = ['place', 'place', 'place', 'cancel', 'ping', 'placeBatch', 'cancelMany', 'cancelMarket'][i % 8]!
    let id: string
    if (kind === 'place') {
      const { signed, request } = orderRequest(trader, market, { side: 'BUY', price: bidPrice(i), size: '5' })
      placed.push(signed.orderId)
      id = session.send({ case: 'place', value: request })
    } else if (kind === 'cancel') {
      id = session.send({ case: 'cancel', value: { orderId: placed[placed.length - 2]! } })
    } else if (kind === 'placeBatch') {
      const orders = [0, 1].map((k) => orderRequest(trader, market, { side: 'BUY', price: bidPrice(i + k), size: '5' }))
      id = session.send({ case: 'placeBatch', value: { orders: orders.map((o) => o.request) } })
    } else if (kind === 'cancelMany') {
      id = session.send({ case: 'cancelMany', value: { orderIds: placed.slice(-3) } })
    } else if (kind === 'cancelMarket') {
      id = session.send({ case: 'cancelMarket', value: { market: i % 16 === 7 ? market.marketId : '' } })
    } else {
      id = session.send({ case: 'ping', value: {} })
    }
    sent.push({ id, kind })
  }
  let lastSeq = 0n
  let engineAnswers = 0
  const problems: string[] = []
  for (const { id, kind } of sent) {
    const response = await session.next()
    if (response.requestId !== id) problems.push(`expected ${id}, got ${response.requestId}`)
    const expected = { place: 'order', placeBatch: 'batch', ping: 'pong' }[kind as string] ?? 'canceled'
    if (response.result.case !== expected) problems.push(`${id} (${kind}): ${response.result.case}`)
    if (kind === 'ping') continue
    if (response.engineSeq <= lastSeq) problems.push(`${id}: seq ${response.engineSeq} after ${lastSeq}`)
    lastSeq = response.engineSeq
    engineAnswers++
  }
  t.same(problems, [], `${sent.length} answers in request order, ${engineAnswers} with increasing engine seqs`)
  t.equal(await session.close(), null)
})

t.test('a cancel right behind its place always finds it (commands reach the engine in request order)', async (t) => {
  const trader = await server.trader(10_000 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.UNSPECIFIED)
  const pairs = 300
  const ids: string[] = []
  for (let i = 0; i < pairs; i++) {
    const { signed, request } = orderRequest(trader, market, { side: 'BUY', price: bidPrice(i), size: '5' })
    ids.push(signed.orderId)
    session.send({ case: 'place', value: request })
    session.send({ case: 'cancel', value: { orderId: signed.orderId } })
  }
  const misses: string[] = []
  for (let i = 0; i < pairs; i++) {
    const place = await session.next()
    const cancel = await session.next()
    const ack = resultOf(place, 'order')
    const canceled = resultOf(cancel, 'canceled')
    if (ack.orderId !== ids[i] || ack.status !== 'live') misses.push(`place ${i}: ${ack.status} ${ack.error?.code}`)
    if (canceled.canceled[0] !== ids[i]) misses.push(`cancel ${i}: ${JSON.stringify(canceled.notCanceled)}`)
    if (cancel.engineSeq <= place.engineSeq) misses.push(`cancel ${i} seq ${cancel.engineSeq} <= ${place.engineSeq}`)
  }
  t.same(misses, [], `${pairs} place/cancel pairs, every cancel found its order`)
  t.equal(await session.close(), null)
})

t.test('a batch with one bad order: an ack per order, the bad one refused, the others placed', async (t) => {
  const trader = await server.trader(1_000 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.UNSPECIFIED)
  const good = [0, 1].map((i) => orderRequest(trader, market, { side: 'BUY', price: bidPrice(i), size: '5' }))
  const tampered = orderRequest(trader, market, { side: 'BUY', price: '0.30', size: '5' }).request
  tampered.order = { ...tampered.order!, makerAmount: '9999999' }
  const response = await session.ask({ case: 'placeBatch',
    value: { orders: [good[0]!.request, tampered, good[1]!.request] } })
  const acks = resultOf(response, 'batch').orders
  t.equal(acks.length, 3)
  t.same(acks.map((a) => a.status), ['live', '', 'live'])
  t.equal(acks[0]!.orderId, good[0]!.signed.orderId)
  t.equal(acks[1]!.error?.code, ApiCode.INVALID_SIGNATURE, 'the order whose signature does not match')
  t.equal(acks[2]!.orderId, good[1]!.signed.orderId)
  t.ok(response.engineSeq > 0n, 'the batch command has its seq')
  const tooBig = await session.ask({ case: 'placeBatch', value: { orders: Array(11).fill(good[0]!.request) } })
  t.equal(resultOf(tooBig, 'error').code, Code.BATCH_TOO_LARGE, 'a batch over the bound is refused whole')
  t.equal(await session.close(), null)
})

t.test('refusals a session sees: each with its code, and the session goes on', async (t) => {
  const trader = await server.trader(10 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.UNSPECIFIED)
  const bad = orderRequest(trader, market, { side: 'BUY', price: '0.30', size: '5' }).request
  bad.order = { ...bad.order!, signature: '0x' + '11'.repeat(65) }
  const badSignature = resultOf(await session.ask({ case: 'place', value: bad }), 'order')
  t.equal(badSignature.error?.code, ApiCode.INVALID_SIGNATURE, 'bad signature')
  t.equal(badSignature.status, '')
  const rich = orderRequest(trader, market, { side: 'BUY', price: '0.50', size: '100' })
  const poor = await session.ask({ case: 'place', value: rich.request })
  t.equal(resultOf(poor, 'order').error?.code, Code.INVALID_ORDER_NOT_ENOUGH_BALANCE, 'not enough balance')
  t.equal(resultOf(poor, 'order').orderId, rich.signed.orderId, 'the refused order named by its id')
  const noOrder = await session.ask({ case: 'place', value: {} })
  t.equal(resultOf(noOrder, 'order').error?.code, ApiCode.INVALID_PARAMETER, 'an order request without an order')
  t.equal(noOrder.engineSeq, 0n, 'refused before the engine: no seq')
  const unknownId = '0x' + 'ab'.repeat(32)
  const unknown = await session.ask({ case: 'cancel', value: { orderId: unknownId } })
  t.same(Object.keys(resultOf(unknown, 'canceled').notCanceled), [unknownId], 'unknown order: not canceled')
  t.ok(unknown.engineSeq > 0n, 'the engine said so (journaled)')
  const malformed = await session.ask({ case: 'cancel', value: { orderId: 'not-an-id' } })
  t.equal(resultOf(malformed, 'error').code, ApiCode.INVALID_PARAMETER, 'bad input: a malformed order id')
  const noMarket = await session.ask({ case: 'cancelMarket', value: { market: 'no-such-market' } })
  t.equal(resultOf(noMarket, 'error').code, Code.MARKET_NOT_FOUND)
  t.equal((await session.ask({ case: 'ping', value: {} })).result.case, 'pong', 'the session goes on')
  t.equal(await session.close(), null)
})

t.test('client order ids: a repeat answers with the original, reuse once it ended, cancel by client id', async (t) => {
  const trader = await server.trader(1_000 * USDC)
  const market = await server.createMarket()
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.UNSPECIFIED)
  const first = orderRequest(trader, market, { side: 'BUY', price: '0.20', size: '5' }, { clientOrderId: 'quote-1' })
  const placed = resultOf(await session.ask({ case: 'place', value: first.request }), 'order')
  t.match(placed, { orderId: first.signed.orderId, clientOrderId: 'quote-1', status: 'live', duplicate: false })
  const again = orderRequest(trader, market, { side: 'BUY', price: '0.21', size: '5' }, { clientOrderId: 'quote-1' })
  const repeat = resultOf(await session.ask({ case: 'place', value: again.request }), 'order')
  t.match(repeat, { orderId: first.signed.orderId, clientOrderId: 'quote-1', status: 'LIVE', duplicate: true },
    'the original order, no second one')
  t.equal(repeat.error?.code, Code.CLIENT_ORDER_ID_DUPLICATED)
  t.equal(server.predex.context.read.order(again.signed.orderId), undefined, 'the repeat was not placed')
  const canceled = await session.ask({ case: 'cancelByClientIds', value: { clientOrderIds: ['quote-1', 'nope'] } })
  t.same(resultOf(canceled, 'canceled').canceled, [first.signed.orderId])
  t.same(Object.keys(resultOf(canceled, 'canceled').notCanceled), ['nope'])
  const reused = resultOf(await session.ask({ case: 'place', value: again.request }), 'order')
  t.match(reused, { orderId: again.signed.orderId, status: 'live', duplicate: false }, 'reused once the first ended')
  const inBatch = orderRequest(trader, market, { side: 'BUY', price: '0.22', size: '5' }, { clientOrderId: 'quote-1' })
  const batch = resultOf(await session.ask({ case: 'placeBatch', value: { orders: [inBatch.request] } }), 'batch')
  t.match(batch.orders[0], { orderId: again.signed.orderId, duplicate: true, status: 'LIVE' }, 'in a batch too')
  t.equal(await session.close(), null)
})

t.test('requests draw on the REST budgets of their use case; a refused one leaves the session open', async (t) => {
  const trader = await server.trader(0)
  const burst: number = RATE_RULES.cancelAll.burst
  for (let i = 0; i < 12; i++) {
    const replies = await Promise.all(Array.from({ length: 20 }, () => l2(server, trader, 'DELETE', '/cancel-all')))
    if (!t.same(replies.map((r) => r.status), Array(20).fill(200))) t.bailout()
  }
  const session = new TestSession(transport, signerOf(trader))
  await session.open(CancelOnDisconnect.UNSPECIFIED)
  const first = await session.ask({ case: 'cancelAll', value: {} })
  t.equal(first.rateLimit?.limit, burst, 'the budget of DELETE /cancel-all')
  // 240 taken over REST, less what refilled meanwhile (a tenth of the burst a second).
  t.ok(first.rateLimit !== undefined && first.rateLimit.remaining < 100,
    `REST's 240 requests counted: ${first.rateLimit?.remaining} of ${burst} left`)
  const flood = 2 * burst
  for (let i = 0; i < flood; i++) session.send({ case: 'cancelAll', value: {} })
  const limited: SessionResponse[] = []
  for (let i = 0; i < flood; i++) {
    const response = await session.next()
    if (response.result.case === 'error') limited.push(response)
  }
  t.ok(limited.length > 0, `${limited.length} of ${flood} refused`)
  const refusal = limited[0]?.result.value as ErrorDetail | undefined
  t.equal(refusal?.code, ApiCode.RATE_LIMITED, 'RATE_LIMITED')
  t.ok(Number(refusal?.context['retryAfterSeconds']) >= 1, 'with retryAfterSeconds in the context')
  t.equal(limited[0]?.rateLimit?.remaining, 0, 'and nothing left in the answer\'s budget')
  t.equal((await session.ask({ case: 'ping', value: {} })).result.case, 'pong', 'the session goes on')
  t.equal(await session.close(), null)
})
