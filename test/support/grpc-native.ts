/**
 * The gRPC driver's translations: the native JSON requests of the contract cases into proto
 * messages, and the proto answers back into the native JSON bodies REST sends (the same keys, the
 * same value types), so that one case can assert on either face.
 *
 * What a case sends that the proto cannot carry is `Unexpressible`: the driver answers the
 * catalogue's refusal of it, computed by the wire parser both faces share (src/api/wire.ts), and
 * never calls gRPC. The list is short and each entry says why:
 * - a request body that is not an object or an array where one is needed (the message has that
 *   shape by construction): REST's INVALID_PARAMETER {field: 'body'};
 * - a `limit` of 0 (proto: "0 = the default"), negative or not a number; a time filter that is
 *   not an integer: the refusal of limitOf / optionalInteger, as REST's;
 * - `postOnly` that is not a boolean: INVALID_ORDER_PAYLOAD {field: 'postOnly'}, as REST's; the
 *   same for an `orderGroupId` that is not a string ({field: 'orderGroupId'});
 * - an order group's limit that is no decimal text ("", null, a boolean), or a window or freeze
 *   that is not a whole number of milliseconds (a text, a fraction, below 0): REST's
 *   INVALID_PARAMETER naming the field, unless REST refuses an earlier field first (then it goes
 *   as absent, and the face refuses that earlier field itself); a whole number past the proto's
 *   uint32 goes as its largest value, which the engine refuses as it refuses the number (out of bounds).
 * Values the proto can carry although they are wrong are sent as they are, and the face refuses
 * them itself: an order type, side, signature type, asset type or candle interval the proto does
 * not name goes as an enum number it does not know (99, 2 or 3); a field of the wrong JSON type
 * goes as its text ("12") or as absent (""). A side of a quote other than buy or sell ("bid", "")
 * goes as unspecified, which the face refuses as REST refuses it.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { PredexError, ApiCode } from '../../src/errors.js'
import { Code } from '../../src/engine/codes.js'
import { AssetType } from '../../src/gen/predex/v1/account_pb.js'
import type { GetBalanceAllowanceResponse, GetWalletStatusResponse } from '../../src/gen/predex/v1/account_pb.js'
import { SelfTradePrevention, Side, TimeInForce, type Book, type ErrorDetail, type Order, type OrderGroup,
  type PageRequestSchema, type SignedOrderSchema, type Trade } from '../../src/gen/predex/v1/common_pb.js'
import { CandleInterval, type Candle, type Market } from '../../src/gen/predex/v1/market_data_pb.js'
import type { CancelResult, ListedOrder, OrderPlacement, OrderRequestSchema, PlacementResult, VerifyOrderResponse }
  from '../../src/gen/predex/v1/trading_pb.js'
import { limitOf, microsOfDecimal, optionalInteger, requireObject } from '../../src/api/wire.js'
import type { Query } from './driver.js'

/** A request the proto cannot carry: `reply` is the catalogue's refusal of it. */
export class Unexpressible extends Error {
  constructor(readonly error: PredexError) {
    super(error.message)
  }
}

