/**
 * Valid orders: resting limit orders around a market's mid, immediate ones, self-trades, with
 * client order ids, self-trade modes and order groups now and then.
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { OrderInput, TimeInForce } from '../../../src/engine/command.js'
import { MICROS_PER_LOT, MICROS_PER_PIP, MICROS_PER_UNIT, ORDER_GROUP_ID_LENGTH_MAX, PIPS_PER_UNIT }
  from '../../../src/engine/limits.js'
import { type AccountView, CLIENT_ORDER_IDS_PER_KEY, GROUP_IDS, type MarketView, type OrderView, SELF_TRADE_MODES, WorkloadState, affordableLots, bestLiveOrder, clamp, drawLots, drift, freeShares, onGrid, orderMarket, pickAccount, tokenPips, validExpiration } from './state.js'

/** A resting order around the mid of a market, on a random token and side. */
export function limitOrder(w: WorkloadState, tif: 'GTC' | 'GTD', postOnly: boolean): OrderInput {
  const m = orderMarket(w)
  const a = pickAccount(w)
  const bid = w.rng.chance(0.5)
  // Offsets in ticks from the mid, away from the other side; negative ones cross.
  const offset = postOnly ? w.rng.int(-2, 6) : w.rng.int(-3, 12)
  const yesPips = onGrid(m, m.midPips + (bid ? -offset : offset) * m.tickPips)
  return restingAt(w, m, a, bid, yesPips, tif, postOnly)
}

/** A resting order of `a` at Yes-space `yesPips`, as a SELL when it has the shares. */
export function restingAt(
  w: WorkloadState,
  m: MarketView,
  a: AccountView,
  bid: boolean,
  yesPips: number,
  tif: 'GTC' | 'GTD',
  postOnly: boolean,
): OrderInput {
  // A bid is BUY Yes or SELL No; an ask is SELL Yes or BUY No.
  const sellToken = bid ? m.input.noTokenId : m.input.yesTokenId
  const buyToken = bid ? m.input.yesTokenId : m.input.noTokenId
  const minLots = Math.max(1, Math.ceil(m.input.minOrderSizeMicros / MICROS_PER_LOT))
  let lots = drawLots(w, minLots)
  const freeLots = Math.floor(freeShares(a, sellToken) / MICROS_PER_LOT)
  const sell = freeLots >= minLots && w.rng.chance(0.55)
  const tokenId = sell ? sellToken : buyToken
  const pips = tokenPips(w, tokenId, yesPips)
  if (sell) lots = Math.min(lots, freeLots)
  else lots = affordableLots(w, a, m, pips, lots, minLots)
  drift(w, m)
  return newOrder(w, a, m, {
    tokenId,
    side: sell ? 'SELL' : 'BUY',
    makerAmountMicros: sell ? lots * MICROS_PER_LOT : pips * lots,
    takerAmountMicros: sell ? pips * lots : lots * MICROS_PER_LOT,
    timeInForce: tif,
    expirationSec: tif === 'GTD' ? validExpiration(w) : 0,
    postOnly,
  })
}

/**
 * A FOK or FAK: a BUY for a USDC budget or a SELL of some lots, limit ratio not on the grid; of
 * `account` when given.
 */
export function immediateOrder(w: WorkloadState, account?: AccountView): OrderInput {
  const m = orderMarket(w)
  const a = account ?? pickAccount(w)
  const tif: TimeInForce = w.rng.chance(0.5) ? 'FOK' : 'FAK'
  const yes = w.rng.chance(0.5)
  const tokenId = yes ? m.input.yesTokenId : m.input.noTokenId
  const mid = tokenPips(w, tokenId, m.midPips)
  const freeLots = Math.floor(freeShares(a, tokenId) / MICROS_PER_LOT)
  const sell = freeLots > 0 && w.rng.chance(0.45)
  // Aggressive by 0..8 ticks, sometimes passive (FAK_ORDER_NOT_FILLED), off the grid by a bit.
  const aggression = w.rng.int(-3, 8) * m.tickPips * (sell ? -1 : 1)
  const limitMicros = clamp((mid + aggression) * MICROS_PER_PIP + w.rng.int(-99, 99), 101, 989_999)
  if (sell) {
    const lots = w.rng.int(1, Math.min(freeLots, w.rng.chance(0.2) ? 50_000 : 3_000))
    const ma = lots * MICROS_PER_LOT
    const ta = clamp(Math.ceil((ma * limitMicros) / MICROS_PER_UNIT), 1, ma - 1)
    return newOrder(w, a, m, { tokenId, side: 'SELL', makerAmountMicros: ma, takerAmountMicros: ta, timeInForce: tif, expirationSec: 0, postOnly: false })
  }
  const free = Math.min(a.usdc.balance, a.allowance) - a.usdc.held
  const cap = Math.max(1_000_000, Math.floor((free * 10_000) / (10_000 + m.feeRateBps)) - 1)
  const budget = w.rng.int(1_000_000, Math.min(cap, w.rng.chance(0.2) ? 400_000_000 : 60_000_000))
  const ta = Math.max(budget + 1, Math.floor((budget * MICROS_PER_UNIT) / limitMicros))
  return newOrder(w, a, m, { tokenId, side: 'BUY', makerAmountMicros: budget, takerAmountMicros: ta, timeInForce: tif, expirationSec: 0, postOnly: false })
}

/**
 * An order that crosses the best open order of its own maker (self-trade prevention); with
 * `selfTradeModes`, mostly with an explicit mode.
 */
