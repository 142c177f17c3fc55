/**
 * Orders: placement and matching. The walk finds the best maker afresh at every step by scanning
 * every open order of the market.
 */
import type { OrderInput, Outcome, Side } from '../../../src/engine/command.js'
import type { CancelReason, OrderStatus } from '../../../src/engine/event.js'
import type { CommandResult, OrderPlaced, OrderRejection, PlaceResult } from '../../../src/engine/result.js'
import { Code, CODE_MESSAGES } from '../../../src/engine/codes.js'
import { BATCH_ORDERS_MAX, MICROS_PER_LOT, MICROS_PER_PIP, PIPS_PER_UNIT } from '../../../src/engine/limits.js'
import { tradeIdOf } from '../../../src/engine/ids.js'
import { mustAccount } from './accounts.js'
import { type FillTerms, addShares, fillTerms, tradeEvent } from './fills.js'
import { addGroupFill, groupNamed, triggerGroup } from './groups.js'
import {
  type OrderState,
  type Plan,
  ReferenceState,
  type Refusal,
  type Step,
  type Taker,
  UNIT_PIPS,
  ceilDiv,
  num,
  refuse,
  rejection,
} from './state.js'
import { isImmediate, rawString, selfTradeModeOf, validate } from './validation.js'

/** A Yes-space price seen from a token: the identity for Yes, the complement for No. */
export function nativePips(outcome: Outcome, yesPips: number): number {
  return outcome === 'Yes' ? yesPips : PIPS_PER_UNIT - yesPips
}

/** Whether a taker on Yes-space side `bid` with Yes-space limit `limit` reaches `level`. */
export function reaches(bid: boolean, limit: number, level: number): boolean {
  return bid ? level <= limit : level >= limit
}

/** The most fee a cost `c` can incur at `rate` bps: ceil(rate * c / 10_000). */
export function feeBound(rate: number, cost: bigint): bigint {
  return ceilDiv(BigInt(rate) * cost, UNIT_PIPS)
}

/** Price-time priority of makers for a taker on Yes-space side `takerBid`. */
export function makerPriority(takerBid: boolean): (a: OrderState, b: OrderState) => number {
  // A bid taker walks the asks low to high; an ask taker walks the bids high to low.
  return (a, b) =>
    (takerBid ? a.yesPips - b.yesPips : b.yesPips - a.yesPips) || a.number - b.number
}

/** Yes-space side: BUY Yes and SELL No are bids; SELL Yes and BUY No are asks. */
export function isBid(side: Side, outcome: Outcome): boolean {
  return (side === 'BUY') === (outcome === 'Yes')
}

export function placeBatch(r: ReferenceState, orders: readonly OrderInput[], step: Step): CommandResult {
  // SPEC: a batch refused as too large emits no orderRejected events (it is "rejected whole",
  // before any of its orders is looked at).
  if (orders.length > BATCH_ORDERS_MAX) {
    return rejection(refuse(Code.BATCH_TOO_LARGE, { max: BATCH_ORDERS_MAX }))
  }
  return { ok: true, results: orders.map((o) => place(r, o, step)) }
}

export function place(r: ReferenceState, input: OrderInput, step: Step): PlaceResult {
  const verdict = validate(r, input)
  if (verdict.refused) return rejectOrder(input, verdict, step)
  return accept(r, input, verdict, step)
}

/** A refused order: its `orderRejected` event, and its result. */
export function rejectOrder(input: OrderInput, verdict: Refusal, step: Step): OrderRejection {
  const orderId = rawString(input, 'orderId')
  step.events.push({
    type: 'orderRejected',
    orderId,
    maker: rawString(input, 'maker'),
    code: verdict.code,
    message: CODE_MESSAGES[verdict.code],
  })
  return { ...rejection(verdict), orderId }
}

export function accept(r: ReferenceState, input: OrderInput, plan: Plan, step: Step): OrderPlaced {
  const bid = isBid(input.side, plan.outcome)
  const order: OrderState = {
    number: r.nextOrderNumber++,
    input,
    marketId: plan.market.input.marketId,
    outcome: plan.outcome,
    bid,
    pips: plan.pips,
    yesPips: nativePips(plan.outcome, plan.pips),
    lots: 0,
    matchedLots: 0,
    status: 'LIVE',
    group: groupNamed(r, input),
  }
  r.orders.set(input.orderId, order)
  step.events.push({
    type: 'orderAccepted',
    orderId: input.orderId,
    marketId: order.marketId,
    tokenId: input.tokenId,
    outcome: order.outcome,
    side: input.side,
    owner: input.owner,
    maker: input.maker,
    signer: input.signer,
    priceMicros: plan.pips * MICROS_PER_PIP,
    originalSizeMicros: input.side === 'BUY' ? input.takerAmountMicros : input.makerAmountMicros,
    makerAmountMicros: input.makerAmountMicros,
    takerAmountMicros: input.takerAmountMicros,
    timeInForce: input.timeInForce,
    postOnly: input.postOnly,
    expirationSec: input.expirationSec,
    clientOrderId: input.clientOrderId,
    timeMs: r.timeMs,
  })
  const budgetCounted = plan.immediate && input.side === 'BUY'
  const taker: Taker = {
    order,
    market: plan.market,
    mode: selfTradeModeOf(input),
    stopped: null,
    budgetCounted,
    lots: plan.lots,
    budget: budgetCounted ? BigInt(input.makerAmountMicros) : 0n,
    making: 0n,
    taking: 0n,
    fee: 0n,
    tradeIds: [],
  }
  walk(r, taker, step)
  finish(r, taker, step)
  return {
    ok: true,
    orderId: input.orderId,
    status: order.status,
    makingMicros: num(taker.making),
    takingMicros: num(taker.taking),
    feeMicros: num(taker.fee),
    tradeIds: taker.tradeIds,
  }
}

