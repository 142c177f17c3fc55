/**
 * The engine's state as a compact, canonical binary snapshot, and back. Canonical means that two
 * equal states encode to the same bytes whatever their history: accounts in order of first
 * appearance, live orders in acceptance order, the retained ended order ids in the order they
 * ended (which is state: it decides which is forgotten next), zero balances left out, and no
 * derived indexes. The state hash is SHA-256 over these bytes, so it names a state exactly.
 *
 * Layout: magic "PDXSNAP" + version byte, then unsigned LEB128 integers, length-prefixed UTF-8
 * strings and one-byte booleans, in the order written below. Loading rebuilds every index and
 * then checks all invariants (a snapshot that loads is a sound state).
 *
 * Versions: 7 (written only for a state with a debt: account.ts, trade-reversal.ts) writes each
 * market's collateral with its sign (a bool, true when below 0, then its magnitude), each
 * account's USDC owed after its relay nonce, and each share balance's owed after its hold (a
 * balance is written when any of the three is not 0).
 * 6 (written only for a state that follows a real chain) added the chain block last.
 * 5 (written only for a state that has order groups; one without is written as
 * version 4, byte for byte, so its state hash did not change) added the groups after the accounts
 * and each live order's group id after its client order id. 2 added each account's relay nonce
 * (after its gas); 3 each live order's client order id (after its signer); 4 bounded the ended
 * orders: the live orders, then the ended ids in end order, where versions 1 to 3 wrote every
 * order ever accepted, live or ended, in acceptance order.
 * Older snapshots still load: a version-1 snapshot's accounts have relay nonce 0, the live orders
 * of one before version 3 have no client order id (''), and the ended ids of one before version 4
 * queue in acceptance order (their end order was not written), the oldest forgotten beyond the
 * loading engine's bound. Snapshots
 * are always written in the current version, so the state hash is the same whichever version was
 * loaded. The index of live orders by client order id is derived: loading rests each live order
 * again, which indexes it.
 */
import { sha256Hex } from '../stdx/hash.js'
import type { Account, ShareBalance } from './account.js'
import { assert } from '../stdx/assert.js'
import type { MarketStatus, Outcome, TimeInForce } from './command.js'
import { Engine, type EngineOptions } from './engine.js'
import { checkInvariants } from './invariants.js'
import { rest } from './lifecycle.js'
import { Market } from './market.js'
import { addressNonceKey } from './api-key.js'
import { timeInForceCode, TIME_IN_FORCE_CODES } from './event-log.js'
import type { OrderRow, OrderTable } from './order-table.js'
import { ByteReader, ByteWriter } from '../stdx/bytes.js'
import { groupKeyOf, OrderGroup } from './order-group.js'

const MAGIC = 'PDXSNAP'
/** Written for a state without order groups: exactly version 4's bytes, so its state hash is unchanged. */
const VERSION_WITHOUT_GROUPS = 4
/** Version 5 adds the order groups (after the accounts) and each live order's group id (after its client order id). */
const VERSION_WITH_GROUPS = 5
/** Version 6 adds, last, the chain block the ledger follows: written only once it follows a chain. */
const VERSION_ON_CHAIN = 6
/** Version 7 adds debts and a collateral below 0 (see above): written only for a state with a debt. */
const VERSION = 7
/** Versions that still load (see above). */
const VERSIONS_READ: readonly number[] = [1, 2, 3, 4, 5, 6, 7]
// Encoding tables (a value is written as its index), not the rulebook's lists: never reorder them.
const STATUSES: readonly MarketStatus[] = ['Upcoming', 'Active', 'Paused', 'Closed', 'Resolving', 'Resolved']
const TIME_IN_FORCE: readonly TimeInForce[] = ['GTC', 'GTD', 'FOK', 'FAK']
const OUTCOMES: readonly (Outcome | null)[] = [null, 'Yes', 'No']

