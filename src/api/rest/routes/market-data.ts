/**
 * Market data, all public and answered from the read model's books: the book of a token (its own
 * orders), the unified book (with the implied liquidity of the other token), prices, midpoints,
 * spreads, last trade prices, tick size, fee rate, neg-risk flag, price history. Prices, midpoints
 * and spreads read the unified book: they are the prices a taker can actually trade at. A side
 * with no orders gives null rather than an error.
 */
import type { BookView } from '../../../engine/view.js'
import type { ServiceContext } from '../../../service/context.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { bookSummary, tickText } from '../../format.js'
import { decimalOfMicros, optionalInteger, parseJsonBody, tokenIdOf } from '../../wire.js'
import type { Reply, Route } from '../route.js'
import type { ReadModel } from '../../../read/read-model.js'
import { CANDLES_MAX, REST_BATCH_BODY_BYTES_MAX } from '../../../limits.js'
import { candlesOf, firstTickAtOrAfter } from '../../../read/candles.js'
import { marketOfToken, tokenItems, tokenQuery } from './common.js'

const GET = 'GET' as const
const POST = 'POST' as const

interface Quote {
  readonly bid: number | null
  readonly ask: number | null
}

function quoteOf(context: ServiceContext, tokenId: string): Quote {
  marketOfToken(context, tokenId)
  const book = context.read.unifiedBook(tokenId)!
  return { bid: book.bids[0]?.priceMicros ?? null, ask: book.asks[0]?.priceMicros ?? null }
}

function price(micros: number | null): string | null {
  return micros === null ? null : decimalOfMicros(micros)
}

function midpointOf(quote: Quote): string | null {
  // Both are multiples of 100 micro-USDC, so their half-sum is an exact number of micro-USDC.
  return quote.bid === null || quote.ask === null ? null : decimalOfMicros((quote.bid + quote.ask) / 2)
}

function spreadOf(quote: Quote): string | null {
  return quote.bid === null || quote.ask === null ? null : decimalOfMicros(quote.ask - quote.bid)
}

function sideOf(text: string | null | undefined): 'BUY' | 'SELL' {
  const side = (text ?? '').toUpperCase()
  if (side !== 'BUY' && side !== 'SELL') throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid side: use BUY or SELL', { field: 'side' })
  return side
}

function lastTrade(context: ServiceContext, tokenId: string): { price: string | null; side: string | null } {
  marketOfToken(context, tokenId)
  const stats = context.read.tokenStats.get(tokenId)
  return { price: price(stats?.lastTradePriceMicros ?? null), side: stats?.lastTradeSide ?? null }
}

function summary(context: ServiceContext, book: BookView): Record<string, unknown> {
  return bookSummary(context.read, book, context.nowMs())
}

/**
 * Books as sent, per token and kind, reused while nothing in them changed (the read model's
 * versions of the token, and of the other token for the unified book) within one millisecond:
 * the summary carries a millisecond timestamp and a hash over it, so that is as long as an
 * answer stays exact. Under load most reads of a book find it ready; at most two entries per token.
 */
const bookCaches = new WeakMap<ReadModel, Map<string, { key: string; json: string }>>()

function cachedBook(context: ServiceContext, tokenId: string, unified: boolean): Reply {
  const read = context.read
  const market = marketOfToken(context, tokenId)
  const other = tokenId === market.yesTokenId ? market.noTokenId : market.yesTokenId
  const nowMs = context.nowMs()
  const key = `${nowMs} ${read.versionOf(tokenId)} ${unified ? read.versionOf(other) : -1}`
  let cache = bookCaches.get(read)
  if (cache === undefined) {
    cache = new Map()
    bookCaches.set(read, cache)
  }
  const id = unified ? `u${tokenId}` : tokenId
  const hit = cache.get(id)
  if (hit?.key === key) return { body: null, json: hit.json }
  const book = unified ? read.unifiedBook(tokenId)! : read.book(tokenId)!
  const json = JSON.stringify(bookSummary(read, book, nowMs))
  cache.set(id, { key, json })
  return { body: null, json }
}

