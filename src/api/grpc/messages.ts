/**
 * The services' records as proto messages, and the proto's order request as the services'
 * SignedOrder: the one translation every gRPC handler (unary, order entry, streams) shares. Each
 * value is the REST API's own (format.ts computes it once: decimals, ids, the native market id),
 * so a client reading both faces sees the same numbers; the enums and integers are where the
 * proto's types differ from JSON's.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { Code } from '../../engine/codes.js'
import type { SelfTradePrevention, TimeInForce as EngineTimeInForce } from '../../engine/command.js'
import type { OrderGroupChanged } from '../../engine/event.js'
import type { OrderGroupView } from '../../engine/order-group.js'
import type { Canceled } from '../../engine/result.js'
import { ApiCode, PredexError } from '../../errors.js'
import { SelfTradePrevention as ProtoSelfTradePrevention, Side, TimeInForce, type MakerOrderSchema,
  type OrderGroupSchema, type OrderSchema, type TradeSchema } from '../../gen/predex/v1/common_pb.js'
import { OrderGroupAction, type OrderGroupUpdateSchema } from '../../gen/predex/v1/streams_pb.js'
import type {
  AmendOrderResponseSchema, CancelResultSchema, ListedOrderSchema, MassQuoteRequest, MassQuoteResponseSchema,
  OrderPlacementSchema, OrderRequest, PlacementResultSchema, QuoteLevelSchema,
} from '../../gen/predex/v1/trading_pb.js'
import type { OrderRecord, TradeRecord } from '../../read/read-model.js'
import type { ServiceContext } from '../../service/context.js'
import type { GroupLimits } from '../../service/trading/order-groups.js'
import type { SignedOrder } from '../../service/trading/signed-order.js'
import type { AmendOutcome, AmendSize, BatchEntry, Placement, Trader } from '../../service/trading/trading.js'
import { checkQuoteSize, type QuoteLevel, type QuoteOutcome } from '../../service/trading/quotes.js'
import { clientOrder, orderInfo, placementReport, tradeInfo } from '../format.js'
import { ownerOf, signatureOf, signatureTypeOf, signedFieldsOf, signedFieldsV2Of } from '../order-wire.js'
import { decimalOfMicros, microsOfDecimal, requireString } from '../wire.js'
import { errorDetailOf } from './status.js'

const SIDES = { BUY: Side.BUY, SELL: Side.SELL } as const

/** The engine's time in force of each proto value; UNSPECIFIED is GTC (the proto's and Polymarket's default). */
const TIMES_IN_FORCE: ReadonlyMap<number, EngineTimeInForce> = new Map([
  [TimeInForce.UNSPECIFIED, 'GTC'], [TimeInForce.GTC, 'GTC'], [TimeInForce.GTD, 'GTD'], [TimeInForce.FOK, 'FOK'],
  [TimeInForce.FAK, 'FAK'],
])

/** The engine's self-trade prevention mode of each proto value; UNSPECIFIED: the engine's default. */
const SELF_TRADE_PREVENTIONS: ReadonlyMap<number, SelfTradePrevention | undefined> = new Map([
  [ProtoSelfTradePrevention.UNSPECIFIED, undefined], [ProtoSelfTradePrevention.CANCEL_MAKER, 'cancel-maker'],
  [ProtoSelfTradePrevention.CANCEL_TAKER, 'cancel-taker'], [ProtoSelfTradePrevention.CANCEL_BOTH, 'cancel-both'],
])

const TIME_IN_FORCE_VALUES: Readonly<Record<EngineTimeInForce, TimeInForce>> = {
  GTC: TimeInForce.GTC, GTD: TimeInForce.GTD, FOK: TimeInForce.FOK, FAK: TimeInForce.FAK,
}

/** An order of the caller's (REST's native OrderInfo, GET /data/order/:id). */
/** An order; `queueAhead` (trading.queueAheadOf) gives open orders their place in the queue. */
export function orderMessage(context: ServiceContext, order: OrderRecord, queueAhead?: ReadonlyMap<string, number>):
  MessageInitShape<typeof OrderSchema> {
  const info = orderInfo(context.read, order, false, queueAhead)
  return {
    id: info.id,
    status: info.status,
    owner: info.owner,
    makerAddress: info.maker_address,
    market: info.market,
    assetId: info.asset_id,
    side: SIDES[info.side],
    originalSize: info.original_size,
    sizeMatched: info.size_matched,
    sizeRemaining: info.size_remaining,
    price: info.price,
    associateTrades: [...info.associate_trades],
    outcome: info.outcome,
    createdAt: BigInt(info.created_at),
    orderType: TIME_IN_FORCE_VALUES[info.order_type],
    ...(info.expiration === null ? {} : { expirationMs: BigInt(info.expiration) }),
    clientOrderId: order.clientOrderId,
    ...(info.queue_ahead === null ? {} : { queueAhead: info.queue_ahead }),
  }
}

