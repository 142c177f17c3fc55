/**
 * Cancel commands. An order is cancelled only for its maker or signer; for anybody else it
 * answers as if it did not exist, so ids of other accounts' orders reveal nothing.
 */
import type { Account } from './account.js'
import { Code } from './codes.js'
import type { CancelAll, CancelByClientOrderId, CancelMarketOrders, CancelOrder, CancelOrders } from './command.js'
import type { Engine } from './engine.js'
import type { CancelReason } from './event.js'
import { cancelResting } from './lifecycle.js'
import { CANCEL_IDS_MAX } from './limits.js'
import type { Market } from './market.js'
import { endedAccountIndex, isLiveEntry, orderStatusOf, rowOfEntry } from './order-index.js'
import { NO_ROW, type OrderRow, type OrderTable } from './order-table.js'
import { rejection } from './rejection.js'
import type { Canceled, NotCanceled, Rejection } from './result.js'
import { CODE_MESSAGES } from './codes.js'

/** One cancel: its result (a Canceled of one id) written straight to the log, no lists made. */
export function cancelOrder(engine: Engine, command: CancelOrder): boolean {
  const reason = cancelOne(engine, command.address, command.orderId)
  if (engine.recording) engine.log.resultCanceledOne(command.orderId, reason)
  return true
}

export function cancelOrders(engine: Engine, command: CancelOrders): Canceled | Rejection {
  if (command.orderIds.length > CANCEL_IDS_MAX) return rejection(Code.CANCEL_TOO_MANY, { max: CANCEL_IDS_MAX })
  return cancelIds(engine, command.address, command.orderIds)
}

/**
 * Cancels the live orders of `owner` (an API key) named by their client order ids, for a requester
 * who is their maker or signer. A client order id names a live order only (ended ones are
 * forgotten), so one that names none answers ORDER_NOT_FOUND's message; its entry in
 * `notCanceled` carries the client order id as it was sent, in `orderId`.
 */
export function cancelByClientOrderId(engine: Engine, command: CancelByClientOrderId): Canceled | Rejection {
  if (command.clientOrderIds.length > CANCEL_IDS_MAX) {
    return rejection(Code.CANCEL_TOO_MANY, { max: CANCEL_IDS_MAX })
  }
  const canceled: string[] = []
  const notCanceled: NotCanceled[] = []
  const seen = new Set<string>()
  for (const clientOrderId of command.clientOrderIds) {
    if (seen.has(clientOrderId)) continue
    seen.add(clientOrderId)
    const order = engine.orders.liveByClientOrderId(command.owner, clientOrderId)
    if (order !== NO_ROW && isRequester(engine.orderTable, order, command.address)) {
      canceled.push(engine.orderTable.orderId[order]!)
      cancelResting(engine, order, 'owner')
    } else {
      notCanceled.push({ orderId: clientOrderId, reason: CODE_MESSAGES.ORDER_NOT_FOUND })
    }
  }
  return { ok: true, canceled, notCanceled }
}

export function cancelAll(engine: Engine, command: CancelAll): Canceled {
  const account = engine.accountsByAddress.get(command.address)
  const orders = account === undefined ? [] : openOrdersOf(engine.orderTable, account, () => true)
  return cancelEach(engine, orders, 'cancel-all')
}

export function cancelMarketOrders(engine: Engine, command: CancelMarketOrders): Canceled | Rejection {
  let market: Market | null = null
  if (command.marketId !== '') {
    market = engine.marketsById.get(command.marketId) ?? null
    if (market === null) return rejection(Code.MARKET_NOT_FOUND, { marketId: command.marketId })
  }
  let isNo: boolean | null = null
  if (command.tokenId !== '') {
    const token = engine.tokens.get(command.tokenId)
    if (token === undefined || (market !== null && token.market !== market)) {
      return rejection(Code.TOKEN_NOT_FOUND, { tokenId: command.tokenId })
    }
    market = token.market
    isNo = token.isNo
  }
  const account = engine.accountsByAddress.get(command.address)
  const o = engine.orderTable
  const orders = account === undefined ? [] : openOrdersOf(o, account,
    (order) => (market === null || o.market[order] === market) && (isNo === null || (o.isNo[order] === 1) === isNo))
  return cancelEach(engine, orders, 'cancel-market')
}