export const marketDataRoutes: Route<ServiceContext>[] = [
  { method: GET, path: '/book', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: "A token's own book (best level last)", query: { token_id: 'required: the token id' },
      response: 'OrderBookSummary {market, asset_id, timestamp, hash, bids, asks, min_order_size, tick_size, neg_risk, last_trade_price}' },
    handler: (request, _identity, context) => cachedBook(context, tokenQuery(request, context).tokenId, false) },
  { method: GET, path: '/book/unified', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'market-data', summary: "A token's book with the implied liquidity of the other token", query: { token_id: 'required: the token id' },
      response: 'OrderBookSummary' },
    handler: (request, _identity, context) => cachedBook(context, tokenQuery(request, context).tokenId, true) },
  { method: POST, path: '/books', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX,
    openapi: { tag: 'market-data', summary: 'Books of several tokens', body: '[{token_id}] (at most 500)', response: '[OrderBookSummary]' },
    handler: (request, _identity, context) => ({ body: tokenItems(parseJsonBody(request.body)).map((item) => {
      marketOfToken(context, item.token_id)
      return summary(context, context.read.book(item.token_id)!)
    }) }) },
  { method: GET, path: '/midpoint', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Midpoint of the best bid and ask', query: { token_id: 'required' }, response: '{mid}' },
    handler: (request, _identity, context) => {
      const mid = midpointOf(quoteOf(context, tokenQuery(request, context).tokenId))
      return { body: { mid, mid_price: mid } }
    } },
  { method: POST, path: '/midpoints', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX,
    openapi: { tag: 'market-data', summary: 'Midpoints of several tokens', body: '[{token_id}]', response: '{<token_id>: mid}' },
    handler: (request, _identity, context) => ({ body: Object.fromEntries(tokenItems(parseJsonBody(request.body))
      .map((item) => [item.token_id, midpointOf(quoteOf(context, item.token_id))])) }) },
  { method: GET, path: '/price', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Best price: side=buy gives the best bid, side=sell the best ask',
      query: { token_id: 'required', side: 'required: buy or sell (any case)' }, response: '{price}' },
    handler: (request, _identity, context) => {
      const quote = quoteOf(context, tokenQuery(request, context).tokenId)
      return { body: { price: price(sideOf(request.query.get('side')) === 'BUY' ? quote.bid : quote.ask) } }
    } },
  { method: POST, path: '/prices', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX,
    openapi: { tag: 'market-data', summary: 'Prices of several tokens and sides', body: '[{token_id, side}]', response: '{<token_id>: {BUY, SELL}}' },
    handler: (request, _identity, context) => {
      const prices: Record<string, Record<string, string | null>> = {}
      for (const item of tokenItems(parseJsonBody(request.body))) {
        const quote = quoteOf(context, item.token_id)
        const side = sideOf(item.side)
        prices[item.token_id] = { ...prices[item.token_id], [side]: price(side === 'BUY' ? quote.bid : quote.ask) }
      }
      return { body: prices }
    } },
  { method: GET, path: '/spread', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Best ask minus best bid', query: { token_id: 'required' }, response: '{spread}' },
    handler: (request, _identity, context) => ({ body: { spread: spreadOf(quoteOf(context, tokenQuery(request, context).tokenId)) } }) },
  { method: POST, path: '/spreads', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX, surface: 'compat',
    openapi: { tag: 'market-data', summary: 'Spreads of several tokens', body: '[{token_id}]', response: '{<token_id>: spread}' },
    handler: (request, _identity, context) => ({ body: Object.fromEntries(tokenItems(parseJsonBody(request.body))
      .map((item) => [item.token_id, spreadOf(quoteOf(context, item.token_id))])) }) },
  { method: GET, path: '/last-trade-price', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Price and taker side of the last trade', query: { token_id: 'required' }, response: '{price, side}' },
    handler: (request, _identity, context) => ({ body: lastTrade(context, tokenQuery(request, context).tokenId) }) },
  { method: POST, path: '/last-trades-prices', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX, surface: 'compat',
    openapi: { tag: 'market-data', summary: 'Last trade prices of several tokens', body: '[{token_id}]', response: '[{token_id, price, side}]' },
    handler: (request, _identity, context) => ({ body: tokenItems(parseJsonBody(request.body))
      .map((item) => ({ token_id: item.token_id, ...lastTrade(context, item.token_id) })) }) },
  { method: GET, path: '/tick-size', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: "The market's tick size", query: { token_id: 'required' }, response: '{minimum_tick_size: number}' },
    handler: (request, _identity, context) => ({ body: { minimum_tick_size: Number(tickText(tokenQuery(request, context).market.tickSizeMicros)) } }) },
  { method: GET, path: '/fee-rate', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: "The market's fee rate in basis points", query: { token_id: 'required' }, response: '{base_fee: integer}' },
    handler: (request, _identity, context) => ({ body: { base_fee: tokenQuery(request, context).market.feeRateBps } }) },
  { method: GET, path: '/neg-risk', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Whether orders are signed for the neg-risk exchange', query: { token_id: 'required' }, response: '{neg_risk}' },
    handler: (request, _identity, context) => ({ body: { neg_risk: tokenQuery(request, context).market.negRisk } }) },
  { method: GET, path: '/prices-history', auth: 'none', bodyMax: 0, surface: 'compat',
    openapi: { tag: 'market-data', summary: 'Trade prices of a token over time', query: { market: 'required: the token id', startTs: 'unix seconds', endTs: 'unix seconds' },
      response: '{history: [{t, p}]}' },
    handler: (request, _identity, context) => {
      const tokenId = tokenIdOf(request.query.get('market'), 'market')
      marketOfToken(context, tokenId)
      const start = (optionalInteger(request.query.get('startTs'), 'startTs') ?? 0) * 1000
      const end = (optionalInteger(request.query.get('endTs'), 'endTs') ?? Math.floor(Number.MAX_SAFE_INTEGER / 1000)) * 1000
      // Every trade that priced this token (a mint or merge trade prices it from the other side), in time order.
      const ticks = context.read.ticksByToken.get(tokenId) ?? []
      const history: { t: number; p: number }[] = []
      for (let i = firstTickAtOrAfter(ticks, start); i < ticks.length && ticks[i]!.timeMs <= end; i++) {
        history.push({ t: Math.floor(ticks[i]!.timeMs / 1000), p: Number(decimalOfMicros(ticks[i]!.priceMicros)) })
      }
      return { body: { history } }
    } },
  { method: GET, path: '/ticks/:symbol', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'market-data', summary: 'Candles (OHLCV) from trades, for a token id or a market slug (its Yes token); intervals without trades are left out',
      query: { interval: '1m, 5m, 1h (default) or 1d', from: 'unix seconds (default: to minus 500 intervals)', to: 'unix seconds (default: now)' },
      response: '[{t (unix seconds, start of the interval), open, high, low, close, volume (shares)}]' },
    handler: (request, _identity, context) => ({ body: ticks(context, request.params[0]!, request.query) }) },
]

