/**
 * The end of every command: one `balance` event per balance that changed, and one `bookLevel`
 * event per price level of a token's own book that changed, each sorted so that the stream is
 * canonical (docs/engine.md, "Events").
 */
import type { Engine } from './engine.js'
import type { Balance, BookLevel } from './event.js'
import { MICROS_PER_LOT, MICROS_PER_PIP, PIPS_PER_UNIT } from './limits.js'

export function emitAggregates(engine: Engine): void {
  const events = engine.events
  const balancesStart = events.length
  pushChangedBalances(engine)
  sortTail(events, balancesStart, compareBalances)
  const levelsStart = events.length
  pushChangedLevels(engine)
  sortTail(events, levelsStart, compareLevels)
}

/**
 * Sorts events[start..] in place by insertion sort: a command touches a handful of balances and
 * levels, where Array.prototype.sort's set-up costs more than the sorting.
 */
function sortTail<T>(events: unknown[], start: number, compare: (a: T, b: T) => number): void {
  for (let i = start + 1; i < events.length; i++) {
    const item = events[i] as T
    let j = i - 1
    while (j >= start && compare(events[j] as T, item) > 0) {
      events[j + 1] = events[j]
      j--
    }
    events[j + 1] = item
  }
}

function pushChangedBalances(engine: Engine): void {
  const touches = engine.touches
  const events = engine.events
  for (let i = 0; i < touches.accountCount; i++) {
    const account = touches.accounts[i]!
    const unchanged = account.usdcMicros === account.usdcBeforeMicros
      && account.usdcHeldMicros === account.usdcHeldBeforeMicros
    if (unchanged) continue
    events.push({ type: 'balance', address: account.address, asset: 'USDC',
      balanceMicros: account.usdcMicros, heldMicros: account.usdcHeldMicros })
  }
  for (let i = 0; i < touches.shareCount; i++) {
    const shares = touches.shares[i]!
    if (shares.balanceMicros === shares.balanceBeforeMicros && shares.heldMicros === shares.heldBeforeMicros) continue
    events.push({ type: 'balance', address: shares.account.address, asset: shares.tokenId,
      balanceMicros: shares.balanceMicros, heldMicros: shares.heldMicros })
  }
}

function pushChangedLevels(engine: Engine): void {
  const touches = engine.touches
  const events = engine.events
  for (let i = 0; i < touches.levelCount; i++) {
    const level = touches.levels[i]!
    const market = level.market
    const yesLots = level.lots - level.noLots
    if (yesLots !== level.yesLotsBefore) {
      events.push({ type: 'bookLevel', marketId: market.marketId, tokenId: market.yesTokenId,
        side: level.isBid ? 'BUY' : 'SELL', priceMicros: level.pips * MICROS_PER_PIP,
        sizeMicros: yesLots * MICROS_PER_LOT })
    }
    if (level.noLots !== level.noLotsBefore) {
      // A Yes-space bid of the No token is a SELL No at the complementary price.
      events.push({ type: 'bookLevel', marketId: market.marketId, tokenId: market.noTokenId,
        side: level.isBid ? 'SELL' : 'BUY', priceMicros: (PIPS_PER_UNIT - level.pips) * MICROS_PER_PIP,
        sizeMicros: level.noLots * MICROS_PER_LOT })
    }
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function compareBalances(a: Balance, b: Balance): number {
  const byAddress = compareStrings(a.address, b.address)
  if (byAddress !== 0) return byAddress
  if (a.asset === 'USDC' || b.asset === 'USDC') return a.asset === 'USDC' ? (b.asset === 'USDC' ? 0 : -1) : 1
  return compareStrings(a.asset, b.asset)
}

function compareLevels(a: BookLevel, b: BookLevel): number {
  const byToken = compareStrings(a.tokenId, b.tokenId)
  if (byToken !== 0) return byToken
  if (a.side !== b.side) return a.side === 'BUY' ? -1 : 1
  return a.priceMicros - b.priceMicros
}
