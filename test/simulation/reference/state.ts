/**
 * The reference model's state (ReferenceEngine, ../reference.ts): its records, the small helpers on
 * money and ids, and the lookups every rule uses.
 */
import type { MarketInput, MarketStatus, OrderInput, Outcome, Side } from '../../../src/engine/command.js'
import type { EngineEvent, OrderStatus } from '../../../src/engine/event.js'
import type { CommandResult, ContextValue, Rejection } from '../../../src/engine/result.js'
import { Code, CODE_MESSAGES } from '../../../src/engine/codes.js'
import { MICROS_PER_LOT, PIPS_PER_UNIT } from '../../../src/engine/limits.js'

export interface MarketState {
  readonly input: MarketInput
  readonly createdMs: number
  status: MarketStatus
  tickPips: number
  feeRateBps: number
  winningOutcome: Outcome | null
  resolvedMs: number
  collateral: bigint
  minted: bigint
  merged: bigint
  redeemedYes: bigint
  redeemedNo: bigint
}

export interface TokenInfo {
  readonly marketId: string
  readonly outcome: Outcome
}

/** Every accepted order, forever (duplicates and cancels need the ended ones too). */
export interface OrderState {
  /** Acceptance order: 1, 2, ... */
  readonly number: number
  readonly input: OrderInput
  readonly marketId: string
  readonly outcome: Outcome
  /** Yes-space side: BUY Yes and SELL No are bids; SELL Yes and BUY No are asks. */
  readonly bid: boolean
  /** Native limit price in pips (a resting order's price). */
  readonly pips: number
  /** The same price in Yes-space. */
  readonly yesPips: number
  /** Lots resting on the book; 0 once the order has ended (and for immediate orders). */
  lots: number
  matchedLots: number
  status: OrderStatus
  /** The order group it joined at placement (orderGroupId), or null. */
  readonly group: GroupState | null
}

/**
 * An order group of an API key (docs/engine.md, "Order groups"). Its resting orders are not
 * listed here: they are the open orders whose `group` is this record (a deleted group's orders
 * were all cancelled with it, and a group created again under the same id is a new record).
 */
export interface GroupState {
  readonly owner: string
  readonly groupId: string
  contractsLimitMicros: number
  notionalLimitMicros: number
  windowMs: number
  freezeMs: number
  /** Engine time it last triggered; null when it never did, or was reset since. */
  triggeredMs: number | null
  /** The fills its window may still count, oldest first (older ones are dropped as fills come). */
  fills: GroupFill[]
}

/** One fill of an order of a group: its 100 ms bucket, lots, and notional at the order's own price. */
export interface GroupFill {
  readonly bucket: number
  readonly lots: bigint
  readonly notional: bigint
}

export interface AccountState {
  usdc: bigint
  allowance: bigint
  sharesApproved: boolean
  gas: bigint
  /** Relayed actions that succeeded: the next relay nonce. */
  relayNonce: number
  /** Token id -> share balance (no entry when 0). */
  readonly shares: Map<string, bigint>
}

export interface ApiKeyState {
  readonly address: string
  readonly nonce: number
}

export type Context = Readonly<Record<string, ContextValue>> | null

/** What a taker does on meeting its own account's resting order (docs: "Self-trade prevention"). */
export type SelfTradeMode = NonNullable<OrderInput['selfTradePrevention']>

/** Why an order is not the requester's to act on (a cancel, an amend, a cancel-replace). */
export type NotOwnLive = typeof Code.ORDER_NOT_FOUND | typeof Code.ORDER_ALREADY_MATCHED | typeof Code.ORDER_ALREADY_CANCELED

export interface Refusal {
  readonly refused: true
  readonly code: Code
  readonly context: Context
}

/** What validation derives from an order that passes it. */
export interface Plan {
  readonly refused: false
  readonly market: MarketState
  readonly outcome: Outcome
  readonly immediate: boolean
  /** Native limit price in pips. */
  readonly pips: number
  /** Lots for a lot-counted order (any SELL, a resting BUY); 0 for an immediate BUY. */
  readonly lots: number
}

/** The order being placed, while it walks the book. */
export interface Taker {
  readonly order: OrderState
  readonly market: MarketState
  /** Its self-trade prevention: read while it walks, and never again (a resting order's is moot). */
  readonly mode: SelfTradeMode
  /**
   * Why the walk stopped early, the rest to be cancelled: on its own resting order (cancel-taker,
   * cancel-both), or on a fill that triggered its order group (not a FOK); null while it walks on.
   */
  stopped: 'self-trade' | 'order-group' | null
  /** An immediate BUY counts a USDC budget; every other order counts lots. */
  readonly budgetCounted: boolean
  lots: number
  budget: bigint
  making: bigint
  taking: bigint
  fee: bigint
  readonly tradeIds: string[]
}