const INTERVALS_SEC: Readonly<Record<string, number>> = { '1m': 60, '5m': 300, '1h': 3_600, '1d': 86_400 }

function ticks(context: ServiceContext, symbol: string, query: URLSearchParams): Record<string, unknown>[] {
  const market = context.read.marketsBySlug.get(symbol)
  const tokenId = market !== undefined ? market.yesTokenId : tokenIdOf(symbol, 'symbol')
  marketOfToken(context, tokenId)
  const intervalText = query.get('interval') ?? '1h'
  const intervalSec = INTERVALS_SEC[intervalText]
  if (intervalSec === undefined) throw new PredexError(ApiCode.INVALID_PARAMETER, 'interval must be 1m, 5m, 1h or 1d', { field: 'interval' })
  const toSec = optionalInteger(query.get('to'), 'to') ?? Math.floor(context.nowMs() / 1000)
  const fromSec = optionalInteger(query.get('from'), 'from') ?? Math.max(0, toSec - 500 * intervalSec)
  if (fromSec > toSec) throw new PredexError(ApiCode.INVALID_PARAMETER, 'from must not be after to', { field: 'from' })
  if ((toSec - fromSec) / intervalSec > CANDLES_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `the range spans more than ${CANDLES_MAX} intervals: narrow it or use a longer interval`,
      { field: 'from', candlesMax: CANDLES_MAX })
  }
  const candles = candlesOf(context.read.ticksByToken.get(tokenId) ?? [], fromSec * 1000, (toSec + 1) * 1000, intervalSec * 1000)
  return candles.map((c) => ({ t: c.startMs / 1000, open: decimalOfMicros(c.openMicros), high: decimalOfMicros(c.highMicros),
    low: decimalOfMicros(c.lowMicros), close: decimalOfMicros(c.closeMicros), volume: decimalOfMicros(c.volumeMicros) }))
}
