/**
 * The end of every command: one `balance` event per balance that changed (unless the engine
 * writes none: `Engine.balanceEvents`), and one `bookLevel` event per price level of a token's own
 * book that changed, each in a canonical order (docs/engine.md, "Events"): balances by address,
 * USDC first, then by token id; levels by token id, BUY first, then by price. What the command
 * touched is sorted in place (a handful of items: insertion sort, whose set-up costs nothing)
 * and the changed ones are written to the event log in that order.
 */
import { isAddressAfter, type Account, type ShareBalance } from './account.js'
import type { Engine } from './engine.js'
import type { Level } from './book.js'
import { PIPS_PER_UNIT } from './limits.js'
import type { Touches } from './touches.js'

export function emitAggregates(engine: Engine): void {
  writeChangedBalances(engine)
  writeChangedLevels(engine)
}

function writeChangedBalances(engine: Engine): void {
  const touches = engine.touches
  if (!engine.balanceEvents) {
    if (anyBalanceChanged(touches)) engine.log.changeUnwritten()
    return
  }
  const accounts = touches.accounts
  const shares = touches.shares
  // Most commands touch one balance or none: no sort to call.
  if (touches.accountCount > 1) sortAccounts(accounts, touches.accountCount)
  if (touches.shareCount > 1) sortShares(shares, touches.shareCount)
  let a = 0
  let s = 0
  while (a < touches.accountCount || s < touches.shareCount) {
    // At the same address, USDC comes before the tokens.
    const usdcFirst = s === touches.shareCount
      || (a < touches.accountCount && !isAddressAfter(accounts[a]!, shares[s]!.account))
    if (usdcFirst) writeUsdc(engine, accounts[a++]!)
    else writeShares(engine, shares[s++]!)
  }
}

/** Whether a balance the command touched changed (what a `balance` event would have said). */
function anyBalanceChanged(touches: Touches): boolean {
  for (let a = 0; a < touches.accountCount; a++) if (usdcChanged(touches.accounts[a]!)) return true
  for (let s = 0; s < touches.shareCount; s++) if (sharesChanged(touches.shares[s]!)) return true
  return false
}

function usdcChanged(account: Account): boolean {
  return account.usdcMicros !== account.usdcBeforeMicros || account.usdcHeldMicros !== account.usdcHeldBeforeMicros
}

function sharesChanged(shares: ShareBalance): boolean {
  return shares.balanceMicros !== shares.balanceBeforeMicros || shares.heldMicros !== shares.heldBeforeMicros
}

function writeUsdc(engine: Engine, account: Account): void {
  if (usdcChanged(account)) engine.log.usdcBalance(account)
}

function writeShares(engine: Engine, shares: ShareBalance): void {
  if (sharesChanged(shares)) engine.log.shareBalance(shares, engine.markets[shares.tokenIndex >> 1]!)
}

/** Each touched level gives up to two items, its Yes and its No token's own level: 2 x level + (1 for No). */
function writeChangedLevels(engine: Engine): void {
  const touches = engine.touches
  const items = touches.levelItems
  let count = 0
  for (let i = 0; i < touches.levelCount; i++) {
    const level = touches.levels[i]!
    if (level.lots - level.noLots !== level.yesLotsBefore) items[count++] = i * 2
    if (level.noLots !== level.noLotsBefore) items[count++] = i * 2 + 1
  }
  sortLevelItems(touches, items, count)
  for (let i = 0; i < count; i++) {
    const item = items[i]!
    const level = touches.levels[item >> 1]!
    const isNo = (item & 1) === 1
    // A Yes-space bid of the No token is a SELL No at the complementary price.
    engine.log.bookLevel(level.market, isNo, level.isBid !== isNo, isNo ? PIPS_PER_UNIT - level.pips : level.pips,
      isNo ? level.noLots : level.lots - level.noLots)
  }
}

/** Whether item x sorts after item y: by token id, then BUY first, then native price. */
function isLevelItemAfter(touches: Touches, x: number, y: number): boolean {
  const a = touches.levels[x >> 1]!
  const b = touches.levels[y >> 1]!
  const aIsNo = (x & 1) === 1
  const bIsNo = (y & 1) === 1
  // One market's token is the same token: no string compare.
  if (a.market !== b.market || aIsNo !== bIsNo) {
    const aToken = a.market.tokenIdOf(aIsNo)
    const bToken = b.market.tokenIdOf(bIsNo)
    if (aToken !== bToken) return aToken > bToken
  }
  const aBuys = a.isBid !== aIsNo
  if (aBuys !== (b.isBid !== bIsNo)) return !aBuys
  return nativePips(a, aIsNo) > nativePips(b, bIsNo)
}

function nativePips(level: Level, isNo: boolean): number {
  return isNo ? PIPS_PER_UNIT - level.pips : level.pips
}

// Three insertion sorts of items[0..count), one per kind of item, rather than one generic sort
// with a comparator: each stays monomorphic, and no closure is made per command. Each asks only
// "after?", and compares addresses only between different accounts (an account has one
// address), by their numeric keys (account.ts): a comparator's three-way answer compared the
// strings twice.

function sortAccounts(items: Account[], count: number): void {
  for (let i = 1; i < count; i++) {
    const item = items[i]!
    let j = i - 1
    while (j >= 0 && isAddressAfter(items[j]!, item)) {
      items[j + 1] = items[j]!
      j--
    }
    items[j + 1] = item
  }
}

function sortShares(items: ShareBalance[], count: number): void {
  for (let i = 1; i < count; i++) {
    const item = items[i]!
    let j = i - 1
    while (j >= 0 && isSharesAfter(items[j]!, item)) {
      items[j + 1] = items[j]!
      j--
    }
    items[j + 1] = item
  }
}

function sortLevelItems(touches: Touches, items: number[], count: number): void {
  for (let i = 1; i < count; i++) {
    const item = items[i]!
    let j = i - 1
    while (j >= 0 && isLevelItemAfter(touches, items[j]!, item)) {
      items[j + 1] = items[j]!
      j--
    }
    items[j + 1] = item
  }
}

/** Whether balance a sorts after b: by address, then token id. */
function isSharesAfter(a: ShareBalance, b: ShareBalance): boolean {
  if (a.account !== b.account) return isAddressAfter(a.account, b.account)
  return a.tokenId > b.tokenId
}
