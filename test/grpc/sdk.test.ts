/**
 * The gRPC SDK (src/client/grpc) against a real Predex: unary calls typed end to end (a signed
 * order from orders.ts placed, read back and cancelled; a refusal as a GrpcCallError with the
 * catalogue code); an order-entry session whose promises settle in request order (a refusal
 * rejects, a repeated client order id resolves with the original, a clean close keeps the
 * orders, a dropped session rejects what was waiting); a book stream that yields snapshots then
 * deltas, resubscribes after a message is lost (a test hook drops one) and ends with the REST
 * book; a user stream whose call is killed under it and that resumes without losing or
 * repeating an update; iterators that end on `break` and on the client's close.
 */
import t from 'tap'
import type { DescMessage, DescMethod, MessageInitShape, MessageShape } from '@bufbuild/protobuf'
import type { CallOptions, ClientReadableStream } from '@grpc/grpc-js'
import { GrpcCallError, GrpcTransport, type GrpcSigner } from '../../src/client/grpc/transport.js'
import { PredexGrpcClient } from '../../src/client/grpc/predex-grpc-client.js'
import { SessionRequestError } from '../../src/client/grpc/order-entry-session.js'
import { microsOf, type Level } from '../../src/client/grpc/local-book.js'
import type { BookUpdate } from '../../src/client/grpc/book-stream.js'
import { signLimitOrder } from '../../src/client/orders.js'
import { AssetType } from '../../src/gen/predex/v1/account_pb.js'
import type { UserStreamResponse } from '../../src/gen/predex/v1/streams_pb.js'
import { get, placeLimit, startServer, termsOf, USDC, type Trader } from '../support/rest-harness.js'

const WAIT_MS = 10_000

const server = await startServer()
const target = `127.0.0.1:${server.predex.grpcPort}`
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const terms = termsOf(market)
const trader = await server.trader(10_000 * USDC)
await server.command({ kind: 'split', address: trader.address, marketId: market.marketId, amountMicros: 500 * USDC })
const signerOf = (who: Trader) => ({ credentials: who.credentials, address: who.address })
const client = new PredexGrpcClient({ target, signer: signerOf(trader) })
t.teardown(async () => {
  client.close()
  await server.stop()
})

/** `promise`, or a failure after `ms` (every wait of this file is bounded). */
function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Reads `iterator` until `predicate` holds for a value (bounded); returns every value read. */
async function readUntil<T>(iterator: AsyncIterator<T>, predicate: (value: T) => boolean, what: string): Promise<T[]> {
  const read: T[] = []
  for (;;) {
    const next = await within(iterator.next(), what)
    if (next.done === true) throw new Error(`the iterator ended while waiting for ${what}`)
    read.push(next.value)
    if (predicate(next.value)) return read
  }
}

function bid(price: string, size = '10') {
  return signLimitOrder(trader.wallet, terms, { tokenId: market.yesTokenId, side: 'BUY', price, size })
}

t.test('unary calls: a signed order placed, read back and cancelled; a refusal is a GrpcCallError', async (t) => {
  const listed = await client.getMarket({ market: market.marketId })
  t.equal(listed.market?.yesTokenId, market.yesTokenId, 'GetMarket answers a typed Market')
  const signed = bid('0.20')
  const placement = await client.placeSigned(signed, { clientOrderId: 'unary-1' })
  t.equal(placement.orderId, signed.orderId, 'PlaceOrder: the order id is the signed hash')
  t.equal(placement.status, 'live')
  const { order } = await client.getOrder({ orderId: signed.orderId })
  t.equal(order?.status, 'LIVE')
  t.equal(order?.clientOrderId, 'unary-1')
  t.equal(order?.price, '0.2')
  const balance = await client.getBalanceAllowance({ assetType: AssetType.COLLATERAL })
  t.ok(BigInt(balance.balanceMicros) > 0n, 'GetBalanceAllowance: micro-units as an integer string')
  const book = await client.getBook({ tokenId: market.yesTokenId })
  t.same(book.book?.bids.map((level) => level.price), ['0.2'], 'GetBook shows the bid')
  const { result } = await client.cancelOrder({ orderId: signed.orderId })
  t.same(result?.canceled, [signed.orderId])
  const refused = await client.getOrder({ orderId: `0x${'ab'.repeat(32)}` }).catch((error: unknown) => error)
  t.ok(refused instanceof GrpcCallError, 'a refusal rejects with a GrpcCallError')
  t.equal((refused as GrpcCallError).code, 'ORDER_UNKNOWN')
  const anonymous = new PredexGrpcClient({ target })
  t.teardown(() => anonymous.close())
  t.throws(() => anonymous.listOpenOrders(), /no signer/, 'an L2 method needs a signer')
})

