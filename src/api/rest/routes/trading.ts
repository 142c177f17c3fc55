/**
 * Trading (L2) over REST: parse the wire format, call the trading service (src/service/trading/trading.ts),
 * shape the answer in Polymarket's formats (native or /compat).
 */
import type { Canceled } from '../../../engine/result.js'
import { ApiCode, PredexError, refusalOr } from '../../../errors.js'
import {
  BATCH_ORDERS_MAX,
  CANCEL_IDS_MAX,
  NATIVE_BATCH_ORDERS_MAX,
  REST_BATCH_BODY_BYTES_MAX,
  REST_CANCEL_BODY_BYTES_MAX,
  REST_ORDER_BODY_BYTES_MAX,
  MASS_QUOTE_LEVELS_MAX,
  REST_QUOTES_BODY_BYTES_MAX,
  REST_SMALL_BODY_BYTES_MAX,
} from '../../../limits.js'
import { availableUsdcMicrosOf } from '../../../service/account/account.js'
import * as trading from '../../../service/trading/trading.js'
import type { Placement } from '../../../service/trading/trading.js'
import { clientOrder, orderInfo, placementReport, tradeInfo, VERIFY_NOTE } from '../../format.js'
import { parseWireOrder } from '../../order-wire.js'
import { decimalOfMicros } from '../../../stdx/decimal.js'
import { limitOf, microsOfDecimal, optionalFilter, optionalInteger, orderIdOf, page, parseJsonBody, requireObject,
  requireString, tokenIdOf } from '../../wire.js'
import type { MarketOrdersCancel, OrderAmend, OrderCancel, OrderReplace, QuotesPost, Unparsed }
  from '../../shapes/requests.js'
import type { CancelResult, OrderAmended, OrderPlacement, OrderRefusal, OrderReplaced, QuoteLevelResult, QuotesResult }
  from '../../shapes/placement.js'
import * as quotes from '../../../service/trading/quotes.js'
import type { RestRequest } from '../route.js'
import type { TypedRoute } from '../typed-route.js'
import { traderOf } from './common.js'

/** POST /order's answer: Polymarket's placement fields plus `order_id`. */
function placed(placement: Placement): OrderPlacement {
  const report = placementReport(placement)
  return {
    success: true,
    errorMsg: '',
    order_id: report.orderId,
    orderID: report.orderId,
    status: report.status,
    makingAmount: report.makingAmount,
    takingAmount: report.takingAmount,
    fee: report.fee,
    side: report.side,
    transactionsHashes: report.transactionsHashes,
    tradeIDs: report.tradeIds,
  }
}

function failed(error: PredexError, orderId: string): OrderRefusal {
  return {
    success: false,
    errorMsg: error.message,
    orderID: orderId,
    order_id: orderId,
    code: error.code,
    ...(error.context ?? {}),
  }
}

function cancelBody(result: Canceled): CancelResult {
  const notCanceled = Object.fromEntries(result.notCanceled.map((n) => [n.orderId, n.reason]))
  return { canceled: result.canceled, not_canceled: notCanceled }
}

/** POST /order/amend's sizes: each in shares, absent (0) unless sent; the service checks that exactly one is. */
function amendSizeOf(body: Unparsed<OrderAmend>): trading.AmendSize {
  return {
    newSizeMicros: body.new_size === undefined ? 0 : microsOfDecimal(body.new_size, 'new_size'),
    reduceByMicros: body.reduce_by === undefined ? 0 : microsOfDecimal(body.reduce_by, 'reduce_by'),
  }
}

function amendedBody(outcome: trading.AmendOutcome): OrderAmended {
  return { success: true, order_id: outcome.orderId, size_matched: decimalOfMicros(outcome.sizeMatchedMicros),
    size_remaining: decimalOfMicros(outcome.remainingMicros), reduced_by: decimalOfMicros(outcome.reducedByMicros),
    engine_seq: outcome.seq }
}

function replacedBody(replacement: trading.Replacement): OrderReplaced {
  const { entry } = replacement
  return {
    canceled: { order_id: replacement.canceledOrderId,
      size_remaining: decimalOfMicros(replacement.canceledRemainingMicros) },
    placement: (entry.ok ? placed(entry.placement) : failed(entry.error, entry.orderId)) as OrderReplaced['placement'],
    engine_seq: replacement.seq,
  }
}