/** An order of the client listing (REST's native GET /orders item). */
export function listedOrderMessage(order: OrderRecord): MessageInitShape<typeof ListedOrderSchema> {
  const listed = clientOrder(order)
  return {
    id: listed.id,
    marketId: listed.market_id,
    tokenId: listed.token_id,
    outcome: listed.outcome,
    side: SIDES[listed.side],
    price: listed.price,
    size: listed.size,
    sizeRemaining: listed.size_remaining,
    status: listed.status,
    createdAt: BigInt(listed.created_at),
  }
}

/**
 * A trade from `viewerAddress`'s point of view (REST's native Trade, GET /data/trades), with its
 * settlement now unless `settlement` says which to tell (a user stream's update).
 */
export function tradeMessage(context: ServiceContext, trade: TradeRecord, viewerAddress: string,
  settlement = context.settlement?.of(trade.tradeId, trade.timeMs) ?? null): MessageInitShape<typeof TradeSchema> {
  const info = tradeInfo(context.read, trade, viewerAddress, false, context.chainId, settlement)
  const makerOrders: MessageInitShape<typeof MakerOrderSchema>[] = info.maker_orders.map((maker) => ({
    orderId: maker.order_id,
    owner: maker.owner,
    makerAddress: maker.maker_address,
    matchedAmount: maker.matched_amount,
    price: maker.price,
    feeRateBps: Number(maker.fee_rate_bps),
    assetId: maker.asset_id,
    outcome: maker.outcome,
    side: SIDES[maker.side],
  }))
  return {
    id: info.id,
    takerOrderId: info.taker_order_id,
    market: info.market,
    assetId: info.asset_id,
    side: SIDES[info.side],
    size: info.size,
    feeRateBps: Number(info.fee_rate_bps),
    price: info.price,
    status: info.status,
    matchTime: BigInt(info.match_time),
    outcome: info.outcome,
    owner: info.owner,
    makerAddress: info.maker_address,
    transactionHash: info.transaction_hash,
    traderSide: info.trader_side,
    fee: info.fee,
    makerOrders,
    matchType: info.match_type,
  }
}

/** An order the engine accepted, with the journal sequence number of the command that placed it. */
export function placementMessage(placement: Placement, seq: number): MessageInitShape<typeof OrderPlacementSchema> {
  const report = placementReport(placement)
  return {
    orderId: report.orderId,
    status: report.status,
    makingAmount: report.makingAmount,
    takingAmount: report.takingAmount,
    fee: report.fee,
    side: SIDES[report.side],
    transactionsHashes: report.transactionsHashes,
    tradeIds: [...report.tradeIds],
    clientOrderId: placement.input.clientOrderId,
    engineSeq: BigInt(seq),
  }
}

/** What a cancel did (REST's {canceled, not_canceled}), with the cancel command's sequence number. */
export function cancelResultMessage(result: Canceled, seq: number): MessageInitShape<typeof CancelResultSchema> {
  return {
    canceled: [...result.canceled],
    notCanceled: Object.fromEntries(result.notCanceled.map((n) => [n.orderId, n.reason])),
    engineSeq: BigInt(seq),
  }
}

/** The names a refusal gives an amend's two sizes (REST's by default: the unary call's). */
export interface AmendFields {
  readonly newSize: string
  readonly reduceBy: string
}

const REST_AMEND_FIELDS: AmendFields = { newSize: 'new_size', reduceBy: 'reduce_by' }

/**
 * An amend's sizes from the proto's decimal strings, parsed as REST parses them (wire.ts): ""
 * is "not given" (0), anything else a decimal number of shares (INVALID_PARAMETER naming the
 * field otherwise). Whether exactly one is given, and a multiple of a lot, is the service's check.
 */
export function amendSizeOf(newSize: string, reduceBy: string, fields: AmendFields = REST_AMEND_FIELDS): AmendSize {
  return {
    newSizeMicros: newSize === '' ? 0 : microsOfDecimal(newSize, fields.newSize),
    reduceByMicros: reduceBy === '' ? 0 : microsOfDecimal(reduceBy, fields.reduceBy),
  }
}

