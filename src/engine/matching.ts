/**
 * The walk of a taker through the opposite side of its market's Yes-space book, best price
 * first, oldest first within a level, with self-trade prevention; and the settlement of each
 * fill as a normal, mint or merge match (docs/engine.md, "Matching").
 */
import type { Account, ShareBalance } from './account.js'
import { assert } from '../stdx/assert.js'
import type { Level } from './book.js'
import type { Engine } from './engine.js'
import type { MatchType } from './event.js'
import { emitOrderUpdate, cancelResting, endFilled } from './lifecycle.js'
import { MICROS_PER_LOT, PIPS_PER_UNIT } from './limits.js'
import { NO_ROW, STOP_NONE, STOP_ORDER_GROUP, STOP_SELF_TRADE, STP_CANCEL_MAKER, STP_CANCEL_TAKER, TIF_FOK,
  type OrderRow, type OrderTable } from './order-table.js'
import { DryRunGroups, triggerGroup, type OrderGroup } from './order-group.js'
import { feeOf } from './units.js'

/**
 * What a taker's fills added up to. The engine keeps one and resets it for each placement (a new
 * one per order was a share of the engine's allocation). Its trades are the command's trades
 * `firstTrade` to `firstTrade + tradeCount - 1`: their ids, `tradeIdOf(seq, k)`, are made by
 * whoever reads the result (event-reader.ts), not by the engine.
 */
export class Fills {
  /** USDC paid (BUY) or shares given (SELL). */
  makingMicros = 0
  /** Shares got (BUY) or USDC received before fees (SELL). */
  takingMicros = 0
  feeMicros = 0
  firstTrade = 0
  tradeCount = 0
  /**
   * The taker's row: valid until the next placement allocates one (its row may be freed when it
   * ends, and the log still names it by the index it listed it under).
   */
  taker: OrderRow = NO_ROW

  /** Starts a placement whose first trade, if any, is the command's trade `firstTrade`. */
  reset(firstTrade: number, taker: OrderRow): void {
    this.taker = taker
    this.makingMicros = 0
    this.takingMicros = 0
    this.feeMicros = 0
    this.firstTrade = firstTrade
    this.tradeCount = 0
  }
}

/** The best opposite level that the taker's limit reaches, or null. */
function bestReachable(o: OrderTable, taker: OrderRow): Level | null {
  const book = o.market[taker]!.book
  const limitYesPips = o.yesPips(taker)
  if (o.isBid(taker)) {
    const ask = book.bestAsk()
    return ask !== null && ask.pips <= limitYesPips ? ask : null
  }
  const bid = book.bestBid()
  return bid !== null && bid.pips >= limitYesPips ? bid : null
}

/** The taker's native price at a Yes-space level. */
function takerPipsAt(o: OrderTable, taker: OrderRow, yesPips: number): number {
  return o.isNo[taker] === 1 ? PIPS_PER_UNIT - yesPips : yesPips
}

/** Lots the taker can still take at a level's price (budget BUYs are bounded by the budget). */
function takeableLots(o: OrderTable, taker: OrderRow, yesPips: number): number {
  if (!o.isBudget(taker)) return o.lots[taker]!
  return Math.floor(o.budgetMicros[taker]! / takerPipsAt(o, taker, yesPips))
}

/** Walks the book, filling the taker until it is done or nothing reachable is left. */
export function walk(engine: Engine, taker: OrderRow, fills: Fills): void {
  const o = engine.orderTable
  const takerAccount = o.account[taker]!
  for (;;) {
    const level = bestReachable(o, taker)
    if (level === null) return
    const takeable = takeableLots(o, taker, level.pips)
    if (takeable === 0) return
    const maker = level.head
    if (o.account[maker] === takerAccount) {
      const mode = o.selfTradePrevention[taker]!
      if (mode !== STP_CANCEL_TAKER) cancelResting(engine, maker, 'self-trade')
      if (mode === STP_CANCEL_MAKER) continue
      // cancel-taker, cancel-both: the walk ends here and the rest of the taker is cancelled (placement.ts).
      o.stopped[taker] = STOP_SELF_TRADE
      return
    }
    fill(engine, taker, maker, Math.min(o.lots[maker]!, takeable), fills)
    // Its order group triggered on this fill: no further fill (placement.ts cancels the rest).
    if (o.stopped[taker] !== STOP_NONE) return
  }
}