/** The events of the command being applied, and its trade counter (for trade ids). */
export interface Step {
  readonly events: EngineEvent[]
  trades: number
}

export interface BalanceRow {
  readonly address: string
  readonly asset: string
  readonly balance: bigint
  readonly held: bigint
}

export interface LevelRow {
  readonly marketId: string
  readonly tokenId: string
  readonly side: Side
  readonly pips: number
  readonly size: bigint
}

/** The model's whole state: plain records, money in BigInt. One per ReferenceEngine, handed to every function of its modules. */
export class ReferenceState {
  seq = 0
  timeMs = 0
  credited = 0n
  fees = 0n
  nextOrderNumber = 1
  /** Markets in creation order. */
  readonly markets: MarketState[] = []
  readonly tokens = new Map<string, TokenInfo>()
  readonly accounts = new Map<string, AccountState>()
  /** Every accepted order by id. */
  readonly orders = new Map<string, OrderState>()
  /** Open (resting) orders in acceptance order. */
  live: OrderState[] = []
  readonly apiKeys = new Map<string, ApiKeyState>()
  /** Order groups: owner (API key) -> group id -> group. An owner with none has no entry. */
  readonly groups = new Map<string, Map<string, GroupState>>()
  /**
   * The full copies taken after the last command: apply() alone changes the state, so they are the
   * next command's copies before (taking them again cost a quarter of a simulation seed's time).
   */
  balancesAfterLast: Table<string, BalanceRow> | null = null
  booksAfterLast: Table<number, LevelRow> | null = null
}

export const USDC = 'USDC'

export const LOT = BigInt(MICROS_PER_LOT)

export const UNIT_PIPS = BigInt(PIPS_PER_UNIT)

export const DONE: CommandResult = { ok: true }

export const ORDER_STATUS_REFUSALS: Readonly<Partial<Record<MarketStatus, Code>>> = {
  Upcoming: Code.MARKET_NOT_READY,
  Paused: Code.MARKET_CANCEL_ONLY,
  Closed: Code.MARKET_CLOSED,
  Resolving: Code.MARKET_CLOSED,
  Resolved: Code.MARKET_CLOSED,
}

export function refuse(code: Code, context: Context): Refusal {
  return { refused: true, code, context }
}

export function rejection(r: Refusal): Rejection {
  return { ok: false, code: r.code, message: CODE_MESSAGES[r.code], context: r.context }
}

export function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b
}

export function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

/** bigint -> number, refusing to lose precision (an amount never exceeds 2^53 by design). */
export function num(v: bigint): number {
  const n = Number(v)
  if (!Number.isSafeInteger(n)) throw new Error(`reference: amount ${v} is not a safe integer`)
  return n
}

/** Compares strings by UTF-16 code units (not locale), as docs/engine.md requires. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Assets sort with USDC first, then token ids as strings. */
export function compareAssets(a: string, b: string): number {
  if (a === b) return 0
  if (a === USDC) return -1
  if (b === USDC) return 1
  return compareStrings(a, b)
}

/**
 * Values keyed by a pair of strings, as nested maps (joining two long ids into one key costs
 * more than the rest of the model put together).
 */
export class Table<K, V> {
  private readonly rows = new Map<string, Map<K, V>>()

  get(a: string, b: K): V | undefined {
    return this.rows.get(a)?.get(b)
  }

  set(a: string, b: K, value: V): void {
    let inner = this.rows.get(a)
    if (inner === undefined) {
      inner = new Map()
      this.rows.set(a, inner)
    }
    inner.set(b, value)
  }

  keys(): [string, K][] {
    const out: [string, K][] = []
    for (const [a, inner] of this.rows) for (const b of inner.keys()) out.push([a, b])
    return out
  }
}

/** The keys of two tables, each once. */
export function unionKeys<K, V>(x: Table<K, V>, y: Table<K, V>): [string, K][] {
  return [...x.keys(), ...y.keys().filter(([a, b]) => x.get(a, b) === undefined)]
}

export function findMarket(r: ReferenceState, marketId: string): MarketState | undefined {
  return r.markets.find((m) => m.input.marketId === marketId)
}

export function marketOf(r: ReferenceState, marketId: string): MarketState {
  const m = findMarket(r, marketId)
  if (m === undefined) throw new Error(`reference: token of unknown market ${marketId}`)
  return m
}