export function selfTradeOrder(w: WorkloadState): OrderInput {
  const target = bestLiveOrder(w)
  if (target === undefined) return limitOrder(w, 'GTC', false)
  const m = w.markets.get(target.marketId)
  const a = w.accounts.find((x) => x.address === target.input.maker)
  if (m === undefined || a === undefined || m.status !== 'Active') return limitOrder(w, 'GTC', false)
  const order = w.rng.chance(0.25)
    ? immediateAgainst(w, m, a, target)
    : restingAt(w, m, a, !target.bid, target.yesPips, 'GTC', false)
  if (!w.selfTradeModes || w.rng.chance(0.3)) return order
  const { selfTradePrevention: _drawn, ...rest } = order
  return { ...rest, selfTradePrevention: w.rng.pick(SELF_TRADE_MODES) }
}

/** A FAK of the target's maker on the other side of the target's own token, at its price. */
export function immediateAgainst(w: WorkloadState, m: MarketView, a: AccountView, target: OrderView): OrderInput {
  const tokenId = target.input.tokenId
  const pips = tokenPips(w, tokenId, target.yesPips)
  if (target.input.side === 'SELL') {
    const budget = pips * w.rng.int(100, 2_000)
    const ta = Math.max(budget + 1, Math.floor((budget * PIPS_PER_UNIT) / pips))
    return newOrder(w, a, m, { tokenId, side: 'BUY', makerAmountMicros: budget, takerAmountMicros: ta, timeInForce: 'FAK', expirationSec: 0, postOnly: false })
  }
  const free = Math.floor(freeShares(a, tokenId) / MICROS_PER_LOT)
  const lots = Math.max(1, Math.min(free, w.rng.int(100, 2_000)))
  return newOrder(w, a, m, { tokenId, side: 'SELL', makerAmountMicros: lots * MICROS_PER_LOT, takerAmountMicros: pips * lots, timeInForce: 'FAK', expirationSec: 0, postOnly: false })
}

/** A fresh order of account `a` in market `m` (a new id, the market's fee rate). */
export function newOrder(
  w: WorkloadState,
  a: AccountView,
  m: MarketView,
  o: Pick<OrderInput, 'tokenId' | 'side' | 'makerAmountMicros' | 'takerAmountMicros' | 'timeInForce' | 'expirationSec' | 'postOnly'>,
): OrderInput {
  return {
    orderId: `0x${w.rng.hex(32)}`,
    owner: a.apiKey,
    maker: a.address,
    signer: a.signer,
    // A V2 order signs no fee rate: the market's applies at match, as for a V1 order.
    feeRateBps: w.rng.chance(0.3) ? null : m.feeRateBps,
    clientOrderId: w.rng.chance(0.15) ? clientOrderId(w) : '',
    ...(w.selfTradeModes ? selfTradeMode(w) : {}),
    ...(w.orderGroups ? orderGroupOf(w, a) : {}),
    ...o,
  }
}

/**
 * With `orderGroups`: an order of a key with groups joins one on 30 % (mostly one not triggered
 * as far as the workload heard; a triggered one is ORDER_GROUP_TRIGGERED unless its freeze has
 * ended); any order names an unknown group on 1 %, a malformed id on 0.3 %
 * (INVALID_ORDER_PAYLOAD, field orderGroupId), '' (none) on 2 %.
 */
export function orderGroupOf(w: WorkloadState, a: AccountView): Pick<OrderInput, 'orderGroupId'> {
  const r = w.rng.int(0, 999)
  const groups = [...(w.groups.get(a.apiKey) ?? [])]
  if (r < 300 && groups.length > 0) {
    const open = groups.filter(([, g]) => !g.triggered)
    return { orderGroupId: w.rng.pick(open.length > 0 && w.rng.chance(0.9) ? open : groups)[0] }
  }
  if (r < 310) return { orderGroupId: w.rng.chance(0.5) ? `nope ${w.rng.int(1, 3)}` : w.rng.pick(GROUP_IDS) }
  if (r < 313) {
    const bad: readonly unknown[] = ['g'.repeat(ORDER_GROUP_ID_LENGTH_MAX + 1), 'tab\there', 'caf\u00e9', 7, null]
    return { orderGroupId: w.rng.pick(bad) as string }
  }
  if (r < 333) return { orderGroupId: '' }
  return {}
}

/**
 * With `selfTradeModes`: no mode on 85 % of orders (the default, cancel-maker), cancel-maker
 * named on 4 %, cancel-taker on 5 %, cancel-both on 5.5 %, and a malformed one on 0.5 %
 * (INVALID_ORDER_PAYLOAD, field selfTradePrevention).
 */
export function selfTradeMode(w: WorkloadState): Pick<OrderInput, 'selfTradePrevention'> {
  const r = w.rng.int(0, 199)
  if (r < 170) return {}
  if (r < 178) return { selfTradePrevention: 'cancel-maker' }
  if (r < 188) return { selfTradePrevention: 'cancel-taker' }
  if (r < 199) return { selfTradePrevention: 'cancel-both' }
  const bad: readonly unknown[] = ['cancel-oldest', 'CANCEL-TAKER', 'none', '', 'cancel_both', 0, 1, null, true, ['cancel-maker']]
  return { selfTradePrevention: w.rng.pick(bad) as OrderInput['selfTradePrevention'] }
}

/** One of the few client order ids every key uses (printable ASCII, a space and a tilde among them). */
export function clientOrderId(w: WorkloadState): string {
  return `c ${w.rng.int(1, CLIENT_ORDER_IDS_PER_KEY)}~`
}
