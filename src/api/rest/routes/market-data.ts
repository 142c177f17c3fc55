/**
 * Market data, all public and answered from the read model's books: the book of a token (its own
 * orders), the unified book (with the implied liquidity of the other token), prices, midpoints,
 * spreads, last trade prices, tick size, fee rate, neg-risk flag, price history. Prices, midpoints
 * and spreads read the unified book: they are the prices a taker can actually trade at. A side
 * with no orders gives null rather than an error.
 */
import type { ServiceContext } from '../../../service/context.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { bookSummary, tickText } from '../../format.js'
import { decimalOfMicros, optionalInteger, parseJsonBody, tokenIdOf } from '../../wire.js'
import type { Reply, Route } from '../route.js'
import type { ReadModel } from '../../../read/read-model.js'
import { REST_BATCH_BODY_BYTES_MAX } from '../../../limits.js'
import * as marketData from '../../../service/market-data.js'
import { marketOfToken } from '../../../service/markets.js'
import { tokenItems, tokenQuery } from './common.js'

const GET = 'GET' as const
const POST = 'POST' as const

function price(micros: number | null): string | null {
  return micros === null ? null : decimalOfMicros(micros)
}

function midpoint(context: ServiceContext, tokenId: string): string | null {
  return price(marketData.midpointMicrosOf(marketData.quoteOf(context, tokenId)))
}

function spread(context: ServiceContext, tokenId: string): string | null {
  return price(marketData.spreadMicrosOf(marketData.quoteOf(context, tokenId)))
}

function sideOf(text: string | null | undefined): marketData.Side {
  const side = (text ?? '').toUpperCase()
  if (side !== 'BUY' && side !== 'SELL') {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid side: use BUY or SELL', { field: 'side' })
  }
  return side
}

function lastTrade(context: ServiceContext, tokenId: string): { price: string | null; side: string | null } {
  const last = marketData.lastTradeOf(context, tokenId)
  return { price: price(last.priceMicros), side: last.side }
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
  const nowMs = context.nowMs()
  const key = `${nowMs} ${marketData.bookVersionOf(context, tokenId, unified)}`
  let cache = bookCaches.get(read)
  if (cache === undefined) {
    cache = new Map()
    bookCaches.set(read, cache)
  }
  const id = unified ? `u${tokenId}` : tokenId
  const hit = cache.get(id)
  if (hit?.key === key) return { body: null, json: hit.json }
  const json = JSON.stringify(bookSummary(read, marketData.bookOf(context, tokenId, unified).book, nowMs))
  cache.set(id, { key, json })
  return { body: null, json }
}