/** Runs a shared wire parser whose refusal is the answer to something the proto cannot carry. */
function refusalOf(parse: () => unknown): Unexpressible {
  try {
    parse()
  } catch (error) {
    if (error instanceof PredexError) return new Unexpressible(error)
    throw error
  }
  throw new Error('the driver took a value for unexpressible that the shared parser accepts')
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** An object request body; anything else is refused as REST refuses it. */
export function objectBody(value: unknown): Record<string, unknown> {
  if (!isObject(value)) throw refusalOf(() => requireObject(value, 'body'))
  return value
}

/** An array request body; anything else is REST's refusal of a body that must be an array. */
export function arrayBody(value: unknown, message: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new Unexpressible(new PredexError(ApiCode.INVALID_PARAMETER, message, { field: 'body' }))
  return value
}

/** A JSON value as a proto string: its text if it has one, "" (absent) otherwise. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : ''
}

const TIMES_IN_FORCE: Readonly<Record<string, TimeInForce>> = {
  GTC: TimeInForce.GTC, GTD: TimeInForce.GTD, FOK: TimeInForce.FOK, FAK: TimeInForce.FAK,
}
const SELF_TRADE_PREVENTIONS: Readonly<Record<string, SelfTradePrevention>> = {
  CANCEL_MAKER: SelfTradePrevention.CANCEL_MAKER, CANCEL_TAKER: SelfTradePrevention.CANCEL_TAKER,
  CANCEL_BOTH: SelfTradePrevention.CANCEL_BOTH,
}
/** Enum numbers no proto enum of predex.v1 names: a value a case sends that is none of the enum's. */
const UNKNOWN_ENUM = 99

function signedOrderOf(order: Record<string, unknown>): MessageInitShape<typeof SignedOrderSchema> {
  const fields = ['salt', 'maker', 'signer', 'taker', 'tokenId', 'makerAmount', 'takerAmount', 'expiration', 'nonce',
    'feeRateBps', 'signature'] as const
  const texts = Object.fromEntries(fields.map((field) => [field, textOf(order[field])]))
  const signatureType = order.signatureType
  return {
    ...texts,
    side: order.side === 'BUY' ? 0 : order.side === 'SELL' ? 1 : 2,
    signatureType: signatureType === 0 || signatureType === 1 || signatureType === 2 ? signatureType : 3,
  }
}

/** The native order request ({order, owner, orderType, postOnly?, clientOrderId?}) as an OrderRequest. */
export function orderRequestOf(value: unknown): MessageInitShape<typeof OrderRequestSchema> {
  if (!isObject(value)) return {} // no order at all: the face refuses it (INVALID_PARAMETER, field order)
  const postOnly = value.postOnly ?? false
  if (typeof postOnly !== 'boolean') {
    throw new Unexpressible(new PredexError(Code.INVALID_ORDER_PAYLOAD, 'postOnly must be a boolean', { field: 'postOnly' }))
  }
  const orderType = value.orderType === undefined ? TimeInForce.UNSPECIFIED
    : TIMES_IN_FORCE[String(value.orderType)] ?? UNKNOWN_ENUM
  const selfTradePrevention = value.selfTradePrevention === undefined ? SelfTradePrevention.UNSPECIFIED
    : SELF_TRADE_PREVENTIONS[String(value.selfTradePrevention)] ?? UNKNOWN_ENUM
  const orderGroupId = value.orderGroupId ?? ''
  if (typeof orderGroupId !== 'string') {
    throw new Unexpressible(new PredexError(Code.INVALID_ORDER_PAYLOAD, 'orderGroupId must be a string',
      { field: 'orderGroupId' }))
  }
  return {
    ...(isObject(value.order) ? { order: signedOrderOf(value.order) } : {}),
    owner: textOf(value.owner), orderType, postOnly, clientOrderId: textOf(value.clientOrderId), selfTradePrevention,
    orderGroupId,
  }
}

/** The order-group calls' limits as REST reads them (POST /order-groups, PATCH /order-groups/:id), in its order. */
const GROUP_LIMITS = [['contracts_limit', 'contractsLimit'], ['notional_limit', 'notionalLimit'],
  ['window_ms', 'windowMs'], ['freeze_ms', 'freezeMs']] as const

/** REST's refusal of a window or freeze that is no whole number of milliseconds (its route's check). */
function millisRefusal(field: string): PredexError {
  return new PredexError(ApiCode.INVALID_PARAMETER, `${field} must be a whole number of milliseconds`, { field })
}

/** Whether the face (as REST) takes `text` as a limit. */
function isDecimalText(text: string, field: string): boolean {
  try {
    microsOfDecimal(text, field)
    return true
  } catch {
    return false
  }
}

/**
 * The limits of a native order-group body as the proto's fields: a decimal as its text (a number
 * as its text too, as REST reads it), a millisecond count as a uint32; absent stays absent (the
 * caller says what absent is). `refusedBefore`: whether the face refuses an earlier field (the
 * group id), so that a later field the proto cannot carry goes as absent rather than answering
 * its own refusal, which REST would not reach.
 */
export function groupLimitsOf(body: Record<string, unknown>, refusedBefore: boolean): {
  contractsLimit?: string; notionalLimit?: string; windowMs?: number; freezeMs?: number } {
  const limits: Record<string, string | number> = {}
  let refused = refusedBefore
  for (const [field, key] of GROUP_LIMITS) {
    const value = body[field]
    if (value === undefined) continue
    if (key === 'windowMs' || key === 'freezeMs') {
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
        limits[key] = Math.min(value, 2 ** 32 - 1)
      } else if (!refused) throw new Unexpressible(millisRefusal(field))
      continue
    }
    const text = typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value)
      ? String(value) : ''
    if (text === '') {
      if (!refused) throw refusalOf(() => microsOfDecimal(value, field))
      continue
    }
    limits[key] = text
    refused ||= !isDecimalText(text, field)
  }
  return limits
}

/** REST's OrderGroup of the proto's (GET /order-groups and the answers of the order-group changes). */
export function orderGroupJson(group: OrderGroup | undefined): Record<string, unknown> {
  if (group === undefined) throw new Error('an order-group answer without its group')
  return { group_id: group.groupId, contracts_limit: group.contractsLimit, notional_limit: group.notionalLimit,
    window_ms: group.windowMs, freeze_ms: group.freezeMs, triggered: group.triggered,
    triggered_at: group.triggeredAt === undefined ? null : Number(group.triggeredAt),
    window_contracts: group.windowContracts, window_notional: group.windowNotional,
    resting_orders: group.restingOrders }
}

