/**
 * Cancels: by ids, client order ids, a predicate (cancel-all) and market.
 */
import type { CancelByClientOrderId, CancelMarketOrders } from '../../../src/engine/command.js'
import type { CancelReason } from '../../../src/engine/event.js'
import type { Canceled, CommandResult, NotCanceled } from '../../../src/engine/result.js'
import { Code, CODE_MESSAGES } from '../../../src/engine/codes.js'
import { CANCEL_IDS_MAX } from '../../../src/engine/limits.js'
import { end } from './matching.js'
import { type NotOwnLive, type OrderState, ReferenceState, type Step, findMarket, refuse, rejection } from './state.js'

export function cancelIds(r: ReferenceState, address: string, ids: readonly string[], step: Step): Canceled {
  const canceled: string[] = []
  const notCanceled: NotCanceled[] = []
  const seen = new Set<string>()
  for (const id of ids) {
    if (seen.has(id)) continue
    seen.add(id)
    const o = ownLive(r, address, id)
    if (typeof o === 'string') {
      notCanceled.push({ orderId: id, reason: CODE_MESSAGES[o] })
    } else {
      end(r, o, 'CANCELED', 'owner', step)
      canceled.push(id)
    }
  }
  return { ok: true, canceled, notCanceled }
}

/**
 * The open order `orderId` when `address` may act on it (cancel, amend, cancel-replace), else
 * why not. A live order answers to its maker and its signer; an ended one only to its maker
 * (docs: "ended orders remember only their maker"); anything else is as unknown.
 */
export function ownLive(r: ReferenceState, address: string, orderId: string): OrderState | NotOwnLive {
  const o = r.orders.get(orderId)
  if (o === undefined) return Code.ORDER_NOT_FOUND
  if (o.status === 'LIVE') {
    return o.input.maker === address || o.input.signer === address ? o : Code.ORDER_NOT_FOUND
  }
  if (o.input.maker !== address) return Code.ORDER_NOT_FOUND
  return o.status === 'MATCHED' ? Code.ORDER_ALREADY_MATCHED : Code.ORDER_ALREADY_CANCELED
}

/** By client order id: the owner's open order with it, if the requester is its maker or signer. */
export function cancelClientIds(r: ReferenceState, c: CancelByClientOrderId, step: Step): CommandResult {
  if (c.clientOrderIds.length > CANCEL_IDS_MAX) {
    return rejection(refuse(Code.CANCEL_TOO_MANY, { max: CANCEL_IDS_MAX }))
  }
  const canceled: string[] = []
  const notCanceled: NotCanceled[] = []
  const seen = new Set<string>()
  for (const id of c.clientOrderIds) {
    if (seen.has(id)) continue
    seen.add(id)
    const o = r.live.find((x) => x.input.owner === c.owner && id !== '' && x.input.clientOrderId === id)
    if (o !== undefined && (o.input.maker === c.address || o.input.signer === c.address)) {
      end(r, o, 'CANCELED', 'owner', step)
      canceled.push(o.input.orderId)
    } else {
      notCanceled.push({ orderId: id, reason: CODE_MESSAGES.ORDER_NOT_FOUND })
    }
  }
  return { ok: true, canceled, notCanceled }
}

/** Cancels the open maker orders of `address` that pass `keep`, in acceptance order. */
export function cancelWhere(
  r: ReferenceState,
  address: string,
  reason: CancelReason,
  keep: (o: OrderState) => boolean,
  step: Step,
): Canceled {
  const targets = r.live.filter((o) => o.input.maker === address && keep(o))
  for (const o of targets) end(r, o, 'CANCELED', reason, step)
  return { ok: true, canceled: targets.map((o) => o.input.orderId), notCanceled: [] }
}

export function cancelMarketOrders(r: ReferenceState, c: CancelMarketOrders, step: Step): CommandResult {
  if (c.marketId !== '' && findMarket(r, c.marketId) === undefined) {
    return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
  }
  if (c.tokenId !== '') {
    const token = r.tokens.get(c.tokenId)
    if (token === undefined || (c.marketId !== '' && token.marketId !== c.marketId)) {
      return rejection(refuse(Code.TOKEN_NOT_FOUND, { tokenId: c.tokenId }))
    }
  }
  return cancelWhere(r, 
    c.address,
    'cancel-market',
    (o) =>
      (c.marketId === '' || o.marketId === c.marketId) &&
      (c.tokenId === '' || o.input.tokenId === c.tokenId),
    step,
  )
}
