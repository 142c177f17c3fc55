/**
 * Contract of market data, face-neutral (seed: "Further endpoints"; api.md: book shape as the
 * reference's OrderBookSummary, best level last, hash, ms timestamp; price side=buy best bid,
 * sell best ask, any case): the book, the unified book (implied liquidity from the
 * complementary token), books, midpoint(s), price(s), spread, last trade price, tick size, fee
 * rate, candles. Public: no authentication.
 *
 * Each case builds its own books (`Books.build`): market A (tick 0.01, no fee) with orders on
 * both tokens, market B (tick 0.001, 100 bps, neg risk) with none.
 */
import { createHash, randomUUID } from 'node:crypto'
import type { MarketRecord } from '../../../src/engine/event.js'
import { placeOn, RawText, USDC, type OutcomeOrder } from '../../support/driver.js'
import type { ContractCase, Driver, Query, Reply, TokenRead, Trader } from '../../support/driver.js'

const BOOK_KEYS = ['market', 'asset_id', 'timestamp', 'hash', 'bids', 'asks', 'min_order_size', 'tick_size', 'neg_risk', 'last_trade_price']

/** The book's hash as clob-client computes it: SHA-1 of the JSON with hash "", keys in order. */
function hashOf(book: Record<string, unknown>): string {
  return createHash('sha1').update(JSON.stringify({ ...book, hash: '' })).digest('hex')
}


/** Market A's books, market B empty, and a funded taker. */
class Books {
  private constructor(readonly d: Driver, readonly market: MarketRecord, readonly empty: MarketRecord, readonly taker: Trader) {}

  get yes(): string {
    return this.market.yesTokenId
  }

  get no(): string {
    return this.market.noTokenId
  }

  /**
   * Yes book: bids 0.40 x 10, 0.38 x 5; asks 0.60 x 10, 0.65 x 3.
   * No book: bid 0.35 x 7 (a Yes ask at 0.65), ask 0.55 x 6 (a Yes bid at 0.45).
   */
  static async build(d: Driver): Promise<Books> {
    const market = await d.createMarket({ minOrderSizeMicros: 1 * USDC })
    const empty = await d.createMarket({ tickSizeMicros: 1_000, feeRateBps: 100, negRisk: true, minOrderSizeMicros: 10 * USDC })
    const maker = await d.trader(1_000 * USDC)
    const maker2 = await d.trader(1_000 * USDC)
    const taker = await d.trader(1_000 * USDC)
    await d.command({ kind: 'split', address: maker.address, marketId: market.marketId, amountMicros: 100 * USDC })
    await d.command({ kind: 'split', address: maker2.address, marketId: market.marketId, amountMicros: 100 * USDC })
    const orders = [
      [maker, { side: 'BUY', price: '0.40', size: '10' }],
      [maker, { side: 'BUY', price: '0.38', size: '5' }],
      [maker, { side: 'SELL', price: '0.60', size: '10' }],
      [maker2, { side: 'SELL', price: '0.65', size: '3' }],
      [maker2, { outcome: 'No', side: 'BUY', price: '0.35', size: '7' }],
      [maker2, { outcome: 'No', side: 'SELL', price: '0.55', size: '6' }],
    ] as const
    for (const [trader, order] of orders) {
      const placed = await placeOn(d, trader, market, order)
      if (placed.status !== 200 || placed.body.status !== 'live') throw new Error(`setup order: ${JSON.stringify(placed.body)}`)
    }
    return new Books(d, market, empty, taker)
  }

  read(read: TokenRead, tokenId: string, side?: string): Promise<Reply> {
    return this.d.tokenRead(read, side === undefined ? { token_id: tokenId } : { token_id: tokenId, side })
  }
}

