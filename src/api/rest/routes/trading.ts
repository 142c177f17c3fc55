/**
 * Trading (L2): place one or a batch of signed orders, cancel, and read the caller's orders and
 * trades. Placement is: shape, ownership (the order's owner is the API key, its signer the key's
 * address), market, signature type and signature (on the verification pool), then the engine.
 * Every order id stays readable after it ends, with its status and trades.
 */
import type { OrderInput, UnstampedCommand } from '../../../engine/command.js'
import type { BatchPlaced, Canceled, CommandResult, OrderPlaced, PlaceResult } from '../../../engine/result.js'
import { BATCH_ORDERS_MAX, CANCEL_IDS_MAX, REST_BATCH_BODY_BYTES_MAX, REST_CANCEL_BODY_BYTES_MAX, REST_ORDER_BODY_BYTES_MAX,
  REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import type { ServiceContext } from '../../../service/context.js'
import { ApiCode, PredexError } from '../../../errors.js'
import { orderInfo, tradeInfo } from '../../format.js'
import { checkOrderRules, checkOwnership, orderInputOf, parseWireOrder, verifySignature } from '../../order-wire.js'
import { decimalOfMicros, limitOf, optionalInteger, page, parseJsonBody, tokenIdOf } from '../../wire.js'
import type { Identity, RestRequest, Route } from '../route.js'
import { accountOf, availableUsdcMicros, identityOf, marketById, marketOfToken, rejectionError, submitCommand } from './common.js'
import { transactionOf } from '../../../chain/transaction.js'
import type { OrderRecord } from '../../../read/read-model.js'

/** Verifies one wire order; the engine's input, or the error to report for it. */
async function verified(body: unknown, identity: Identity, context: ServiceContext): Promise<OrderInput> {
  const wire = parseWireOrder(body)
  checkOwnership(wire, identity.apiKey!, identity.address)
  const market = marketOfToken(context, wire.struct.tokenId)
  const orderId = await verifySignature(wire, market, context.pool, context.isLinked)
  const input = orderInputOf(wire, orderId, identity.apiKey!)
  // Refused here, an order costs no journaled command; an order the engine knows already is its to
  // answer (INVALID_ORDER_DUPLICATED with the order's status), whatever its market's rules are now.
  if (!context.read.orders.has(orderId)) checkOrderRules(input, market, context.nowMs())
  return input
}

/** POST /order's answer: Polymarket's placement fields plus `order_id`. */
function placed(result: OrderPlaced, input: OrderInput, transactionHash: string): Record<string, unknown> {
  const filled = result.makingMicros > 0
  const status = result.status === 'LIVE' ? 'live' : filled ? 'matched' : 'unmatched'
  return {
    success: true,
    errorMsg: '',
    order_id: result.orderId,
    orderID: result.orderId,
    status,
    makingAmount: filled ? decimalOfMicros(result.makingMicros) : '',
    takingAmount: filled ? decimalOfMicros(result.takingMicros) : '',
    fee: decimalOfMicros(result.feeMicros),
    side: input.side,
    // The command that matched it settles its trades (src/chain/transaction.ts).
    transactionsHashes: result.tradeIds.length > 0 ? [transactionHash] : [],
    tradeIDs: result.tradeIds,
  }
}

function failed(error: PredexError, orderId: string): Record<string, unknown> {
  return { success: false, errorMsg: error.message, orderID: orderId, order_id: orderId, code: error.code, ...(error.context ?? {}) }
}

async function submit(context: ServiceContext, command: UnstampedCommand): Promise<CommandResult> {
  return (await submitCommand(context, command)).result
}

function cancelBody(result: Canceled): Record<string, unknown> {
  return { canceled: result.canceled, not_canceled: Object.fromEntries(result.notCanceled.map((n) => [n.orderId, n.reason])) }
}

async function cancel(context: ServiceContext, command: UnstampedCommand): Promise<Record<string, unknown>> {
  const result = await submit(context, command)
  if (!result.ok) throw rejectionError(result as never)
  return cancelBody(result as Canceled)
}

function orderIdOf(value: unknown): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) throw new PredexError(ApiCode.INVALID_PARAMETER, 'Invalid orderID', { field: 'orderID' })
  return value.toLowerCase()
}

/** The caller's orders, oldest first, filtered. */
function ordersOf(context: ServiceContext, address: string, filter: (order: OrderRecord) => boolean): OrderRecord[] {
  return (context.read.ordersByMaker.get(address) ?? []).map((id) => context.read.orders.get(id)!).filter(filter)
}