function cancelIds(engine: Engine, address: string, orderIds: readonly string[]): Canceled {
  const canceled: string[] = []
  const notCanceled: NotCanceled[] = []
  const seen = new Set<string>()
  for (const orderId of orderIds) {
    if (seen.has(orderId)) continue
    seen.add(orderId)
    const reason = cancelOne(engine, address, orderId)
    if (reason === null) canceled.push(orderId)
    else notCanceled.push({ orderId, reason })
  }
  return { ok: true, canceled, notCanceled }
}

/** Cancels one order for `address`; null when done, else why not. */
function cancelOne(engine: Engine, address: string, orderId: string): string | null {
  const order = ownLiveOrder(engine, address, orderId)
  if (typeof order === 'string') return CODE_MESSAGES[order]
  cancelResting(engine, order, 'owner')
  return null
}

/**
 * The live order `orderId` when `address` may act on it (its maker or signer: cancel, amend,
 * cancel-replace), else the code that says why not. Another account's order answers as one that
 * does not exist, so ids reveal nothing.
 */
export function ownLiveOrder(engine: Engine, address: string, orderId: string): OrderRow | NotLiveCode {
  const entry = engine.orders.get(orderId)
  if (entry === undefined) return Code.ORDER_NOT_FOUND
  if (isLiveEntry(entry)) {
    const order = rowOfEntry(entry)
    return isRequester(engine.orderTable, order, address) ? order : Code.ORDER_NOT_FOUND
  }
  if (engine.accounts[endedAccountIndex(entry)]!.address !== address) return Code.ORDER_NOT_FOUND
  return orderStatusOf(entry) === 'MATCHED' ? Code.ORDER_ALREADY_MATCHED : Code.ORDER_ALREADY_CANCELED
}

/** The code ownLiveOrder gives for an order that is not the requester's live one. */
export type NotLiveCode =
  | typeof Code.ORDER_NOT_FOUND | typeof Code.ORDER_ALREADY_MATCHED | typeof Code.ORDER_ALREADY_CANCELED

/** The refusal of a command (an amend, a cancel-replace) that names an order not live for the requester. */
export function notLiveRejection(code: NotLiveCode,
  context: { readonly orderId: string; readonly newOrderId?: string }): Rejection {
  switch (code) {
    case Code.ORDER_NOT_FOUND: return rejection(Code.ORDER_NOT_FOUND, context)
    case Code.ORDER_ALREADY_MATCHED: return rejection(Code.ORDER_ALREADY_MATCHED, context)
    case Code.ORDER_ALREADY_CANCELED: return rejection(Code.ORDER_ALREADY_CANCELED, context)
  }
}

/** Whether `address` may cancel the order: its maker or its signer. */
function isRequester(o: OrderTable, order: OrderRow, address: string): boolean {
  return o.account[order]!.address === address || o.signer[order] === address
}

/** The account's open orders that pass the filter, oldest first. */
export function openOrdersOf(o: OrderTable, account: Account, filter: (order: OrderRow) => boolean): OrderRow[] {
  const orders: OrderRow[] = []
  for (let order = account.openHead; order !== NO_ROW; order = o.accountNext[order]!) {
    if (filter(order)) orders.push(order)
  }
  return orders
}

/** Cancels each order (their ids read first: a cancelled order's row is freed). */
function cancelEach(engine: Engine, orders: readonly OrderRow[], reason: CancelReason): Canceled {
  const canceled = orders.map((order) => engine.orderTable.orderId[order]!)
  for (const order of orders) cancelResting(engine, order, reason)
  return { ok: true, canceled, notCanceled: [] }
}