export const marketDataCases: readonly ContractCase[] = [
  {
    name: 'GET /book: the token\'s own book as an OrderBookSummary, best level last',
    async run(t, d) {
      const s = await Books.build(d)
      const { market, empty, yes, no } = s
      const before = Date.now()
      const book = await s.read('book', yes)
      t.equal(book.status, 200)
      t.same(Object.keys(book.body), BOOK_KEYS, 'the keys, in the order the hash covers')
      t.equal(book.body.market, market.conditionId)
      t.equal(book.body.asset_id, yes)
      t.match(book.body.timestamp, /^\d{13}$/, 'milliseconds, as a string')
      t.ok(Number(book.body.timestamp) >= before - 1000 && Number(book.body.timestamp) <= Date.now() + 1000)
      t.match(book.body.hash, /^[0-9a-f]{40}$/)
      t.equal(book.body.hash, hashOf(book.body), 'hash as clob-client computes it')
      t.same(book.body.bids, [{ price: '0.38', size: '5' }, { price: '0.4', size: '10' }], 'bids ascending: best last')
      t.same(book.body.asks, [{ price: '0.65', size: '3' }, { price: '0.6', size: '10' }], 'asks descending: best last')
      t.equal(book.body.min_order_size, '1')
      t.equal(book.body.tick_size, '0.01')
      t.equal(book.body.neg_risk, false)
      t.equal(book.body.last_trade_price, '')

      const noBook = await s.read('book', no)
      t.equal(noBook.body.asset_id, no)
      t.equal(noBook.body.market, market.conditionId)
      t.same(noBook.body.bids, [{ price: '0.35', size: '7' }], 'only No orders')
      t.same(noBook.body.asks, [{ price: '0.55', size: '6' }])
      t.equal(noBook.body.hash, hashOf(noBook.body))

      const other = await s.read('book', empty.yesTokenId)
      t.same(other.body.bids, [])
      t.same(other.body.asks, [])
      t.equal(other.body.tick_size, '0.001')
      t.equal(other.body.min_order_size, '10')
      t.equal(other.body.neg_risk, true)
    },
  },
  {
    name: 'GET /book/unified: own orders plus the complementary token\'s, at 1 - price',
    async run(t, d) {
      const s = await Books.build(d)
      const { yes, no } = s
      const unified = await s.read('unifiedBook', yes)
      t.equal(unified.status, 200)
      t.same(Object.keys(unified.body), BOOK_KEYS)
      t.equal(unified.body.asset_id, yes)
      t.equal(unified.body.hash, hashOf(unified.body))
      // No ask 0.55 x 6 -> Yes bid 0.45 x 6; No bid 0.35 x 7 -> Yes ask 0.65 x 7, on top of the own 0.65 x 3.
      t.same(unified.body.bids, [{ price: '0.38', size: '5' }, { price: '0.4', size: '10' }, { price: '0.45', size: '6' }])
      t.same(unified.body.asks, [{ price: '0.65', size: '10' }, { price: '0.6', size: '10' }])
      const unifiedNo = await s.read('unifiedBook', no)
      // Yes ask 0.60 x 10 -> No bid 0.40; Yes ask 0.65 x 3 -> No bid 0.35 (+7 own); Yes bids 0.40, 0.38 -> No asks 0.60, 0.62.
      t.same(unifiedNo.body.bids, [{ price: '0.35', size: '10' }, { price: '0.4', size: '10' }])
      t.same(unifiedNo.body.asks, [{ price: '0.62', size: '5' }, { price: '0.6', size: '10' }, { price: '0.55', size: '6' }])
      t.equal(unifiedNo.body.asset_id, no)
      // The own book is unchanged by the unified view.
      t.same((await s.read('book', yes)).body.bids, [{ price: '0.38', size: '5' }, { price: '0.4', size: '10' }])
    },
  },
  {
    name: 'POST /books: an array of OrderBookSummary, one per item, in order',
    async run(t, d) {
      const { empty, yes, no } = await Books.build(d)
      const books = await d.tokensRead('books', [{ token_id: no }, { token_id: yes, side: 'BUY' }, { token_id: empty.noTokenId }])
      t.equal(books.status, 200)
      t.ok(Array.isArray(books.body))
      t.same(books.body.map((b: any) => b.asset_id), [no, yes, empty.noTokenId])
      for (const book of books.body) {
        t.same(Object.keys(book), BOOK_KEYS)
        t.equal(book.hash, hashOf(book))
      }
      t.same(books.body[0].bids, [{ price: '0.35', size: '7' }])
      t.same(books.body[1].asks, [{ price: '0.65', size: '3' }, { price: '0.6', size: '10' }])
      t.equal(books.body[2].market, empty.conditionId)
      t.same((await d.tokensRead('books', [])).body, [])
      const unknown = await d.tokensRead('books', [{ token_id: yes }, { token_id: '123' }])
      t.equal(unknown.status, 404)
      t.equal(unknown.body.code, 'TOKEN_NOT_FOUND')
      for (const bad of [{ token_id: yes }, [{ id: yes }], [yes], 'x']) {
        const response = await d.tokensRead('books', bad)
        t.equal(response.status, 400, JSON.stringify(bad))
        t.equal(response.body.code, 'INVALID_PARAMETER')
      }
    },
  },
  {
    name: 'GET /midpoint and POST /midpoints: mid of the best bid and ask (implied liquidity included)',
    async run(t, d) {
      const s = await Books.build(d)
      const { empty, yes, no } = s
      const mid = await s.read('midpoint', yes)
      t.equal(mid.status, 200)
      t.equal(mid.body.mid, '0.525', '(0.45 + 0.60) / 2')
      t.equal((await s.read('midpoint', no)).body.mid, '0.475', '(0.40 + 0.55) / 2')
      t.equal((await s.read('midpoint', empty.yesTokenId)).body.mid, null, 'no quotes: null')
      const mids = await d.tokensRead('midpoints', [{ token_id: yes }, { token_id: no }, { token_id: empty.yesTokenId }])
      t.equal(mids.status, 200)
      t.same(mids.body, { [yes]: '0.525', [no]: '0.475', [empty.yesTokenId]: null })
    },
  },
  {
    name: 'GET /price and POST /prices: side=buy the best bid, side=sell the best ask, any case',
    async run(t, d) {
      const s = await Books.build(d)
      const { empty, yes, no } = s
      for (const side of ['buy', 'BUY', 'Buy']) {
        const price = await s.read('price', yes, side)
        t.equal(price.status, 200)
        t.same(price.body, { price: '0.45' }, side)
      }
      for (const side of ['sell', 'SELL']) t.same((await s.read('price', yes, side)).body, { price: '0.6' }, side)
      t.same((await s.read('price', no, 'buy')).body, { price: '0.4' })
      t.same((await s.read('price', no, 'sell')).body, { price: '0.55' })
      t.same((await s.read('price', empty.yesTokenId, 'buy')).body, { price: null })
      for (const side of ['', 'bid', 'x']) {
        const bad = await s.read('price', yes, side)
        t.equal(bad.status, 400, `side=${side}`)
        t.equal(bad.body.code, 'INVALID_PARAMETER')
      }
      t.equal((await s.read('price', yes)).status, 400, 'side is required')

      const prices = await d.tokensRead('prices', [{ token_id: yes, side: 'BUY' }, { token_id: yes, side: 'sell' }, { token_id: no, side: 'BUY' }])
      t.equal(prices.status, 200)
      t.same(prices.body, { [yes]: { BUY: '0.45', SELL: '0.6' }, [no]: { BUY: '0.4' } })
      const noSide = await d.tokensRead('prices', [{ token_id: yes }])
      t.equal(noSide.status, 400)
      t.equal(noSide.body.code, 'INVALID_PARAMETER')
    },
  },
  {
    name: 'GET /spread: best ask minus best bid',
    async run(t, d) {
      const s = await Books.build(d)
      const spread = await s.read('spread', s.yes)
      t.equal(spread.status, 200)
      t.same(spread.body, { spread: '0.15' })
      t.same((await s.read('spread', s.no)).body, { spread: '0.15' })
      t.same((await s.read('spread', s.empty.yesTokenId)).body, { spread: null })
    },
  },
  {
    name: 'GET /tick-size and GET /fee-rate: the market\'s terms as numbers',
    async run(t, d) {
      const s = await Books.build(d)
      const { empty, yes, no } = s
      const tick = await s.read('tickSize', yes)
      t.equal(tick.status, 200)
      t.same(tick.body, { minimum_tick_size: 0.01 })
      t.equal(typeof tick.body.minimum_tick_size, 'number')
      t.same((await s.read('tickSize', no)).body, { minimum_tick_size: 0.01 })
      t.same((await s.read('tickSize', empty.noTokenId)).body, { minimum_tick_size: 0.001 })
      const fee = await s.read('feeRate', yes)
      t.equal(fee.status, 200)
      t.same(fee.body, { base_fee: 0 })
      t.same((await s.read('feeRate', empty.yesTokenId)).body, { base_fee: 100 })
      t.ok(Number.isInteger((await s.read('feeRate', empty.yesTokenId)).body.base_fee))
    },
  },
  {
    name: 'GET /last-trade-price: null before any trade, then the price and the taker side',
    async run(t, d) {
      const s = await Books.build(d)
      const { market, taker, yes, no } = s
      const before = await s.read('lastTradePrice', yes)
      t.equal(before.status, 200)
      t.same(before.body, { price: null, side: null })
      // The taker buys 4 Yes at 0.60 (the best ask): one trade.
      const bought = await placeOn(d, taker, market, { side: 'BUY', price: '0.60', size: '4' })
      t.equal(bought.body.status, 'matched')
      t.same((await s.read('lastTradePrice', yes)).body, { price: '0.6', side: 'BUY' })
      const book = (await s.read('book', yes)).body
      t.same(book.asks, [{ price: '0.65', size: '3' }, { price: '0.6', size: '6' }], 'the filled level shrank')
      t.equal(book.last_trade_price, '0.6')
      t.equal(book.hash, hashOf(book))
      // The taker sells 2 Yes at 0.40: the best bid is the No ask at 0.55 (a merge at Yes 0.45).
      const sold = await placeOn(d, taker, market, { side: 'SELL', price: '0.40', size: '2' })
      t.equal(sold.body.status, 'matched')
      t.same((await s.read('lastTradePrice', yes)).body, { price: '0.45', side: 'SELL' })
      t.same((await s.read('lastTradePrice', no)).body, { price: '0.55', side: 'SELL' }, 'the No maker sold at its own price')
      t.same((await s.read('book', no)).body.asks, [{ price: '0.55', size: '4' }])
    },
  },
  {
    name: 'every token read: token_id required (400), unknown token (404), no authentication needed',
    async run(t, d) {
      const market = await d.createMarket({ minOrderSizeMicros: 1 * USDC })
      const yes = market.yesTokenId
      const paths: Readonly<Record<TokenRead, string>> = {
        book: '/book', unifiedBook: '/book/unified', midpoint: '/midpoint', price: '/price', spread: '/spread',
        lastTradePrice: '/last-trade-price', tickSize: '/tick-size', feeRate: '/fee-rate',
      }
      for (const [read, path] of Object.entries(paths) as [TokenRead, string][]) {
        const side: Query = read === 'price' ? { side: 'buy' } : {}
        const missing = await d.tokenRead(read, side)
        t.equal(missing.status, 400, `${path} without token_id`)
        t.equal(missing.body.code, 'INVALID_PARAMETER', path)
        t.equal(typeof missing.body.error, 'string')
        const unknown = await d.tokenRead(read, { token_id: '424242', ...side })
        t.equal(unknown.status, 404, `${path} unknown token`)
        t.equal(unknown.body.code, 'TOKEN_NOT_FOUND', path)
        const invalid = await d.tokenRead(read, { token_id: 'a b', ...side })
        t.equal(invalid.status, 400, `${path} malformed token`)
      }
      for (const [read, path] of [['midpoints', '/midpoints'], ['prices', '/prices']] as const) {
        const unknown = await d.tokensRead(read, [{ token_id: '424242', side: 'BUY' }])
        t.equal(unknown.status, 404, path)
        t.equal(unknown.body.code, 'TOKEN_NOT_FOUND')
        const bad = await d.tokensRead(read, { token_id: yes })
        t.equal(bad.status, 400, path)
        const notJson = await d.tokensRead(read, new RawText('[{'))
        t.equal(notJson.status, 400)
        t.equal(notJson.body.code, 'BAD_JSON')
      }
    },
  },
  {
    name: 'book answers reused within a millisecond are never stale: a change shows in the next read',
    async run(t, d) {
      const watched = await d.createMarket({ minOrderSizeMicros: 1 * USDC })
      const trader = await d.trader(100 * USDC)
      // The server's clock stands still for this case: every read is "in the same millisecond", so
      // only the book's own versions can tell a reusable answer from a stale one.
      const frozenMs = Date.now()
      d.setNowMs(() => frozenMs)
      t.teardown(() => d.setNowMs(null))
      const reads = await Promise.all(Array.from({ length: 20 }, () => d.tokenRead('book', { token_id: watched.yesTokenId })))
      t.ok(reads.every((read) => read.status === 200 && read.body.bids.length === 0), 'an empty book, read 20 times at once')
      for (const read of reads) t.equal(read.body.hash, hashOf(read.body), 'every answer carries the hash of its own content')
      for (const [i, price] of ['0.30', '0.31', '0.32'].entries()) {
        const placed = await placeOn(d, trader, watched, { side: 'BUY', price, size: '1' })
        t.equal(placed.status, 200)
        const own = await d.tokenRead('book', { token_id: watched.yesTokenId })
        t.equal(own.body.bids.length, i + 1, `own book right after order ${i + 1}`)
        const unified = await d.tokenRead('unifiedBook', { token_id: watched.noTokenId })
        t.equal(unified.body.asks.length, i + 1, `the other token's unified book right after order ${i + 1}`)
        t.equal(unified.body.hash, hashOf(unified.body))
        t.equal(unified.body.timestamp, String(frozenMs), 'the same millisecond')
      }
    },
  },
  {
    name: 'GET /ticks/:symbol: candles from trades, by token id or slug, with the other side of mint trades',
    async run(t, d) {
      const slug = `ticks-${randomUUID()}`
      const traded = await d.createMarket({ minOrderSizeMicros: 1 * USDC, slug })
      const [alice, bob, carol] = [await d.trader(100 * USDC), await d.trader(100 * USDC), await d.trader(100 * USDC)]
      const trade = async (maker: Trader, makerOrder: OutcomeOrder, taker: Trader, takerOrder: OutcomeOrder) => {
        t.equal((await placeOn(d, maker, traded, makerOrder)).body.status, 'live')
        t.equal((await placeOn(d, taker, traded, takerOrder)).body.status, 'matched')
      }
      // A mint: Yes bought at 0.40 by Alice, No at 0.60 by Bob (10 each). Then Yes 4 at 0.45 and Yes 2 at 0.42 (maker prices).
      await trade(alice, { side: 'BUY', price: '0.40', size: '10' }, bob, { outcome: 'No', side: 'BUY', price: '0.60', size: '10' })
      await trade(alice, { side: 'SELL', price: '0.45', size: '4' }, carol, { side: 'BUY', price: '0.45', size: '4' })
      await trade(alice, { side: 'SELL', price: '0.42', size: '2' }, carol, { side: 'BUY', price: '0.50', size: '2' })

      const bySlug = await d.candles(slug, { interval: '1d' })
      t.equal(bySlug.status, 200)
      t.equal(bySlug.body.length, 1, 'one day, one candle')
      t.match(bySlug.body[0], { open: '0.4', high: '0.45', low: '0.4', close: '0.42', volume: '16' }, 'the Yes token: 10 + 4 + 2 shares')
      t.equal(bySlug.body[0].t % 86_400, 0, 't is the start of the day, unix seconds')
      t.same((await d.candles(traded.yesTokenId, { interval: '1d' })).body, bySlug.body, 'the slug stands for the Yes token')
      const no = await d.candles(traded.noTokenId, { interval: '1d' })
      t.same(no.body.map((c: any) => [c.open, c.close, c.volume]), [['0.6', '0.6', '10']], 'the No side of the mint trade')
      const minutes = await d.candles(traded.yesTokenId, { interval: '1m' })
      t.equal(minutes.body.reduce((sum: number, c: any) => sum + Number(c.volume), 0), 16, 'minute candles add up to the same volume')
      const history = await d.priceHistory({ market: traded.noTokenId })
      t.same(history.body.history.map((h: any) => h.p), [0.6], 'compat price history sees the mint trade on the No token too')

      const nowSec = Math.floor(Date.now() / 1000)
      t.same((await d.candles(traded.yesTokenId, { interval: '1d', from: nowSec + 86_400, to: nowSec + 2 * 86_400 })).body, [],
        'no trades, no candles')
      const refusals = [[{ interval: '2m' }, 'interval'], [{ interval: '1m', from: nowSec - 2_000 * 60, to: nowSec }, 'from'],
        [{ from: nowSec, to: nowSec - 60 }, 'from'], [{ to: 'soon' }, 'to']] as const
      for (const [query, field] of refusals) {
        const refused = await d.candles(traded.yesTokenId, query)
        t.equal(refused.status, 400, Object.entries(query).map(([key, value]) => `${key}=${value}`).join('&'))
        t.equal(refused.body.field, field)
      }
      t.equal((await d.candles('no-such-market')).status, 404, 'an unknown symbol')
    },
  },
]