/**
 * Whether the walk would fill the taker entirely (FOK), without changing anything: own orders are
 * skipped or stop it as its self-trade prevention mode says, and the makers of an order group that
 * its fills would trigger are skipped, as the walk would find them pulled.
 */
export function wouldFillEntirely(o: OrderTable, taker: OrderRow, timeMs: number): boolean {
  // The walk's fills count in the groups' windows; a group they bring to a limit triggers and pulls
  // its resting orders, which the walk then never meets (order-group.ts).
  const takerGroup = o.group[taker]!
  const groups = new DryRunGroups(timeMs)
  let lots = o.lots[taker]!
  let budgetMicros = o.budgetMicros[taker]!
  const isBudget = o.isBudget(taker)
  const isBid = o.isBid(taker)
  const limitYesPips = o.yesPips(taker)
  const account = o.account[taker]
  const stopsAtOwn = o.selfTradePrevention[taker] !== STP_CANCEL_MAKER
  const book = o.market[taker]!.book
  // The opposite side best first, without a generator (one was an allocation per order).
  let left = book.levelCount(!isBid)
  for (let level = book.best(!isBid); level !== null; level = --left > 0 ? book.after(level) : null) {
    if (isBid ? level.pips > limitYesPips : level.pips < limitYesPips) break
    const pips = takerPipsAt(o, taker, level.pips)
    for (let maker = level.head; maker !== NO_ROW; maker = o.next[maker]!) {
      const makerGroup = o.group[maker]!
      if (groups.isPulled(makerGroup)) continue
      if (o.account[maker] === account) {
        // The walk would cancel it and go on, or stop here, unfilled, unless what is left of a budget
        // buys no lot at this level's price: the walk stops before this maker then, and the budget
        // is below the limit's price too (a BUY's level is at most its limit), so it is filled.
        if (stopsAtOwn) return isBudget && budgetMicros < pips
        continue
      }
      let lotsTaken: number
      if (isBudget) {
        lotsTaken = Math.min(o.lots[maker]!, Math.floor(budgetMicros / pips))
        if (lotsTaken === 0) return budgetMicros < o.pips[taker]!
        budgetMicros -= lotsTaken * pips
      } else {
        lotsTaken = Math.min(o.lots[maker]!, lots)
        lots -= lotsTaken
        if (lots === 0) return true
      }
      if (makerGroup !== null) groups.count(makerGroup, lotsTaken, o.pips[maker]! * lotsTaken)
      if (takerGroup !== null && takerGroup !== makerGroup) groups.count(takerGroup, lotsTaken, pips * lotsTaken)
    }
  }
  return isBudget ? budgetMicros < o.pips[taker]! : lots === 0
}

/** Whether any reachable maker is not the taker's own (FAK must fill something). */
export function hasMatch(o: OrderTable, taker: OrderRow): boolean {
  const isBid = o.isBid(taker)
  const limitYesPips = o.yesPips(taker)
  const account = o.account[taker]
  const book = o.market[taker]!.book
  let left = book.levelCount(!isBid)
  for (let level = book.best(!isBid); level !== null; level = --left > 0 ? book.after(level) : null) {
    if (isBid ? level.pips > limitYesPips : level.pips < limitYesPips) return false
    for (let maker = level.head; maker !== NO_ROW; maker = o.next[maker]!) {
      if (o.account[maker] !== account) return true
      // Its own order first: the walk would stop there, with nothing filled.
      if (o.selfTradePrevention[taker] !== STP_CANCEL_MAKER) return false
    }
  }
  return false
}

