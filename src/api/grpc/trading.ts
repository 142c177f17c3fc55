/**
 * gRPC TradingService: each method parses its message, calls the trading service
 * (src/service/trading/trading.ts) as the REST route of the same use case does, and answers from the
 * shared conversions (messages.ts). Every method is L2 and draws on its REST route's rate budget
 * (the bucket is REST's `${method} ${path}`), so a trader cannot double a budget by using both
 * faces. Pages, filters and refusals are REST's: the same service calls, wire.ts's parsers.
 */
import type { UntypedServiceImplementation } from '@grpc/grpc-js'
import { ApiCode, PredexError, refusalOr } from '../../errors.js'
import { NATIVE_BATCH_ORDERS_MAX } from '../../limits.js'
import type { PageRequest } from '../../gen/predex/v1/common_pb.js'
import {
  TradingService, type AmendOrderRequest, type CancelReplaceRequest, type CreateOrderGroupRequest,
  type ListOpenOrdersRequest, type ListTradesRequest, type MassQuoteRequest, type OrderRequest,
  type UpdateOrderGroupRequest,
} from '../../gen/predex/v1/trading_pb.js'
import { availableUsdcMicrosOf } from '../../service/account/account.js'
import type { ServiceContext } from '../../service/context.js'
import * as groups from '../../service/trading/order-groups.js'
import * as quotes from '../../service/trading/quotes.js'
import type { SignedOrder } from '../../service/trading/signed-order.js'
import * as trading from '../../service/trading/trading.js'
import type { Replacement, Trader } from '../../service/trading/trading.js'
import { VERIFY_NOTE } from '../format.js'
import { decimalOfMicros, orderIdOf, requireString, tokenIdOf } from '../wire.js'
import { unaryService, type GrpcFace, type Rate } from './call.js'
import { orNull, pageOf, secondsOf } from './query.js'
import {
  amendedMessage, amendSizeOf, cancelResultMessage, groupIdOf, groupLimitsOf, listedOrderMessage, massQuoteOf,
  orderGroupMessage, orderMessage, placementMessage, placementResultMessage, quotedMessage, signedOrderOf,
  tradeMessage,
} from './messages.js'

/** REST's budgets of the same use cases (src/api/rest/routes/trading.ts); the order-entry session's too. */
export const RATES = {
  order: { bucket: 'POST /order', rule: 'order' },
  batch: { bucket: 'POST /orders', rule: 'batch' },
  verify: { bucket: 'POST /order/verify', rule: 'order' },
  cancel: { bucket: 'DELETE /order', rule: 'cancel' },
  cancelMany: { bucket: 'DELETE /orders', rule: 'batch' },
  cancelAll: { bucket: 'DELETE /cancel-all', rule: 'cancelAll' },
  cancelMarket: { bucket: 'DELETE /cancel-market-orders', rule: 'cancelAll' },
  amend: { bucket: 'POST /order/amend', rule: 'cancel' },
  replace: { bucket: 'POST /order/replace', rule: 'order' },
  massQuote: { bucket: 'POST /quotes', rule: 'batch' },
  createGroup: { bucket: 'POST /order-groups', rule: 'cancelAll' },
  updateGroup: { bucket: 'PATCH /order-groups/:id', rule: 'cancelAll' },
  triggerGroup: { bucket: 'POST /order-groups/:id/trigger', rule: 'cancelAll' },
  resetGroup: { bucket: 'POST /order-groups/:id/reset', rule: 'cancelAll' },
  deleteGroup: { bucket: 'DELETE /order-groups/:id', rule: 'cancelAll' },
} as const satisfies Record<string, Rate>

/** An order request of a single placement; absent is refused as REST refuses a body without `order`. */
function signedOrder(request: OrderRequest | undefined, trader: Trader): SignedOrder {
  if (request === undefined) throw new PredexError(ApiCode.INVALID_PARAMETER, 'order is required', { field: 'order' })
  return signedOrderOf(request, trader)
}

/**
 * One order of a batch, a mass quote or a dry run parsed, or its parse error (the service reports
 * it in the order's place).
 */
function signedOrError(request: OrderRequest | undefined, trader: Trader): SignedOrder | PredexError {
  return refusalOr(() => signedOrder(request, trader))
}

async function placeOrders(context: ServiceContext, requests: readonly OrderRequest[], trader: Trader) {
  trading.checkBatchSize(requests.length, NATIVE_BATCH_ORDERS_MAX)
  const entries = await trading.placeOrders(context, requests.map((r) => signedOrError(r, trader)), trader)
  const { successful, failed } = trading.tallyOf(entries)
  return { totalSuccessful: successful, totalFailed: failed,
    results: entries.map(placementResultMessage) }
}

