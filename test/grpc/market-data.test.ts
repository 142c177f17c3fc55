/**
 * MarketDataService answers what REST answers: on one server, a market with resting orders on both
 * tokens and a trade, and an empty one, every gRPC read, converted back to the REST JSON, equals
 * the REST reply to the same request (the book's hash included: the server's wall clock is held
 * still so both faces stamp the same millisecond), and every refusal carries REST's code, message
 * and context, with the catalogue's gRPC status and the code in the `predex-code` trailer.
 */
import t, { type Test } from 'tap'
import { createHash } from 'node:crypto'
import { status } from '@grpc/grpc-js'
import type { MessageShape } from '@bufbuild/protobuf'
import { GrpcCallError, GrpcTransport } from '../../src/client/grpc/transport.js'
import { Side, type BookSchema } from '../../src/gen/predex/v1/common_pb.js'
import { CandleInterval, MarketDataService, type MarketSchema } from '../../src/gen/predex/v1/market_data_pb.js'
import type { Clock } from '../../src/clock.js'
import { get, placeLimit, send, startServer, USDC } from '../support/rest-harness.js'

/** Wall time that runs until the setup is done, then stands still (monotonic time runs: rate budgets are real). */
const wall: { ms: number | null } = { ms: null }
const clock: Clock = { wallMs: () => wall.ms ?? Date.now(), monotonicMs: () => performance.now() }
const server = await startServer({ clock })
const grpc = new GrpcTransport(`127.0.0.1:${server.predex.grpcPort}`)
t.teardown(async () => {
  grpc.close()
  await server.stop()
})
const methods = MarketDataService.method

// Market A: Yes bids 0.40 x 10, 0.38 x 5, asks 0.60 x 10, 0.65 x 3; No bid 0.35 x 7, ask 0.55 x 6;
// then a taker buys 4 Yes at 0.60. Market B: tick 0.001, 100 bps, neg risk, no orders.
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const empty = await server.createMarket({ tickSizeMicros: 1_000, feeRateBps: 100, negRisk: true })
const maker = await server.trader(1_000 * USDC)
const taker = await server.trader(1_000 * USDC)
await server.command({ kind: 'split', address: maker.address, marketId: market.marketId, amountMicros: 100 * USDC })
const orders = [
  { side: 'BUY', price: '0.40', size: '10' }, { side: 'BUY', price: '0.38', size: '5' },
  { side: 'SELL', price: '0.60', size: '10' }, { side: 'SELL', price: '0.65', size: '3' },
  { outcome: 'No', side: 'BUY', price: '0.35', size: '7' }, { outcome: 'No', side: 'SELL', price: '0.55', size: '6' },
] as const
for (const order of orders) {
  const placed = await placeLimit(server, maker, market, order)
  if (placed.status !== 200 || placed.body.status !== 'live') throw new Error(`setup: ${JSON.stringify(placed.body)}`)
}
const trade = await placeLimit(server, taker, market, { side: 'BUY', price: '0.60', size: '4' })
if (trade.body.status !== 'matched') throw new Error(`setup trade: ${JSON.stringify(trade.body)}`)
wall.ms = Date.now() + 1 // later reads stamp a millisecond after the trade, the same for both faces
const tokens = [market.yesTokenId, market.noTokenId, empty.yesTokenId]

type Book = MessageShape<typeof BookSchema>
type Market = MessageShape<typeof MarketSchema>

/** A Book message as REST's OrderBookSummary JSON. */
function restBook(book: Book | undefined): Record<string, unknown> {
  if (book === undefined) throw new Error('no book')
  return { market: book.market, asset_id: book.assetId, timestamp: String(book.timestampMs), hash: book.hash,
    bids: book.bids.map((l) => ({ price: l.price, size: l.size })),
    asks: book.asks.map((l) => ({ price: l.price, size: l.size })),
    min_order_size: book.minOrderSize, tick_size: book.tickSize, neg_risk: book.negRisk,
    last_trade_price: book.lastTradePrice ?? '' }
}