/** One fill of `lots` between the taker and the maker at the head of the best level. */
function fill(engine: Engine, taker: OrderRow, maker: OrderRow, lots: number, fills: Fills): void {
  const o = engine.orderTable
  assert(lots > 0 && lots <= o.lots[maker]!, 'fill within the maker')
  // Read now: a maker filled whole frees its row below.
  const makerGroup = o.group[maker]!
  const takerGroup = o.group[taker]!
  const market = o.market[taker]!
  const yesPips = o.level[maker]!.pips
  const takerPips = takerPipsAt(o, taker, yesPips)
  const makerPips = o.pips[maker]!
  const sameToken = o.isNo[taker] === o.isNo[maker]
  const takerBuys = o.isBuy[taker] === 1
  assert(sameToken ? takerPips === makerPips : takerPips + makerPips === PIPS_PER_UNIT,
    'maker and taker prices agree')
  const fee = feeOf(market.feeRateBps, yesPips, lots)
  const matchType: MatchType = sameToken ? 'normal' : takerBuys ? 'mint' : 'merge'
  settle(engine, taker, maker, lots, takerPips, fee, matchType)
  engine.feesMicros += fee

  market.book.fill(maker, lots)
  o.matchedLots[maker] += lots
  o.matchedLots[taker] += lots
  if (o.isBudget(taker)) o.budgetMicros[taker] -= takerPips * lots
  else o.lots[taker] -= lots

  const sharesMicros = lots * MICROS_PER_LOT
  const usdcMicros = takerPips * lots
  fills.makingMicros += takerBuys ? usdcMicros : sharesMicros
  fills.takingMicros += takerBuys ? sharesMicros : usdcMicros
  fills.feeMicros += fee
  const k = engine.tradeCount++
  fills.tradeCount++
  if (engine.recording) engine.log.trade(engine.seq, k, taker, maker, matchType, lots, takerPips, fee)
  if (o.lots[maker] === 0) endFilled(engine, maker)
  else emitOrderUpdate(engine, maker, 'LIVE', null)
  if (makerGroup !== null || takerGroup !== null) countGroupFills(engine, taker, makerGroup, takerGroup, lots,
    makerPips, takerPips)
}

/**
 * A fill of group orders counts in their groups' windows (order-group.ts); a group that reaches a
 * limit triggers in this same step. A taker whose group triggered stops, unless it is FOK (its dry
 * run promised it whole): its rest is then cancelled.
 */
function countGroupFills(engine: Engine, taker: OrderRow, makerGroup: OrderGroup | null, takerGroup: OrderGroup | null,
  lots: number, makerPips: number, takerPips: number): void {
  if (makerGroup !== null && makerGroup.addFill(engine.timeMs, lots, makerPips * lots)) triggerGroup(engine, makerGroup)
  if (takerGroup === null) return
  if (takerGroup !== makerGroup && takerGroup.addFill(engine.timeMs, lots, takerPips * lots)) {
    triggerGroup(engine, takerGroup)
  }
  const o = engine.orderTable
  if (takerGroup.triggeredMs === engine.timeMs && takerGroup.isTriggered(engine.timeMs) &&
    o.timeInForce[taker] !== TIF_FOK) o.stopped[taker] = STOP_ORDER_GROUP
}

/** Moves USDC, shares and collateral for one fill (the match table of docs/engine.md). */
function settle(
  engine: Engine,
  taker: OrderRow,
  maker: OrderRow,
  lots: number,
  takerPips: number,
  fee: number,
  matchType: MatchType,
): void {
  const o = engine.orderTable
  const sharesMicros = lots * MICROS_PER_LOT
  const takerUsdc = takerPips * lots
  const makerUsdc = o.pips[maker]! * lots
  const takerAccount = o.account[taker]!
  const makerAccount = o.account[maker]!
  const takerShares = o.shares[taker]!
  const makerShares = o.shares[maker]!
  touchParties(engine, takerAccount, makerAccount, takerShares, makerShares)
  // What it pays, its holds and the placement's checks covered; what it gets pays back first
  // what it owes, if a failed trade's reversal left it owing (account.ts).
  const takerBuys = o.isBuy[taker] === 1
  if (takerBuys) {
    takerAccount.usdcMicros -= takerUsdc + fee
    takerShares.credit(sharesMicros)
  } else {
    takerAccount.creditUsdc(takerUsdc - fee)
    takerShares.balanceMicros -= sharesMicros
  }
  if (o.isBuy[maker] === 1) {
    makerAccount.usdcMicros -= makerUsdc
    makerAccount.usdcHeldMicros -= makerUsdc
    makerShares.credit(sharesMicros)
  } else {
    makerAccount.creditUsdc(makerUsdc)
    makerShares.heldMicros -= sharesMicros
    makerShares.balanceMicros -= sharesMicros
  }
  const market = o.market[taker]!
  if (matchType === 'mint') {
    market.collateralMicros += sharesMicros
    market.mintedMicros += sharesMicros
  } else if (matchType === 'merge') {
    market.collateralMicros -= sharesMicros
    market.mergedMicros += sharesMicros
  }
}

function touchParties(
  engine: Engine,
  takerAccount: Account,
  makerAccount: Account,
  takerShares: ShareBalance,
  makerShares: ShareBalance,
): void {
  const touches = engine.touches
  touches.account(takerAccount)
  touches.account(makerAccount)
  touches.shareBalance(takerShares)
  touches.shareBalance(makerShares)
}