/** The order id first, then the sizes: REST's order of checks (POST /order/amend). */
async function amendOrder(context: ServiceContext, request: AmendOrderRequest, trader: Trader) {
  const orderId = orderIdOf(request.orderId)
  const outcome = await trading.amendOrder(context, trader, orderId, amendSizeOf(request.newSize, request.reduceBy))
  return amendedMessage(outcome)
}

/** The old order's id first, then the new order: REST's order of checks (POST /order/replace). */
async function cancelReplace(context: ServiceContext, request: CancelReplaceRequest, trader: Trader) {
  const orderId = orderIdOf(request.orderId)
  return replacedMessage(await trading.cancelReplace(context, trader, orderId, signedOrder(request.order, trader)))
}

function replacedMessage(replacement: Replacement) {
  return { canceledOrderId: replacement.canceledOrderId,
    canceledSizeRemaining: decimalOfMicros(replacement.canceledRemainingMicros),
    placement: placementResultMessage(replacement.entry), engineSeq: BigInt(replacement.seq) }
}

/** REST's order of checks (POST /quotes): the market, the count, then each order parsed in its place. */
async function massQuote(context: ServiceContext, request: MassQuoteRequest, trader: Trader) {
  const { market, orders } = massQuoteOf(request, (order) => signedOrError(order, trader))
  return quotedMessage(await quotes.massQuote(context, trader, market, orders))
}

/** REST's order of checks (POST /order-groups): the group id, then each limit; an unset one is 0 (no limit). */
async function createOrderGroup(context: ServiceContext, request: CreateOrderGroupRequest, trader: Trader) {
  const groupId = requireString(request.groupId, 'group_id', 64)
  const limits = { contractsLimitMicros: 0, notionalLimitMicros: 0, windowMs: 0, freezeMs: 0,
    ...groupLimitsOf(request) }
  return { group: orderGroupMessage(await groups.createOrderGroup(context, trader, groupId, limits)) }
}

/** REST's order of checks (PATCH /order-groups/:id): the limits parsed, then the group looked up. */
async function updateOrderGroup(context: ServiceContext, request: UpdateOrderGroupRequest, trader: Trader) {
  const groupId = groupIdOf(request.groupId)
  const limits = groupLimitsOf(request)
  return { group: orderGroupMessage(await groups.updateOrderGroup(context, trader, groupId, limits)) }
}

async function verifyOrder(context: ServiceContext, request: OrderRequest | undefined, trader: Trader) {
  const run = await trading.dryRun(context, signedOrError(request, trader), trader)
  return { valid: run.valid, orderId: run.orderId ?? '', note: VERIFY_NOTE,
    checks: run.checks.map((c) => ({ check: c.check, ok: c.ok, message: c.message, code: c.code ?? '' })) }
}

async function getOrder(context: ServiceContext, orderId: string, trader: Trader) {
  const order = trading.orderOf(context, trader, orderId)
  return { order: orderMessage(context, order, await trading.queueAheadOf(context, [order])) }
}

async function openOrders(context: ServiceContext, request: ListOpenOrdersRequest, trader: Trader) {
  const open = trading.openOrdersOf(context, trader,
    { orderId: orNull(request.id), market: orNull(request.market), tokenId: orNull(request.assetId) })
  const { data, ...rest } = pageOf(open, request.page)
  const ahead = await trading.queueAheadOf(context, data)
  return { ...rest, data: data.map((o) => orderMessage(context, o, ahead)),
    availableUsdcMicros: String(await availableUsdcMicrosOf(context, trader.address)) }
}

function orders(context: ServiceContext, marketId: string, statusText: string, request: PageRequest | undefined,
  trader: Trader) {
  const status = trading.orderStatusFilterOf(statusText === '' ? 'all' : statusText)
  const { nextCursor, data } = pageOf(trading.ordersOf(context, trader, orNull(marketId), status), request)
  return { nextCursor, data: data.map(listedOrderMessage) }
}

function trades(context: ServiceContext, request: ListTradesRequest, trader: Trader) {
  const found = trading.tradesOf(context, trader, {
    tradeId: orNull(request.id), market: orNull(request.market), tokenId: orNull(request.assetId),
    beforeSec: secondsOf(request.before, 'before'), afterSec: secondsOf(request.after, 'after'),
  })
  const { data, ...rest } = pageOf(found, request.page)
  return { ...rest, data: data.map((t) => tradeMessage(context, t, trader.address)) }
}

