/**
 * Market data, all public and answered from the read model's books: the book of a token (its own
 * orders), the unified book (with the implied liquidity of the other token), prices, midpoints,
 * spreads, last trade prices, tick size, fee rate, neg-risk flag, price history. Prices, midpoints
 * and spreads read the unified book: they are the prices a taker can actually trade at. A side
 * with no orders gives null rather than an error.
 */
import type { ServiceContext } from '../../../service/context.js'
import { cachedBook } from '../../book-cache.js'
import { bookSummary, tickText } from '../../format.js'
import { CANDLE_INTERVAL_DEFAULT, candleRows, lastTradeText, midpointText, priceText, quoteSideOf, spreadText,
  type CandleRow } from '../../market-query.js'
import { decimalOfMicros, integerOf, optionalInteger, parseJsonBody, tokenIdOf } from '../../wire.js'
import type { OrderBookSummary } from '../../shapes/book.js'
import type { ReplyOf, TypedRoute } from '../typed-route.js'
import { PRICES_HISTORY_FIDELITY_MINUTES_MAX, PRICES_HISTORY_POINTS_MAX, REST_BATCH_BODY_BYTES_MAX }
  from '../../../limits.js'
import * as marketData from '../../../service/market-data/market-data.js'
import { priceHistoryOf } from '../../../service/market-data/price-history.js'
import { tokenItems, tokenQuery } from './common.js'

const GET = 'GET' as const
const POST = 'POST' as const
/** Seconds whose milliseconds, plus one second, stay exact integers. */
const UNIX_SECONDS_MAX = Math.floor(Number.MAX_SAFE_INTEGER / 1000) - 1

function sentBook(context: ServiceContext, tokenId: string, unified: boolean): ReplyOf<OrderBookSummary> {
  return { body: null, json: cachedBook(context, tokenId, unified).json }
}

/**
 * GET /price's convention, Polymarket's (src/service/market-data/market-data.ts priceOf): the side names the
 * orders read, not the trade the caller means to make. Said in the document: it surprises.
 */
const QUOTE_SIDES = 'side=buy answers the best bid (the highest price a resting buy order pays) and side=sell the '
  + 'best ask (the lowest price a resting sell order takes), as Polymarket\'s GET /price does: the side names the '
  + 'resting orders read, not the trade the caller would make (a buyer pays the best ask: side=sell). Both are of '
  + "the unified book (the token's own orders and the other token's, mirrored at 1 - price, as GET /book/unified "
  + 'shows them); null when that side is empty.'

