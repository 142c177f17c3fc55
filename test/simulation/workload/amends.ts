/**
 * Amends and cancel-replaces (with `amendsAndReplaces`): of live orders to new sizes, re-quotes,
 * crossing, post-only, immediate or faulty new orders; some of ended, unknown or others' orders.
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { Command, OrderInput } from '../../../src/engine/command.js'
import { MICROS_PER_LOT, ORDER_AMOUNT_MICROS_MAX } from '../../../src/engine/limits.js'
import { type AccountView, type MarketView, type OrderView, type Stamp, WorkloadState, drawLots, freeShares, onGrid, orderMarket, otherAccount, pickAccount, tokenPips, validExpiration } from './state.js'
import { badExpiration, badShape, notLots, offTick, priceOutOfRange, tooExpensive, tooSmall } from './invalid-orders.js'
import { immediateOrder, newOrder, restingAt } from './orders.js'

/**
 * Mostly an amend of a live order by its maker or signer that lowers it, to a new size or by a
 * reduction; sometimes sizes that are refused (both or neither given, not whole lots, not
 * numbers, beyond an order's bound, not lowering), someone else's order, an ended or unknown one.
 */
export function amend(w: WorkloadState, s: Stamp): Command {
  const r = w.rng.int(0, 99)
  const liveOrders = [...w.live.values()]
  let address: string
  let orderId: string
  let remainingMicros = w.rng.int(1, 500) * MICROS_PER_LOT
  if (r < 80 && liveOrders.length > 0) {
    const o = w.rng.pick(liveOrders)
    address = w.rng.chance(0.2) ? o.input.signer : o.input.maker
    orderId = o.input.orderId
    remainingMicros = o.remainingMicros
  } else if (r < 87 && liveOrders.length > 0) {
    const o = w.rng.pick(liveOrders)
    address = otherAccount(w, o.input.maker).address
    orderId = o.input.orderId
    remainingMicros = o.remainingMicros
  } else if (r < 97 && w.ended.length > 0) {
    const e = w.rng.pick(w.ended)
    address = w.rng.chance(0.8) ? e.maker : pickAccount(w).address
    orderId = e.id
  } else {
    address = pickAccount(w).address
    orderId = `0x${w.rng.hex(32)}`
  }
  const [newSizeMicros, reduceByMicros] = amendSizes(w, remainingMicros)
  return { kind: 'amendOrder', ...s, address, orderId, newSizeMicros, reduceByMicros }
}

/** [newSizeMicros, reduceByMicros] for an order with `remainingMicros` resting. */
export function amendSizes(w: WorkloadState, remainingMicros: number): [number, number] {
  const lots = Math.max(1, Math.floor(remainingMicros / MICROS_PER_LOT))
  // Below what rests (when more than one lot rests: one lot cannot be lowered).
  const below = (): number => w.rng.int(1, Math.max(1, lots - 1)) * MICROS_PER_LOT
  const r = w.rng.int(0, 99)
  if (r < 40) return [below(), w.rng.chance(0.05) ? -0 : 0]
  if (r < 75) return [w.rng.chance(0.05) ? -0 : 0, below()]
  if (r < 83) {
    // The same size or more, or a reduction by all of it or more: AMEND_NOT_REDUCING.
    const size = remainingMicros + w.rng.pick([0, 0, MICROS_PER_LOT, w.rng.int(1, 50) * MICROS_PER_LOT])
    return w.rng.chance(0.5) ? [size, 0] : [0, size]
  }
  if (r < 87) return [below(), below()]
  if (r < 90) return [0, 0]
  if (r < 95) {
    const odd = below() + w.rng.int(1, MICROS_PER_LOT - 1)
    return w.rng.chance(0.5) ? [odd, 0] : [0, odd]
  }
  const bad = w.rng.pick<unknown>([
    -MICROS_PER_LOT, Number.NaN, 1.5, ORDER_AMOUNT_MICROS_MAX + MICROS_PER_LOT, Number.MAX_SAFE_INTEGER + 2,
    Number.POSITIVE_INFINITY, '10000', null,
  ]) as number
  return w.rng.chance(0.5) ? [bad, 0] : [0, bad]
}

/**
 * Mostly a cancel-replace of a live order by its maker or signer; sometimes of someone else's
 * order, of an ended one (its new order now and then malformed: the old one is judged first),
 * or of an unknown one.
 */
export function cancelReplace(w: WorkloadState, s: Stamp): Command {
  const r = w.rng.int(0, 99)
  const liveOrders = [...w.live.values()]
  if (r < 82 && liveOrders.length > 0) {
    const old = w.rng.pick(liveOrders)
    const a = w.accounts.find((x) => x.address === old.input.maker) ?? pickAccount(w)
    const address = w.rng.chance(0.2) ? old.input.signer : old.input.maker
    return { kind: 'cancelReplace', ...s, address, orderId: old.input.orderId, order: replacement(w, old, a) }
  }
  if (r < 88 && liveOrders.length > 0) {
    const old = w.rng.pick(liveOrders)
    const a = otherAccount(w, old.input.maker)
    return { kind: 'cancelReplace', ...s, address: a.address, orderId: old.input.orderId, order: freshQuote(w, a) }
  }
  if (r < 97 && w.ended.length > 0) {
    const e = w.rng.pick(w.ended)
    const a = w.accounts.find((x) => x.address === e.maker) ?? pickAccount(w)
    const address = w.rng.chance(0.8) ? e.maker : pickAccount(w).address
    const order = w.rng.chance(0.15) ? badShape(w, freshQuote(w, a)) : freshQuote(w, a)
    return { kind: 'cancelReplace', ...s, address, orderId: e.id, order }
  }
  const a = pickAccount(w)
  return { kind: 'cancelReplace', ...s, address: a.address, orderId: `0x${w.rng.hex(32)}`, order: freshQuote(w, a) }
}