/** A Market message as REST's native market JSON. */
function restMarket(m: Market | undefined): Record<string, unknown> {
  if (m === undefined) throw new Error('no market')
  return { id: m.id, condition_id: m.conditionId, question: m.question, slug: m.slug, description: m.description,
    status: m.status, yes_token_id: m.yesTokenId, no_token_id: m.noTokenId,
    tokens: m.tokens.map((token) => ({ token_id: token.tokenId, outcome: token.outcome, price: token.price ?? null })),
    tick_size: m.tickSize, min_order_size: m.minOrderSize, fee_rate_bps: m.feeRateBps, neg_risk: m.negRisk,
    end_date: m.endDate ?? null, created_at: m.createdAt,
    resolution: m.resolution === undefined ? null : { outcome: m.resolution.outcome, resolved_at: m.resolution.resolvedAt },
    best_bid: m.bestBid ?? null, best_ask: m.bestAsk ?? null, last_trade_price: m.lastTradePrice ?? null,
    volume: m.volume }
}

function sideText(side: Side): string | null {
  return side === Side.BUY ? 'BUY' : side === Side.SELL ? 'SELL' : null
}

async function rest(path: string): Promise<any> {
  const reply = await get(server, path)
  if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body
}

t.test('books: own, unified and batch equal REST, hash included', async (t) => {
  for (const tokenId of tokens) {
    const own = restBook((await grpc.unary(methods.getBook, { tokenId }, null)).book)
    t.same(own, await rest(`/book?token_id=${tokenId}`), `GetBook ${tokenId}`)
    const hash = createHash('sha1').update(JSON.stringify({ ...own, hash: '' })).digest('hex')
    t.equal(own.hash, hash, 'the hash is SHA-1 of the REST JSON with hash ""')
    const unified = restBook((await grpc.unary(methods.getUnifiedBook, { tokenId }, null)).book)
    t.same(unified, await rest(`/book/unified?token_id=${tokenId}`), `GetUnifiedBook ${tokenId}`)
  }
  const yes = restBook((await grpc.unary(methods.getBook, { tokenId: market.yesTokenId }, null)).book)
  t.same(yes.bids, [{ price: '0.38', size: '5' }, { price: '0.4', size: '10' }], 'the resting bids, best last')
  t.same(yes.asks, [{ price: '0.65', size: '3' }, { price: '0.6', size: '6' }], '4 of 0.60 x 10 traded')
  t.equal(yes.last_trade_price, '0.6')
  const batch = await grpc.unary(methods.getBooks, { tokenIds: tokens }, null)
  const body = JSON.stringify(tokens.map((token_id) => ({ token_id })))
  const restBatch = await send(server, 'POST', '/books', body, {})
  t.equal(restBatch.status, 200)
  t.same(batch.books.map(restBook), restBatch.body, 'GetBooks equals POST /books')
})

t.test('quotes, last trade, tick size and fee rate equal REST (absent where REST says null)', async (t) => {
  for (const tokenId of tokens) {
    const mid = await grpc.unary(methods.getMidpoint, { tokenId }, null)
    t.equal(mid.mid ?? null, (await rest(`/midpoint?token_id=${tokenId}`)).mid, `midpoint ${tokenId}`)
    for (const [side, text] of [[Side.BUY, 'buy'], [Side.SELL, 'SELL']] as const) {
      const price = await grpc.unary(methods.getPrice, { tokenId, side }, null)
      t.equal(price.price ?? null, (await rest(`/price?token_id=${tokenId}&side=${text}`)).price, `price ${text}`)
    }
    const spread = await grpc.unary(methods.getSpread, { tokenId }, null)
    t.equal(spread.spread ?? null, (await rest(`/spread?token_id=${tokenId}`)).spread, `spread ${tokenId}`)
    const last = await grpc.unary(methods.getLastTradePrice, { tokenId }, null)
    t.same({ price: last.price ?? null, side: sideText(last.side) }, await rest(`/last-trade-price?token_id=${tokenId}`))
    const tick = await grpc.unary(methods.getTickSize, { tokenId }, null)
    t.equal(Number(tick.minimumTickSize), (await rest(`/tick-size?token_id=${tokenId}`)).minimum_tick_size)
    const fee = await grpc.unary(methods.getFeeRate, { tokenId }, null)
    t.equal(fee.baseFeeBps, (await rest(`/fee-rate?token_id=${tokenId}`)).base_fee)
  }
  const yes = market.yesTokenId
  t.equal((await grpc.unary(methods.getMidpoint, { tokenId: yes }, null)).mid, '0.525',
    'unified: bid 0.45 (No ask 0.55), ask 0.60')
  t.equal((await grpc.unary(methods.getLastTradePrice, { tokenId: yes }, null)).side, Side.BUY)
  t.equal((await grpc.unary(methods.getTickSize, { tokenId: empty.yesTokenId }, null)).minimumTickSize, '0.001')
  const none = await grpc.unary(methods.getMidpoint, { tokenId: empty.yesTokenId }, null)
  t.equal(none.mid, undefined, 'an empty book has no midpoint: the field is absent')
  t.equal((await grpc.unary(methods.getLastTradePrice, { tokenId: empty.yesTokenId }, null)).side, Side.UNSPECIFIED)
})

