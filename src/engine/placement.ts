/**
 * Order placement: validation in the documented order (docs/engine.md, "Validation"), then
 * acceptance, the walk, and rest or end. A rejected order changes nothing but the event that
 * says so.
 */
import { ShareBalance, type Account } from './account.js'
import { Code } from './codes.js'
import type { OrderInput, SelfTradePrevention } from './command.js'
import type { Engine, TokenRef } from './engine.js'
import type { OrderStatus } from './event.js'
import { emitOrderUpdate, rest } from './lifecycle.js'
import { BATCH_ORDERS_MAX, MICROS_PER_LOT, ORDERS_OPEN_MAX } from './limits.js'
import { hasMatch, walk, wouldFillEntirely } from './matching.js'
import { NO_ROW, STOP_NONE, STOP_SELF_TRADE, STP_CANCEL_BOTH, STP_CANCEL_MAKER, STP_CANCEL_TAKER, TIF_FAK, TIF_FOK,
  type OrderRow, type OrderTable } from './order-table.js'
import { groupKeyOf } from './order-group.js'
import { timeInForceCode } from './event-log.js'
import type { OrderRejection, Rejection } from './result.js'
import { rejection } from './rejection.js'
import { endedEntry, liveEntry, orderStatusOf } from './order-index.js'
import { checkOrderShape } from './order-shape.js'
import { checkOrderTerms, type OrderTerms } from './rules.js'
import { feeBoundOf } from './units.js'


/** What one order of a batch came to, kept until the batch's result is written. */
export interface BatchItem {
  readonly rejection: OrderRejection | null
  readonly orderId: string
  readonly status: OrderStatus
  readonly makingMicros: number
  readonly takingMicros: number
  readonly feeMicros: number
  readonly firstTrade: number
  readonly tradeCount: number
}

/**
 * A batch placement: each order as if placed alone, in order. Its result (the orders' results,
 * one after another) is written once they are all placed, since each order's events come first.
 */
export function placeOrders(engine: Engine, orders: readonly OrderInput[]): boolean {
  if (orders.length > BATCH_ORDERS_MAX) return engine.answer(rejection(Code.BATCH_TOO_LARGE, { max: BATCH_ORDERS_MAX }))
  const items = placeEach(engine, orders)
  if (engine.recording) engine.log.resultBatch(items.length)
  writeEach(engine, items)
  return true
}

/**
 * Places each order in turn, as if alone; what each came to, for writeEach once every order's
 * events are written (a command's results follow its events).
 */
export function placeEach(engine: Engine, orders: readonly OrderInput[]): readonly BatchItem[] {
  const items: BatchItem[] = []
  const fills = engine.fills
  for (const order of orders) {
    const outcome = placeOne(engine, order)
    items.push(typeof outcome === 'string'
      ? { rejection: null, orderId: order.orderId, status: outcome, makingMicros: fills.makingMicros,
        takingMicros: fills.takingMicros, feeMicros: fills.feeMicros, firstTrade: fills.firstTrade,
        tradeCount: fills.tradeCount }
      : { rejection: outcome, orderId: outcome.orderId, status: 'CANCELED', makingMicros: 0, takingMicros: 0,
        feeMicros: 0, firstTrade: 0, tradeCount: 0 })
  }
  return items
}

/** Writes each placement's result record, in order (after the head of the command's result). */
export function writeEach(engine: Engine, items: readonly BatchItem[]): void {
  if (!engine.recording) return
  const log = engine.log
  for (const item of items) {
    if (item.rejection !== null) {
      log.resultRejection(item.rejection.code, item.rejection.message, item.rejection.context, item.orderId)
    } else {
      // By string: a later order of the batch may have taken this order's row.
      log.resultPlaced(log.stringRef(item.orderId), item.status, item.makingMicros, item.takingMicros,
        item.feeMicros, engine.seq, item.firstTrade, item.tradeCount)
    }
  }
}

/** One placement: its result written straight to the log, no object made when it is placed. */
export function placeOrder(engine: Engine, input: OrderInput): boolean {
  return writePlaceResult(engine, placeOne(engine, input))
}