/** A listing's page: `limit` and `next_cursor` of the query. */
export function pageOf(query: Query): MessageInitShape<typeof PageRequestSchema> {
  const raw = query.limit
  let limit = 0
  if (raw !== undefined) {
    const text = String(raw)
    if (!/^\d{1,9}$/.test(text) || Number(text) === 0) throw refusalOf(() => limitOf(text))
    limit = Number(text)
  }
  return { limit, nextCursor: query.next_cursor === undefined ? '' : String(query.next_cursor) }
}

/** Unix seconds of a query (`before`, `after`, `from`, `to`): absent, an integer, or refused as REST refuses it. */
export function secondsOf(query: Query, key: string): bigint | undefined {
  const raw = query[key]
  if (raw === undefined || raw === '') return undefined
  const text = String(raw)
  if (!/^-?\d{1,19}$/.test(text)) throw refusalOf(() => optionalInteger(text, key))
  return BigInt(text)
}

export function queryText(query: Query, key: string): string {
  return query[key] === undefined ? '' : String(query[key])
}

export function assetTypeOf(value: unknown): AssetType {
  if (value === undefined) return AssetType.UNSPECIFIED
  const upper = String(value).toUpperCase()
  return upper === 'COLLATERAL' ? AssetType.COLLATERAL : upper === 'CONDITIONAL' ? AssetType.CONDITIONAL : UNKNOWN_ENUM as AssetType
}

/** A quote's side: buy or sell in any case; anything else unspecified (refused by the face). */
export function quoteSideOf(value: unknown): Side {
  const upper = value === undefined ? '' : String(value).toUpperCase()
  return upper === 'BUY' ? Side.BUY : upper === 'SELL' ? Side.SELL : Side.UNSPECIFIED
}

const INTERVALS: Readonly<Record<string, CandleInterval>> = {
  '1m': CandleInterval.CANDLE_INTERVAL_1M, '5m': CandleInterval.CANDLE_INTERVAL_5M,
  '1h': CandleInterval.CANDLE_INTERVAL_1H, '1d': CandleInterval.CANDLE_INTERVAL_1D,
}

export function intervalOf(value: unknown): CandleInterval {
  return value === undefined ? CandleInterval.CANDLE_INTERVAL_UNSPECIFIED : INTERVALS[String(value)] ?? UNKNOWN_ENUM
}

// --- Answers, as REST's bodies.

const SIDE_TEXTS: Readonly<Record<number, string>> = { [Side.BUY]: 'BUY', [Side.SELL]: 'SELL' }
const TIME_IN_FORCE_TEXTS: Readonly<Record<number, string>> = {
  [TimeInForce.GTC]: 'GTC', [TimeInForce.GTD]: 'GTD', [TimeInForce.FOK]: 'FOK', [TimeInForce.FAK]: 'FAK',
}

function sideText(side: Side): string {
  const text = SIDE_TEXTS[side]
  if (text === undefined) throw new Error(`the face sent side ${side}`)
  return text
}

export function placementJson(p: OrderPlacement): Record<string, unknown> {
  return { success: true, errorMsg: '', order_id: p.orderId, orderID: p.orderId, status: p.status,
    makingAmount: p.makingAmount, takingAmount: p.takingAmount, fee: p.fee, side: sideText(p.side),
    transactionsHashes: p.transactionsHashes, tradeIDs: p.tradeIds }
}

/** An error detail's context, each value decoded from its JSON text. */
export function contextJson(detail: ErrorDetail): Record<string, unknown> {
  return Object.fromEntries(Object.entries(detail.context).map(([key, value]) => [key, JSON.parse(value)]))
}

export function batchItemJson(item: PlacementResult): Record<string, unknown> {
  if (item.result.case === 'placed') return placementJson(item.result.value)
  if (item.result.case !== 'refused') throw new Error('a batch result with neither placement nor refusal')
  const detail = item.result.value
  return { success: false, errorMsg: detail.message, orderID: item.orderId, order_id: item.orderId, code: detail.code,
    ...contextJson(detail) }
}

export function verifyJson(answer: VerifyOrderResponse): Record<string, unknown> {
  return { valid: answer.valid, orderID: answer.orderId === '' ? null : answer.orderId,
    checks: answer.checks.map((c) => ({ check: c.check, ok: c.ok, message: c.message,
      ...(c.code === '' ? {} : { code: c.code }) })),
    note: answer.note }
}

export function cancelJson(result: CancelResult | undefined): Record<string, unknown> {
  if (result === undefined) throw new Error('a cancel answer without its result')
  return { canceled: result.canceled, not_canceled: { ...result.notCanceled } }
}