export function walk(r: ReferenceState, t: Taker, step: Step): void {
  for (;;) {
    const m = bestMaker(r, t.order.marketId, t.order.bid)
    if (m === undefined || !reaches(t.order.bid, t.order.yesPips, m.yesPips)) return
    // The walk also stops when the taker cannot take one more lot at this maker's level, and
    // does so before self-trade prevention: only orders it would have matched are cancelled.
    const tp = nativePips(t.order.outcome, m.yesPips)
    if (t.budgetCounted ? t.budget < BigInt(tp) : t.lots === 0) return
    if (m.input.maker === t.order.input.maker) {
      // Only the taker's mode counts (the resting order's was the business of its own walk).
      switch (t.mode) {
        case 'cancel-maker':
          end(r, m, 'CANCELED', 'self-trade', step)
          continue
        case 'cancel-taker':
          t.stopped = 'self-trade'
          return
        case 'cancel-both':
          end(r, m, 'CANCELED', 'self-trade', step)
          t.stopped = 'self-trade'
          return
      }
    }
    const x = t.budgetCounted
      ? Math.min(m.lots, num(t.budget / BigInt(tp)))
      : Math.min(m.lots, t.lots)
    fill(r, t, m, x, step)
    // Its order group triggered on this fill: no further fill.
    if (t.stopped !== null) return
  }
}

/** One fill of `x` lots between taker `t` and maker `m`, at the maker's level. */
export function fill(r: ReferenceState, t: Taker, m: OrderState, x: number, step: Step): void {
  const f = fillTerms(t, m, x)
  settle(r, t, m, f)
  const tradeId = tradeIdOf(r.seq, step.trades++)
  step.events.push(tradeEvent(tradeId, t, m, f, r.timeMs))

  m.matchedLots += x
  m.lots -= x
  if (m.lots === 0) end(r, m, 'MATCHED', null, step)
  else emitUpdate(m, step, null)

  const buy = t.order.input.side === 'BUY'
  t.order.matchedLots += x
  // SPEC: the budget counts what the fills cost (tp * x), not the fee: the fee is covered by
  // the feeBound(ma) added to what the order requires, as for a resting BUY.
  if (t.budgetCounted) t.budget -= f.takerCash
  else t.lots -= x
  t.making += buy ? f.takerCash : f.shares
  t.taking += buy ? f.shares : f.takerCash
  t.fee += f.fee
  t.tradeIds.push(tradeId)
  countGroupFills(r, t, m, x, f, step)
}

/**
 * After a fill (its trade and the maker's update): the fill counts in the window of the maker's
 * group at the maker's price, and in the taker's group's at the taker's price at this level
 * (docs: "at the order's own price"); a group brought to a limit triggers at once (its resting
 * orders cancelled, the maker's own rest among them). The maker's group first, then the taker's.
 * A taker whose group triggered stops here, unless it is FOK (its dry run promised it whole, and
 * its further fills still count).
 * SPEC: a fill between two orders of one group (one key, two wallets) counts once, at the maker's
 * price: it is one fill of the group. (The workload's keys each trade from one wallet, so their
 * orders never fill each other: self-trade prevention comes first.)
 */
export function countGroupFills(r: ReferenceState, t: Taker, m: OrderState, x: number, f: FillTerms, step: Step): void {
  const lots = BigInt(x)
  const makerGroup = m.group
  const takerGroup = t.order.group
  let takerGroupTriggered = false
  if (makerGroup !== null && addGroupFill(r, makerGroup, lots, BigInt(m.pips) * lots)) {
    triggerGroup(r, makerGroup, step)
    takerGroupTriggered = makerGroup === takerGroup
  }
  if (takerGroup !== null && takerGroup !== makerGroup && addGroupFill(r, takerGroup, lots, f.takerCash)) {
    triggerGroup(r, takerGroup, step)
    takerGroupTriggered = true
  }
  if (takerGroupTriggered && t.order.input.timeInForce !== 'FOK') t.stopped = 'order-group'
}