/**
 * One order's answer (a batch's item, a cancel-replace's new order, a mass quote's new level):
 * placed, or refused with its error (and its id once it had one).
 */
export function placementResultMessage(entry: BatchEntry): MessageInitShape<typeof PlacementResultSchema> {
  if (entry.ok) {
    const placed = placementMessage(entry.placement, entry.placement.seq)
    return { result: { case: 'placed', value: placed }, orderId: entry.placement.result.orderId }
  }
  return { result: { case: 'refused', value: errorDetailOf(entry.error) }, orderId: entry.orderId }
}

/**
 * A mass quote's market and orders, checked in REST's order (POST /quotes): the market named
 * (INVALID_PARAMETER {field: 'market'}), the count before any order is parsed
 * (MASS_QUOTE_TOO_LARGE), then each order parsed by `parse` in its place (a parse error is that
 * level's refusal, answered in its place).
 */
export function massQuoteOf(request: MassQuoteRequest, parse: (order: OrderRequest) => SignedOrder | PredexError):
  { readonly market: string; readonly orders: readonly (SignedOrder | PredexError)[] } {
  const market = requireString(request.market, 'market')
  checkQuoteSize(request.orders.length)
  return { market, orders: request.orders.map(parse) }
}

/** What a mass quote did (REST's POST /quotes answer): the orders cancelled, each level in the request's order. */
export function quotedMessage(outcome: QuoteOutcome): MessageInitShape<typeof MassQuoteResponseSchema> {
  return { canceled: [...outcome.canceled], levels: outcome.levels.map(quoteLevelMessage),
    engineSeq: BigInt(outcome.seq) }
}

function quoteLevelMessage(level: QuoteLevel): MessageInitShape<typeof QuoteLevelSchema> {
  switch (level.kind) {
    case 'kept': return { outcome: { case: 'kept', value: level.orderId } }
    case 'gone': return { outcome: { case: 'gone', value: { orderId: level.orderId, reason: level.reason } } }
    case 'new': return { outcome: { case: 'placement', value: placementResultMessage(level.entry) } }
  }
}

/** What an amend did (REST's POST /order/amend answer), with its command's sequence number. */
export function amendedMessage(outcome: AmendOutcome): MessageInitShape<typeof AmendOrderResponseSchema> {
  return {
    orderId: outcome.orderId,
    sizeMatched: decimalOfMicros(outcome.sizeMatchedMicros),
    sizeRemaining: decimalOfMicros(outcome.remainingMicros),
    reducedBy: decimalOfMicros(outcome.reducedByMicros),
    engineSeq: BigInt(outcome.seq),
  }
}

/**
 * The services' SignedOrder from an OrderRequest, with REST's checks in REST's order and REST's
 * codes and fields (order-wire.ts): a missing order is INVALID_PARAMETER {field: 'order'}; a time
 * in force, side or signature type outside its list, or a uint256 or address that is not one,
 * INVALID_ORDER_PAYLOAD naming the field by its JSON name. Where the proto has a default REST
 * lacks: TIME_IN_FORCE_UNSPECIFIED is GTC, owner "" is the caller's key, and order_group_id "" is
 * no group (REST's absent orderGroupId).
 */
export function signedOrderOf(request: OrderRequest, trader: Trader): SignedOrder {
  const order = request.order
  if (order === undefined) throw new PredexError(ApiCode.INVALID_PARAMETER, 'order is required', { field: 'order' })
  const orderType = TIMES_IN_FORCE.get(request.orderType)
  if (orderType === undefined) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'order_type must be GTC, GTD, FOK or FAK', { field: 'orderType' })
  }
  if (!SELF_TRADE_PREVENTIONS.has(request.selfTradePrevention)) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD,
      'self_trade_prevention must be CANCEL_MAKER, CANCEL_TAKER or CANCEL_BOTH', { field: 'selfTradePrevention' })
  }
  const side = order.side
  if (side !== 0 && side !== 1) {
    throw new PredexError(Code.INVALID_ORDER_PAYLOAD, 'side must be 0 (buy) or 1 (sell), as signed', { field: 'side' })
  }
  // A timestamp makes it V2 (common.proto SignedOrder): the proto's empty strings stand for absent fields.
  const { struct, amounts } = order.timestamp !== ''
    ? signedFieldsV2Of(order, side, signatureTypeOf(order.signatureType, 3))
    : signedFieldsOf(order, side, signatureTypeOf(order.signatureType, 2))
  return {
    struct, amounts, signature: signatureOf(order.signature), orderType, postOnly: request.postOnly,
    owner: request.owner === '' ? trader.apiKey : ownerOf(request.owner),
    clientOrderId: request.clientOrderId,
    selfTradePrevention: SELF_TRADE_PREVENTIONS.get(request.selfTradePrevention),
    orderGroupId: request.orderGroupId === '' ? undefined : request.orderGroupId,
  }
}