/**
 * The order that takes the place of `old` (of account `a`): mostly the same quote moved a few
 * ticks and resized, keeping the old client order id more often than not; sometimes one that
 * crosses the book, a post-only one that would cross or one beyond the account's means (both
 * refused once the old one is cancelled), an immediate order, one with a fault in its terms
 * (refused: the old one stays), the old order's own id, another live order's client order id,
 * or a quote elsewhere.
 */
export function replacement(w: WorkloadState, old: OrderView, a: AccountView): OrderInput {
  const m = w.markets.get(old.marketId)
  if (m === undefined) return freshQuote(w, a)
  const r = w.rng.int(0, 99)
  if (r < 45) return requoteOrder(w, old, a, m)
  if (r < 55) return crossing(w, m, a, false)
  if (r < 63) return crossing(w, m, a, true)
  if (r < 70) return immediateOrder(w, a)
  if (r < 73) return tooExpensive(requoteOrder(w, old, a, m)) // refused for funds once the old one is cancelled
  if (r < 87) {
    const base = requoteOrder(w, old, a, m)
    const faults: readonly (() => OrderInput)[] = [
      () => offTick(w, base),
      () => offTick(w, base),
      () => notLots(w, base),
      () => tooSmall(w, base),
      () => badExpiration(w, base),
      () => priceOutOfRange(w, base),
      () => ({ ...base, feeRateBps: (base.feeRateBps ?? 0) + w.rng.pick([1, 50]) }),
      () => ({ ...base, tokenId: w.rng.decimal(77) }),
      () => badShape(w, base),
    ]
    return w.rng.pick(faults)()
  }
  if (r < 91) return { ...requoteOrder(w, old, a, m), orderId: old.input.orderId } // INVALID_ORDER_DUPLICATED
  if (r < 96) {
    const twins = [...w.live.values()].filter((o) => o !== old && o.input.owner === a.apiKey && o.input.clientOrderId !== '')
    const requote = requoteOrder(w, old, a, m)
    return twins.length > 0 ? { ...requote, clientOrderId: w.rng.pick(twins).input.clientOrderId } : requote
  }
  return freshQuote(w, a)
}

/** `old` moved 0 to a few ticks (mostly away from the other side) with a new size, same token and side. */
export function requoteOrder(w: WorkloadState, old: OrderView, a: AccountView, m: MarketView): OrderInput {
  const offset = w.rng.int(-2, 4)
  const yesPips = onGrid(m, old.yesPips + (old.bid ? -offset : offset) * m.tickPips)
  const tokenId = old.input.tokenId
  const pips = tokenPips(w, tokenId, yesPips)
  const minLots = Math.max(1, Math.ceil(m.input.minOrderSizeMicros / MICROS_PER_LOT))
  const oldLots = Math.floor(old.remainingMicros / MICROS_PER_LOT)
  let lots = drawLots(w, minLots)
  const sell = old.input.side === 'SELL'
  if (sell) {
    // The old order's shares come free when it is cancelled.
    lots = Math.max(minLots, Math.min(lots, Math.floor(freeShares(a, tokenId) / MICROS_PER_LOT) + oldLots))
  } else {
    const oldPips = tokenPips(w, tokenId, old.yesPips)
    const free = Math.min(a.usdc.balance, a.allowance) - a.usdc.held + oldPips * oldLots
    const can = Math.floor(free / (pips + Math.ceil((pips * m.feeRateBps) / 10_000))) - 1
    if (can >= minLots) lots = Math.min(lots, can)
  }
  const tif = w.rng.chance(0.85) ? 'GTC' : 'GTD'
  const order = newOrder(w, a, m, {
    tokenId,
    side: old.input.side,
    makerAmountMicros: sell ? lots * MICROS_PER_LOT : pips * lots,
    takerAmountMicros: sell ? pips * lots : lots * MICROS_PER_LOT,
    timeInForce: tif,
    expirationSec: tif === 'GTD' ? validExpiration(w) : 0,
    postOnly: w.rng.chance(0.1),
  })
  const keep = old.input.clientOrderId !== '' && w.rng.chance(0.7)
  return keep ? { ...order, clientOrderId: old.input.clientOrderId } : order
}

/** A resting order of `a` priced a few ticks through the mid: it crosses, or is refused as post-only. */
export function crossing(w: WorkloadState, m: MarketView, a: AccountView, postOnly: boolean): OrderInput {
  const bid = w.rng.chance(0.5)
  const yesPips = onGrid(m, m.midPips + (bid ? 1 : -1) * w.rng.int(1, 4) * m.tickPips)
  return restingAt(w, m, a, bid, yesPips, 'GTC', postOnly)
}

/** A resting order of `a` around the mid of a market, mostly away from the other side. */
export function freshQuote(w: WorkloadState, a: AccountView): OrderInput {
  const m = orderMarket(w)
  const bid = w.rng.chance(0.5)
  const offset = w.rng.int(-1, 10)
  return restingAt(w, m, a, bid, onGrid(m, m.midPips + (bid ? -offset : offset) * m.tickPips), 'GTC', false)
}