export function tradingService(face: GrpcFace): UntypedServiceImplementation {
  const context = face.context
  return unaryService(face, TradingService, {
    placeOrder: { auth: 'l2', rate: RATES.order, handle: async (request, trader) => {
      const placement = await trading.placeOrder(context, signedOrder(request.order, trader!), trader!)
      return { placement: placementMessage(placement, placement.seq) }
    } },
    placeOrders: { auth: 'l2', rate: RATES.batch,
      handle: (request, trader) => placeOrders(context, request.orders, trader!) },
    verifyOrder: { auth: 'l2', rate: RATES.verify,
      handle: (request, trader) => verifyOrder(context, request.order, trader!) },
    cancelOrder: { auth: 'l2', rate: RATES.cancel, handle: async (request, trader) => {
      const result = await trading.cancelOrder(context, trader!, orderIdOf(request.orderId))
      return { result: cancelResultMessage(result, result.seq) }
    } },
    cancelOrders: { auth: 'l2', rate: RATES.cancelMany, handle: async (request, trader) => {
      trading.checkCancelCount(request.orderIds.length)
      const result = await trading.cancelOrders(context, trader!, request.orderIds.map((id) => orderIdOf(id)))
      return { result: cancelResultMessage(result, result.seq) }
    } },
    cancelByClientOrderIds: { auth: 'l2', rate: RATES.cancelMany, handle: async (request, trader) => {
      const result = await trading.cancelByClientOrderIds(context, trader!, request.clientOrderIds)
      return { result: cancelResultMessage(result, result.seq) }
    } },
    cancelAll: { auth: 'l2', rate: RATES.cancelAll, handle: async (_request, trader) => {
      const result = await trading.cancelAll(context, trader!)
      return { result: cancelResultMessage(result, result.seq) }
    } },
    cancelMarketOrders: { auth: 'l2', rate: RATES.cancelMarket, handle: async (request, trader) => {
      const tokenId = request.assetId === '' ? null : tokenIdOf(request.assetId, 'asset_id')
      const result = await trading.cancelMarketOrders(context, trader!, orNull(request.market), tokenId)
      return { result: cancelResultMessage(result, result.seq) }
    } },
    amendOrder: { auth: 'l2', rate: RATES.amend, handle: (request, trader) => amendOrder(context, request, trader!) },
    cancelReplace: { auth: 'l2', rate: RATES.replace,
      handle: (request, trader) => cancelReplace(context, request, trader!) },
    massQuote: { auth: 'l2', rate: RATES.massQuote,
      handle: (request, trader) => massQuote(context, request, trader!) },
    listOrderGroups: { auth: 'l2', handle: async (_request, trader) =>
      ({ groups: (await groups.orderGroupsOf(context, trader!)).map(orderGroupMessage) }) },
    createOrderGroup: { auth: 'l2', rate: RATES.createGroup,
      handle: (request, trader) => createOrderGroup(context, request, trader!) },
    updateOrderGroup: { auth: 'l2', rate: RATES.updateGroup,
      handle: (request, trader) => updateOrderGroup(context, request, trader!) },
    triggerOrderGroup: { auth: 'l2', rate: RATES.triggerGroup, handle: async (request, trader) =>
      ({ group: orderGroupMessage(await groups.triggerOrderGroup(context, trader!, groupIdOf(request.groupId))) }) },
    resetOrderGroup: { auth: 'l2', rate: RATES.resetGroup, handle: async (request, trader) =>
      ({ group: orderGroupMessage(await groups.resetOrderGroup(context, trader!, groupIdOf(request.groupId))) }) },
    deleteOrderGroup: { auth: 'l2', rate: RATES.deleteGroup, handle: async (request, trader) => {
      const groupId = groupIdOf(request.groupId)
      await groups.deleteOrderGroup(context, trader!, groupId)
      return { groupId }
    } },
    getOrder: { auth: 'l2', handle: (request, trader) => getOrder(context, request.orderId, trader!) },
    listOpenOrders: { auth: 'l2', handle: (request, trader) => openOrders(context, request, trader!) },
    listOrders: { auth: 'l2',
      handle: (request, trader) => orders(context, request.marketId, request.status, request.page, trader!) },
    listTrades: { auth: 'l2', handle: (request, trader) => trades(context, request, trader!) },
  })
}