function marketFilter(context: ServiceContext, request: RestRequest, name: string): string | null {
  const value = request.query.get(name)
  return value === null || value === '' ? null : marketById(context, value).marketId
}

export const tradingRoutes: Route<ServiceContext>[] = [
  { method: 'POST', path: '/order', auth: 'l2', bodyMax: REST_ORDER_BODY_BYTES_MAX, rate: 'order',
    openapi: { tag: 'trading', summary: 'Place one signed order', body: '{order: SignedOrder, owner, orderType, postOnly?}',
      response: '{success, errorMsg, order_id, orderID, status, makingAmount, takingAmount, transactionsHashes, tradeIDs}' },
    handler: async (request, identity, context) => {
      const input = await verified(parseJsonBody(request.body), identityOf(identity), context)
      const { result, seq } = await submitCommand(context, { kind: 'placeOrder', order: input })
      if (!result.ok) throw rejectionError(result as never)
      return { body: placed(result as OrderPlaced, input, transactionOf(context.chainId, seq).transactionHash) }
    } },
  { method: 'POST', path: '/orders', auth: 'l2', bodyMax: REST_BATCH_BODY_BYTES_MAX, rate: 'batch',
    openapi: { tag: 'trading', summary: `Place up to ${BATCH_ORDERS_MAX} signed orders, each on its own`, body: '[{order, owner, orderType, postOnly?}]',
      response: 'native: {total_successful, total_failed, results}; compat: [result]' },
    handler: async (request, identity, context) => {
      const body = parseJsonBody(request.body)
      if (!Array.isArray(body)) throw new PredexError(ApiCode.INVALID_PARAMETER, 'the body must be an array of orders', { field: 'body' })
      if (body.length > BATCH_ORDERS_MAX) {
        throw new PredexError('BATCH_TOO_LARGE', `Too many orders in payload: ${body.length}, max allowed: ${BATCH_ORDERS_MAX}`, { max: BATCH_ORDERS_MAX })
      }
      const checked = await Promise.allSettled(body.map((item) => verified(item, identityOf(identity), context)))
      const inputs = checked.flatMap((c) => (c.status === 'fulfilled' ? [c.value] : []))
      let placedResults: readonly PlaceResult[] = []
      let transactionHash = ''
      if (inputs.length > 0) {
        const { result, seq } = await submitCommand(context, { kind: 'placeOrders', orders: inputs })
        transactionHash = transactionOf(context.chainId, seq).transactionHash
        if (!result.ok) throw rejectionError(result as never)
        placedResults = (result as BatchPlaced).results
      }
      let next = 0
      const results = checked.map((c) => {
        if (c.status === 'rejected') return failed(asApiError(c.reason), '')
        const input = inputs[next]!
        const outcome = placedResults[next++]!
        return outcome.ok ? placed(outcome, input, transactionHash) : failed(rejectionError(outcome), outcome.orderId)
      })
      if (request.compat) return { body: results }
      const successful = results.filter((r) => r.success === true).length
      return { body: { total_successful: successful, total_failed: results.length - successful, results } }
    } },
  { method: 'DELETE', path: '/order', auth: 'l2', bodyMax: REST_ORDER_BODY_BYTES_MAX, rate: 'cancel',
    openapi: { tag: 'trading', summary: 'Cancel one order', body: '{orderID}', response: '{canceled: [id], not_canceled: {id: reason}}' },
    handler: async (request, identity, context) => {
      const body = parseJsonBody(request.body) as { orderID?: unknown; orderId?: unknown } | null
      const orderId = orderIdOf(body?.orderID ?? body?.orderId)
      return { body: await cancel(context, { kind: 'cancelOrder', address: identityOf(identity).address, orderId }) }
    } },
  { method: 'DELETE', path: '/orders', auth: 'l2', bodyMax: REST_CANCEL_BODY_BYTES_MAX, rate: 'batch',
    openapi: { tag: 'trading', summary: `Cancel several orders (at most ${CANCEL_IDS_MAX})`, body: '[orderID]', response: '{canceled, not_canceled}' },
    handler: async (request, identity, context) => {
      const body = parseJsonBody(request.body)
      if (!Array.isArray(body)) throw new PredexError(ApiCode.INVALID_PARAMETER, 'the body must be an array of order ids', { field: 'body' })
      if (body.length > CANCEL_IDS_MAX) {
        throw new PredexError('CANCEL_TOO_MANY', `Too many orders in payload, max allowed: ${CANCEL_IDS_MAX}`, { max: CANCEL_IDS_MAX })
      }
      return { body: await cancel(context, { kind: 'cancelOrders', address: identityOf(identity).address, orderIds: body.map(orderIdOf) }) }
    } },
  { method: 'DELETE', path: '/cancel-all', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancelAll',
    openapi: { tag: 'trading', summary: "Cancel all of the caller's open orders", response: '{canceled, not_canceled}' },
    handler: async (_request, identity, context) => ({ body: await cancel(context, { kind: 'cancelAll', address: identityOf(identity).address }) }) },
  { method: 'DELETE', path: '/cancel-market-orders', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancelAll',
    openapi: { tag: 'trading', summary: "Cancel the caller's open orders in a market and/or token", body: '{market?, asset_id?}', response: '{canceled, not_canceled}' },
    handler: async (request, identity, context) => {
      const body = (request.body.length === 0 ? {} : parseJsonBody(request.body)) as { market?: unknown; asset_id?: unknown }
      const marketId = typeof body.market === 'string' && body.market !== '' ? marketById(context, body.market).marketId : ''
      const tokenId = typeof body.asset_id === 'string' && body.asset_id !== '' ? tokenIdOf(body.asset_id, 'asset_id') : ''
      return { body: await cancel(context, { kind: 'cancelMarketOrders', address: identityOf(identity).address, marketId, tokenId }) }
    } },
  { method: 'GET', path: '/data/order/:id', auth: 'l2', bodyMax: 0,
    openapi: { tag: 'trading', summary: "One of the caller's orders, open or ended", response: 'OrderInfo' },
    handler: (request, identity, context) => {
      const { address } = identityOf(identity)
      const order = context.read.orders.get(request.params[0]!.toLowerCase())
      if (order === undefined || (order.maker !== address && order.signer !== address)) {
        throw new PredexError(ApiCode.ORDER_UNKNOWN, 'order not found', { orderID: request.params[0]! })
      }
      return { body: orderInfo(context.read, order, request.compat) }
    } },
  { method: 'GET', path: '/data/orders', auth: 'l2', bodyMax: 0,
    openapi: { tag: 'trading', summary: "The caller's open orders", query: { id: 'one order id', market: 'market id, condition id or slug',
      asset_id: 'token id', next_cursor: 'cursor', limit: 'page size, 1..500' },
      response: 'OrdersResponse {data: [OrderInfo], next_cursor, available_usdc}' },
    handler: async (request, identity, context) => {
      const { address } = identityOf(identity)
      const id = request.query.get('id')
      const marketId = marketFilter(context, request, 'market')
      const tokenId = request.query.get('asset_id')
      const open = ordersOf(context, address, (o) => o.status === 'LIVE' && (id === null || o.orderId === id.toLowerCase()) &&
        (marketId === null || o.marketId === marketId) && (tokenId === null || tokenId === '' || o.tokenId === tokenId))
      const limit = limitOf(request.query.get('limit'))
      const { data, nextCursor } = page(open, request.query.get('next_cursor'), limit)
      const body: Record<string, unknown> = { limit, count: data.length, next_cursor: nextCursor, data: data.map((o) => orderInfo(context.read, o, request.compat)) }
      if (!request.compat) body.available_usdc = await availableUsdc(context, address)
      return { body }
    } },
  { method: 'GET', path: '/data/trades', auth: 'l2', bodyMax: 0,
    openapi: { tag: 'trading', summary: "The caller's trades (as taker or maker)", query: { id: 'trade id', market: 'market', asset_id: 'token id',
      before: 'unix seconds', after: 'unix seconds', next_cursor: 'cursor', limit: 'page size' }, response: '{limit, count, next_cursor, data: [Trade]}' },
    handler: (request, identity, context) => {
      const { address } = identityOf(identity)
      const id = request.query.get('id')
      const marketId = marketFilter(context, request, 'market')
      const tokenId = request.query.get('asset_id')
      const before = optionalInteger(request.query.get('before'), 'before')
      const after = optionalInteger(request.query.get('after'), 'after')
      const trades = (context.read.tradesByAddress.get(address) ?? []).map((tradeId) => context.read.trades.get(tradeId)!)
        .filter((t) => (id === null || t.tradeId === id) && (marketId === null || t.marketId === marketId) &&
          (tokenId === null || tokenId === '' || t.tokenId === tokenId || t.makerTokenId === tokenId) &&
          (before === null || t.timeMs < before * 1000) && (after === null || t.timeMs > after * 1000))
      const limit = limitOf(request.query.get('limit'))
      const { data, nextCursor } = page(trades, request.query.get('next_cursor'), limit)
      return { body: { limit, count: data.length, next_cursor: nextCursor, data: data.map((t) => tradeInfo(context.read, t, address, request.compat, context.chainId)) } }
    } },
  { method: 'GET', path: '/orders', auth: 'l2', bodyMax: 0, surface: 'native',
    openapi: { tag: 'trading', summary: "The caller's orders", query: { market_id: 'market', status: 'open, matched, canceled or all (default all)',
      next_cursor: 'cursor', limit: 'page size' },
      response: '{data: [{id, market_id, token_id, outcome, side, price, size, size_remaining, status, created_at}], next_cursor}' },
    handler: (request, identity, context) => {
      const { address } = identityOf(identity)
      const marketId = marketFilter(context, request, 'market_id')
      const status = (request.query.get('status') ?? 'all').toLowerCase()
      const wanted: Record<string, string | null> = { open: 'LIVE', matched: 'MATCHED', canceled: 'CANCELED', all: null }
      if (!(status in wanted)) throw new PredexError(ApiCode.INVALID_PARAMETER, 'status must be open, matched, canceled or all', { field: 'status' })
      const orders = ordersOf(context, address, (o) => (marketId === null || o.marketId === marketId) && (wanted[status] === null || o.status === wanted[status]))
      const { data, nextCursor } = page(orders, request.query.get('next_cursor'), limitOf(request.query.get('limit')))
      return { body: { next_cursor: nextCursor, data: data.map((o) => ({
        id: o.orderId, market_id: o.marketId, token_id: o.tokenId, outcome: o.outcome, side: o.side, price: decimalOfMicros(o.priceMicros),
        size: decimalOfMicros(o.originalSizeMicros), size_remaining: decimalOfMicros(o.remainingMicros), status: o.status,
        created_at: Math.floor(o.createdMs / 1000),
      })) } }
    } },
  { method: 'POST', path: '/order/verify', auth: 'l2', bodyMax: REST_ORDER_BODY_BYTES_MAX, rate: 'order', surface: 'native',
    openapi: { tag: 'trading', summary: 'Dry run: checks a signed order (shape, ownership, market, signature) and places nothing',
      body: '{order, owner, orderType, postOnly?}', response: '{valid, orderID, checks: [{check, ok, message}]}' },
    handler: async (request, identity, context) => ({ body: await dryRun(parseJsonBody(request.body), identityOf(identity), context) }) },
]