t.test('a session: one promise per request, settled in request order', async (t) => {
  const session = await client.session({ cancelOnDisconnect: 'session', deadManMs: 5_000 })
  t.equal(session.opened?.deadManMs, 5_000, 'the server applied the dead-man interval')
  const settled: string[] = []
  const track = <T>(name: string, promise: Promise<T>): Promise<T> => {
    promise.then(() => settled.push(name), () => settled.push(name))
    return promise
  }
  const orders = ['0.11', '0.12', '0.13', '0.14'].map((price) => bid(price))
  const places = orders.map((signed, i) => track(`place ${i}`, session.place(signed, { clientOrderId: `s-${i}` })))
  const tooBig = track('too big', session.place(bid('0.15', '1000000')))
  const repeat = track('repeat', session.place(bid('0.16'), { clientOrderId: 's-0' }))
  const cancel = track('cancel', session.cancel(orders[3]!.orderId))
  const ping = track('ping', session.ping())
  const results = await within(Promise.allSettled([...places, tooBig, repeat, cancel, ping]), 'the answers')
  t.same(settled, ['place 0', 'place 1', 'place 2', 'place 3', 'too big', 'repeat', 'cancel', 'ping'],
    'settled in the order of the requests')
  for (const [i, place] of places.entries()) {
    const ack = (await place).value
    t.equal(ack.orderId, orders[i]!.orderId)
    t.equal(ack.status, 'live')
  }
  t.ok((await places[3]!).engineSeq > (await places[0]!).engineSeq, 'engine sequence numbers grow')
  const refusal = results[4]
  t.equal(refusal?.status, 'rejected', 'a refused order rejects')
  const error = (refusal as PromiseRejectedResult).reason as SessionRequestError
  t.ok(error instanceof SessionRequestError && error instanceof GrpcCallError, 'with a GrpcCallError-like error')
  t.equal(error.code, 'INVALID_ORDER_NOT_ENOUGH_BALANCE')
  const duplicate = (await repeat).value
  t.ok(duplicate.duplicate, 'a repeated client order id resolves, marked duplicate')
  t.equal(duplicate.orderId, orders[0]!.orderId, 'with the original order')
  t.same((await cancel).value.canceled, [orders[3]!.orderId])
  t.equal((await ping).engineSeq, 0n, 'a ping never reaches the engine')
  const batch = await session.placeBatch([{ signed: bid('0.17') }, { signed: bid('0.18', '1000000') }])
  t.same(batch.value.orders.map((ack) => ack.error?.code ?? 'placed'), ['placed', 'INVALID_ORDER_NOT_ENOUGH_BALANCE'],
    'a batch resolves; each ack says whether its order was placed')
  const byClientIds = await session.cancelByClientOrderIds(['s-1'])
  t.same(byClientIds.value.canceled, [orders[1]!.orderId], 'cancel by client order id')
  await within(session.close(), 'a clean close')
  t.equal(await session.ended, null, 'a clean close ends with null')
  const { order } = await client.getOrder({ orderId: orders[0]!.orderId })
  t.equal(order?.status, 'LIVE', 'a clean close cancels nothing')
  await t.rejects(session.ping(), GrpcCallError, 'a closed session refuses requests')
  await t.rejects(client.session({ deadManMs: 5_000 }), { code: 'INVALID_PARAMETER' },
    'options the server refuses: opening rejects with its code')
  await client.cancelAll()
})