/** Moves the money and shares of one fill (the maker's hold shrinks with its lots). */
export function settle(r: ReferenceState, t: Taker, m: OrderState, f: FillTerms): void {
  const T = t.order.input
  const M = m.input
  // Each side pays or receives its own native price; for a normal match tp == mp, so this is
  // a transfer; for mint/merge tp + mp == 1 USDC, which is the full set made or unmade.
  const taker = mustAccount(r, T.maker)
  const maker = mustAccount(r, M.maker)
  if (T.side === 'BUY') {
    taker.usdc -= f.takerCash + f.fee
    addShares(taker, T.tokenId, f.shares)
  } else {
    addShares(taker, T.tokenId, -f.shares)
    taker.usdc += f.takerCash - f.fee
  }
  if (M.side === 'BUY') {
    maker.usdc -= f.makerCash
    addShares(maker, M.tokenId, f.shares)
  } else {
    addShares(maker, M.tokenId, -f.shares)
    maker.usdc += f.makerCash
  }
  if (f.matchType === 'mint') {
    t.market.collateral += f.shares
    t.market.minted += f.shares
  } else if (f.matchType === 'merge') {
    t.market.collateral -= f.shares
    t.market.merged += f.shares
  }
  r.fees += f.fee
}

/** End of the walk: rest, or end the taker, and emit its final update. */
export function finish(r: ReferenceState, t: Taker, step: Step): void {
  const o = t.order
  const filled = t.budgetCounted ? t.budget < BigInt(o.pips) : t.lots === 0
  if (t.stopped === 'order-group' && !filled) {
    // The rest of a taker whose group triggered is cancelled, whatever its time in force.
    o.status = 'CANCELED'
    emitUpdate(o, step, 'order-group')
    return
  }
  // SPEC: a taker that the triggering fill filled whole has no rest to cancel ("the rest of it is
  // cancelled"): it ends as any filled order does, MATCHED.
  if (t.stopped === 'self-trade') {
    // SPEC: stopped on its own order, the taker ends CANCELED (reason self-trade, what it filled
    // before as its matched size), whatever its time in force: a GTC or GTD with lots left does
    // not rest, and an immediate order is not 'unfilled'. Its result's status is CANCELED.
    if (o.input.timeInForce === 'FOK') {
      throw new Error(`reference: FOK ${o.input.orderId} passed its dry run but met its own order`)
    }
    o.status = 'CANCELED'
    emitUpdate(o, step, 'self-trade')
    return
  }
  if (!isImmediate(o.input)) {
    if (t.lots > 0) {
      o.lots = t.lots
      r.live.push(o) // the tail of its level: it has the highest order number
      if (o.matchedLots > 0) emitUpdate(o, step, null)
    } else {
      o.status = 'MATCHED'
      emitUpdate(o, step, null)
    }
    return
  }
  // An immediate BUY is filled when what is left of its budget cannot buy one more lot at
  // any price it accepts; every other immediate order when it has no lots left.
  if (o.input.timeInForce === 'FOK' && !filled) {
    throw new Error(`reference: FOK ${o.input.orderId} passed its dry run but did not fill`)
  }
  o.status = filled ? 'MATCHED' : 'CANCELED'
  emitUpdate(o, step, filled ? null : 'unfilled')
}

/** Ends an order (a cancel or its last fill) and emits its update. */
export function end(r: ReferenceState, o: OrderState, status: OrderStatus, reason: CancelReason | null, step: Step): void {
  o.status = status
  o.lots = 0
  r.live = r.live.filter((x) => x !== o)
  emitUpdate(o, step, reason)
}

export function emitUpdate(o: OrderState, step: Step, reason: CancelReason | null): void {
  step.events.push({
    type: 'orderUpdate',
    orderId: o.input.orderId,
    maker: o.input.maker,
    status: o.status,
    sizeMatchedMicros: o.matchedLots * MICROS_PER_LOT,
    remainingMicros: o.status === 'LIVE' ? o.lots * MICROS_PER_LOT : 0,
    reason,
  })
}

/** The best open order of the market on the side opposite to `takerBid`, if any. */
export function bestMaker(r: ReferenceState, marketId: string, takerBid: boolean): OrderState | undefined {
  return opposite(r, marketId, takerBid).sort(makerPriority(takerBid))[0]
}

/** Open orders on the opposite side within the limit, in the order a taker meets them. */
export function eligibleMakers(r: ReferenceState, marketId: string, takerBid: boolean, limitYesPips: number): OrderState[] {
  return opposite(r, marketId, takerBid)
    .filter((m) => reaches(takerBid, limitYesPips, m.yesPips))
    .sort(makerPriority(takerBid))
}

export function opposite(r: ReferenceState, marketId: string, takerBid: boolean): OrderState[] {
  return r.live.filter((m) => m.marketId === marketId && m.bid !== takerBid)
}