export function encodeSnapshot(engine: Engine): Uint8Array {
  const w = new ByteWriter()
  w.string(MAGIC)
  const version = hasDebts(engine) ? VERSION : engine.chainBlock > 0 ? VERSION_ON_CHAIN
    : engine.orderGroups.size > 0 ? VERSION_WITH_GROUPS : VERSION_WITHOUT_GROUPS
  w.uint(version)
  for (const n of [engine.seq, engine.timeMs, engine.orderNumber, engine.creditedMicros, engine.feesMicros]) w.uint(n)
  w.uint(engine.markets.length)
  for (const market of engine.markets) writeMarket(w, market, version)
  w.uint(engine.accounts.length)
  for (const account of engine.accounts) writeAccount(w, account, version)
  if (version >= 5) writeGroups(w, engine)
  // Live orders in acceptance order: a restored engine rests them again in the same time priority.
  const rows = engine.orders.liveRows()
  w.uint(rows.length)
  for (const row of rows) {
    w.string(engine.orderTable.orderId[row]!)
    writeOrder(w, engine.orderTable, row, version)
  }
  // Ended ids oldest first: a restored engine forgets them in the same order as the live one.
  w.uint(engine.orders.ended)
  engine.orders.forEachEnded((orderId, ended) => {
    w.string(orderId)
    w.uint(ended)
  })
  w.uint(engine.apiKeys.size)
  for (const key of engine.apiKeys.values()) {
    for (const s of [key.apiKey, key.address, key.secret, key.passphrase]) w.string(s)
    w.uint(key.nonce)
    w.uint(key.createdMs)
  }
  if (version >= 6) w.uint(engine.chainBlock)
  return w.finish()
}

/** SHA-256 of the canonical snapshot, in hex. */
export function stateHashOf(engine: Engine): string {
  return sha256Hex(encodeSnapshot(engine))
}

/** `options` as for `new Engine`: the loaded engine keeps its own bound of ended ids. */
export function decodeSnapshot(bytes: Uint8Array, options: EngineOptions = {}): Engine {
  const r = new ByteReader(bytes)
  assert(r.string() === MAGIC, 'snapshot magic')
  const version = r.uint()
  assert(VERSIONS_READ.includes(version), 'snapshot version')
  const engine = new Engine(options)
  engine.seq = r.uint()
  engine.timeMs = r.uint()
  engine.orderNumber = r.uint()
  engine.creditedMicros = r.uint()
  engine.feesMicros = r.uint()
  for (let i = r.uint(); i > 0; i--) engine.addMarket(readMarket(r, engine, version))
  const storedHolds: StoredHold[] = []
  for (let i = r.uint(); i > 0; i--) readAccount(r, engine, storedHolds, version)
  if (version >= 5) readGroups(r, engine)
  if (version >= 4) readOrders(r, engine, version)
  else readOrdersBeforeV4(r, engine, version)
  // Resting the orders again rebuilt every hold; it must equal what was stored (pair assertion).
  for (const hold of storedHolds) {
    const actual = hold.shares === null ? hold.account.usdcHeldMicros : hold.shares.heldMicros
    assert(actual === hold.heldMicros, () => `snapshot hold of ${hold.account.address} matches its orders`)
  }
  for (let i = r.uint(); i > 0; i--) {
    const [apiKey, address, secret, passphrase] = [r.string(), r.string(), r.string(), r.string()]
    const key = { apiKey, address, secret, passphrase, nonce: r.uint(), createdMs: r.uint() }
    engine.apiKeys.set(apiKey, key)
    engine.apiKeysByAddressNonce.set(addressNonceKey(address, key.nonce), apiKey)
  }
  if (version >= 6) engine.chainBlock = r.uint()
  assert(r.isAtEnd(), 'snapshot has no trailing bytes')
  checkInvariants(engine)
  return engine
}

function readOrders(r: ByteReader, engine: Engine, version: number): void {
  for (let i = r.uint(); i > 0; i--) readOrder(r, engine, r.string(), version)
  for (let i = r.uint(); i > 0; i--) engine.orders.addEnded(r.string(), r.uint())
}

/** Every order ever accepted, in acceptance order: tag 0 and the order if live, else ended + 1. */
function readOrdersBeforeV4(r: ByteReader, engine: Engine, version: number): void {
  for (let i = r.uint(); i > 0; i--) {
    const orderId = r.string()
    const tag = r.uint()
    if (tag === 0) readOrder(r, engine, orderId, version)
    else engine.orders.addEnded(orderId, tag - 1)
  }
}