t.test('a dropped session rejects what was waiting; cancel on disconnect cancels', async (t) => {
  const session = await client.session({ cancelOnDisconnect: 'session' })
  const placed = await session.place(bid('0.21'))
  const waiting = session.place(bid('0.22'))
  session.disconnect()
  await t.rejects(within(waiting, 'the rejection'), GrpcCallError, 'the request in flight rejects with the status')
  t.not(await session.ended, null, 'ended resolves with the stream status')
  const canceled = async (): Promise<boolean> =>
    (await client.getOrder({ orderId: placed.value.orderId })).order?.status === 'CANCELED'
  const deadline = Date.now() + WAIT_MS
  while (!(await canceled()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  t.ok(await canceled(), 'the session\'s order was cancelled by the server')
  await client.cancelAll()
})

/** A REST book's side as levels in micro-units, best first (REST lists the best last). */
function restLevels(levels: readonly { price: string; size: string }[]): Level[] {
  return [...levels].reverse()
    .map((level) => ({ priceMicros: microsOf(level.price), sizeMicros: microsOf(level.size) }))
}

t.test('book stream: a snapshot, then deltas; a lost message makes it resubscribe and converge', async (t) => {
  let levelsSeen = 0
  const stream = client.bookStream([market.yesTokenId], {
    // Lose the second level change: the third shows a gap.
    lose: (message) => message.update.case === 'levels' && ++levelsSeen === 2,
  })
  const updates = stream[Symbol.asyncIterator]()
  const [first] = await readUntil(updates, () => true, 'the snapshot')
  t.equal(first?.kind, 'snapshot', 'a snapshot first')
  t.same(first?.kind === 'snapshot' && first.resubscribed, false)
  await placeLimit(server, trader, market, { side: 'BUY', price: '0.30', size: '10' })
  const delta = await readUntil(updates, (u) => u.kind === 'levels', 'a level change')
  t.same(stream.books.get(market.yesTokenId)?.bestBid(), { priceMicros: 300_000n, sizeMicros: 10_000_000n },
    'the delta is in the local book')
  t.equal(delta.at(-1)?.kind, 'levels')
  await placeLimit(server, trader, market, { side: 'BUY', price: '0.31', size: '5' }) // lost on the way
  await placeLimit(server, trader, market, { side: 'SELL', price: '0.70', size: '8' }) // shows the gap
  const again = await readUntil(updates, (u: BookUpdate) => u.kind === 'snapshot' && u.resubscribed, 'a resubscribe')
  t.ok(again.length >= 1, 'a fresh snapshot after the gap')
  t.equal(stream.subscriptions, 2, 'one resubscribe')
  await placeLimit(server, trader, market, { side: 'SELL', price: '0.69', size: '3' })
  await readUntil(updates, (u) => u.kind === 'levels', 'the next change')
  const rest = (await get(server, `/book?token_id=${market.yesTokenId}`)).body
  const local = stream.books.get(market.yesTokenId)!
  t.same(local.bids(), restLevels(rest.bids), 'the local bids equal the REST book')
  t.same(local.asks(), restLevels(rest.asks), 'the local asks equal the REST book')
  await updates.return?.()
  await client.cancelAll()
})

/** A transport that keeps the server-stream calls it opens, so a test can kill one under the SDK. */
class RecordingTransport extends GrpcTransport {
  readonly calls: ClientReadableStream<unknown>[] = []
  override serverStream<I extends DescMessage, O extends DescMessage>(method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>, signer: GrpcSigner | null, options?: CallOptions):
    ClientReadableStream<MessageShape<O>> {
    const call = super.serverStream(method, request, signer, options)
    this.calls.push(call as ClientReadableStream<unknown>)
    return call
  }
}

t.test('user stream: a killed call is resumed from the last number, nothing lost or repeated', async (t) => {
  const transport = new RecordingTransport(target)
  const resuming = new PredexGrpcClient({ transport, signer: signerOf(trader) })
  t.teardown(() => resuming.close())
  // A second's pause before the reconnect: B and C are placed while no call is open, so only a resume brings them.
  const stream = resuming.userStream({ delayMsMin: 1_000 })
  const updates = stream[Symbol.asyncIterator]()
  const read: UserStreamResponse[] = []
  read.push(...await readUntil(updates, (u) => u.update.case === 'snapshot', 'the snapshot'))
  const a = await placeLimit(server, trader, market, { side: 'BUY', price: '0.05', size: '10' })
  const isOrder = (id: string) => (u: UserStreamResponse) => u.update.case === 'order' && u.update.value.id === id
  read.push(...await readUntil(updates, isOrder(a.signed.orderId), 'order A'))
  transport.calls.at(-1)!.cancel() // the network fails under the iterator
  const b = await placeLimit(server, trader, market, { side: 'BUY', price: '0.06', size: '10' })
  const c = await placeLimit(server, trader, market, { side: 'BUY', price: '0.07', size: '10' })
  read.push(...await readUntil(updates, isOrder(c.signed.orderId), 'order C after the resume'))
  t.equal(stream.connections, 2, 'one reconnect')
  t.notOk(read.some((u) => u.update.case === 'gap'), 'a resume, not a gap')
  const seqs = read.map((u) => u.seq)
  t.same(seqs, seqs.map((_, i) => seqs[0]! + BigInt(i)), 'the numbers run on without a hole or a repeat')
  for (const placed of [a, b, c]) {
    t.equal(read.filter(isOrder(placed.signed.orderId)).length, 1, 'each order update exactly once')
  }
  t.same(stream.cursor, { epoch: read.at(-1)!.epoch, seq: read.at(-1)!.seq }, 'the cursor is the last update')
  await updates.return?.()
  await client.cancelAll()
})

t.test('iterators end on break and on the client\'s close', async (t) => {
  const closing = new PredexGrpcClient({ target, signer: signerOf(trader) })
  let snapshots = 0
  for await (const update of closing.bookStream([market.yesTokenId])) {
    if (update.kind === 'snapshot') snapshots++
    break
  }
  t.equal(snapshots, 1, 'a break ends the loop')
  const user = (async () => {
    let count = 0
    for await (const _ of closing.userStream()) count++
    return count
  })()
  const book = (async () => {
    let count = 0
    for await (const _ of closing.bookStream([market.yesTokenId])) count++
    return count
  })()
  await new Promise((resolve) => setTimeout(resolve, 300))
  closing.close()
  const [userCount, bookCount] = await within(Promise.all([user, book]), 'the loops to end')
  t.ok(userCount >= 1 && bookCount >= 1, 'both loops had their snapshot and ended without an error')
})
