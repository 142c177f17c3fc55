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
import { tradeIdOf } from './ids.js'
import { emitOrderUpdate, cancelResting, endFilled } from './lifecycle.js'
import { MICROS_PER_LOT, PIPS_PER_UNIT } from './limits.js'
import type { Order } from './order.js'
import { feeOf } from './units.js'

/** The trade ids of a placement that filled nothing: one shared, frozen empty list. */
const NO_TRADE_IDS: readonly string[] = Object.freeze([])

/**
 * What a taker's fills added up to. The engine keeps one and resets it for each placement (a new
 * one per order was a share of the engine's allocation); its `tradeIds` is a new array only once
 * a fill happens, and the placement's result keeps it.
 */
export class Fills {
  /** USDC paid (BUY) or shares given (SELL). */
  makingMicros = 0
  /** Shares got (BUY) or USDC received before fees (SELL). */
  takingMicros = 0
  feeMicros = 0
  tradeIds: readonly string[] = NO_TRADE_IDS

  reset(): void {
    this.makingMicros = 0
    this.takingMicros = 0
    this.feeMicros = 0
    this.tradeIds = NO_TRADE_IDS
  }

  addTradeId(tradeId: string): void {
    if (this.tradeIds === NO_TRADE_IDS) this.tradeIds = [tradeId]
    else (this.tradeIds as string[]).push(tradeId)
  }
}

/** The best opposite level that the taker's limit reaches, or null. */
function bestReachable(taker: Order): Level | null {
  const book = taker.market.book
  const limitYesPips = taker.yesPips
  if (taker.isBid) {
    const ask = book.bestAsk()
    return ask !== null && ask.pips <= limitYesPips ? ask : null
  }
  const bid = book.bestBid()
  return bid !== null && bid.pips >= limitYesPips ? bid : null
}

/** The taker's native price at a Yes-space level. */
function takerPipsAt(taker: Order, yesPips: number): number {
  return taker.isNo ? PIPS_PER_UNIT - yesPips : yesPips
}

/** Lots the taker can still take at a level's price (budget BUYs are bounded by the budget). */
function takeableLots(taker: Order, yesPips: number): number {
  if (!(taker.isImmediate && taker.isBuy)) return taker.lots
  return Math.floor(taker.budgetMicros / takerPipsAt(taker, yesPips))
}

/** Walks the book, filling the taker until it is done or nothing reachable is left. */
export function walk(engine: Engine, taker: Order, fills: Fills): void {
  for (;;) {
    const level = bestReachable(taker)
    if (level === null) return
    const takeable = takeableLots(taker, level.pips)
    if (takeable === 0) return
    const maker = level.head!
    if (maker.account === taker.account) {
      cancelResting(engine, maker, 'self-trade')
      continue
    }
    fill(engine, taker, maker, Math.min(maker.lots, takeable), fills)
  }
}

/**
 * Whether the walk would fill the taker entirely (FOK), without changing anything. Own orders
 * are skipped, as the walk would cancel them.
 */
export function wouldFillEntirely(taker: Order): boolean {
  let lots = taker.lots
  let budgetMicros = taker.budgetMicros
  const isBudget = taker.isImmediate && taker.isBuy
  for (const level of taker.market.book.side(!taker.isBid)) {
    if (taker.isBid ? level.pips > taker.yesPips : level.pips < taker.yesPips) break
    const pips = takerPipsAt(taker, level.pips)
    for (let maker = level.head; maker !== null; maker = maker.next) {
      if (maker.account === taker.account) continue
      if (isBudget) {
        const lotsTaken = Math.min(maker.lots, Math.floor(budgetMicros / pips))
        if (lotsTaken === 0) return budgetMicros < taker.pips
        budgetMicros -= lotsTaken * pips
      } else {
        lots -= Math.min(maker.lots, lots)
        if (lots === 0) return true
      }
    }
  }
  return isBudget ? budgetMicros < taker.pips : lots === 0
}

/** Whether any reachable maker is not the taker's own (FAK must fill something). */
export function hasMatch(taker: Order): boolean {
  for (const level of taker.market.book.side(!taker.isBid)) {
    if (taker.isBid ? level.pips > taker.yesPips : level.pips < taker.yesPips) return false
    for (let maker = level.head; maker !== null; maker = maker.next) {
      if (maker.account !== taker.account) return true
    }
  }
  return false
}

/** One fill of `lots` between the taker and the maker at the head of the best level. */
function fill(engine: Engine, taker: Order, maker: Order, lots: number, fills: Fills): void {
  assert(lots > 0 && lots <= maker.lots, 'fill within the maker')
  const market = taker.market
  const yesPips = maker.level!.pips
  const takerPips = takerPipsAt(taker, yesPips)
  const makerPips = maker.pips
  assert(taker.isNo === maker.isNo ? takerPips === makerPips : takerPips + makerPips === PIPS_PER_UNIT,
    'maker and taker prices agree')
  const fee = feeOf(market.feeRateBps, yesPips, lots)
  const matchType: MatchType = taker.isNo === maker.isNo ? 'normal' : taker.isBuy ? 'mint' : 'merge'
  settle(engine, taker, maker, lots, takerPips, fee, matchType)
  engine.feesMicros += fee

  market.book.reduce(maker, lots)
  maker.matchedLots += lots
  taker.matchedLots += lots
  if (taker.isImmediate && taker.isBuy) taker.budgetMicros -= takerPips * lots
  else taker.lots -= lots

  const sharesMicros = lots * MICROS_PER_LOT
  const usdcMicros = takerPips * lots
  fills.makingMicros += taker.isBuy ? usdcMicros : sharesMicros
  fills.takingMicros += taker.isBuy ? sharesMicros : usdcMicros
  fills.feeMicros += fee
  const k = engine.tradeCount++
  fills.addTradeId(tradeIdOf(engine.seq, k))
  if (engine.recording) engine.log.trade(engine.seq, k, taker, maker, matchType, lots, takerPips, fee, engine.timeMs)
  if (maker.lots === 0) {
    endFilled(engine, maker)
    emitOrderUpdate(engine, maker, 'MATCHED', null)
  } else {
    emitOrderUpdate(engine, maker, 'LIVE', null)
  }
}

/** Moves USDC, shares and collateral for one fill (the match table of docs/engine.md). */
function settle(
  engine: Engine,
  taker: Order,
  maker: Order,
  lots: number,
  takerPips: number,
  fee: number,
  matchType: MatchType,
): void {
  const sharesMicros = lots * MICROS_PER_LOT
  const takerUsdc = takerPips * lots
  const makerUsdc = maker.pips * lots
  const takerAccount = taker.account
  const makerAccount = maker.account
  touchParties(engine, takerAccount, makerAccount, taker.shares, maker.shares)
  if (taker.isBuy) takerAccount.usdcMicros -= takerUsdc + fee
  else takerAccount.usdcMicros += takerUsdc - fee
  if (maker.isBuy) {
    makerAccount.usdcMicros -= makerUsdc
    makerAccount.usdcHeldMicros -= makerUsdc
  } else {
    makerAccount.usdcMicros += makerUsdc
    maker.shares.heldMicros -= sharesMicros
  }
  taker.shares.balanceMicros += taker.isBuy ? sharesMicros : -sharesMicros
  maker.shares.balanceMicros += maker.isBuy ? sharesMicros : -sharesMicros
  const market = taker.market
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