t.test('markets: one by id, condition id or slug, and the listing page by page, equal REST', async (t) => {
  for (const id of [market.marketId, market.conditionId, market.slug, empty.marketId]) {
    const answer = restMarket((await grpc.unary(methods.getMarket, { market: id }, null)).market)
    t.same(answer, await rest(`/markets/${id}`), `GetMarket ${id}`)
  }
  const traded = restMarket((await grpc.unary(methods.getMarket, { market: market.marketId }, null)).market)
  t.equal(traded.last_trade_price, '0.6')
  t.equal(traded.end_date, null, 'no end date: absent')
  let cursor = ''
  for (let pages = 0; pages < 3 && cursor !== 'LTE='; pages++) {
    const answer = await grpc.unary(methods.listMarkets, { page: { limit: 1, nextCursor: cursor } }, null)
    const expected = await rest(`/markets?limit=1${cursor === '' ? '' : `&next_cursor=${cursor}`}`)
    t.same({ limit: answer.limit, count: answer.count, next_cursor: answer.nextCursor,
      data: answer.data.map(restMarket) }, expected, `ListMarkets page ${pages}`)
    cursor = answer.nextCursor
  }
  const all = await grpc.unary(methods.listMarkets, {}, null)
  t.equal(all.limit, 100, 'limit 0: the default')
  t.equal(all.count, 2)
})

t.test('candles: each interval, from and to, a token or a slug, equal REST', async (t) => {
  const intervals = [[CandleInterval.CANDLE_INTERVAL_UNSPECIFIED, null], [CandleInterval.CANDLE_INTERVAL_1M, '1m'],
    [CandleInterval.CANDLE_INTERVAL_5M, '5m'], [CandleInterval.CANDLE_INTERVAL_1H, '1h'],
    [CandleInterval.CANDLE_INTERVAL_1D, '1d']] as const
  const toSec = Math.floor(wall.ms! / 1000)
  for (const symbol of [market.yesTokenId, market.noTokenId, market.slug]) {
    for (const [interval, text] of intervals) {
      const answer = await grpc.unary(methods.getCandles, { symbol, interval }, null)
      const candles = answer.candles.map((c) => ({ t: Number(c.t), open: c.open, high: c.high, low: c.low,
        close: c.close, volume: c.volume }))
      t.same(candles, await rest(`/ticks/${symbol}${text === null ? '' : `?interval=${text}`}`), `${symbol} ${text}`)
      t.equal(candles.length, symbol === market.noTokenId ? 0 : 1, 'one trade of Yes, one candle; none of No')
    }
    const ranged = await grpc.unary(methods.getCandles, { symbol, interval: CandleInterval.CANDLE_INTERVAL_1M,
      from: BigInt(toSec - 120), to: BigInt(toSec) }, null)
    t.same(ranged.candles.map((c) => Number(c.t)),
      (await rest(`/ticks/${symbol}?interval=1m&from=${toSec - 120}&to=${toSec}`)).map((c: { t: number }) => c.t))
  }
  const yes = await grpc.unary(methods.getCandles, { symbol: market.yesTokenId }, null)
  t.same([yes.candles[0]?.open, yes.candles[0]?.volume], ['0.6', '4'])
})

