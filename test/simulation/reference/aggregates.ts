/**
 * Aggregated events: full copies of the balances and the books before a command, diffed against
 * after it.
 */
import type { BookLevel, Balance } from '../../../src/engine/event.js'
import { MICROS_PER_PIP } from '../../../src/engine/limits.js'
import { holds } from './accounts.js'
import {
  type BalanceRow,
  LOT,
  type LevelRow,
  ReferenceState,
  Table,
  USDC,
  compareAssets,
  compareStrings,
  num,
  unionKeys,
} from './state.js'

/** Every (address, asset) with its balance and hold. */
export function balanceRows(r: ReferenceState): Table<string, BalanceRow> {
  const held = holds(r)
  const rows = new Table<string, BalanceRow>()
  const put = (address: string, asset: string, balance: bigint): void => {
    rows.set(address, asset, { address, asset, balance, held: held.get(address, asset) ?? 0n })
  }
  for (const [address, a] of r.accounts) {
    put(address, USDC, a.usdc)
    for (const [token, balance] of a.shares) put(address, token, balance)
  }
  // Holds of an asset the account has no balance entry for (cannot happen, but be complete).
  for (const [address, asset] of held.keys()) {
    if (rows.get(address, asset) === undefined) put(address, asset, 0n)
  }
  return rows
}

export function balanceChanges(before: Table<string, BalanceRow>, after: Table<string, BalanceRow>): Balance[] {
  const changed: BalanceRow[] = []
  for (const [address, asset] of unionKeys(before, after)) {
    const b = before.get(address, asset)
    const row = after.get(address, asset) ?? { address, asset, balance: 0n, held: 0n }
    if ((b?.balance ?? 0n) !== row.balance || (b?.held ?? 0n) !== row.held) changed.push(row)
  }
  changed.sort((x, y) => compareStrings(x.address, y.address) || compareAssets(x.asset, y.asset))
  return changed.map((r) => ({
    type: 'balance',
    address: r.address,
    asset: r.asset,
    balanceMicros: num(r.balance),
    heldMicros: num(r.held),
  }))
}

/** Every level of every native book: (token, side and native price) -> size. */
export function levelRows(r: ReferenceState): Table<number, LevelRow> {
  const rows = new Table<number, LevelRow>()
  for (const o of r.live) {
    // One number per (side, price): BUY levels positive, SELL levels negative.
    const level = o.input.side === 'BUY' ? o.pips : -o.pips
    const size = (rows.get(o.input.tokenId, level)?.size ?? 0n) + BigInt(o.lots) * LOT
    rows.set(o.input.tokenId, level, {
      marketId: o.marketId,
      tokenId: o.input.tokenId,
      side: o.input.side,
      pips: o.pips,
      size,
    })
  }
  return rows
}

export function levelChanges(before: Table<number, LevelRow>, after: Table<number, LevelRow>): BookLevel[] {
  const changed: LevelRow[] = []
  for (const [tokenId, level] of unionKeys(before, after)) {
    const b = before.get(tokenId, level)
    const a = after.get(tokenId, level)
    const size = a?.size ?? 0n
    const row = a ?? b
    if ((b?.size ?? 0n) !== size && row !== undefined) changed.push({ ...row, size })
  }
  changed.sort(
    (x, y) =>
      compareStrings(x.tokenId, y.tokenId) ||
      (x.side === y.side ? 0 : x.side === 'BUY' ? -1 : 1) ||
      x.pips - y.pips,
  )
  return changed.map((r) => ({
    type: 'bookLevel',
    marketId: r.marketId,
    tokenId: r.tokenId,
    side: r.side,
    priceMicros: r.pips * MICROS_PER_PIP,
    sizeMicros: num(r.size),
  }))
}