function quotesBody(outcome: quotes.QuoteOutcome): QuotesResult {
  return { canceled: outcome.canceled, levels: outcome.levels.map(levelBody), engine_seq: outcome.seq }
}

function levelBody(level: quotes.QuoteLevel): QuoteLevelResult {
  switch (level.kind) {
    case 'kept': return { outcome: 'kept', order_id: level.orderId }
    case 'gone': return { outcome: 'gone', order_id: level.orderId, reason: level.reason }
    case 'new': return level.entry.ok
      ? { outcome: 'placed', ...placed(level.entry.placement) } as QuoteLevelResult
      : { outcome: 'refused', ...failed(level.entry.error, level.entry.orderId) } as QuoteLevelResult
  }
}

/** A batch item parsed, or its parse error (the service reports it in the item's place). */
function parsedOrError(item: unknown): ReturnType<typeof parseWireOrder> | PredexError {
  return refusalOr(() => parseWireOrder(item))
}

function query(request: RestRequest, name: string): string | null {
  const value = request.query.get(name)
  return value === '' ? null : value
}

export const tradingRoutes: TypedRoute[] = [
  { method: 'POST', path: '/order', auth: 'l2', bodyMax: REST_ORDER_BODY_BYTES_MAX, rate: 'order', placement: true,
    openapi: { tag: 'trading', summary: 'Place one signed order',
      body: '{order: SignedOrder (V1: taker, nonce, feeRateBps; V2: timestamp, metadata, builder), owner, orderType, '
        + 'postOnly?}',
      response: '{success, errorMsg, order_id, orderID, status, makingAmount, takingAmount, transactionsHashes, '
        + 'tradeIDs}' },
    handler: async (request, identity, context) => {
      const order = parseWireOrder(parseJsonBody(request.body))
      return { body: placed(await trading.placeOrder(context, order, traderOf(identity))) }
    } },
  { method: 'POST', path: '/orders', auth: 'l2', bodyMax: REST_BATCH_BODY_BYTES_MAX, rate: 'batch', placement: true,
    openapi: { tag: 'trading',
      summary: `Place up to ${NATIVE_BATCH_ORDERS_MAX} signed orders (${BATCH_ORDERS_MAX} under /compat, as ` +
        'Polymarket), each on its own',
      body: '[{order, owner, orderType, postOnly?}]',
      response: 'native: {total_successful, total_failed, results}; compat: [result]' },
    handler: async (request, identity, context) => {
      const body = parseJsonBody(request.body)
      if (!Array.isArray(body)) {
        throw new PredexError(ApiCode.INVALID_PARAMETER, 'the body must be an array of orders', { field: 'body' })
      }
      trading.checkBatchSize(body.length, request.compat ? BATCH_ORDERS_MAX : NATIVE_BATCH_ORDERS_MAX)
      const entries = await trading.placeOrders(context, body.map(parsedOrError), traderOf(identity))
      const results = entries.map((e) => (e.ok ? placed(e.placement) : failed(e.error, e.orderId)))
      if (request.compat) return { body: results }
      const tally = trading.tallyOf(entries)
      return { body: { total_successful: tally.successful, total_failed: tally.failed, results } }
    } },
  { method: 'DELETE', path: '/order', auth: 'l2', bodyMax: REST_ORDER_BODY_BYTES_MAX, rate: 'cancel',
    openapi: { tag: 'trading', summary: 'Cancel one order', body: '{orderID}',
      response: '{canceled: [id], not_canceled: {id: reason}}' },
    handler: async (request, identity, context) => {
      const body = parseJsonBody(request.body) as Unparsed<OrderCancel> | null
      const orderId = orderIdOf(body?.orderID ?? body?.orderId)
      return { body: cancelBody(await trading.cancelOrder(context, traderOf(identity), orderId)) }
    } },
  { method: 'POST', path: '/order/amend', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancel',
    surface: 'native',
    openapi: { tag: 'trading',
      summary: 'Lower an open order\'s size; it keeps its place in the queue (to raise it or move it: /order/replace)',
      body: '{orderID, new_size? | reduce_by?} (shares, exactly one)',
      response: '{success, order_id, size_matched, size_remaining, reduced_by, engine_seq}' },
    handler: async (request, identity, context) => {
      const body: Unparsed<OrderAmend> & { readonly orderId?: unknown } =
        requireObject(parseJsonBody(request.body), 'body')
      const orderId = orderIdOf(body.orderID ?? body.orderId)
      const size = amendSizeOf(body)
      return { body: amendedBody(await trading.amendOrder(context, traderOf(identity), orderId, size)) }
    } },
  { method: 'POST', path: '/order/replace', auth: 'l2', bodyMax: REST_ORDER_BODY_BYTES_MAX, rate: 'order',
    placement: true, surface: 'native',
    openapi: { tag: 'trading',
      summary: 'Cancel an open order and place a signed one in its stead, in one engine command',
      body: '{orderID (the order to cancel), order: SignedOrder, owner, orderType, postOnly?}',
      response: '{canceled: {order_id, size_remaining}, placement: POST /order\'s answer or its refusal, engine_seq}' },
    handler: async (request, identity, context) => {
      const body: Unparsed<OrderReplace> = requireObject(parseJsonBody(request.body), 'body')
      const orderId = orderIdOf(body.orderID)
      const order = parseWireOrder(body)
      return { body: replacedBody(await trading.cancelReplace(context, traderOf(identity), orderId, order)) }
    } },
  { method: 'POST', path: '/quotes', auth: 'l2', bodyMax: REST_QUOTES_BODY_BYTES_MAX, rate: 'batch', placement: true,
    surface: 'native',
    openapi: { tag: 'trading',
      summary: `Set the key's whole ladder on one market in one engine command (at most ${MASS_QUOTE_LEVELS_MAX} ` +
        'orders a side): resting levels named again are kept, unnamed ones cancelled, new ones placed',
      body: '{market, orders: [{order, owner, orderType, postOnly?, selfTradePrevention?}]}',
      response: '{canceled: [id], levels: [{outcome: kept|gone|placed|refused, order_id, ...}], engine_seq}' },
    handler: async (request, identity, context) => {
      const body: Unparsed<QuotesPost> = requireObject(parseJsonBody(request.body), 'body')
      const market = requireString(body.market, 'market')
      if (!Array.isArray(body.orders)) {
        throw new PredexError(ApiCode.INVALID_PARAMETER, 'orders must be an array of orders', { field: 'orders' })
      }
      quotes.checkQuoteSize(body.orders.length)
      const outcome = await quotes.massQuote(context, traderOf(identity), market, body.orders.map(parsedOrError))
      return { body: quotesBody(outcome) }
    } },
  { method: 'DELETE', path: '/orders', auth: 'l2', bodyMax: REST_CANCEL_BODY_BYTES_MAX, rate: 'batch',
    openapi: { tag: 'trading', summary: `Cancel several orders (at most ${CANCEL_IDS_MAX})`, body: '[orderID]',
      response: '{canceled, not_canceled}' },
    handler: async (request, identity, context) => {
      const body = parseJsonBody(request.body)
      if (!Array.isArray(body)) {
        throw new PredexError(ApiCode.INVALID_PARAMETER, 'the body must be an array of order ids', { field: 'body' })
      }
      trading.checkCancelCount(body.length)
      const orderIds = body.map((id) => orderIdOf(id))
      return { body: cancelBody(await trading.cancelOrders(context, traderOf(identity), orderIds)) }
    } },
  { method: 'DELETE', path: '/cancel-all', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancelAll',
    openapi: { tag: 'trading', summary: "Cancel all of the caller's open orders",
      response: '{canceled, not_canceled}' },
    handler: async (_request, identity, context) => ({
      body: cancelBody(await trading.cancelAll(context, traderOf(identity))) }) },
  { method: 'DELETE', path: '/cancel-market-orders', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancelAll',
    openapi: { tag: 'trading', summary: "Cancel the caller's open orders in a market and/or token",
      body: '{market?, asset_id?}', response: '{canceled, not_canceled}' },
    handler: async (request, identity, context) => {
      const body: Unparsed<MarketOrdersCancel> =
        request.body.length === 0 ? {} : requireObject(parseJsonBody(request.body), 'body')
      const market = optionalFilter(body.market, 'market')
      const tokenIdText = optionalFilter(body.asset_id, 'asset_id')
      const tokenId = tokenIdText === null ? null : tokenIdOf(tokenIdText, 'asset_id')
      return { body: cancelBody(await trading.cancelMarketOrders(context, traderOf(identity), market, tokenId)) }
    } },
  { method: 'GET', path: '/data/order/:id', auth: 'l2', bodyMax: 0,
    openapi: { tag: 'trading', summary: "One of the caller's orders, open or ended", response: 'OrderInfo' },
    handler: (request, identity, context) => {
      const order = trading.orderOf(context, traderOf(identity), request.params[0]!)
      if (request.compat) return { body: orderInfo(context.read, order, true) }
      return trading.queueAheadOf(context, [order])
        .then((ahead) => ({ body: orderInfo(context.read, order, false, ahead) }))
    } },
  { method: 'GET', path: '/data/orders', auth: 'l2', bodyMax: 0,
    openapi: { tag: 'trading', summary: "The caller's open orders",
      query: { id: 'one order id', market: 'market id, condition id or slug', asset_id: 'token id',
        next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: 'OrdersResponse {data: [OrderInfo], next_cursor, available_usdc}' },
    handler: async (request, identity, context) => {
      const trader = traderOf(identity)
      const open = trading.openOrdersOf(context, trader,
        { orderId: request.query.get('id'), market: query(request, 'market'), tokenId: query(request, 'asset_id') })
      const limit = limitOf(request.query.get('limit'))
      const { data, nextCursor } = page(open, request.query.get('next_cursor'), limit)
      const head = { limit, count: data.length, next_cursor: nextCursor }
      if (request.compat) return { body: { ...head, data: data.map((o) => orderInfo(context.read, o, true)) } }
      const ahead = await trading.queueAheadOf(context, data)
      return { body: { ...head, data: data.map((o) => orderInfo(context.read, o, false, ahead)),
        available_usdc: decimalOfMicros(await availableUsdcMicrosOf(context, trader.address)) } }
    } },
  { method: 'GET', path: '/data/trades', auth: 'l2', bodyMax: 0,
    openapi: { tag: 'trading', summary: "The caller's trades (as taker or maker)",
      query: { id: 'trade id', market: 'market', asset_id: 'token id', before: 'unix seconds', after: 'unix seconds',
        next_cursor: 'cursor', limit: 'page size' },
      response: '{limit, count, next_cursor, data: [Trade]}' },
    handler: (request, identity, context) => {
      const trader = traderOf(identity)
      const trades = trading.tradesOf(context, trader, {
        tradeId: request.query.get('id'), market: query(request, 'market'), tokenId: query(request, 'asset_id'),
        beforeSec: optionalInteger(request.query.get('before'), 'before'),
        afterSec: optionalInteger(request.query.get('after'), 'after'),
      })
      const limit = limitOf(request.query.get('limit'))
      const { data, nextCursor } = page(trades, request.query.get('next_cursor'), limit)
      return { body: { limit, count: data.length, next_cursor: nextCursor,
        data: data.map((t) => tradeInfo(context.read, t, trader.address, request.compat, context.chainId,
          context.settlement?.of(t.tradeId, t.timeMs) ?? null)) } }
    } },
  { method: 'GET', path: '/orders', auth: 'l2', bodyMax: 0, surface: 'native',
    openapi: { tag: 'trading', summary: "The caller's orders", query: { market_id: 'market',
      status: 'open, matched, canceled or all (default all)', next_cursor: 'cursor', limit: 'page size' },
      response: '{data: [{id, market_id, token_id, outcome, side, price, size, size_remaining, status, created_at}], '
        + 'next_cursor}' },
    handler: (request, identity, context) => {
      const status = trading.orderStatusFilterOf(request.query.get('status') ?? 'all')
      const orders = trading.ordersOf(context, traderOf(identity), query(request, 'market_id'), status)
      const { data, nextCursor } = page(orders, request.query.get('next_cursor'), limitOf(request.query.get('limit')))
      return { body: { next_cursor: nextCursor, data: data.map(clientOrder) } }
    } },
  { method: 'POST', path: '/order/verify', auth: 'l2', bodyMax: REST_ORDER_BODY_BYTES_MAX, rate: 'order',
    surface: 'native',
    openapi: { tag: 'trading',
      summary: 'Dry run: checks a signed order (shape, ownership, market, signature) and places nothing',
      body: '{order, owner, orderType, postOnly?}', response: '{valid, orderID, checks: [{check, ok, message}]}' },
    handler: async (request, identity, context) => {
      const run = await trading.dryRun(context, parsedOrError(parseJsonBody(request.body)), traderOf(identity))
      return { body: { valid: run.valid, orderID: run.orderId, checks: run.checks,
        note: VERIFY_NOTE } }
    } },
]