/** The gRPC refusal of a call, checked against REST's refusal of the same request. */
async function refusal(t: Test, call: Promise<unknown>, restReply: Promise<{ status: number; body: any }>,
  grpcCode: number, code: string): Promise<void> {
  const error = await call.then(() => null, (e: unknown) => e)
  if (!(error instanceof GrpcCallError)) {
    t.fail(`expected a GrpcCallError, got ${String(error)}`)
    return
  }
  t.equal(error.grpcCode, grpcCode, `gRPC status ${grpcCode}`)
  t.equal(error.code, code, 'the catalogue code in the predex-code trailer')
  const expected = await restReply
  t.equal(expected.body.code, code, 'REST refuses with the same code')
  t.same(error.body(), expected.body, 'the same message and context as REST')
}

t.test('refusals: the codes, messages and context of REST, with the catalogue\'s gRPC status', async (t) => {
  const unknown = '123456789'
  const tokenReads = [['getBook', '/book'], ['getUnifiedBook', '/book/unified'], ['getMidpoint', '/midpoint'],
    ['getSpread', '/spread'], ['getLastTradePrice', '/last-trade-price'], ['getTickSize', '/tick-size'],
    ['getFeeRate', '/fee-rate']] as const
  for (const [name, path] of tokenReads) {
    const method = methods[name] as typeof methods.getBook // each takes {token_id}; only the refusal is read
    await refusal(t, grpc.unary(method, { tokenId: unknown }, null), get(server, `${path}?token_id=${unknown}`),
      status.NOT_FOUND, 'TOKEN_NOT_FOUND')
    await refusal(t, grpc.unary(method, { tokenId: '' }, null), get(server, path),
      status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
  }
  await refusal(t, grpc.unary(methods.getPrice, { tokenId: unknown, side: Side.BUY }, null),
    get(server, `/price?token_id=${unknown}&side=buy`), status.NOT_FOUND, 'TOKEN_NOT_FOUND')
  await refusal(t, grpc.unary(methods.getPrice, { tokenId: market.yesTokenId }, null),
    get(server, `/price?token_id=${market.yesTokenId}`), status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
  await refusal(t, grpc.unary(methods.getBook, { tokenId: 'not a token!' }, null),
    get(server, '/book?token_id=not%20a%20token!'), status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
  await refusal(t, grpc.unary(methods.getMarket, { market: 'no-such-market' }, null),
    get(server, '/markets/no-such-market'), status.NOT_FOUND, 'MARKET_NOT_FOUND')
  await refusal(t, grpc.unary(methods.listMarkets, { page: { limit: 10_000 } }, null),
    get(server, '/markets?limit=10000'), status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
  await refusal(t, grpc.unary(methods.listMarkets, { page: { nextCursor: 'xyz' } }, null),
    get(server, '/markets?next_cursor=xyz'), status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
})

t.test('refusals of batches and candles, as REST', async (t) => {
  const many = Array.from({ length: 501 }, () => market.yesTokenId)
  await refusal(t, grpc.unary(methods.getBooks, { tokenIds: many }, null),
    send(server, 'POST', '/books', JSON.stringify(many.map((token_id) => ({ token_id }))), {}),
    status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
  const oneUnknown = [market.yesTokenId, '123456789']
  await refusal(t, grpc.unary(methods.getBooks, { tokenIds: oneUnknown }, null),
    send(server, 'POST', '/books', JSON.stringify(oneUnknown.map((token_id) => ({ token_id }))), {}),
    status.NOT_FOUND, 'TOKEN_NOT_FOUND')
  const yes = market.yesTokenId
  await refusal(t, grpc.unary(methods.getCandles, { symbol: yes, interval: 9 as CandleInterval }, null),
    get(server, `/ticks/${yes}?interval=9`), status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
  await refusal(t, grpc.unary(methods.getCandles, { symbol: yes, from: 10n, to: 5n }, null),
    get(server, `/ticks/${yes}?from=10&to=5`), status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
  await refusal(t, grpc.unary(methods.getCandles, { symbol: yes, from: -1n }, null),
    get(server, `/ticks/${yes}?from=-1`), status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
  await refusal(t, grpc.unary(methods.getCandles, { symbol: yes, interval: CandleInterval.CANDLE_INTERVAL_1M,
    from: 0n }, null), get(server, `/ticks/${yes}?interval=1m&from=0`), status.INVALID_ARGUMENT, 'INVALID_PARAMETER')
  await refusal(t, grpc.unary(methods.getCandles, { symbol: 'unknown-slug' }, null),
    get(server, '/ticks/unknown-slug'), status.NOT_FOUND, 'TOKEN_NOT_FOUND')
})