/** Writes a placement's result (placeOne's outcome, its fills in `engine.fills`); whether it was placed. */
export function writePlaceResult(engine: Engine, outcome: OrderRejection | OrderStatus): boolean {
  if (typeof outcome !== 'string') {
    if (engine.recording) {
      engine.log.resultRejection(outcome.code, outcome.message, outcome.context, outcome.orderId)
    }
    return false
  }
  if (engine.recording) {
    const fills = engine.fills
    // The order's id is listed already (orderAccepted), under its row, whether it rests or ended.
    engine.log.resultPlaced(engine.log.orderRef(fills.taker), outcome, fills.makingMicros, fills.takingMicros,
      fills.feeMicros, engine.seq, fills.firstTrade, fills.tradeCount)
  }
  return true
}

/**
 * Places one order: its refusal, or the status it ended the placement in, its fills in
 * `engine.fills`.
 */
export function placeOne(engine: Engine, input: OrderInput): OrderRejection | OrderStatus {
  // Looked up first, judged in its documented place (step 7) by checkTerms.
  const token = engine.tokens.get(input.tokenId)
  const terms = checkTerms(engine, input, token)
  if (!terms.ok) return reject(engine, input, terms)
  const account = engine.accountsByAddress.get(input.maker)
  const funds = checkFunds(input, token!, terms, account)
  if (funds !== null) return reject(engine, input, funds)
  const taker = newOrder(engine, input, token!, terms, account!)
  const book = checkBook(engine, taker)
  if (book !== null) {
    engine.orderTable.release(taker)
    return reject(engine, input, book)
  }
  return accept(engine, taker)
}

function reject(engine: Engine, input: OrderInput, why: Rejection): OrderRejection {
  const orderId = typeof input.orderId === 'string' ? input.orderId : ''
  if (engine.recording) {
    engine.log.orderRejected(orderId, typeof input.maker === 'string' ? input.maker : '', why.code, why.message)
  }
  // Spelled out rather than spread: a spread of rejections of many shapes is a slow generic copy.
  return { ok: false, code: why.code, message: why.message, context: why.context, orderId }
}

/**
 * Steps 1 to 13: the shape, then the checks that need the engine's state (duplicate id, duplicate
 * client order id among the owner's live orders, token), then the rulebook's checks on the order
 * and its market, the same ones a face pre-checks.
 */
/**
 * The refusal of an order for its terms alone (steps 1 to 13, nothing that funds or the book
 * decide), its `orderRejected` written; null when they pass. A cancel-replace asks before it
 * cancels: `replacing`, the order about to be cancelled, may share the new one's client order id.
 */
export function refusalOfTerms(engine: Engine, input: OrderInput, replacing: OrderRow): OrderRejection | null {
  const terms = checkTerms(engine, input, engine.tokens.get(input.tokenId), replacing)
  return terms.ok ? null : reject(engine, input, terms)
}

function checkTerms(engine: Engine, input: OrderInput, token: TokenRef | undefined, replacing = NO_ROW):
  OrderTerms | Rejection {
  const shape = checkOrderShape(input)
  if (shape !== null) return shape
  const known = engine.orders.get(input.orderId)
  if (known !== undefined) {
    const status = orderStatusOf(known)
    return rejection(Code.INVALID_ORDER_DUPLICATED, { orderId: input.orderId, status })
  }
  const twin = engine.orders.liveByClientOrderId(input.owner, input.clientOrderId)
  if (twin !== NO_ROW && twin !== replacing) {
    // The original answers: a client that retries a placement learns which order it has.
    return rejection(Code.CLIENT_ORDER_ID_DUPLICATED, { orderId: engine.orderTable.orderId[twin]!,
      status: orderStatusOf(liveEntry(twin)), clientOrderId: input.clientOrderId })
  }
  const groupRefusal = checkGroup(engine, input)
  if (groupRefusal !== null) return groupRefusal
  if (token === undefined) return rejection(Code.TOKEN_NOT_FOUND, { tokenId: input.tokenId })
  return checkOrderTerms(input, token.market, engine, engine.terms)
}