/** Order groups by key (canonical whatever their history), each with its window's non-empty buckets. */
function writeGroups(w: ByteWriter, engine: Engine): void {
  const keys = [...engine.orderGroups.keys()].sort()
  w.uint(keys.length)
  for (const key of keys) {
    const g = engine.orderGroups.get(key)!
    w.string(g.owner)
    w.string(g.groupId)
    const limits = [g.contractsLimitMicros, g.notionalLimitMicros, g.windowMs, g.freezeMs, g.triggeredMs + 1]
    for (const n of limits) w.uint(n)
    const buckets = g.buckets()
    w.uint(buckets.length)
    for (const [bucket, lots, notional] of buckets) for (const n of [bucket, lots, notional]) w.uint(n)
  }
}

function readGroups(r: ByteReader, engine: Engine): void {
  for (let i = r.uint(); i > 0; i--) {
    const [owner, groupId] = [r.string(), r.string()]
    const [contracts, notional, windowMs, freezeMs, triggered] = [r.uint(), r.uint(), r.uint(), r.uint(), r.uint()]
    const group = new OrderGroup(owner, groupId, contracts, notional, windowMs, freezeMs)
    group.triggeredMs = triggered - 1
    for (let j = r.uint(); j > 0; j--) group.restoreBucket(r.uint(), r.uint(), r.uint())
    engine.orderGroups.set(groupKeyOf(owner, groupId), group)
  }
}

/** Whether anything is owed or a collateral is below 0 (only on a real chain: invariants.ts). */
function hasDebts(engine: Engine): boolean {
  if (engine.markets.some((market) => market.collateralMicros < 0)) return true
  for (const account of engine.accounts) {
    if (account.usdcOwedMicros !== 0) return true
    for (const shares of account.shares.values()) if (shares.owedMicros !== 0) return true
  }
  return false
}

function writeMarket(w: ByteWriter, m: Market, version: number): void {
  for (const s of [m.marketId, m.conditionId, m.question, m.slug, m.description, m.yesTokenId, m.noTokenId]) w.string(s)
  for (const n of [m.tickPips, m.minOrderSizeMicros, m.feeRateBps]) w.uint(n)
  w.bool(m.negRisk)
  w.uint(m.endDateMs)
  w.uint(STATUSES.indexOf(m.status))
  w.uint(m.createdMs)
  w.uint(OUTCOMES.indexOf(m.winningOutcome))
  w.uint(m.resolvedMs)
  assert(version >= 7 || m.collateralMicros >= 0, 'a collateral below 0 is written with its sign')
  if (version >= 7) w.bool(m.collateralMicros < 0)
  for (const n of [Math.abs(m.collateralMicros), m.mintedMicros, m.mergedMicros, m.redeemedYesMicros,
    m.redeemedNoMicros]) w.uint(n)
}

function readMarket(r: ByteReader, engine: Engine, version: number): Market {
  const [marketId, conditionId, question, slug, description, yesTokenId, noTokenId] =
    [r.string(), r.string(), r.string(), r.string(), r.string(), r.string(), r.string()]
  const [tickPips, minOrderSizeMicros, feeRateBps] = [r.uint(), r.uint(), r.uint()]
  const negRisk = r.bool()
  const endDateMs = r.uint()
  const status = STATUSES[r.uint()]!
  const market = new Market(engine.markets.length, marketId, conditionId, question, slug, description,
    yesTokenId, noTokenId, tickPips, minOrderSizeMicros, feeRateBps, negRisk, endDateMs, status, r.uint(),
    engine.touches, engine.orderTable)
  market.winningOutcome = OUTCOMES[r.uint()]!
  market.resolvedMs = r.uint()
  const negative = version >= 7 && r.bool()
  market.collateralMicros = negative ? -r.uint() : r.uint()
  market.mintedMicros = r.uint()
  market.mergedMicros = r.uint()
  market.redeemedYesMicros = r.uint()
  market.redeemedNoMicros = r.uint()
  return market
}

function writeAccount(w: ByteWriter, a: Account, version: number): void {
  w.string(a.address)
  for (const n of [a.usdcMicros, a.usdcHeldMicros, a.usdcAllowanceMicros]) w.uint(n)
  w.bool(a.sharesApproved)
  w.uint(a.gasMicros)
  w.uint(a.relayNonce)
  if (version >= 7) w.uint(a.usdcOwedMicros)
  const shares = [...a.shares.values()].filter((s) => s.balanceMicros !== 0 || s.heldMicros !== 0 || s.owedMicros !== 0)
  shares.sort((x, y) => x.tokenIndex - y.tokenIndex)
  w.uint(shares.length)
  for (const s of shares) {
    w.uint(s.tokenIndex)
    w.uint(s.balanceMicros)
    w.uint(s.heldMicros)
    if (version >= 7) w.uint(s.owedMicros)
  }
}

