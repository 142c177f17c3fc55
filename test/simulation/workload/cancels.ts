/**
 * Cancels: by id, many ids, client order id, and a market's orders; live, ended, unknown or
 * someone else's.
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { Command } from '../../../src/engine/command.js'
import { CANCEL_IDS_MAX } from '../../../src/engine/limits.js'
import { type Stamp, WorkloadState, pickAccount, requester, uuid } from './state.js'
import { clientOrderId } from './orders.js'

export function cancelOrder(w: WorkloadState, s: Stamp): Command {
  const [address, orderId] = cancelTarget(w)
  return { kind: 'cancelOrder', ...s, address, orderId }
}

export function cancelOrders(w: WorkloadState, s: Stamp): Command {
  const a = pickAccount(w)
  if (w.rng.chance(0.01)) {
    const orderIds = Array.from({ length: CANCEL_IDS_MAX + 1 }, () => `0x${w.rng.hex(32)}`)
    return { kind: 'cancelOrders', ...s, address: a.address, orderIds }
  }
  const address = requester(w, a)
  const own = [...w.live.values()].filter((o) => o.input.maker === a.address).map((o) => o.input.orderId)
  const ids: string[] = []
  for (let i = w.rng.int(1, 8); i > 0; i--) {
    const r = w.rng.int(0, 9)
    if (r < 6 && own.length > 0) ids.push(w.rng.pick(own))
    else if (r < 8) ids.push(cancelTarget(w)[1])
    else if (ids.length > 0) ids.push(w.rng.pick(ids)) // a repeat: ignored
    else ids.push(`0x${w.rng.hex(32)}`)
  }
  return { kind: 'cancelOrders', ...s, address, orderIds: ids }
}

/**
 * Mostly client order ids of the key's live orders, with its maker or signer asking; sometimes
 * ids it does not use now, an other account asking, or more ids than allowed.
 */
export function cancelByClientOrderId(w: WorkloadState, s: Stamp): Command {
  const a = pickAccount(w)
  if (w.rng.chance(0.01)) {
    const clientOrderIds = Array.from({ length: CANCEL_IDS_MAX + 1 }, () => clientOrderId(w))
    return { kind: 'cancelByClientOrderId', ...s, address: a.address, owner: a.apiKey, clientOrderIds }
  }
  const other = w.rng.chance(0.1) ? pickAccount(w) : a
  const own = [...w.live.values()].filter((o) => o.input.owner === a.apiKey && o.input.clientOrderId !== '')
  const clientOrderIds: string[] = []
  for (let i = w.rng.int(1, 4); i > 0; i--) {
    const r = w.rng.int(0, 9)
    if (r < 6 && own.length > 0) clientOrderIds.push(w.rng.pick(own).input.clientOrderId)
    else if (r < 8 || clientOrderIds.length === 0) clientOrderIds.push(w.rng.chance(0.9) ? clientOrderId(w) : '')
    else clientOrderIds.push(w.rng.pick(clientOrderIds)) // a repeat: ignored
  }
  return { kind: 'cancelByClientOrderId', ...s, address: requester(w, other), owner: a.apiKey, clientOrderIds }
}

/** [requester, order id]: mostly the owner of a live order, sometimes not. */
export function cancelTarget(w: WorkloadState): [string, string] {
  const r = w.rng.int(0, 99)
  const liveOrders = [...w.live.values()]
  if (r < 70 && liveOrders.length > 0) {
    const o = w.rng.pick(liveOrders)
    return [w.rng.chance(0.2) ? o.input.signer : o.input.maker, o.input.orderId]
  }
  if (r < 80 && liveOrders.length > 0) {
    const o = w.rng.pick(liveOrders)
    const other = w.accounts.find((a) => a.address !== o.input.maker) ?? pickAccount(w)
    return [other.address, o.input.orderId]
  }
  if (r < 92 && w.ended.length > 0) {
    const e = w.rng.pick(w.ended)
    const mine = w.rng.chance(0.7)
    return [mine ? e.maker : pickAccount(w).address, e.id]
  }
  return [pickAccount(w).address, `0x${w.rng.hex(32)}`]
}

export function cancelMarket(w: WorkloadState, s: Stamp): Command {
  const a = pickAccount(w)
  const ms = [...w.markets.values()]
  const m = w.rng.pick(ms)
  const other = w.rng.pick(ms)
  const token = w.rng.chance(0.5) ? m.input.yesTokenId : m.input.noTokenId
  const variants: readonly (readonly [string, string])[] = [
    ['', ''],
    [m.input.marketId, ''],
    [m.input.marketId, ''],
    ['', token],
    [m.input.marketId, token],
    [uuid(w), ''],
    [m.input.marketId, other === m ? w.rng.decimal(77) : other.input.yesTokenId],
    ['', w.rng.decimal(77)],
  ]
  const [marketId, tokenId] = w.rng.pick(variants)
  return { kind: 'cancelMarketOrders', ...s, address: a.address, marketId, tokenId }
}