/** The order's group, if it names one: a group of its owner that is not triggered. */
function checkGroup(engine: Engine, input: OrderInput): Rejection | null {
  const groupId = input.orderGroupId
  if (groupId === undefined || groupId === '') return null
  const group = engine.orderGroups.get(groupKeyOf(input.owner, groupId))
  if (group === undefined) return rejection(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: groupId })
  if (group.isTriggered(engine.timeMs)) {
    return rejection(Code.ORDER_GROUP_TRIGGERED, { orderGroupId: groupId, triggeredMs: group.triggeredMs })
  }
  return null
}

/**
 * Step 14: the account can hold what the order may spend. An order that passed the checks that
 * need no book travels as its input, its token and the rulebook's terms (side, immediacy, lots,
 * pips): three values, not one more object per order.
 */
function checkFunds(input: OrderInput, token: TokenRef, terms: OrderTerms, account: Account | undefined):
  Rejection | null {
  const market = token.market
  if (terms.isBuy) {
    const cost = terms.isImmediate ? input.makerAmountMicros : terms.pips * terms.lots
    const required = cost + feeBoundOf(market.feeRateBps, cost)
    const available = account === undefined ? 0 : account.usdcAvailableMicros()
    if (required <= available) return null
    return rejection(Code.INVALID_ORDER_NOT_ENOUGH_BALANCE, {
      asset: 'USDC',
      requiredMicros: required,
      availableMicros: available,
      balanceMicros: account?.usdcMicros ?? 0,
      allowanceMicros: account?.usdcAllowanceMicros ?? 0,
      heldMicros: account?.usdcHeldMicros ?? 0,
    })
  }
  const tokenIndex = market.index * 2 + (token.isNo ? 1 : 0)
  const shares: ShareBalance | undefined = account?.shares.get(tokenIndex)
  const required = terms.lots * MICROS_PER_LOT
  const available = account === undefined ? 0 : account.sharesAvailableMicros(shares)
  if (required <= available) return null
  return rejection(Code.INVALID_ORDER_NOT_ENOUGH_BALANCE, {
    asset: input.tokenId,
    requiredMicros: required,
    availableMicros: available,
    balanceMicros: shares?.balanceMicros ?? 0,
    heldMicros: shares?.heldMicros ?? 0,
    approved: account?.sharesApproved ?? false,
  })
}

/**
 * The taker in a row of the order table; not yet in any index (a rejection after this frees the
 * row and leaves no trace).
 */
function newOrder(engine: Engine, input: OrderInput, token: TokenRef, terms: OrderTerms, account: Account): OrderRow {
  const market = token.market
  const isNo = token.isNo
  const tokenIndex = market.index * 2 + (isNo ? 1 : 0)
  const o = engine.orderTable
  const order = o.allocate()
  o.orderId[order] = input.orderId
  o.orderNumber[order] = engine.orderNumber + 1
  o.owner[order] = input.owner
  o.clientOrderId[order] = input.clientOrderId
  o.account[order] = account
  o.signer[order] = input.signer
  o.market[order] = market
  o.isNo[order] = isNo ? 1 : 0
  o.isBuy[order] = terms.isBuy ? 1 : 0
  o.pips[order] = terms.pips
  o.timeInForce[order] = timeInForceCode(input.timeInForce)
  o.postOnly[order] = input.postOnly ? 1 : 0
  o.selfTradePrevention[order] = stpCode(input.selfTradePrevention)
  const groupId = input.orderGroupId
  o.group[order] = groupId === undefined || groupId === '' ? null
    : engine.orderGroups.get(groupKeyOf(input.owner, groupId))!
  o.expirationSec[order] = input.expirationSec
  o.makerAmountMicros[order] = input.makerAmountMicros
  o.takerAmountMicros[order] = input.takerAmountMicros
  // A BUY may have no balance of its token yet: the new one joins the account on acceptance.
  o.shares[order] = account.shares.get(tokenIndex) ?? new ShareBalance(account, tokenIndex, market.tokenIdOf(isNo))
  o.lots[order] = terms.lots
  if (terms.isImmediate && terms.isBuy) o.budgetMicros[order] = input.makerAmountMicros
  return order
}