/** An order group as REST answers it (GET /order-groups and the answers of its changes), field for field. */
export function orderGroupMessage(group: OrderGroupView): MessageInitShape<typeof OrderGroupSchema> {
  return {
    groupId: group.groupId,
    contractsLimit: decimalOfMicros(group.contractsLimitMicros),
    notionalLimit: decimalOfMicros(group.notionalLimitMicros),
    windowMs: group.windowMs,
    freezeMs: group.freezeMs,
    triggered: group.triggered,
    ...(group.triggeredMs < 0 ? {} : { triggeredAt: BigInt(group.triggeredMs) }),
    windowContracts: decimalOfMicros(group.windowContractsMicros),
    windowNotional: decimalOfMicros(group.windowNotionalMicros),
    restingOrders: group.restingOrders,
  }
}

/**
 * A group's id as the calls that name an existing group take it: passed on as it is (the service
 * answers ORDER_GROUP_NOT_FOUND for one the key does not have, as REST does for its path's id),
 * except "" (REST's path cannot be empty): INVALID_PARAMETER {field: 'group_id'}.
 */
export function groupIdOf(groupId: string): string {
  if (groupId === '') throw new PredexError(ApiCode.INVALID_PARAMETER, 'group_id is required', { field: 'group_id' })
  return groupId
}

/** A limit's decimal text as REST parses it (wire.ts); "" is not given. */
function limitMicrosOf(text: string, field: string): number | undefined {
  return text === '' ? undefined : microsOfDecimal(text, field)
}

/**
 * A group's limits from a create or update request, checked in REST's order (contracts_limit,
 * notional_limit; the engine judges them and the window and freeze): what is left empty ("", or
 * an unset window or freeze) is absent, which the service reads as "keep its value" on an update
 * and the caller as 0 on a create.
 */
export function groupLimitsOf(request: { readonly contractsLimit: string; readonly notionalLimit: string;
  readonly windowMs?: number; readonly freezeMs?: number }): Partial<GroupLimits> {
  const contractsLimitMicros = limitMicrosOf(request.contractsLimit, 'contracts_limit')
  const notionalLimitMicros = limitMicrosOf(request.notionalLimit, 'notional_limit')
  return {
    ...(contractsLimitMicros === undefined ? {} : { contractsLimitMicros }),
    ...(notionalLimitMicros === undefined ? {} : { notionalLimitMicros }),
    ...(request.windowMs === undefined ? {} : { windowMs: request.windowMs }),
    ...(request.freezeMs === undefined ? {} : { freezeMs: request.freezeMs }),
  }
}

const GROUP_ACTIONS: Readonly<Record<OrderGroupChanged['action'], OrderGroupAction>> = {
  created: OrderGroupAction.CREATED, updated: OrderGroupAction.UPDATED, triggered: OrderGroupAction.TRIGGERED,
  reset: OrderGroupAction.RESET, deleted: OrderGroupAction.DELETED,
}

/**
 * A change of an order group, as the user stream carries it: the group as the engine's event
 * left it (its limits and `triggered`; `triggered_at` on a trigger, the change's time). The event
 * carries no window sums nor resting count: those fields stay absent.
 */
export function orderGroupUpdateMessage(change: OrderGroupChanged): MessageInitShape<typeof OrderGroupUpdateSchema> {
  return {
    action: GROUP_ACTIONS[change.action],
    group: {
      groupId: change.groupId,
      contractsLimit: decimalOfMicros(change.contractsLimitMicros),
      notionalLimit: decimalOfMicros(change.notionalLimitMicros),
      windowMs: change.windowMs,
      freezeMs: change.freezeMs,
      triggered: change.triggered,
      ...(change.action === 'triggered' ? { triggeredAt: BigInt(change.timeMs) } : {}),
    },
    timeMs: BigInt(change.timeMs),
  }
}
