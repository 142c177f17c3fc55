/**
 * A fill's terms and events, and the dry run that decides FOK, FAK and post-only before anything
 * moves: no model state.
 */
import type { OrderInput } from '../../../src/engine/command.js'
import type { MatchType, Trade } from '../../../src/engine/event.js'
import { MICROS_PER_PIP, PIPS_PER_UNIT } from '../../../src/engine/limits.js'
import { type WindowSums, reachesLimit } from './groups.js'
import { nativePips } from './matching.js'
import {
  type AccountState,
  type GroupState,
  LOT,
  type OrderState,
  type Plan,
  type SelfTradeMode,
  type Taker,
  UNIT_PIPS,
  minBig,
  num,
} from './state.js'

/**
 * The FOK dry run: the walk over `makers` (the eligible ones, the taker's own among them, in walk
 * order) without changing anything; whether it would end with the taker filled.
 * SPEC: it walks the makers the walk would meet ("the dry run walks the same makers"): the walk's
 * fills count in the groups' windows (`windowNow` is each group's before the walk), and a group
 * they bring to a limit triggers and pulls its resting orders, which the walk then never meets;
 * so the dry run skips them too. A FOK that would fill only with quotes a trigger pulls on its way
 * is not filled entirely: refused, never half filled.
 */
export function dryRunFills(
  input: OrderInput,
  plan: Plan,
  makers: readonly OrderState[],
  mode: SelfTradeMode,
  takerGroup: GroupState | null,
  windowNow: (g: GroupState) => WindowSums,
): boolean {
  const buy = input.side === 'BUY'
  let budget = BigInt(input.makerAmountMicros)
  let lots = plan.lots
  const sums = new Map<GroupState, WindowSums>()
  const pulled = new Set<GroupState>()
  const count = (g: GroupState, x: bigint, notional: bigint): void => {
    const before = sums.get(g) ?? windowNow(g)
    const after = { lots: before.lots + x, notional: before.notional + notional }
    if (!reachesLimit(g, after)) {
      sums.set(g, after)
      return
    }
    pulled.add(g)
    sums.set(g, { lots: 0n, notional: 0n })
  }
  for (const m of makers) {
    if (m.group !== null && pulled.has(m.group)) continue
    const tp = BigInt(nativePips(plan.outcome, m.yesPips))
    // Where the walk stops: it cannot take one more lot at this maker's level. (The taker's
    // price only rises along the walk, so nothing further could be taken either.)
    if (buy ? budget < tp : lots === 0) break
    if (m.input.maker === input.maker) {
      // cancel-maker: the walk cancels it and goes on, taking nothing from it.
      if (mode === 'cancel-maker') continue
      // SPEC: cancel-taker, cancel-both: the walk meets its own order before it is filled (it
      // could still take a lot here) and stops there, the rest of the taker cancelled: not
      // filled. An immediate BUY whose budget cannot buy one more lot at this level stopped just
      // above, filled or not by its budget, and never meets this order.
      return false
    }
    const x = buy ? minBig(BigInt(m.lots), budget / tp) : BigInt(Math.min(m.lots, lots))
    if (buy) budget -= x * tp
    else lots -= num(x)
    // As countGroupFills: the maker's group at its price, then the taker's (another) at its own.
    if (m.group !== null) count(m.group, x, BigInt(m.pips) * x)
    if (takerGroup !== null && takerGroup !== m.group) count(takerGroup, x, tp * x)
  }
  return buy ? budget < BigInt(plan.pips) : lots === 0
}

/**
 * The FAK check: whether the walk would match anything. With cancel-maker it cancels its own
 * orders and goes on, so any other account's eligible order is a match; with cancel-taker or
 * cancel-both it stops at the first of its own, so the first eligible order must be another's.
 * (The walk meets that first order: a FAK passed its size checks, so it can take a lot at any
 * level its limit reaches. Order groups change nothing here: a trigger follows a fill, so it never
 * pulls a FAK's first match.)
 */
export function hasMatch(input: OrderInput, makers: readonly OrderState[], mode: SelfTradeMode): boolean {
  const firstOther = makers.findIndex((m) => m.input.maker !== input.maker)
  return mode === 'cancel-maker' ? firstOther >= 0 : firstOther === 0
}

/** What one fill of `x` lots moves (docs/engine.md, Matching, steps 2 to 4). */
export interface FillTerms {
  readonly matchType: MatchType
  /** The taker's native price at the maker's level, in pips. */
  readonly tp: bigint
  readonly shares: bigint
  readonly takerCash: bigint
  readonly makerCash: bigint
  readonly fee: bigint
}

export function fillTerms(t: Taker, m: OrderState, x: number): FillTerms {
  const T = t.order.input
  const lots = BigInt(x)
  const tp = BigInt(nativePips(t.order.outcome, m.yesPips))
  // The fee base min(P, 1 - P) is the same from either token.
  const feeBase = BigInt(Math.min(m.yesPips, PIPS_PER_UNIT - m.yesPips))
  return {
    matchType: T.tokenId === m.input.tokenId ? 'normal' : T.side === 'BUY' ? 'mint' : 'merge',
    tp,
    shares: lots * LOT,
    takerCash: tp * lots,
    makerCash: BigInt(m.pips) * lots,
    fee: (BigInt(t.market.feeRateBps) * feeBase * lots) / UNIT_PIPS,
  }
}

export function tradeEvent(tradeId: string, t: Taker, m: OrderState, f: FillTerms, timeMs: number): Trade {
  const T = t.order.input
  const M = m.input
  return {
    type: 'trade',
    tradeId,
    marketId: t.market.input.marketId,
    matchType: f.matchType,
    takerOrderId: T.orderId,
    takerAddress: T.maker,
    takerOwner: T.owner,
    tokenId: T.tokenId,
    outcome: t.order.outcome,
    side: T.side,
    priceMicros: num(f.tp) * MICROS_PER_PIP,
    sizeMicros: num(f.shares),
    feeMicros: num(f.fee),
    feeRateBps: t.market.feeRateBps,
    makerOrderId: M.orderId,
    makerAddress: M.maker,
    makerOwner: M.owner,
    makerTokenId: M.tokenId,
    makerOutcome: m.outcome,
    makerSide: M.side,
    makerPriceMicros: m.pips * MICROS_PER_PIP,
    timeMs,
  }
}

export function addShares(account: AccountState, tokenId: string, delta: bigint): void {
  const next = (account.shares.get(tokenId) ?? 0n) + delta
  if (next < 0n) throw new Error(`reference: negative share balance of ${tokenId}`)
  // A zero balance is no entry, so state does not grow with every token ever held.
  if (next === 0n) account.shares.delete(tokenId)
  else account.shares.set(tokenId, next)
}
