/**
 * The book stream (StreamService.BookStream) against a real server over loopback: each token's
 * snapshot is REST's /book; after orders, cancels and trades the snapshot plus the deltas is
 * exactly REST's book again, for both tokens of a market on one stream; numbers are contiguous per
 * token and the same for two subscribers; a client that loses a message sees the jump, subscribes
 * again and converges; refusals (no token, too many, an unknown one) come before any message; an
 * address's book streams are bounded and an ended one gives its slot back.
 */
import t from 'tap'
import { createHash } from 'node:crypto'
import { status } from '@grpc/grpc-js'
import { GrpcTransport, type GrpcCallError } from '../../src/client/grpc/transport.js'
import { StreamService, type BookStreamResponse } from '../../src/gen/predex/v1/streams_pb.js'
import { BOOK_STREAM_TOKENS_MAX, GRPC_BOOK_STREAMS_PER_ADDRESS_MAX } from '../../src/limits.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { get, startServer, USDC } from '../support/rest-harness.js'
import { cancel, ClientBook, place, Reader, split } from './streams-support.js'

const server = await startServer()
t.teardown(() => server.stop())
const grpc = new GrpcTransport(`127.0.0.1:${server.predex.grpcPort}`)
t.teardown(() => grpc.close())

function subscribe(tokenIds: string[]): Reader<BookStreamResponse> {
  return new Reader(grpc.serverStream(StreamService.method.bookStream, { tokenIds }, null))
}

async function restBook(tokenId: string): Promise<Record<string, any>> {
  const reply = await get(server, `/book?token_id=${tokenId}`)
  if (reply.status !== 200) throw new Error(`/book: ${reply.status}`)
  return reply.body
}

/** Orders on both tokens of `market`, cancels and trades (a normal match and a mint), by two traders. */
async function trade(market: MarketRecord): Promise<void> {
  const [alice, bob] = [await server.trader(1_000 * USDC), await server.trader(1_000 * USDC)]
  await split(server, bob, market, 100)
  const a1 = await place(server, alice, market, { side: 'BUY', price: '0.40', size: '10' })
  await place(server, alice, market, { side: 'BUY', price: '0.41', size: '10' })
  await place(server, alice, market, { side: 'BUY', price: '0.41', size: '7' })
  await place(server, bob, market, { side: 'SELL', price: '0.45', size: '20' })
  await place(server, bob, market, { outcome: 'No', side: 'SELL', price: '0.62', size: '15' })
  await cancel(server, alice, a1)
  await place(server, bob, market, { side: 'SELL', price: '0.41', size: '12' }) // fills 12 of the 17 at 0.41
  await place(server, alice, market, { outcome: 'No', side: 'BUY', price: '0.50', size: '8' })
  await place(server, alice, market, { side: 'BUY', price: '0.45', size: '5' }) // takes 5 of bob's 20
  await place(server, bob, market, { outcome: 'No', side: 'BUY', price: '0.56', size: '5' }) // mint with 0.45 Yes
}