export const marketDataRoutes: Route<ServiceContext>[] = [
  { method: GET, path: '/book', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: "A token's own book (best level last)",
      query: { token_id: 'required: the token id' },
      response: 'OrderBookSummary {market, asset_id, timestamp, hash, bids, asks, min_order_size, tick_size, neg_risk, '
        + 'last_trade_price}' },
    handler: (request, _identity, context) => cachedBook(context, tokenQuery(request, context).tokenId, false) },
  { method: GET, path: '/book/unified', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'market-data', summary: "A token's book with the implied liquidity of the other token",
      query: { token_id: 'required: the token id' },
      response: 'OrderBookSummary' },
    handler: (request, _identity, context) => cachedBook(context, tokenQuery(request, context).tokenId, true) },
  { method: POST, path: '/books', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX,
    openapi: { tag: 'market-data', summary: 'Books of several tokens', body: '[{token_id}] (at most 500)',
      response: '[OrderBookSummary]' },
    handler: (request, _identity, context) => ({ body: tokenItems(parseJsonBody(request.body))
      .map((item) => bookSummary(context.read, marketData.bookOf(context, item.token_id, false).book,
        context.nowMs())) }) },
  { method: GET, path: '/midpoint', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Midpoint of the best bid and ask', query: { token_id: 'required' },
      response: '{mid}' },
    handler: (request, _identity, context) => {
      const mid = midpoint(context, tokenQuery(request, context).tokenId)
      return { body: { mid, mid_price: mid } }
    } },
  { method: POST, path: '/midpoints', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX,
    openapi: { tag: 'market-data', summary: 'Midpoints of several tokens', body: '[{token_id}]',
      response: '{<token_id>: mid}' },
    handler: (request, _identity, context) => ({ body: Object.fromEntries(tokenItems(parseJsonBody(request.body))
      .map((item) => [item.token_id, midpoint(context, item.token_id)])) }) },
  { method: GET, path: '/price', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Best price: side=buy gives the best bid, side=sell the best ask',
      query: { token_id: 'required', side: 'required: buy or sell (any case)' }, response: '{price}' },
    handler: (request, _identity, context) => {
      const { tokenId } = tokenQuery(request, context)
      return { body: { price: price(marketData.priceOf(context, tokenId, sideOf(request.query.get('side')))) } }
    } },
  { method: POST, path: '/prices', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX,
    openapi: { tag: 'market-data', summary: 'Prices of several tokens and sides', body: '[{token_id, side}]',
      response: '{<token_id>: {BUY, SELL}}' },
    handler: (request, _identity, context) => {
      const prices: Record<string, Record<string, string | null>> = {}
      for (const item of tokenItems(parseJsonBody(request.body))) {
        marketData.quoteOf(context, item.token_id)
        const side = sideOf(item.side)
        const sidePrice = price(marketData.priceOf(context, item.token_id, side))
        prices[item.token_id] = { ...prices[item.token_id], [side]: sidePrice }
      }
      return { body: prices }
    } },
  { method: GET, path: '/spread', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Best ask minus best bid', query: { token_id: 'required' },
      response: '{spread}' },
    handler: (request, _identity, context) => ({
      body: { spread: spread(context, tokenQuery(request, context).tokenId) } }) },
  { method: POST, path: '/spreads', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX, surface: 'compat',
    openapi: { tag: 'market-data', summary: 'Spreads of several tokens', body: '[{token_id}]',
      response: '{<token_id>: spread}' },
    handler: (request, _identity, context) => ({ body: Object.fromEntries(tokenItems(parseJsonBody(request.body))
      .map((item) => [item.token_id, spread(context, item.token_id)])) }) },
  { method: GET, path: '/last-trade-price', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Price and taker side of the last trade', query: { token_id: 'required' },
      response: '{price, side}' },
    handler: (request, _identity, context) => ({ body: lastTrade(context, tokenQuery(request, context).tokenId) }) },
  { method: POST, path: '/last-trades-prices', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX, surface: 'compat',
    openapi: { tag: 'market-data', summary: 'Last trade prices of several tokens', body: '[{token_id}]',
      response: '[{token_id, price, side}]' },
    handler: (request, _identity, context) => ({ body: tokenItems(parseJsonBody(request.body))
      .map((item) => ({ token_id: item.token_id, ...lastTrade(context, item.token_id) })) }) },
  { method: GET, path: '/tick-size', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: "The market's tick size", query: { token_id: 'required' },
      response: '{minimum_tick_size: number}' },
    handler: (request, _identity, context) => {
      const tickSizeMicros = tokenQuery(request, context).market.tickSizeMicros
      return { body: { minimum_tick_size: Number(tickText(tickSizeMicros)) } }
    } },
  { method: GET, path: '/fee-rate', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: "The market's fee rate in basis points", query: { token_id: 'required' },
      response: '{base_fee: integer}' },
    handler: (request, _identity, context) => ({
      body: { base_fee: tokenQuery(request, context).market.feeRateBps } }) },
  { method: GET, path: '/neg-risk', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Whether orders are signed for the neg-risk exchange',
      query: { token_id: 'required' }, response: '{neg_risk}' },
    handler: (request, _identity, context) => ({ body: { neg_risk: tokenQuery(request, context).market.negRisk } }) },
  { method: GET, path: '/prices-history', auth: 'none', bodyMax: 0, surface: 'compat',
    openapi: { tag: 'market-data', summary: 'Trade prices of a token over time',
      query: { market: 'required: the token id', startTs: 'unix seconds', endTs: 'unix seconds' },
      response: '{history: [{t, p}]}' },
    handler: (request, _identity, context) => {
      const tokenId = tokenIdOf(request.query.get('market'), 'market')
      marketOfToken(context, tokenId)
      const start = (optionalInteger(request.query.get('startTs'), 'startTs') ?? 0) * 1000
      const endSecMax = Math.floor(Number.MAX_SAFE_INTEGER / 1000)
      const end = (optionalInteger(request.query.get('endTs'), 'endTs') ?? endSecMax) * 1000
      const history = marketData.priceHistoryOf(context, tokenId, start, end)
        .map((point) => ({ t: Math.floor(point.timeMs / 1000), p: Number(decimalOfMicros(point.priceMicros)) }))
      return { body: { history } }
    } },
  { method: GET, path: '/ticks/:symbol', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'market-data',
      summary: 'Candles (OHLCV) from trades, for a token id or a market slug (its Yes token); '
        + 'intervals without trades are left out',
      query: { interval: '1m, 5m, 1h (default) or 1d', from: 'unix seconds (default: to minus 500 intervals)',
        to: 'unix seconds (default: now)' },
      response: '[{t (unix seconds, start of the interval), open, high, low, close, volume (shares)}]' },
    handler: (request, _identity, context) => ({ body: ticks(context, request.params[0]!, request.query) }) },
]

function ticks(context: ServiceContext, symbol: string, query: URLSearchParams): Record<string, unknown>[] {
  const tokenId = marketData.yesTokenOfSlug(context, symbol) ?? tokenIdOf(symbol, 'symbol')
  const candles = marketData.candles(context, { tokenId, interval: query.get('interval') ?? '1h',
    fromSec: optionalInteger(query.get('from'), 'from'), toSec: optionalInteger(query.get('to'), 'to') })
  return candles.map((c) => ({ t: c.startMs / 1000, open: decimalOfMicros(c.openMicros),
    high: decimalOfMicros(c.highMicros), low: decimalOfMicros(c.lowMicros), close: decimalOfMicros(c.closeMicros),
    volume: decimalOfMicros(c.volumeMicros) }))
}
