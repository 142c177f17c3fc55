/**
 * The random mix: which kind of command comes next, by weight, and its builder.
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { Command, OrderInput } from '../../../src/engine/command.js'
import { BATCH_ORDERS_MAX } from '../../../src/engine/limits.js'
import { type Kind, type Stamp, WorkloadState, pickAccount, requester } from './state.js'
import { apiKey, feeRate, marketAdmin, marketStatus, tickSize } from './admin.js'
import { amend, cancelReplace } from './amends.js'
import { cancelByClientOrderId, cancelMarket, cancelOrder, cancelOrders } from './cancels.js'
import { duplicate, invalidOrder } from './invalid-orders.js'
import { approve, credit, merge, redeem, relay, split } from './ledger.js'
import { immediateOrder, limitOrder, selfTradeOrder } from './orders.js'
import { massQuote, orderGroup } from './quotes.js'

export function random(w: WorkloadState, s: Stamp): Command {
  // Only if the engine refused the setup's markets: keep the clock ticking.
  if (w.markets.size === 0) return { kind: 'expire', ...s }
  const crowded = Math.max(0, w.live.size - 150) / 10
  const weights = {
    limit: 38,
    gtd: 5,
    immediate: 9,
    postOnly: 3,
    batch: 5,
    selfTrade: 2,
    cancelOrder: 7 + crowded,
    cancelOrders: 2.5 + crowded / 3,
    cancelByClientOrderId: 1.5 + crowded / 3,
    cancelAll: 0.3,
    cancelMarket: 0.8,
    invalidOrder: 7,
    duplicate: 2,
    split: 3,
    merge: 1.5,
    redeem: 0.3,
    credit: 1.5,
    approve: 1,
    relay: 1.5,
    expire: 1,
    tickSize: 0.3,
    feeRate: 0.3,
    marketStatus: 0.5,
    marketAdmin: 0.3,
    apiKey: 0.6,
    // Last and only when asked for, so that without them every draw picks as it did before.
    ...(w.amendsAndReplaces ? { amend: 3, cancelReplace: 3 } : {}),
    ...(w.massQuotes ? { massQuote: 2.5 } : {}),
    ...(w.orderGroups ? { orderGroup: 2.5 } : {}),
  }
  return build(w, w.rng.weighted(weights as Record<Kind, number>), s)
}

export function build(w: WorkloadState, kind: Kind, s: Stamp): Command {
  switch (kind) {
    case 'limit':
      return placeOne(s, limitOrder(w, 'GTC', false))
    case 'gtd':
      return placeOne(s, limitOrder(w, 'GTD', false))
    case 'immediate':
      return placeOne(s, immediateOrder(w))
    case 'postOnly':
      return placeOne(s, limitOrder(w, w.rng.chance(0.7) ? 'GTC' : 'GTD', true))
    case 'batch':
      return batch(w, s)
    case 'selfTrade':
      return placeOne(s, selfTradeOrder(w))
    case 'cancelOrder':
      return cancelOrder(w, s)
    case 'cancelOrders':
      return cancelOrders(w, s)
    case 'cancelByClientOrderId':
      return cancelByClientOrderId(w, s)
    case 'cancelAll':
      return { kind: 'cancelAll', ...s, address: requester(w, pickAccount(w)) }
    case 'cancelMarket':
      return cancelMarket(w, s)
    case 'invalidOrder':
      return placeOne(s, invalidOrder(w))
    case 'duplicate':
      return placeOne(s, duplicate(w))
    case 'split':
      return split(w, s)
    case 'merge':
      return merge(w, s)
    case 'redeem':
      return redeem(w, s)
    case 'credit':
      return credit(w, s)
    case 'approve':
      return approve(w, s)
    case 'relay':
      return relay(w, s)
    case 'expire':
      return { kind: 'expire', ...s }
    case 'tickSize':
      return tickSize(w, s)
    case 'feeRate':
      return feeRate(w, s)
    case 'marketStatus':
      return marketStatus(w, s)
    case 'marketAdmin':
      return marketAdmin(w, s)
    case 'apiKey':
      return apiKey(w, s)
    case 'amend':
      return amend(w, s)
    case 'cancelReplace':
      return cancelReplace(w, s)
    case 'massQuote':
      return massQuote(w, s)
    case 'orderGroup':
      return orderGroup(w, s)
  }
}

export function placeOne(s: Stamp, order: OrderInput): Command {
  return { kind: 'placeOrder', ...s, order }
}

export function batch(w: WorkloadState, s: Stamp): Command {
  const n = w.rng.chance(0.04) ? BATCH_ORDERS_MAX + 1 : w.rng.int(1, BATCH_ORDERS_MAX)
  const orders: OrderInput[] = []
  for (let i = 0; i < n; i++) {
    const r = w.rng.int(0, 99)
    if (r < 70) orders.push(limitOrder(w, w.rng.chance(0.85) ? 'GTC' : 'GTD', w.rng.chance(0.1)))
    else if (r < 82) orders.push(immediateOrder(w))
    else if (r < 90) orders.push(invalidOrder(w))
    else if (r < 95 && orders.length > 0) orders.push(w.rng.pick(orders)) // a repeat in the batch
    else orders.push(selfTradeOrder(w))
  }
  return { kind: 'placeOrders', ...s, orders }
}