interface StoredHold {
  readonly account: Account
  /** Null for USDC. */
  readonly shares: ShareBalance | null
  readonly heldMicros: number
}

function readAccount(r: ByteReader, engine: Engine, storedHolds: StoredHold[], version: number): void {
  const account = engine.accountOf(r.string())
  account.usdcMicros = r.uint()
  storedHolds.push({ account, shares: null, heldMicros: r.uint() })
  account.usdcAllowanceMicros = r.uint()
  account.sharesApproved = r.bool()
  account.gasMicros = r.uint()
  if (version >= 2) account.relayNonce = r.uint()
  if (version >= 7) account.usdcOwedMicros = r.uint()
  for (let i = r.uint(); i > 0; i--) {
    const tokenIndex = r.uint()
    const market = engine.markets[Math.floor(tokenIndex / 2)]!
    const shares = account.sharesOf(tokenIndex, market.tokenIdOf(tokenIndex % 2 === 1))
    shares.balanceMicros = r.uint()
    storedHolds.push({ account, shares, heldMicros: r.uint() })
    if (version >= 7) shares.owedMicros = r.uint()
  }
}

function writeOrder(w: ByteWriter, o: OrderTable, row: OrderRow, version: number): void {
  for (const s of [o.owner[row]!, o.signer[row]!, o.clientOrderId[row]!]) w.string(s)
  const group = o.group[row]!
  assert(version >= 5 || group === null, 'an order in a group is written with the groups')
  if (version >= 5) w.string(group === null ? '' : group.groupId)
  for (const n of [o.orderNumber[row]!, o.account[row]!.index, o.market[row]!.index]) w.uint(n)
  w.bool(o.isNo[row] === 1)
  w.bool(o.isBuy[row] === 1)
  w.uint(o.pips[row]!)
  w.uint(TIME_IN_FORCE.indexOf(TIME_IN_FORCE_CODES[o.timeInForce[row]!]!))
  w.bool(o.postOnly[row] === 1)
  for (const n of [o.expirationSec[row]!, o.makerAmountMicros[row]!, o.takerAmountMicros[row]!, o.lots[row]!,
    o.matchedLots[row]!]) w.uint(n)
}

function readOrder(r: ByteReader, engine: Engine, orderId: string, version: number): void {
  const [owner, signer] = [r.string(), r.string()]
  const clientOrderId = version >= 3 ? r.string() : ''
  const groupId = version >= 5 ? r.string() : ''
  const [orderNumber, accountIndex, marketIndex] = [r.uint(), r.uint(), r.uint()]
  const account = engine.accounts[accountIndex]!
  const market = engine.markets[marketIndex]!
  const isNo = r.bool()
  const o = engine.orderTable
  const row = o.allocate()
  o.orderId[row] = orderId
  o.owner[row] = owner
  o.signer[row] = signer
  o.clientOrderId[row] = clientOrderId
  if (groupId !== '') {
    const group = engine.orderGroups.get(groupKeyOf(owner, groupId))
    assert(group !== undefined, 'a snapshot order\'s group is in the snapshot')
    o.group[row] = group
  }
  o.orderNumber[row] = orderNumber
  o.account[row] = account
  o.market[row] = market
  o.isNo[row] = isNo ? 1 : 0
  o.isBuy[row] = r.bool() ? 1 : 0
  o.pips[row] = r.uint()
  const timeInForce = TIME_IN_FORCE[r.uint()]
  assert(timeInForce !== undefined, 'snapshot time in force')
  o.timeInForce[row] = timeInForceCode(timeInForce)
  o.postOnly[row] = r.bool() ? 1 : 0
  o.expirationSec[row] = r.uint()
  o.makerAmountMicros[row] = r.uint()
  o.takerAmountMicros[row] = r.uint()
  o.shares[row] = account.sharesOf(market.index * 2 + (isNo ? 1 : 0), market.tokenIdOf(isNo))
  o.lots[row] = r.uint()
  o.matchedLots[row] = r.uint()
  engine.orders.setLive(row)
  rest(engine, row)
}