/** Steps 15 to 18: capacity, post-only, FOK and FAK, which look at the book. */
function checkBook(engine: Engine, taker: OrderRow): Rejection | null {
  const o = engine.orderTable
  const timeInForce = o.timeInForce[taker]!
  if (!o.isImmediate(taker) && engine.openOrderCount >= ORDERS_OPEN_MAX) {
    return rejection(Code.ENGINE_ORDERS_FULL, null)
  }
  if (o.postOnly[taker] === 1 && crossesBook(o, taker)) return rejection(Code.INVALID_POST_ONLY_ORDER, null)
  if (timeInForce === TIF_FOK && !wouldFillEntirely(o, taker, engine.timeMs)) {
    return rejection(Code.FOK_ORDER_NOT_FILLED, null)
  }
  if (timeInForce === TIF_FAK && !hasMatch(o, taker)) return rejection(Code.FAK_ORDER_NOT_FILLED, null)
  return null
}

function crossesBook(o: OrderTable, taker: OrderRow): boolean {
  const book = o.market[taker]!.book
  const yesPips = o.yesPips(taker)
  if (o.isBid(taker)) {
    const ask = book.bestAsk()
    return ask !== null && ask.pips <= yesPips
  }
  const bid = book.bestBid()
  return bid !== null && bid.pips >= yesPips
}

function accept(engine: Engine, taker: OrderRow): OrderStatus {
  const o = engine.orderTable
  engine.orderNumber = o.orderNumber[taker]!
  engine.orders.setLive(taker)
  const shares = o.shares[taker]!
  const account = o.account[taker]!
  if (!shares.joined) {
    account.shares.set(shares.tokenIndex, shares)
    shares.joined = true
  }
  emitAccepted(engine, taker)
  const fills = engine.fills
  fills.reset(engine.tradeCount, taker)
  walk(engine, taker, fills)
  return finish(engine, taker)
}

/**
 * After the walk: rest, or end as matched or cancelled (docs/engine.md, "End of the walk"); an
 * order that ends frees its row.
 */
function finish(engine: Engine, taker: OrderRow): OrderStatus {
  const o = engine.orderTable
  // A taker that its group's trigger stopped but that the triggering fill filled has no rest to cancel.
  const filled = o.isBudget(taker) ? o.budgetMicros[taker]! < o.pips[taker]! : o.lots[taker] === 0
  if (o.stopped[taker] === STOP_SELF_TRADE || (o.stopped[taker] !== STOP_NONE && !filled)) {
    return endStopped(engine, taker)
  }
  if (!o.isImmediate(taker) && o.lots[taker]! > 0) {
    rest(engine, taker)
    if (o.matchedLots[taker]! > 0) emitOrderUpdate(engine, taker, 'LIVE', null)
    return 'LIVE'
  }
  const status: OrderStatus = filled ? 'MATCHED' : 'CANCELED'
  engine.orders.setEnded(taker, endedEntry(o.account[taker]!.index, filled ? 'MATCHED' : 'CANCELED'))
  o.budgetMicros[taker] = 0
  o.lots[taker] = 0
  emitOrderUpdate(engine, taker, status, filled ? null : 'unfilled')
  o.release(taker)
  return status
}

/**
 * A taker whose walk stopped early: on its own resting order (cancel-taker, cancel-both), or on
 * its order group's trigger. The rest of it is cancelled, for that reason.
 */
function endStopped(engine: Engine, taker: OrderRow): OrderStatus {
  const o = engine.orderTable
  engine.orders.setEnded(taker, endedEntry(o.account[taker]!.index, 'CANCELED'))
  o.budgetMicros[taker] = 0
  o.lots[taker] = 0
  emitOrderUpdate(engine, taker, 'CANCELED', o.stopped[taker] === STOP_SELF_TRADE ? 'self-trade' : 'order-group')
  o.release(taker)
  return 'CANCELED'
}

function stpCode(mode: SelfTradePrevention | undefined): number {
  switch (mode) {
    case undefined:
    case 'cancel-maker': return STP_CANCEL_MAKER
    case 'cancel-taker': return STP_CANCEL_TAKER
    case 'cancel-both': return STP_CANCEL_BOTH
  }
}

function emitAccepted(engine: Engine, order: OrderRow): void {
  if (engine.recording) engine.log.orderAccepted(order)
}