/** REST's native OrderInfo; `order_hash` is the id again, as REST writes it. */
export function orderJson(o: Order): Record<string, unknown> {
  return { id: o.id, status: o.status, owner: o.owner, maker_address: o.makerAddress, market: o.market,
    asset_id: o.assetId, side: sideText(o.side), original_size: o.originalSize, size_matched: o.sizeMatched,
    price: o.price, associate_trades: o.associateTrades, outcome: o.outcome, created_at: Number(o.createdAt),
    expiration: o.expirationMs === undefined ? null : String(o.expirationMs),
    order_type: TIME_IN_FORCE_TEXTS[o.orderType], order_hash: o.id, size_remaining: o.sizeRemaining,
    queue_ahead: o.queueAhead ?? null }
}

export function listedJson(o: ListedOrder): Record<string, unknown> {
  return { id: o.id, market_id: o.marketId, token_id: o.tokenId, outcome: o.outcome, side: sideText(o.side),
    price: o.price, size: o.size, size_remaining: o.sizeRemaining, status: o.status, created_at: Number(o.createdAt) }
}

/**
 * REST's Trade. `matchtime` and `last_update` (Polymarket's copies of match_time) and
 * `bucket_index` (always 0) are REST's compatibility fields the proto leaves out; they are
 * rebuilt here from what it carries.
 */
export function tradeJson(x: Trade): Record<string, unknown> {
  const seconds = String(x.matchTime)
  return { id: x.id, taker_order_id: x.takerOrderId, market: x.market, asset_id: x.assetId, side: sideText(x.side),
    size: x.size, fee_rate_bps: String(x.feeRateBps), price: x.price, status: x.status, match_time: seconds,
    matchtime: seconds, last_update: seconds, outcome: x.outcome, bucket_index: 0, owner: x.owner,
    maker_address: x.makerAddress, transaction_hash: x.transactionHash, trader_side: x.traderSide,
    match_type: x.matchType, fee: x.fee,
    maker_orders: x.makerOrders.map((m) => ({ order_id: m.orderId, owner: m.owner, maker_address: m.makerAddress,
      matched_amount: m.matchedAmount, price: m.price, fee_rate_bps: String(m.feeRateBps), asset_id: m.assetId,
      outcome: m.outcome, side: sideText(m.side) })) }
}

export function balanceJson(answer: GetBalanceAllowanceResponse): Record<string, unknown> {
  return { balance: answer.balanceMicros, allowance: answer.allowanceMicros, allowances: { ...answer.allowancesMicros } }
}

export function walletJson(w: GetWalletStatusResponse): Record<string, unknown> {
  return { address: w.address, eth_balance: w.ethBalance, usdc_balance: w.usdcBalance, available_usdc: w.availableUsdc,
    allowance: w.allowance, shares_approved: w.sharesApproved, relay_nonce: Number(w.relayNonce) }
}

/** REST's OrderBookSummary, keys in its order (the order clob-client's hash covers). */
export function bookJson(book: Book | undefined): Record<string, unknown> {
  if (book === undefined) throw new Error('a book answer without its book')
  const level = (l: { price: string; size: string }) => ({ price: l.price, size: l.size })
  return { market: book.market, asset_id: book.assetId, timestamp: String(book.timestampMs), hash: book.hash,
    bids: book.bids.map(level), asks: book.asks.map(level), min_order_size: book.minOrderSize,
    tick_size: book.tickSize, neg_risk: book.negRisk, last_trade_price: book.lastTradePrice ?? '' }
}

/** REST's native market. */
export function marketJson(m: Market | undefined): Record<string, unknown> {
  if (m === undefined) throw new Error('a market answer without its market')
  return { id: m.id, condition_id: m.conditionId, question: m.question, slug: m.slug, description: m.description,
    status: m.status, yes_token_id: m.yesTokenId, no_token_id: m.noTokenId,
    tokens: m.tokens.map((t) => ({ token_id: t.tokenId, outcome: t.outcome, price: t.price ?? null })),
    tick_size: m.tickSize, min_order_size: m.minOrderSize, fee_rate_bps: m.feeRateBps, neg_risk: m.negRisk,
    end_date: m.endDate ?? null, created_at: m.createdAt,
    resolution: m.resolution === undefined ? null : { outcome: m.resolution.outcome, resolved_at: m.resolution.resolvedAt },
    best_bid: m.bestBid ?? null, best_ask: m.bestAsk ?? null, last_trade_price: m.lastTradePrice ?? null,
    volume: m.volume }
}

export function candleJson(c: Candle): Record<string, unknown> {
  return { t: Number(c.t), open: c.open, high: c.high, low: c.low, close: c.close, volume: c.volume }
}

/** A side of REST's last trade price: null before any trade. */
export function tradeSideJson(side: Side): string | null {
  return side === Side.UNSPECIFIED ? null : sideText(side)
}