t.test('a snapshot per token is REST /book, and snapshot + deltas is REST /book after trading', async (t) => {
  const market = await server.createMarket()
  const tokens = [market.yesTokenId, market.noTokenId]
  const seed = await server.trader(100 * USDC)
  await place(server, seed, market, { side: 'BUY', price: '0.30', size: '10' })
  const reader = subscribe(tokens)
  const books = new Map(tokens.map((token) => [token, new ClientBook()]))
  for (const token of tokens) {
    const message = await reader.next()
    t.equal(message.tokenId, token, 'snapshots in the order asked')
    t.equal(message.update.case, 'snapshot')
    if (message.update.case !== 'snapshot') return
    const snapshot = message.update.value
    const { timestamp: _timestamp, hash: _hash, ...rest } = await restBook(token)
    const fields = { market: snapshot.market, asset_id: snapshot.assetId, bids: snapshot.bids.map(plain),
      asks: snapshot.asks.map(plain), min_order_size: snapshot.minOrderSize, tick_size: snapshot.tickSize,
      neg_risk: snapshot.negRisk, last_trade_price: snapshot.lastTradePrice ?? '' }
    t.same(fields, rest, `the snapshot of ${token === tokens[0] ? 'Yes' : 'No'} is REST's`)
    // The hash as clob-client computes it over REST's JSON, at the snapshot's time.
    const { market: conditionId, asset_id: assetId, ...others } = fields
    const json = JSON.stringify({ market: conditionId, asset_id: assetId, timestamp: String(snapshot.timestampMs),
      hash: '', ...others })
    t.equal(snapshot.hash, createHash('sha1').update(json).digest('hex'), 'its hash is REST\'s at its time')
    t.equal(message.engineSeq, BigInt(server.predex.context.read.seq), 'at the last durable command')
    books.get(token)!.apply(message)
  }
  await trade(market)
  const updates = await reader.drain()
  t.ok(updates.some((m) => m.update.case === 'trade'), 'trades are printed')
  const seen = new Map<string, bigint[]>()
  for (const message of updates) {
    t.ok(books.get(message.tokenId)!.apply(message), `seq ${message.seq} of its token follows the last one`)
    seen.set(message.tokenId, [...seen.get(message.tokenId) ?? [], message.seq])
  }
  for (const token of tokens) {
    const rest = await restBook(token)
    const book = books.get(token)!
    t.same(book.levels(), { bids: rest.bids, asks: rest.asks }, 'the levels are REST\'s')
    t.equal(book.lastTradePrice ?? '', rest.last_trade_price, 'the last trade price is REST\'s')
    const numbers = seen.get(token) ?? []
    t.ok(numbers.length > 0, 'the token had updates')
    t.same(numbers, numbers.map((_, i) => BigInt(i + 1)), 'numbered 1, 2, 3... after the snapshot\'s 0')
  }
  const engineSeqs = updates.map((m) => m.engineSeq)
  t.same(engineSeqs, [...engineSeqs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 'in engine order')
  reader.cancel()
})

t.test('two subscribers get the same numbering; a late one continues it from its snapshot', async (t) => {
  const market = await server.createMarket()
  const tokens = [market.yesTokenId, market.noTokenId]
  const first = subscribe(tokens)
  const second = subscribe([market.noTokenId, market.yesTokenId, market.yesTokenId])
  for (const reader of [first, second]) {
    for (let i = 0; i < 2; i++) t.equal((await reader.next()).seq, 0n, 'a new token starts at 0')
  }
  await trade(market)
  const key = (m: BookStreamResponse) => `${m.tokenId} ${m.seq} ${m.engineSeq} ${m.update.case}`
  const [a, b] = [await first.drain(), await second.drain()]
  t.ok(a.length > 5, `${a.length} updates`)
  t.same(b.map(key), a.map(key), 'the same messages with the same numbers')
  const late = subscribe([market.yesTokenId])
  const snapshot = await late.next()
  const lastYes = a.filter((m) => m.tokenId === market.yesTokenId).at(-1)!
  t.equal(snapshot.seq, lastYes.seq, 'a later snapshot carries the token\'s current number')
  const seller = await server.trader(100 * USDC)
  await split(server, seller, market, 10)
  await place(server, seller, market, { side: 'SELL', price: '0.90', size: '5' })
  for (const reader of [first, late]) {
    const next = (await reader.drain()).filter((m) => m.tokenId === market.yesTokenId)
    t.same(next.map((m) => m.seq), [lastYes.seq + 1n], 'the next change has the next number for everyone')
  }
  for (const reader of [first, second, late]) reader.cancel()
})

t.test('a client that loses a message sees the jump, subscribes again and converges', async (t) => {
  const market = await server.createMarket()
  const tokens = [market.yesTokenId, market.noTokenId]
  let reader = subscribe(tokens)
  const books = new Map(tokens.map((token) => [token, new ClientBook()]))
  for (let i = 0; i < 2; i++) {
    const message = await reader.next()
    books.get(message.tokenId)!.apply(message)
  }
  await trade(market)
  let dropped = false
  let gaps = 0
  for (let round = 0; round < 3; round++) {
    const messages = await reader.drain()
    let gap = false
    for (const message of messages) {
      // The test's reader loses the third update of Yes once.
      if (!dropped && message.tokenId === market.yesTokenId && message.seq === 3n) {
        dropped = true
        continue
      }
      if (!books.get(message.tokenId)!.apply(message)) {
        gap = true
        break
      }
    }
    if (!gap) break
    gaps++
    reader.cancel()
    reader = subscribe(tokens)
  }
  t.ok(dropped, 'a message was lost')
  t.equal(gaps, 1, 'the client saw one gap and subscribed again')
  for (const token of tokens) {
    const rest = await restBook(token)
    t.same(books.get(token)!.levels(), { bids: rest.bids, asks: rest.asks }, 'converged on REST\'s book')
  }
  reader.cancel()
})

t.test('refusals come before any message', async (t) => {
  const market = await server.createMarket()
  const cases: [string, string[], number, string][] = [
    ['no token', [], status.INVALID_ARGUMENT, 'INVALID_PARAMETER'],
    ['too many tokens', Array.from({ length: BOOK_STREAM_TOKENS_MAX + 1 }, (_, i) => String(i + 1)),
      status.INVALID_ARGUMENT, 'INVALID_PARAMETER'],
    ['an unknown token', [market.yesTokenId, '12345'], status.NOT_FOUND, 'TOKEN_NOT_FOUND'],
  ]
  for (const [what, tokenIds, grpcCode, code] of cases) {
    const reader = subscribe(tokenIds)
    const error = await reader.failure()
    t.equal(error.grpcCode, grpcCode, `${what}: gRPC status`)
    t.equal(error.code, code, `${what}: catalogue code`)
    t.equal(reader.queued, 0, `${what}: nothing was sent`)
  }
})

t.test('an address has at most GRPC_BOOK_STREAMS_PER_ADDRESS_MAX book streams; an ended one frees its slot',
  async (t) => {
    const market = await server.createMarket()
    const open = async (): Promise<Reader<BookStreamResponse> | GrpcCallError> => {
      const reader = subscribe([market.yesTokenId])
      try {
        await reader.next()
        return reader
      } catch (error) {
        return error as GrpcCallError
      }
    }
    /** Opens a stream, retrying while the slots of streams cancelled just before are still taken. */
    const openEventually = async (): Promise<Reader<BookStreamResponse>> => {
      for (let attempt = 0; ; attempt++) {
        const opened = await open()
        if (opened instanceof Reader) return opened
        if (attempt === 50) throw opened
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const readers: Reader<BookStreamResponse>[] = []
    for (let i = 0; i < GRPC_BOOK_STREAMS_PER_ADDRESS_MAX; i++) readers.push(await openEventually())
    const refused = await open()
    t.ok(!(refused instanceof Reader) && refused.grpcCode === status.RESOURCE_EXHAUSTED &&
      refused.code === 'TOO_MANY_STREAMS', 'one more is refused with TOO_MANY_STREAMS')
    readers.shift()!.cancel()
    readers.push(await openEventually())
    t.pass('a cancelled stream gives its slot back')
    for (const reader of readers) reader.cancel()
  })

function plain(level: { price: string; size: string }): { price: string; size: string } {
  return { price: level.price, size: level.size }
}