export const marketDataRoutes: TypedRoute[] = [
  { method: GET, path: '/book', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: "A token's own book (best level last)",
      query: { token_id: 'required: the token id' },
      response: 'OrderBookSummary {market, asset_id, timestamp, hash, bids, asks, min_order_size, tick_size, neg_risk, '
        + 'last_trade_price}' },
    handler: (request, _identity, context) => sentBook(context, tokenQuery(request, context).tokenId, false) },
  { method: GET, path: '/book/unified', auth: 'none', bodyMax: 0, surface: 'native',
    openapi: { tag: 'market-data', summary: "A token's book with the implied liquidity of the other token",
      query: { token_id: 'required: the token id' },
      response: 'OrderBookSummary' },
    handler: (request, _identity, context) => sentBook(context, tokenQuery(request, context).tokenId, true) },
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
      const mid = midpointText(context, tokenQuery(request, context).tokenId)
      return { body: { mid, mid_price: mid } }
    } },
  { method: POST, path: '/midpoints', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX,
    openapi: { tag: 'market-data', summary: 'Midpoints of several tokens', body: '[{token_id}]',
      response: '{<token_id>: mid}' },
    handler: (request, _identity, context) => ({ body: Object.fromEntries(tokenItems(parseJsonBody(request.body))
      .map((item) => [item.token_id, midpointText(context, item.token_id)])) }) },
  { method: GET, path: '/price', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Best price: side=buy gives the best bid, side=sell the best ask',
      description: QUOTE_SIDES, query: { token_id: 'required', side: 'required: buy or sell (any case)' },
      response: '{price}' },
    handler: (request, _identity, context) => {
      const { tokenId } = tokenQuery(request, context)
      const side = quoteSideOf(request.query.get('side'))
      return { body: { price: priceText(marketData.priceOf(context, tokenId, side)) } }
    } },
  { method: POST, path: '/prices', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX,
    openapi: { tag: 'market-data', summary: 'Prices of several tokens and sides', description: QUOTE_SIDES,
      body: '[{token_id, side}]',
      response: '{<token_id>: {BUY, SELL}}' },
    handler: (request, _identity, context) => {
      const prices: Record<string, Record<string, string | null>> = {}
      for (const item of tokenItems(parseJsonBody(request.body))) {
        marketData.quoteOf(context, item.token_id)
        const side = quoteSideOf(item.side)
        const sidePrice = priceText(marketData.priceOf(context, item.token_id, side))
        prices[item.token_id] = { ...prices[item.token_id], [side]: sidePrice }
      }
      return { body: prices }
    } },
  { method: GET, path: '/spread', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Best ask minus best bid', query: { token_id: 'required' },
      response: '{spread}' },
    handler: (request, _identity, context) => ({
      body: { spread: spreadText(context, tokenQuery(request, context).tokenId) } }) },
  { method: POST, path: '/spreads', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX, surface: 'compat',
    openapi: { tag: 'market-data', summary: 'Spreads of several tokens', body: '[{token_id}]',
      response: '{<token_id>: spread}' },
    handler: (request, _identity, context) => ({ body: Object.fromEntries(tokenItems(parseJsonBody(request.body))
      .map((item) => [item.token_id, spreadText(context, item.token_id)])) }) },
  { method: GET, path: '/last-trade-price', auth: 'none', bodyMax: 0,
    openapi: { tag: 'market-data', summary: 'Price and taker side of the last trade', query: { token_id: 'required' },
      response: '{price, side}' },
    handler: (request, _identity, context) =>
      ({ body: lastTradeText(context, tokenQuery(request, context).tokenId) }) },
  { method: POST, path: '/last-trades-prices', auth: 'none', bodyMax: REST_BATCH_BODY_BYTES_MAX, surface: 'compat',
    openapi: { tag: 'market-data', summary: 'Last trade prices of several tokens', body: '[{token_id}]',
      response: '[{token_id, price, side}]' },
    handler: (request, _identity, context) => ({ body: tokenItems(parseJsonBody(request.body))
      .map((item) => ({ token_id: item.token_id, ...lastTradeText(context, item.token_id) })) }) },
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
    openapi: { tag: 'market-data',
      summary: 'Trade prices of a token over time: every trade, or with fidelity the last price of each interval of '
        + 'that many minutes that had a trade (t its start)',
      query: { market: 'required: the token id', startTs: 'unix seconds', endTs: 'unix seconds (included)',
        interval: 'a window ending now instead of startTs/endTs: 1h, 6h, 1d, 1w, 1m (30 days), max or all',
        fidelity: `minutes per point, 1..${PRICES_HISTORY_FIDELITY_MINUTES_MAX}` },
      response: `{history: [{t, p}]} (at most ${PRICES_HISTORY_POINTS_MAX} points, else 400)` },
    handler: (request, _identity, context) => {
      const query = request.query
      const history = priceHistoryOf(context, {
        tokenId: tokenIdOf(query.get('market'), 'market'),
        interval: optionalText(query.get('interval')),
        startSec: optionalSeconds(query.get('startTs'), 'startTs'),
        endSec: optionalSeconds(query.get('endTs'), 'endTs'),
        fidelityMinutes: optionalInteger(query.get('fidelity'), 'fidelity'),
      }).map((point) => ({ t: Math.floor(point.timeMs / 1000), p: Number(decimalOfMicros(point.priceMicros)) }))
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

/** Unix seconds that may be absent; at most what milliseconds can carry exactly. */
function optionalSeconds(text: string | null, field: string): number | null {
  return text === null || text === '' ? null : integerOf(text, field, UNIX_SECONDS_MAX)
}

function optionalText(text: string | null): string | null {
  return text === null || text === '' ? null : text
}

function ticks(context: ServiceContext, symbol: string, query: URLSearchParams): CandleRow[] {
  return candleRows(context, { symbol, interval: query.get('interval') ?? CANDLE_INTERVAL_DEFAULT,
    fromSec: optionalInteger(query.get('from'), 'from'), toSec: optionalInteger(query.get('to'), 'to') })
}