function asApiError(error: unknown): PredexError {
  if (error instanceof PredexError) return error
  const code = (error as { code?: unknown }).code
  return new PredexError(typeof code === 'string' ? code as never : ApiCode.INTERNAL, (error as Error).message)
}

async function availableUsdc(context: ServiceContext, address: string): Promise<string> {
  return String(availableUsdcMicros(await accountOf(context, address)))
}

async function dryRun(body: unknown, identity: Identity, context: ServiceContext): Promise<Record<string, unknown>> {
  const checks: { check: string; ok: boolean; message: string; code?: string }[] = []
  const step = async <T>(check: string, run: () => Promise<T> | T): Promise<T | null> => {
    try {
      const value = await run()
      checks.push({ check, ok: true, message: 'ok' })
      return value
    } catch (error) {
      const code = (error as { code?: unknown }).code
      checks.push({ check, ok: false, message: (error as Error).message, ...(typeof code === 'string' ? { code } : {}) })
      return null
    }
  }
  const wire = await step('shape', () => parseWireOrder(body))
  let orderId: string | null = null
  if (wire !== null) {
    await step('ownership', () => checkOwnership(wire, identity.apiKey!, identity.address))
    const market = await step('market', () => marketOfToken(context, wire.struct.tokenId))
    if (market !== null) orderId = await step('signature', () => verifySignature(wire, market, context.pool, context.isLinked))
    if (market !== null && orderId !== null) {
      const id = orderId
      await step('rules', () => checkOrderRules(orderInputOf(wire, id, identity.apiKey!), market, context.nowMs()))
    }
  }
  return { valid: checks.every((c) => c.ok), orderID: orderId, checks,
    note: 'balance, allowance, duplicate and book checks run in the engine when the order is placed' }
}
