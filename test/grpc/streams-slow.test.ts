/**
 * Flow control of the server streams, against a real server over loopback: a client that stops
 * reading its book stream is ended with SLOW_CONSUMER (RESOURCE_EXHAUSTED) once more than
 * GRPC_STREAM_BACKLOG_MESSAGES_MAX messages wait for it, while another subscriber of the same
 * tokens, on its own connection, gets every update in time; and stopping the server ends the
 * open streams with UNAVAILABLE.
 *
 * The updates are made straight through the engine (batches of ten orders, one per token, then
 * their cancel): each command changes ten tokens' books, so a stream following the ten tokens
 * gets ten messages per command.
 */
import t from 'tap'
import { status } from '@grpc/grpc-js'
import { GrpcTransport } from '../../src/client/grpc/transport.js'
import { StreamService, type BookStreamResponse, type UserStreamResponse } from '../../src/gen/predex/v1/streams_pb.js'
import { GRPC_STREAM_BACKLOG_MESSAGES_MAX } from '../../src/limits.js'
import type { OrderInput } from '../../src/engine/command.js'
import { startServer, USDC, type Trader } from '../support/rest-harness.js'
import { Reader, signerOf } from './streams-support.js'

// Commands in flight at once: enough for group commits; the reading client catches up after
// each group (a grpc-js stream delivers about one message per event-loop turn, a few thousand a
// second here with the engine in the same process), so only the slow client's backlog grows.
const COMMANDS_IN_FLIGHT = 20

const server = await startServer({ argv: ['--durability', 'async'] })
t.teardown(() => server.stop())
const target = `127.0.0.1:${server.predex.grpcPort}`
const grpc = new GrpcTransport(target)
t.teardown(() => grpc.close())

let orderCounter = 0

function restingBuy(trader: Trader, tokenId: string): OrderInput {
  orderCounter++
  return {
    orderId: `0xc${orderCounter.toString(16).padStart(63, '0')}`, owner: trader.credentials.apiKey,
    maker: trader.address, signer: trader.address, tokenId, side: 'BUY', makerAmountMicros: 50_000,
    takerAmountMicros: 5 * USDC, expirationSec: 0, feeRateBps: 0, timeInForce: 'GTC', postOnly: false,
    clientOrderId: '',
  }
}

/** Ten orders (one per token) in one command, then their cancel in another: two messages per token. */
async function churn(trader: Trader, tokens: readonly string[]): Promise<void> {
  const orders = tokens.map((token) => restingBuy(trader, token))
  await server.command({ kind: 'placeOrders', orders })
  await server.command({ kind: 'cancelOrders', address: trader.address, orderIds: orders.map((o) => o.orderId) })
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  return condition()
}

t.test('a client that stops reading is ended with SLOW_CONSUMER; another keeps up', async (t) => {
  const markets = await Promise.all(Array.from({ length: 5 }, () => server.createMarket()))
  const tokens = markets.flatMap((market) => [market.yesTokenId, market.noTokenId])
  const trader = await server.trader(100_000 * USDC)
  // Its own connection: HTTP/2 flow control of one connection is shared by its streams.
  const slowChannel = new GrpcTransport(target, { 'grpc.use_local_subchannel_pool': 1 })
  t.teardown(() => slowChannel.close())
  const slow = new Reader(slowChannel.serverStream(StreamService.method.bookStream, { tokenIds: tokens }, null))
  const fast = new Reader(grpc.serverStream(StreamService.method.bookStream, { tokenIds: tokens }, null))
  for (let i = 0; i < tokens.length; i++) {
    await slow.next()
    await fast.next()
  }
  slow.stream.pause() // the slow client stops reading
  let received = 0
  const lastSeq = new Map(tokens.map((token) => [token, 0n]))
  let contiguous = true
  fast.stream.on('data', (message: BookStreamResponse) => {
    received++
    contiguous &&= message.seq === lastSeq.get(message.tokenId)! + 1n
    lastSeq.set(message.tokenId, message.seq)
  })
  // The bound, and more than the transport's buffers (HTTP/2 windows, sockets) can hide.
  const wanted = GRPC_STREAM_BACKLOG_MESSAGES_MAX + 2_000
  let sent = 0
  let keptUp = true
  const started = Date.now()
  while (sent < wanted && keptUp) {
    await Promise.all(Array.from({ length: COMMANDS_IN_FLIGHT / 2 }, () => churn(trader, tokens)))
    sent += COMMANDS_IN_FLIGHT * tokens.length
    keptUp = await until(() => received === sent, 5_000)
  }
  t.ok(keptUp, `the reading client got all ${sent} updates as they came (${Date.now() - started} ms)`)
  t.ok(contiguous, 'each token\'s numbers without a gap')
  t.notOk(fast.ended, 'and its stream is still open')
  slow.stream.resume()
  const error = await slow.failure(10_000)
  t.equal(error.grpcCode, status.RESOURCE_EXHAUSTED, 'the slow client\'s stream ended RESOURCE_EXHAUSTED')
  t.equal(error.code, 'SLOW_CONSUMER')
  t.ok(slow.queued < sent - GRPC_STREAM_BACKLOG_MESSAGES_MAX, `it got ${slow.queued} of the ${sent} updates`)
  fast.cancel()
})

t.test('stopping the server ends the open streams with UNAVAILABLE', async (t) => {
  const market = await server.createMarket()
  const trader = await server.trader(10 * USDC)
  const book = new Reader(grpc.serverStream(StreamService.method.bookStream, { tokenIds: [market.yesTokenId] }, null))
  const user = new Reader<UserStreamResponse>(grpc.serverStream(StreamService.method.userStream,
    { fromSeq: 0n, epoch: '' }, signerOf(trader)))
  await book.next()
  await user.next()
  await server.predex.stop()
  for (const [what, reader] of [['book', book], ['user', user]] as const) {
    const error = await reader.failure()
    t.equal(error.grpcCode, status.UNAVAILABLE, `the ${what} stream ended UNAVAILABLE`)
    t.equal(error.code, 'NOT_READY')
  }
})
