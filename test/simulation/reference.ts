/**
 * The reference model of the matching engine: an independent, deliberately naive implementation
 * of docs/engine.md that the simulation runs next to `src/engine` and compares event for event.
 *
 * It is written to be obviously correct, not fast:
 * - State is plain data: arrays and maps of records, money in BigInt (converted to `number`
 *   only when an event, a result or the summary is emitted).
 * - Holds are never tracked: they are recomputed from the open orders whenever needed (a BUY
 *   holds `pips x lots` USDC, a SELL `lots x 10_000` shares), so "holds equal what open orders
 *   reserve" is true by construction.
 * - The walk finds the best maker afresh at every step by scanning all open orders of the market.
 * - `balance` and `bookLevel` events come from diffing full copies of the balances and of the
 *   native books taken before the command against the state after it.
 *
 * It imports only types and constants from src/engine, never engine logic.
 *
 * Accounts (summary().accounts): docs/engine.md creates an account with the first accepted
 * command that gives it something (a credit, an approval, a fill). A fill needs funds, which only
 * a credit brings, so here an account appears with an accepted `credit` or `approve` (relayed or
 * not); rejected commands, cancels and API keys create nothing.
 * SPEC: addresses in ledger and cancel commands are not validated (no rule or code is given for
 * a malformed one).
 *
 * Points where docs/engine.md leaves a choice open are marked `// SPEC:` with the reading taken.
 */
import type {
  AmendOrder,
  Approve,
  CancelByClientOrderId,
  CancelMarketOrders,
  CancelReplace,
  Command,
  CreateMarket,
  Credit,
  MarketInput,
  MarketStatus,
  MassQuote,
  Merge,
  OrderGroupCommand,
  OrderInput,
  Outcome,
  Redeem,
  RegisterApiKey,
  Relay,
  ResolveMarket,
  RevokeApiKey,
  SetFeeRate,
  SetMarketStatus,
  SetTickSize,
  Side,
  Split,
} from '../../src/engine/command.js'
import type {
  BookLevel,
  Balance,
  CancelReason,
  EngineEvent,
  MarketRecord,
  MatchType,
  OrderGroupAction as GroupEventAction,
  OrderGroupChanged,
  OrderStatus,
  Trade,
} from '../../src/engine/event.js'
import type {
  Amended,
  Canceled,
  CommandResult,
  ContextValue,
  KeptQuote,
  NotCanceled,
  OrderPlaced,
  OrderRejection,
  PlaceResult,
  QuotesSet,
  Rejection,
  Replaced,
} from '../../src/engine/result.js'
import type {
  AccountSummary,
  MarketSummary,
  OpenOrderSummary,
  StateSummary,
} from '../../src/engine/summary.js'
import { Code, CODE_MESSAGES } from '../../src/engine/codes.js'
import {
  BATCH_ORDERS_MAX,
  BALANCE_MICROS_MAX,
  CANCEL_IDS_MAX,
  CLIENT_ORDER_ID_LENGTH_MAX,
  FEE_RATE_BPS_MAX,
  GTD_MARGIN_MS,
  ID_LENGTH_MAX,
  MARKETS_MAX,
  MASS_QUOTE_LEVELS_MAX,
  MICROS_PER_LOT,
  MICROS_PER_PIP,
  ORDER_AMOUNT_MICROS_MAX,
  ORDER_GROUP_BUCKET_MS,
  ORDER_GROUP_FREEZE_MS_MAX,
  ORDER_GROUP_ID_LENGTH_MAX,
  ORDER_GROUP_WINDOW_MS_MAX,
  ORDER_GROUP_WINDOW_MS_MIN,
  ORDER_GROUPS_MAX,
  ORDER_GROUPS_PER_KEY_MAX,
  ORDERS_OPEN_MAX,
  PIPS_PER_UNIT,
  SUPPLY_MICROS_MAX,
  TEXT_LENGTH_MAX,
  TICK_PIPS_ALLOWED,
} from '../../src/engine/limits.js'
import { tradeIdOf } from '../../src/engine/ids.js'

// ---------------------------------------------------------------------------------------------
// Plain state records
// ---------------------------------------------------------------------------------------------

interface MarketState {
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

interface TokenInfo {
  readonly marketId: string
  readonly outcome: Outcome
}

/** Every accepted order, forever (duplicates and cancels need the ended ones too). */
interface OrderState {
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
interface GroupState {
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
interface GroupFill {
  readonly bucket: number
  readonly lots: bigint
  readonly notional: bigint
}

interface AccountState {
  usdc: bigint
  allowance: bigint
  sharesApproved: boolean
  gas: bigint
  /** Relayed actions that succeeded: the next relay nonce. */
  relayNonce: number
  /** Token id -> share balance (no entry when 0). */
  readonly shares: Map<string, bigint>
}

interface ApiKeyState {
  readonly address: string
  readonly nonce: number
}

type Context = Readonly<Record<string, ContextValue>> | null

/** What a taker does on meeting its own account's resting order (docs: "Self-trade prevention"). */
type SelfTradeMode = NonNullable<OrderInput['selfTradePrevention']>

/** Why an order is not the requester's to act on (a cancel, an amend, a cancel-replace). */
type NotOwnLive = typeof Code.ORDER_NOT_FOUND | typeof Code.ORDER_ALREADY_MATCHED | typeof Code.ORDER_ALREADY_CANCELED

interface Refusal {
  readonly refused: true
  readonly code: Code
  readonly context: Context
}

/** What validation derives from an order that passes it. */
interface Plan {
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
interface Taker {
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
interface Step {
  readonly events: EngineEvent[]
  trades: number
}

interface BalanceRow {
  readonly address: string
  readonly asset: string
  readonly balance: bigint
  readonly held: bigint
}

interface LevelRow {
  readonly marketId: string
  readonly tokenId: string
  readonly side: Side
  readonly pips: number
  readonly size: bigint
}

// ---------------------------------------------------------------------------------------------
// Small pure helpers
// ---------------------------------------------------------------------------------------------

const USDC = 'USDC'
const LOT = BigInt(MICROS_PER_LOT)
const UNIT_PIPS = BigInt(PIPS_PER_UNIT)
const DONE: CommandResult = { ok: true }

const TRANSITIONS: Readonly<Record<MarketStatus, readonly MarketStatus[]>> = {
  Upcoming: ['Active', 'Closed'],
  Active: ['Paused', 'Closed', 'Resolving'],
  Paused: ['Active', 'Closed', 'Resolving'],
  Closed: ['Resolving'],
  Resolving: ['Closed'],
  Resolved: [],
}

const ORDER_STATUS_REFUSALS: Readonly<Partial<Record<MarketStatus, Code>>> = {
  Upcoming: Code.MARKET_NOT_READY,
  Paused: Code.MARKET_CANCEL_ONLY,
  Closed: Code.MARKET_CLOSED,
  Resolving: Code.MARKET_CLOSED,
  Resolved: Code.MARKET_CLOSED,
}

function refuse(code: Code, context: Context): Refusal {
  return { refused: true, code, context }
}

function rejection(r: Refusal): Rejection {
  return { ok: false, code: r.code, message: CODE_MESSAGES[r.code], context: r.context }
}

function isId(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0 && v.length <= ID_LENGTH_MAX
}

function isText(v: unknown): boolean {
  return typeof v === 'string' && v.length <= TEXT_LENGTH_MAX
}

function isPositiveInt(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0
}

function isNonNegativeInt(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
}

/** An amend's size when given: a positive whole number of lots, at most an order's bound. */
function isLotAmount(v: unknown): boolean {
  return isPositiveInt(v) && (v as number) <= ORDER_AMOUNT_MICROS_MAX && (v as number) % MICROS_PER_LOT === 0
}

/** Order fields in the order docs/engine.md checks them, with their shape test. */
const ORDER_SHAPE: readonly (readonly [keyof OrderInput, (v: unknown) => boolean])[] = [
  ['orderId', isId],
  ['owner', isId],
  ['maker', isId],
  ['signer', isId],
  ['tokenId', isId],
  ['side', (v) => v === 'BUY' || v === 'SELL'],
  ['timeInForce', (v) => v === 'GTC' || v === 'GTD' || v === 'FOK' || v === 'FAK'],
  ['makerAmountMicros', isPositiveInt],
  ['takerAmountMicros', isPositiveInt],
  ['expirationSec', isNonNegativeInt],
  // null: a V2 order, which signs no fee rate.
  ['feeRateBps', (v) => v === null || isNonNegativeInt(v)],
  ['postOnly', (v) => typeof v === 'boolean'],
  ['clientOrderId', isClientOrderIdShape],
  // SPEC: absent and an explicit `undefined` (which no JSON request can carry) are alike: the
  // default, cancel-maker. Anything else but the three modes (a wrong string, a number, null) is
  // malformed.
  ['selfTradePrevention', (v) => v === undefined || (SELF_TRADE_MODES as readonly unknown[]).includes(v)],
  // SPEC: absent (or `undefined`) and '' both mean no group; any other value must be a group id
  // (printable ASCII, at most 64 characters). Whether the key has that group is checked later.
  ['orderGroupId', (v) => v === undefined || v === '' || isGroupId(v)],
]

const SELF_TRADE_MODES: readonly SelfTradeMode[] = ['cancel-maker', 'cancel-taker', 'cancel-both']

/** An order's self-trade prevention: cancel-maker when it names none (Predex's behaviour before modes). */
function selfTradeModeOf(order: OrderInput): SelfTradeMode {
  return order.selfTradePrevention ?? 'cancel-maker'
}

/** '' or up to CLIENT_ORDER_ID_LENGTH_MAX characters from space to '~'. */
function isClientOrderIdShape(v: unknown): boolean {
  return typeof v === 'string' && v.length <= CLIENT_ORDER_ID_LENGTH_MAX && /^[ -~]*$/.test(v)
}

/** An order group's id: 1 to ORDER_GROUP_ID_LENGTH_MAX characters from space to '~'. */
function isGroupId(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= ORDER_GROUP_ID_LENGTH_MAX && /^[ -~]*$/.test(v)
}

/** The first malformed field of an order, or null. Inputs may be anything at run time. */
function shapeError(order: unknown): string | null {
  const fields: Record<string, unknown> =
    typeof order === 'object' && order !== null ? (order as Record<string, unknown>) : {}
  for (const [name, ok] of ORDER_SHAPE) if (!ok(fields[name])) return name
  return null
}

/** A raw field for an event: the value when it is a string, else '' (docs: "Validation"). */
function rawString(order: unknown, name: 'orderId' | 'maker'): string {
  if (typeof order !== 'object' || order === null) return ''
  const v = (order as Record<string, unknown>)[name]
  return typeof v === 'string' ? v : ''
}

function isImmediate(order: OrderInput): boolean {
  return order.timeInForce === 'FOK' || order.timeInForce === 'FAK'
}

/** A Yes-space price seen from a token: the identity for Yes, the complement for No. */
function nativePips(outcome: Outcome, yesPips: number): number {
  return outcome === 'Yes' ? yesPips : PIPS_PER_UNIT - yesPips
}

/** Whether a taker on Yes-space side `bid` with Yes-space limit `limit` reaches `level`. */
function reaches(bid: boolean, limit: number, level: number): boolean {
  return bid ? level <= limit : level >= limit
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b
}

/** The most fee a cost `c` can incur at `rate` bps: ceil(rate * c / 10_000). */
function feeBound(rate: number, cost: bigint): bigint {
  return ceilDiv(BigInt(rate) * cost, UNIT_PIPS)
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

/** bigint -> number, refusing to lose precision (an amount never exceeds 2^53 by design). */
function num(v: bigint): number {
  const n = Number(v)
  if (!Number.isSafeInteger(n)) throw new Error(`reference: amount ${v} is not a safe integer`)
  return n
}

/** Compares strings by UTF-16 code units (not locale), as docs/engine.md requires. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Assets sort with USDC first, then token ids as strings. */
function compareAssets(a: string, b: string): number {
  if (a === b) return 0
  if (a === USDC) return -1
  if (b === USDC) return 1
  return compareStrings(a, b)
}

/**
 * Values keyed by a pair of strings, as nested maps (joining two long ids into one key costs
 * more than the rest of the model put together).
 */
class Table<K, V> {
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
function unionKeys<K, V>(x: Table<K, V>, y: Table<K, V>): [string, K][] {
  return [...x.keys(), ...y.keys().filter(([a, b]) => x.get(a, b) === undefined)]
}

/** Price-time priority of makers for a taker on Yes-space side `takerBid`. */
function makerPriority(takerBid: boolean): (a: OrderState, b: OrderState) => number {
  // A bid taker walks the asks low to high; an ask taker walks the bids high to low.
  return (a, b) =>
    (takerBid ? a.yesPips - b.yesPips : b.yesPips - a.yesPips) || a.number - b.number
}

// ---------------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------------

export class ReferenceEngine {
  private seq = 0
  private timeMs = 0
  private credited = 0n
  private fees = 0n
  private nextOrderNumber = 1
  /** Markets in creation order. */
  private readonly markets: MarketState[] = []
  private readonly tokens = new Map<string, TokenInfo>()
  private readonly accounts = new Map<string, AccountState>()
  /** Every accepted order by id. */
  private readonly orders = new Map<string, OrderState>()
  /** Open (resting) orders in acceptance order. */
  private live: OrderState[] = []
  private readonly apiKeys = new Map<string, ApiKeyState>()
  /** Order groups: owner (API key) -> group id -> group. An owner with none has no entry. */
  private readonly groups = new Map<string, Map<string, GroupState>>()

  /**
   * The full copies taken after the last command: apply() alone changes the state, so they are the
   * next command's copies before (taking them again cost a quarter of a simulation seed's time).
   */
  private balancesAfterLast: Table<string, BalanceRow> | null = null
  private booksAfterLast: Table<number, LevelRow> | null = null

  apply(command: Command): { result: CommandResult; events: EngineEvent[] } {
    this.checkStamp(command)
    const balancesBefore = this.balancesAfterLast ?? this.balanceRows()
    const booksBefore = this.booksAfterLast ?? this.levelRows()
    const step: Step = { events: [], trades: 0 }
    this.expire(step)
    const result = this.execute(command, step)
    this.balancesAfterLast = this.balanceRows()
    this.booksAfterLast = this.levelRows()
    step.events.push(...this.balanceChanges(balancesBefore, this.balancesAfterLast),
      ...this.levelChanges(booksBefore, this.booksAfterLast))
    return { result, events: step.events }
  }

  private checkStamp(command: Command): void {
    if (command.seq !== this.seq + 1) {
      throw new Error(`reference: seq ${command.seq} after ${this.seq}`)
    }
    if (!Number.isSafeInteger(command.timeMs) || command.timeMs < this.timeMs) {
      throw new Error(`reference: time ${command.timeMs} after ${this.timeMs}`)
    }
    this.seq = command.seq
    this.timeMs = command.timeMs
  }

  private execute(command: Command, step: Step): CommandResult {
    switch (command.kind) {
      case 'placeOrder':
        return this.place(command.order, step)
      case 'placeOrders':
        return this.placeBatch(command.orders, step)
      case 'cancelOrder':
        return this.cancelIds(command.address, [command.orderId], step)
      case 'cancelOrders':
        if (command.orderIds.length > CANCEL_IDS_MAX) {
          // SPEC: "more than CANCEL_IDS_MAX ids" counts the ids as sent, repeats included.
          return rejection(refuse(Code.CANCEL_TOO_MANY, { max: CANCEL_IDS_MAX }))
        }
        return this.cancelIds(command.address, command.orderIds, step)
      case 'cancelByClientOrderId':
        return this.cancelClientIds(command, step)
      case 'cancelAll':
        return this.cancelWhere(command.address, 'cancel-all', () => true, step)
      case 'cancelMarketOrders':
        return this.cancelMarketOrders(command, step)
      case 'expire':
        return DONE // the clock already ran
      case 'createMarket':
        return this.createMarket(command, step)
      case 'setMarketStatus':
        return this.setMarketStatus(command, step)
      case 'setTickSize':
        return this.setTickSize(command, step)
      case 'setFeeRate':
        return this.setFeeRate(command, step)
      case 'resolveMarket':
        return this.resolveMarket(command, step)
      case 'credit':
        return this.credit(command, step)
      case 'approve':
        return this.approve(command, step)
      case 'split':
        return this.split(command, step)
      case 'merge':
        return this.merge(command, step)
      case 'redeem':
        return this.redeem(command, step)
      case 'registerApiKey':
        return this.registerApiKey(command, step)
      case 'revokeApiKey':
        return this.revokeApiKey(command, step)
      case 'relay':
        return this.relay(command, step)
      case 'amendOrder':
        return this.amend(command, step)
      case 'cancelReplace':
        return this.cancelReplace(command, step)
      case 'massQuote':
        return this.massQuote(command, step)
      case 'orderGroup':
        return this.orderGroup(command, step)
      default:
        // A command kind the model does not know (one newer than it): an error of the test, not a
        // refusal to compare.
        throw new Error(`reference: ${(command as { readonly kind: string }).kind} is not modelled yet`)
    }
  }

  // -------------------------------------------------------------------------------------------
  // Clock
  // -------------------------------------------------------------------------------------------

  private expire(step: Step): void {
    const now = BigInt(this.timeMs)
    const due = this.live
      .filter((o) => o.input.timeInForce === 'GTD' && BigInt(o.input.expirationSec) * 1000n <= now)
      .sort((a, b) => a.input.expirationSec - b.input.expirationSec || a.number - b.number)
    for (const o of due) this.end(o, 'CANCELED', 'expired', step)
  }

  // -------------------------------------------------------------------------------------------
  // Orders: validation
  // -------------------------------------------------------------------------------------------

  private validate(input: OrderInput): Refusal | Plan {
    const plan = this.checkTerms(input, null)
    if (plan.refused) return plan
    return this.balanceRefusal(input, plan) ?? this.bookRefusal(input, plan) ?? plan
  }

  /**
   * Steps 1 to 13: the order's terms, which neither funds nor the book decide. `replacing` is the
   * order a cancel-replace is about to cancel: the new order may share its client order id.
   */
  private checkTerms(input: OrderInput, replacing: OrderState | null): Refusal | Plan {
    const field = shapeError(input)
    if (field !== null) return refuse(Code.INVALID_ORDER_PAYLOAD, { field })
    const prior = this.orders.get(input.orderId)
    if (prior !== undefined) {
      return refuse(Code.INVALID_ORDER_DUPLICATED, { orderId: input.orderId, status: prior.status })
    }
    // A client order id is taken while an order of the same owner that has it is open (but for
    // the order being replaced, which ends before the new one is placed).
    const twin = input.clientOrderId === '' ? undefined
      : this.live.find((o) => o !== replacing && o.input.owner === input.owner &&
        o.input.clientOrderId === input.clientOrderId)
    if (twin !== undefined) {
      return refuse(Code.CLIENT_ORDER_ID_DUPLICATED,
        { orderId: twin.input.orderId, status: twin.status, clientOrderId: input.clientOrderId })
    }
    const groupRefusal = this.groupRefusal(input)
    if (groupRefusal !== null) return groupRefusal
    const token = this.tokens.get(input.tokenId)
    if (token === undefined) return refuse(Code.TOKEN_NOT_FOUND, { tokenId: input.tokenId })
    const market = this.marketOf(token.marketId)
    const statusCode = ORDER_STATUS_REFUSALS[market.status]
    if (statusCode !== undefined) {
      return refuse(statusCode, { marketId: market.input.marketId, status: market.status })
    }
    const immediate = isImmediate(input)
    if (input.postOnly && immediate) {
      return refuse(Code.INVALID_POST_ONLY_ORDER_TYPE, { timeInForce: input.timeInForce })
    }
    return this.expirationRefusal(input) ?? this.amountsRefusal(input, market) ??
      this.priceAndSize(input, market, token.outcome)
  }

  /**
   * The group an order names, if any: one of its owner's (API key's), and not triggered (docs:
   * "Joining"). SPEC: checked right after the client order id and before the token, as the docs
   * place it, so an order naming an unknown group on an unknown token is refused for the group.
   */
  private groupRefusal(input: OrderInput): Refusal | null {
    const groupId = input.orderGroupId
    if (groupId === undefined || groupId === '') return null
    const group = this.groupOf(input.owner, groupId)
    if (group === undefined) return refuse(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: groupId })
    if (group.triggeredMs !== null && this.isTriggered(group)) {
      return refuse(Code.ORDER_GROUP_TRIGGERED, { orderGroupId: groupId, triggeredMs: group.triggeredMs })
    }
    return null
  }

  /** Step 6. */
  private expirationRefusal(input: OrderInput): Refusal | null {
    if (input.timeInForce === 'GTD') {
      const earliestMs = BigInt(this.timeMs + GTD_MARGIN_MS)
      if (BigInt(input.expirationSec) * 1000n < earliestMs) {
        const earliestSec = num(ceilDiv(earliestMs, 1000n))
        return refuse(Code.INVALID_ORDER_EXPIRATION, {
          expirationSec: input.expirationSec,
          earliestSec,
        })
      }
      return null
    }
    if (input.expirationSec !== 0) {
      return refuse(Code.INVALID_ORDER_EXPIRATION, {
        expirationSec: input.expirationSec,
        earliestSec: 0,
      })
    }
    return null
  }

  /** Steps 7 to 9. */
  private amountsRefusal(input: OrderInput, market: MarketState): Refusal | null {
    if (input.feeRateBps !== null && input.feeRateBps !== market.feeRateBps) {
      return refuse(Code.INVALID_ORDER_FEE_RATE, {
        feeRateBps: input.feeRateBps,
        marketFeeRateBps: market.feeRateBps,
      })
    }
    if (input.makerAmountMicros > ORDER_AMOUNT_MICROS_MAX) {
      return refuse(Code.INVALID_ORDER_SIZE_MAX, { field: 'makerAmountMicros' })
    }
    if (input.takerAmountMicros > ORDER_AMOUNT_MICROS_MAX) {
      return refuse(Code.INVALID_ORDER_SIZE_MAX, { field: 'takerAmountMicros' })
    }
    const ma = input.makerAmountMicros
    const ta = input.takerAmountMicros
    if (input.side === 'BUY' ? !(ma < ta) : !(ta < ma)) {
      return refuse(Code.INVALID_ORDER_PRICE, null)
    }
    return null
  }

  /** Steps 10 to 13 (11 no longer exists: step 8 bounds the lots). */
  private priceAndSize(input: OrderInput, market: MarketState, outcome: Outcome): Refusal | Plan {
    const terms = isImmediate(input) ? immediateTerms(input) : restingTerms(input, market)
    if (terms.refused) return terms
    return {
      refused: false,
      market,
      outcome,
      immediate: isImmediate(input),
      pips: terms.pips,
      lots: terms.lots,
    }
  }

  /** Step 14. */
  private balanceRefusal(input: OrderInput, plan: Plan): Refusal | null {
    const account = this.accounts.get(input.maker)
    if (input.side === 'BUY') {
      const cost = plan.immediate
        ? BigInt(input.makerAmountMicros)
        : BigInt(plan.pips) * BigInt(plan.lots)
      const required = cost + feeBound(plan.market.feeRateBps, cost)
      const balance = account?.usdc ?? 0n
      const allowance = account?.allowance ?? 0n
      const held = this.heldUsdc(input.maker)
      const available = minBig(balance, allowance) - held
      if (required <= available) return null
      return refuse(Code.INVALID_ORDER_NOT_ENOUGH_BALANCE, {
        asset: USDC,
        requiredMicros: num(required),
        availableMicros: num(available),
        balanceMicros: num(balance),
        allowanceMicros: num(allowance),
        heldMicros: num(held),
      })
    }
    const required = BigInt(plan.lots) * LOT
    const balance = account?.shares.get(input.tokenId) ?? 0n
    const held = this.heldShares(input.maker, input.tokenId)
    const approved = account?.sharesApproved ?? false
    const available = approved ? balance - held : 0n
    if (required <= available) return null
    return refuse(Code.INVALID_ORDER_NOT_ENOUGH_BALANCE, {
      asset: input.tokenId,
      requiredMicros: num(required),
      availableMicros: num(available),
      balanceMicros: num(balance),
      heldMicros: num(held),
      approved,
    })
  }

  /** Steps 15 to 18: the checks that look at the book. */
  private bookRefusal(input: OrderInput, plan: Plan): Refusal | null {
    const bid = isBid(input.side, plan.outcome)
    const yesPips = nativePips(plan.outcome, plan.pips)
    if (!plan.immediate && this.live.length >= ORDERS_OPEN_MAX) {
      return refuse(Code.ENGINE_ORDERS_FULL, null)
    }
    if (input.postOnly) {
      const best = this.bestMaker(plan.market.input.marketId, bid)
      if (best !== undefined && reaches(bid, yesPips, best.yesPips)) {
        return refuse(Code.INVALID_POST_ONLY_ORDER, null)
      }
    }
    if (!plan.immediate) return null
    // Own orders included: whether they are skipped or stop the walk depends on the taker's mode.
    const makers = this.eligibleMakers(plan.market.input.marketId, bid, yesPips)
    const mode = selfTradeModeOf(input)
    const takerGroup = this.groupNamed(input)
    const windowNow = (g: GroupState): WindowSums => windowSums(g, this.bucketNow())
    if (input.timeInForce === 'FOK' && !dryRunFills(input, plan, makers, mode, takerGroup, windowNow)) {
      return refuse(Code.FOK_ORDER_NOT_FILLED, null)
    }
    if (input.timeInForce === 'FAK' && !hasMatch(input, makers, mode)) {
      return refuse(Code.FAK_ORDER_NOT_FILLED, null)
    }
    return null
  }

  // -------------------------------------------------------------------------------------------
  // Orders: placement and matching
  // -------------------------------------------------------------------------------------------

  private placeBatch(orders: readonly OrderInput[], step: Step): CommandResult {
    // SPEC: a batch refused as too large emits no orderRejected events (it is "rejected whole",
    // before any of its orders is looked at).
    if (orders.length > BATCH_ORDERS_MAX) {
      return rejection(refuse(Code.BATCH_TOO_LARGE, { max: BATCH_ORDERS_MAX }))
    }
    return { ok: true, results: orders.map((o) => this.place(o, step)) }
  }

  private place(input: OrderInput, step: Step): PlaceResult {
    const verdict = this.validate(input)
    if (verdict.refused) return this.rejectOrder(input, verdict, step)
    return this.accept(input, verdict, step)
  }

  /** A refused order: its `orderRejected` event, and its result. */
  private rejectOrder(input: OrderInput, verdict: Refusal, step: Step): OrderRejection {
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

  private accept(input: OrderInput, plan: Plan, step: Step): OrderPlaced {
    const bid = isBid(input.side, plan.outcome)
    const order: OrderState = {
      number: this.nextOrderNumber++,
      input,
      marketId: plan.market.input.marketId,
      outcome: plan.outcome,
      bid,
      pips: plan.pips,
      yesPips: nativePips(plan.outcome, plan.pips),
      lots: 0,
      matchedLots: 0,
      status: 'LIVE',
      group: this.groupNamed(input),
    }
    this.orders.set(input.orderId, order)
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
      timeMs: this.timeMs,
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
    this.walk(taker, step)
    this.finish(taker, step)
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

  private walk(t: Taker, step: Step): void {
    for (;;) {
      const m = this.bestMaker(t.order.marketId, t.order.bid)
      if (m === undefined || !reaches(t.order.bid, t.order.yesPips, m.yesPips)) return
      // The walk also stops when the taker cannot take one more lot at this maker's level, and
      // does so before self-trade prevention: only orders it would have matched are cancelled.
      const tp = nativePips(t.order.outcome, m.yesPips)
      if (t.budgetCounted ? t.budget < BigInt(tp) : t.lots === 0) return
      if (m.input.maker === t.order.input.maker) {
        // Only the taker's mode counts (the resting order's was the business of its own walk).
        switch (t.mode) {
          case 'cancel-maker':
            this.end(m, 'CANCELED', 'self-trade', step)
            continue
          case 'cancel-taker':
            t.stopped = 'self-trade'
            return
          case 'cancel-both':
            this.end(m, 'CANCELED', 'self-trade', step)
            t.stopped = 'self-trade'
            return
        }
      }
      const x = t.budgetCounted
        ? Math.min(m.lots, num(t.budget / BigInt(tp)))
        : Math.min(m.lots, t.lots)
      this.fill(t, m, x, step)
      // Its order group triggered on this fill: no further fill.
      if (t.stopped !== null) return
    }
  }

  /** One fill of `x` lots between taker `t` and maker `m`, at the maker's level. */
  private fill(t: Taker, m: OrderState, x: number, step: Step): void {
    const f = fillTerms(t, m, x)
    this.settle(t, m, f)
    const tradeId = tradeIdOf(this.seq, step.trades++)
    step.events.push(tradeEvent(tradeId, t, m, f, this.timeMs))

    m.matchedLots += x
    m.lots -= x
    if (m.lots === 0) this.end(m, 'MATCHED', null, step)
    else this.emitUpdate(m, step, null)

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
    this.countGroupFills(t, m, x, f, step)
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
  private countGroupFills(t: Taker, m: OrderState, x: number, f: FillTerms, step: Step): void {
    const lots = BigInt(x)
    const makerGroup = m.group
    const takerGroup = t.order.group
    let takerGroupTriggered = false
    if (makerGroup !== null && this.addGroupFill(makerGroup, lots, BigInt(m.pips) * lots)) {
      this.triggerGroup(makerGroup, step)
      takerGroupTriggered = makerGroup === takerGroup
    }
    if (takerGroup !== null && takerGroup !== makerGroup && this.addGroupFill(takerGroup, lots, f.takerCash)) {
      this.triggerGroup(takerGroup, step)
      takerGroupTriggered = true
    }
    if (takerGroupTriggered && t.order.input.timeInForce !== 'FOK') t.stopped = 'order-group'
  }

  /** Moves the money and shares of one fill (the maker's hold shrinks with its lots). */
  private settle(t: Taker, m: OrderState, f: FillTerms): void {
    const T = t.order.input
    const M = m.input
    // Each side pays or receives its own native price; for a normal match tp == mp, so this is
    // a transfer; for mint/merge tp + mp == 1 USDC, which is the full set made or unmade.
    const taker = this.mustAccount(T.maker)
    const maker = this.mustAccount(M.maker)
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
    this.fees += f.fee
  }

  /** End of the walk: rest, or end the taker, and emit its final update. */
  private finish(t: Taker, step: Step): void {
    const o = t.order
    const filled = t.budgetCounted ? t.budget < BigInt(o.pips) : t.lots === 0
    if (t.stopped === 'order-group' && !filled) {
      // The rest of a taker whose group triggered is cancelled, whatever its time in force.
      o.status = 'CANCELED'
      this.emitUpdate(o, step, 'order-group')
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
      this.emitUpdate(o, step, 'self-trade')
      return
    }
    if (!isImmediate(o.input)) {
      if (t.lots > 0) {
        o.lots = t.lots
        this.live.push(o) // the tail of its level: it has the highest order number
        if (o.matchedLots > 0) this.emitUpdate(o, step, null)
      } else {
        o.status = 'MATCHED'
        this.emitUpdate(o, step, null)
      }
      return
    }
    // An immediate BUY is filled when what is left of its budget cannot buy one more lot at
    // any price it accepts; every other immediate order when it has no lots left.
    if (o.input.timeInForce === 'FOK' && !filled) {
      throw new Error(`reference: FOK ${o.input.orderId} passed its dry run but did not fill`)
    }
    o.status = filled ? 'MATCHED' : 'CANCELED'
    this.emitUpdate(o, step, filled ? null : 'unfilled')
  }

  /** Ends an order (a cancel or its last fill) and emits its update. */
  private end(o: OrderState, status: OrderStatus, reason: CancelReason | null, step: Step): void {
    o.status = status
    o.lots = 0
    this.live = this.live.filter((x) => x !== o)
    this.emitUpdate(o, step, reason)
  }

  private emitUpdate(o: OrderState, step: Step, reason: CancelReason | null): void {
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
  private bestMaker(marketId: string, takerBid: boolean): OrderState | undefined {
    return this.opposite(marketId, takerBid).sort(makerPriority(takerBid))[0]
  }

  /** Open orders on the opposite side within the limit, in the order a taker meets them. */
  private eligibleMakers(marketId: string, takerBid: boolean, limitYesPips: number): OrderState[] {
    return this.opposite(marketId, takerBid)
      .filter((m) => reaches(takerBid, limitYesPips, m.yesPips))
      .sort(makerPriority(takerBid))
  }

  private opposite(marketId: string, takerBid: boolean): OrderState[] {
    return this.live.filter((m) => m.marketId === marketId && m.bid !== takerBid)
  }

  // -------------------------------------------------------------------------------------------
  // Cancels
  // -------------------------------------------------------------------------------------------

  private cancelIds(address: string, ids: readonly string[], step: Step): Canceled {
    const canceled: string[] = []
    const notCanceled: NotCanceled[] = []
    const seen = new Set<string>()
    for (const id of ids) {
      if (seen.has(id)) continue
      seen.add(id)
      const o = this.ownLive(address, id)
      if (typeof o === 'string') {
        notCanceled.push({ orderId: id, reason: CODE_MESSAGES[o] })
      } else {
        this.end(o, 'CANCELED', 'owner', step)
        canceled.push(id)
      }
    }
    return { ok: true, canceled, notCanceled }
  }

  /**
   * The open order `orderId` when `address` may act on it (cancel, amend, cancel-replace), else
   * why not. A live order answers to its maker and its signer; an ended one only to its maker
   * (docs: "ended orders remember only their maker"); anything else is as unknown.
   */
  private ownLive(address: string, orderId: string): OrderState | NotOwnLive {
    const o = this.orders.get(orderId)
    if (o === undefined) return Code.ORDER_NOT_FOUND
    if (o.status === 'LIVE') {
      return o.input.maker === address || o.input.signer === address ? o : Code.ORDER_NOT_FOUND
    }
    if (o.input.maker !== address) return Code.ORDER_NOT_FOUND
    return o.status === 'MATCHED' ? Code.ORDER_ALREADY_MATCHED : Code.ORDER_ALREADY_CANCELED
  }

  /** By client order id: the owner's open order with it, if the requester is its maker or signer. */
  private cancelClientIds(c: CancelByClientOrderId, step: Step): CommandResult {
    if (c.clientOrderIds.length > CANCEL_IDS_MAX) {
      return rejection(refuse(Code.CANCEL_TOO_MANY, { max: CANCEL_IDS_MAX }))
    }
    const canceled: string[] = []
    const notCanceled: NotCanceled[] = []
    const seen = new Set<string>()
    for (const id of c.clientOrderIds) {
      if (seen.has(id)) continue
      seen.add(id)
      const o = this.live.find((x) => x.input.owner === c.owner && id !== '' && x.input.clientOrderId === id)
      if (o !== undefined && (o.input.maker === c.address || o.input.signer === c.address)) {
        this.end(o, 'CANCELED', 'owner', step)
        canceled.push(o.input.orderId)
      } else {
        notCanceled.push({ orderId: id, reason: CODE_MESSAGES.ORDER_NOT_FOUND })
      }
    }
    return { ok: true, canceled, notCanceled }
  }

  /** Cancels the open maker orders of `address` that pass `keep`, in acceptance order. */
  private cancelWhere(
    address: string,
    reason: CancelReason,
    keep: (o: OrderState) => boolean,
    step: Step,
  ): Canceled {
    const targets = this.live.filter((o) => o.input.maker === address && keep(o))
    for (const o of targets) this.end(o, 'CANCELED', reason, step)
    return { ok: true, canceled: targets.map((o) => o.input.orderId), notCanceled: [] }
  }

  private cancelMarketOrders(c: CancelMarketOrders, step: Step): CommandResult {
    if (c.marketId !== '' && this.findMarket(c.marketId) === undefined) {
      return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    }
    if (c.tokenId !== '') {
      const token = this.tokens.get(c.tokenId)
      if (token === undefined || (c.marketId !== '' && token.marketId !== c.marketId)) {
        return rejection(refuse(Code.TOKEN_NOT_FOUND, { tokenId: c.tokenId }))
      }
    }
    return this.cancelWhere(
      c.address,
      'cancel-market',
      (o) =>
        (c.marketId === '' || o.marketId === c.marketId) &&
        (c.tokenId === '' || o.input.tokenId === c.tokenId),
      step,
    )
  }

  // -------------------------------------------------------------------------------------------
  // Amend and cancel-replace
  // -------------------------------------------------------------------------------------------

  /**
   * Lowers an open order's lots. The order keeps its number, so its place in its level's queue
   * (priority is by number); its hold shrinks by itself, since holds are derived from the lots.
   * SPEC: like a cancel, an amend is allowed whatever the market's status (it only takes size
   * off), and it may leave less than the market's minimum order size (a rule of placement).
   */
  private amend(c: AmendOrder, step: Step): CommandResult {
    // The sizes first: exactly one a whole number of lots in (0, ORDER_AMOUNT_MICROS_MAX], the
    // other 0. SPEC: "exactly 0" is `=== 0`, so -0 is 0 too (and String(-0) is '0').
    const given = [c.newSizeMicros, c.reduceByMicros].filter(isLotAmount).length
    const zeros = [c.newSizeMicros, c.reduceByMicros].filter((v) => v === 0).length
    if (given !== 1 || zeros !== 1) {
      return rejection(refuse(Code.AMEND_SIZE_INVALID, {
        newSizeMicros: String(c.newSizeMicros),
        reduceByMicros: String(c.reduceByMicros),
      }))
    }
    const o = this.ownLive(c.address, c.orderId)
    if (typeof o === 'string') return rejection(refuse(o, { orderId: c.orderId }))
    const remaining = o.lots * MICROS_PER_LOT
    // SPEC: the size asked for is the new size, or what rests less the reduction (negative when
    // the reduction is larger), and the refusal names it as such.
    const requested = c.newSizeMicros !== 0 ? c.newSizeMicros : remaining - c.reduceByMicros
    if (!(requested > 0 && requested < remaining)) {
      return rejection(refuse(Code.AMEND_NOT_REDUCING, { remainingMicros: remaining, requestedMicros: requested }))
    }
    o.lots = requested / MICROS_PER_LOT
    this.emitUpdate(o, step, 'amended')
    const result: Amended = {
      ok: true,
      orderId: c.orderId,
      sizeMatchedMicros: o.matchedLots * MICROS_PER_LOT,
      remainingMicros: requested,
      reducedByMicros: remaining - requested,
    }
    return result
  }

  /**
   * Cancels an open order and places another. The old order is judged first: not the
   * requester's open order, and the whole command is refused (no event, even if the new order is
   * malformed). Then the new order's terms (steps 1 to 13): refused, and the old order stays.
   * Only then is the old order cancelled and the new one placed as placeOrder places it, from
   * step 1 (steps 1 to 13 pass again: the cancel changed none of what they read but the client
   * order id, now free), so only funds and the book (steps 14 to 18) can still refuse it.
   * SPEC: nothing ties the new order's maker or market to the old order's (no rule says so).
   */
  private cancelReplace(c: CancelReplace, step: Step): CommandResult {
    const old = this.ownLive(c.address, c.orderId)
    if (typeof old === 'string') {
      return rejection(refuse(old, { orderId: c.orderId, newOrderId: rawString(c.order, 'orderId') }))
    }
    const terms = this.checkTerms(c.order, old)
    if (terms.refused) return this.rejectOrder(c.order, terms, step)
    const canceledRemainingMicros = old.lots * MICROS_PER_LOT
    this.end(old, 'CANCELED', 'replaced', step)
    const placed = this.place(c.order, step)
    const result: Replaced = { ok: true, canceledOrderId: c.orderId, canceledRemainingMicros, placed }
    return result
  }

  // -------------------------------------------------------------------------------------------
  // Mass quotes
  // -------------------------------------------------------------------------------------------

  /**
   * A key's whole ladder on one market (docs: "Mass quote"): the command is judged whole first;
   * then the key's unnamed open orders on the market are cancelled (reason replaced), each kept id
   * is reported, and the new orders are placed as placeOrder places them, in order.
   * SPEC: the market's status is not judged here (a quote on a paused market cancels the unnamed
   * quotes, and each new order meets its own MARKET_CANCEL_ONLY), nor is `address` tied to `owner`.
   */
  private massQuote(c: MassQuote, step: Step): CommandResult {
    if (this.findMarket(c.marketId) === undefined) {
      return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    }
    const refusal = this.quoteRefusal(c)
    if (refusal !== null) return rejection(refusal)
    const canceledQuotes = this.cancelUnnamedQuotes(c, step)
    const keptQuotes = c.keep.map((orderId) => this.keptQuote(c, orderId))
    const newQuotes = c.orders.map((order) => this.place(order, step))
    const result: QuotesSet = { ok: true, canceledQuotes, keptQuotes, newQuotes }
    return result
  }

  /** An open order that is one of the key's quotes on the quote's market. */
  private isQuoteOf(c: MassQuote, o: OrderState | undefined): boolean {
    return o !== undefined && o.status === 'LIVE' && o.input.owner === c.owner && o.marketId === c.marketId
  }

  /**
   * The whole command's checks, in the docs' order: the kept ids, each named once; then the new
   * orders, each named once (a kept id included), on one of the market's tokens, of the key; then
   * the count a side of the market's Yes-space book, kept-and-open quotes and new orders together.
   * SPEC: a kept id that is not a string answers as named twice, under its String() (no other
   * reason fits, and the docs give none); a new order without a string id is named by ''. A new
   * order counts on its side whatever its other fields (a malformed one is refused when placed),
   * and a kept id counts only while it is one of the key's open quotes on the market.
   */
  private quoteRefusal(c: MassQuote): Refusal | null {
    const invalid = (orderId: string, reason: string): Refusal =>
      refuse(Code.MASS_QUOTE_INVALID, { orderId, reason })
    const named = new Set<string>()
    let bids = 0
    let asks = 0
    for (const id of c.keep as readonly unknown[]) {
      if (typeof id !== 'string' || named.has(id)) return invalid(String(id), 'named twice')
      named.add(id)
      const o = this.orders.get(id)
      if (o !== undefined && this.isQuoteOf(c, o)) {
        if (o.bid) bids++
        else asks++
      }
    }
    for (const order of c.orders) {
      const orderId = rawString(order, 'orderId')
      if (named.has(orderId)) return invalid(orderId, 'named twice')
      named.add(orderId)
      const token = this.tokens.get(order.tokenId)
      if (token === undefined || token.marketId !== c.marketId) return invalid(orderId, 'an order of another market')
      if (order.owner !== c.owner) return invalid(orderId, 'an order of another API key')
      if (isBid(order.side, token.outcome)) bids++
      else asks++
    }
    if (bids > MASS_QUOTE_LEVELS_MAX || asks > MASS_QUOTE_LEVELS_MAX) {
      return refuse(Code.MASS_QUOTE_TOO_LARGE, { max: MASS_QUOTE_LEVELS_MAX, bids, asks })
    }
    return null
  }

  /**
   * Cancels the key's open orders on the market that the quote does not name, by wallet: the
   * requester's, then each new order's maker, then the maker of each kept id that is open (any
   * open order: of the key or not, of the market or not), each wallet once; each wallet's
   * orders oldest first. Returns their ids in that order.
   * SPEC: this is the engine's order (mass-quote.ts, cancelUnnamed: "by account, oldest first"),
   * where the docs say only "oldest first by account: those made by address or by a maker of an
   * order named". An order of the key made by another wallet than these stays.
   */
  private cancelUnnamedQuotes(c: MassQuote, step: Step): string[] {
    const named = new Set<unknown>([...c.keep, ...c.orders.map((o) => (o as { orderId?: unknown }).orderId)])
    const wallets: unknown[] = [c.address, ...c.orders.map((o) => (o as { maker?: unknown }).maker)]
    for (const id of c.keep) {
      const o = this.orders.get(id)
      if (o !== undefined && o.status === 'LIVE') wallets.push(o.input.maker)
    }
    const targets: OrderState[] = []
    for (const wallet of new Set(wallets)) {
      for (const o of this.live) {
        if (o.input.maker === wallet && this.isQuoteOf(c, o) && !named.has(o.input.orderId)) targets.push(o)
      }
    }
    for (const o of targets) this.end(o, 'CANCELED', 'replaced', step)
    return targets.map((o) => o.input.orderId)
  }

  /**
   * A kept id after the cancels: still one of the key's open quotes on the market (reason null),
   * else why not in a cancel's words: an order of the requester's that ended says how; anything
   * else (unknown, open but not the key's quote here, ended and another wallet's) is not found.
   */
  private keptQuote(c: MassQuote, orderId: string): KeptQuote {
    const o = this.orders.get(orderId)
    if (this.isQuoteOf(c, o)) return { orderId, reason: null }
    if (o === undefined || o.status === 'LIVE' || o.input.maker !== c.address) {
      return { orderId, reason: CODE_MESSAGES.ORDER_NOT_FOUND }
    }
    const code = o.status === 'MATCHED' ? Code.ORDER_ALREADY_MATCHED : Code.ORDER_ALREADY_CANCELED
    return { orderId, reason: CODE_MESSAGES[code] }
  }

  // -------------------------------------------------------------------------------------------
  // Order groups
  // -------------------------------------------------------------------------------------------

  /**
   * create, update, trigger, reset or delete a group of an API key (docs: "Order groups").
   * The group id first (ORDER_GROUP_INVALID {field: groupId}); create then answers
   * ORDER_GROUP_EXISTS, the limits, ORDER_GROUPS_FULL, in that order; any other action needs the
   * group (ORDER_GROUP_NOT_FOUND); update reads the limits.
   * SPEC: `address` is not judged (a group is its key's; the face checks the key's credentials).
   * SPEC: an action that is none of the five answers ORDER_GROUP_NOT_FOUND when the key has no
   * such group, else ORDER_GROUP_INVALID {field: action}: the group is looked for first, as for
   * every action but create.
   */
  private orderGroup(c: OrderGroupCommand, step: Step): CommandResult {
    if (!isGroupId(c.groupId)) return groupInvalid('groupId')
    const group = this.groupOf(c.owner, c.groupId)
    if (c.action === 'create') return this.createGroup(c, group, step)
    if (group === undefined) return rejection(refuse(Code.ORDER_GROUP_NOT_FOUND, { orderGroupId: c.groupId }))
    switch (c.action) {
      case 'update': {
        const field = limitsError(c)
        if (field !== null) return groupInvalid(field)
        // A new window length starts an empty window; the same length keeps what it holds. A lower
        // limit takes effect at the next fill (no fill, no trigger).
        if (c.windowMs !== group.windowMs) group.fills = []
        group.contractsLimitMicros = c.contractsLimitMicros
        group.notionalLimitMicros = c.notionalLimitMicros
        group.windowMs = c.windowMs
        group.freezeMs = c.freezeMs
        this.emitGroup(group, 'updated', step)
        return DONE
      }
      case 'trigger':
        // SPEC: by hand also when it is triggered already: its time is now, its freeze starts again.
        this.triggerGroup(group, step)
        return DONE
      case 'reset':
        group.triggeredMs = null
        group.fills = []
        this.emitGroup(group, 'reset', step)
        return DONE
      case 'delete': {
        this.cancelGroupOrders(group, step)
        const ofOwner = this.groups.get(c.owner)!
        ofOwner.delete(c.groupId)
        if (ofOwner.size === 0) this.groups.delete(c.owner)
        this.emitGroup(group, 'deleted', step)
        return DONE
      }
      default:
        return groupInvalid('action')
    }
  }

  private createGroup(c: OrderGroupCommand, existing: GroupState | undefined, step: Step): CommandResult {
    if (existing !== undefined) return rejection(refuse(Code.ORDER_GROUP_EXISTS, { orderGroupId: c.groupId }))
    const field = limitsError(c)
    if (field !== null) return groupInvalid(field)
    let total = 0
    for (const ofOwner of this.groups.values()) total += ofOwner.size
    if ((this.groups.get(c.owner)?.size ?? 0) >= ORDER_GROUPS_PER_KEY_MAX || total >= ORDER_GROUPS_MAX) {
      return rejection(refuse(Code.ORDER_GROUPS_FULL, { perKeyMax: ORDER_GROUPS_PER_KEY_MAX }))
    }
    const group: GroupState = {
      owner: c.owner,
      groupId: c.groupId,
      contractsLimitMicros: c.contractsLimitMicros,
      notionalLimitMicros: c.notionalLimitMicros,
      windowMs: c.windowMs,
      freezeMs: c.freezeMs,
      triggeredMs: null,
      fills: [],
    }
    let ofOwner = this.groups.get(c.owner)
    if (ofOwner === undefined) {
      ofOwner = new Map()
      this.groups.set(c.owner, ofOwner)
    }
    ofOwner.set(c.groupId, group)
    this.emitGroup(group, 'created', step)
    return DONE
  }

  private groupOf(owner: string, groupId: string): GroupState | undefined {
    return this.groups.get(owner)?.get(groupId)
  }

  /** The group an order joins: the one its orderGroupId names among its owner's (it passed the checks). */
  private groupNamed(input: OrderInput): GroupState | null {
    const groupId = input.orderGroupId
    if (groupId === undefined || groupId === '') return null
    return this.groupOf(input.owner, groupId) ?? null
  }

  /**
   * Whether a group refuses orders now: it triggered, and its freeze (as it is now: an update may
   * change it) has not ended. A freeze of 0 lasts until a reset.
   */
  private isTriggered(g: GroupState): boolean {
    return g.triggeredMs !== null && (g.freezeMs === 0 || this.timeMs < g.triggeredMs + g.freezeMs)
  }

  /** The 100 ms bucket of the command's time. */
  private bucketNow(): number {
    return Math.floor(this.timeMs / ORDER_GROUP_BUCKET_MS)
  }

  /** Counts a fill in a group's window (now); whether the window now reaches a limit. */
  private addGroupFill(g: GroupState, lots: bigint, notional: bigint): boolean {
    const bucket = this.bucketNow()
    // Fills that have left the window count no more (the window only moves forward).
    g.fills = g.fills.filter((f) => inWindow(g, f.bucket, bucket))
    g.fills.push({ bucket, lots, notional })
    return reachesLimit(g, windowSums(g, bucket))
  }

  /**
   * Triggers a group: it refuses orders from now (until reset, or its freeze ends), its window is
   * emptied, its resting orders are cancelled (reason order-group, oldest first), then its event.
   */
  private triggerGroup(g: GroupState, step: Step): void {
    g.triggeredMs = this.timeMs
    g.fills = []
    this.cancelGroupOrders(g, step)
    this.emitGroup(g, 'triggered', step)
  }

  private cancelGroupOrders(g: GroupState, step: Step): void {
    for (const o of this.live.filter((x) => x.group === g)) this.end(o, 'CANCELED', 'order-group', step)
  }

  /**
   * A group's event. SPEC: `triggered` says whether it has triggered and not been reset since,
   * not whether its freeze still holds (an update after the freeze ended says true).
   */
  private emitGroup(g: GroupState, action: GroupEventAction, step: Step): void {
    const event: OrderGroupChanged = {
      type: 'orderGroup',
      owner: g.owner,
      groupId: g.groupId,
      action,
      contractsLimitMicros: g.contractsLimitMicros,
      notionalLimitMicros: g.notionalLimitMicros,
      windowMs: g.windowMs,
      freezeMs: g.freezeMs,
      triggered: g.triggeredMs !== null,
      timeMs: this.timeMs,
    }
    step.events.push(event)
  }

  // -------------------------------------------------------------------------------------------
  // Markets
  // -------------------------------------------------------------------------------------------

  private createMarket(c: CreateMarket, step: Step): CommandResult {
    const refusal = this.marketInputRefusal(c.market)
    if (refusal !== null) return rejection(refusal)
    const m = c.market
    const market: MarketState = {
      input: m,
      createdMs: this.timeMs,
      status: m.status,
      tickPips: m.tickSizeMicros / MICROS_PER_PIP,
      feeRateBps: m.feeRateBps,
      winningOutcome: null,
      resolvedMs: 0,
      collateral: 0n,
      minted: 0n,
      merged: 0n,
      redeemedYes: 0n,
      redeemedNo: 0n,
    }
    this.markets.push(market)
    this.tokens.set(m.yesTokenId, { marketId: m.marketId, outcome: 'Yes' })
    this.tokens.set(m.noTokenId, { marketId: m.marketId, outcome: 'No' })
    step.events.push({ type: 'marketCreated', market: marketRecord(market) })
    return DONE
  }

  /** Field checks, then capacity, then uniqueness (docs/engine.md, Market administration). */
  private marketInputRefusal(m: MarketInput): Refusal | null {
    const invalid = marketShapeError(m)
    if (invalid !== null) return refuse(Code.MARKET_INVALID, { field: invalid })
    if (this.markets.length >= MARKETS_MAX) return refuse(Code.MARKETS_FULL, { max: MARKETS_MAX })
    const taken = this.takenMarketField(m)
    if (taken !== null) return refuse(Code.MARKET_EXISTS, { field: taken })
    return null
  }

  private takenMarketField(m: MarketInput): string | null {
    const has = (f: (x: MarketInput) => string, v: string): boolean =>
      this.markets.some((x) => f(x.input) === v)
    if (has((x) => x.marketId, m.marketId)) return 'marketId'
    if (has((x) => x.conditionId, m.conditionId)) return 'conditionId'
    if (has((x) => x.slug, m.slug)) return 'slug'
    if (this.tokens.has(m.yesTokenId)) return 'yesTokenId'
    if (this.tokens.has(m.noTokenId)) return 'noTokenId'
    return null
  }

  private setMarketStatus(c: SetMarketStatus, step: Step): CommandResult {
    const market = this.findMarket(c.marketId)
    if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    // The current status again is accepted and does nothing, even Resolved (unlike a second
    // resolveMarket).
    if (market.status === c.status) return DONE
    if (!TRANSITIONS[market.status].includes(c.status)) {
      return rejection(refuse(Code.MARKET_STATUS_TRANSITION, { from: market.status, to: c.status }))
    }
    // Closing or moving to Resolving cancels the open orders first, then marketUpdated.
    if (c.status === 'Closed' || c.status === 'Resolving') this.cancelMarket(market, 'market-closed', step)
    market.status = c.status
    this.emitMarketUpdated(market, step)
    return DONE
  }

  private setTickSize(c: SetTickSize, step: Step): CommandResult {
    const market = this.findMarket(c.marketId)
    if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    if (!isTick(c.tickSizeMicros)) {
      return rejection(refuse(Code.MARKET_TICK_SIZE_INVALID, { tickSizeMicros: c.tickSizeMicros }))
    }
    const tickPips = c.tickSizeMicros / MICROS_PER_PIP
    if (tickPips === market.tickPips) return DONE
    const offGrid = this.live.some((o) => o.marketId === c.marketId && o.pips % tickPips !== 0)
    if (offGrid) {
      return rejection(refuse(Code.MARKET_TICK_SIZE_OFF_GRID, { tickSizeMicros: c.tickSizeMicros }))
    }
    market.tickPips = tickPips
    this.emitMarketUpdated(market, step)
    return DONE
  }

  private setFeeRate(c: SetFeeRate, step: Step): CommandResult {
    const market = this.findMarket(c.marketId)
    if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    if (!isFeeRate(c.feeRateBps)) {
      return rejection(refuse(Code.MARKET_FEE_RATE_INVALID, { feeRateBps: c.feeRateBps }))
    }
    if (c.feeRateBps === market.feeRateBps) return DONE
    market.feeRateBps = c.feeRateBps
    this.emitMarketUpdated(market, step)
    return DONE
  }

  private resolveMarket(c: ResolveMarket, step: Step): CommandResult {
    const market = this.findMarket(c.marketId)
    if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    if (c.outcome !== 'Yes' && c.outcome !== 'No') {
      return rejection(refuse(Code.MARKET_INVALID, { field: 'outcome' }))
    }
    if (market.status === 'Resolved') {
      return rejection(refuse(Code.MARKET_STATUS_TRANSITION, { from: 'Resolved', to: 'Resolved' }))
    }
    this.cancelMarket(market, 'market-resolved', step)
    market.status = 'Resolved'
    market.winningOutcome = c.outcome
    market.resolvedMs = this.timeMs
    this.emitMarketUpdated(market, step)
    return DONE
  }

  private cancelMarket(market: MarketState, reason: CancelReason, step: Step): void {
    const targets = this.live.filter((o) => o.marketId === market.input.marketId)
    for (const o of targets) this.end(o, 'CANCELED', reason, step)
  }

  private emitMarketUpdated(market: MarketState, step: Step): void {
    step.events.push({
      type: 'marketUpdated',
      marketId: market.input.marketId,
      status: market.status,
      tickSizeMicros: market.tickPips * MICROS_PER_PIP,
      feeRateBps: market.feeRateBps,
      winningOutcome: market.winningOutcome,
      resolvedMs: market.resolvedMs,
    })
  }

  // -------------------------------------------------------------------------------------------
  // Ledger
  // -------------------------------------------------------------------------------------------

  // Ledger checks run in the order docs/engine.md lists them; the first failing one decides.

  private credit(c: Credit, step: Step): CommandResult {
    if (!isNonNegativeInt(c.usdcMicros)) return ledgerInvalid('usdcMicros')
    if (!isNonNegativeInt(c.gasMicros)) return ledgerInvalid('gasMicros')
    if (c.usdcMicros === 0 && c.gasMicros === 0) return ledgerInvalid('usdcMicros')
    const account = this.accounts.get(c.address)
    const usdc = BigInt(c.usdcMicros)
    const gas = BigInt(c.gasMicros)
    if ((account?.usdc ?? 0n) + usdc > BigInt(BALANCE_MICROS_MAX)) return balanceLimit(USDC)
    if (this.credited + usdc > BigInt(SUPPLY_MICROS_MAX)) return balanceLimit(USDC)
    // Gas is not USDC: it has a balance cap but no part in the supply.
    if ((account?.gas ?? 0n) + gas > BigInt(BALANCE_MICROS_MAX)) return balanceLimit('GAS')
    // SPEC: gas is not an asset of `balance` events (those name USDC or a token id); it shows
    // only in the ledger event and the summary.
    const a = this.openAccount(c.address)
    a.usdc += usdc
    a.gas += gas
    this.credited += usdc
    step.events.push({
      type: 'ledger',
      action: 'credit',
      address: c.address,
      marketId: '',
      amountMicros: c.usdcMicros,
      payoutMicros: c.gasMicros,
    })
    return DONE
  }

  private approve(c: Approve, step: Step): CommandResult {
    if (!isNonNegativeInt(c.usdcAllowanceMicros)) return ledgerInvalid('usdcAllowanceMicros')
    const allowance = BigInt(c.usdcAllowanceMicros)
    const existing = this.accounts.get(c.address)
    const heldUsdc = this.heldUsdc(c.address)
    if (existing !== undefined && minBig(existing.usdc, allowance) < heldUsdc) {
      return rejection(refuse(Code.LEDGER_ALLOWANCE_BELOW_HOLDS, { asset: USDC, heldMicros: num(heldUsdc) }))
    }
    const heldShares = allowance === 0n ? this.firstHeldToken(c.address) : undefined
    if (heldShares !== undefined) {
      return rejection(refuse(Code.LEDGER_ALLOWANCE_BELOW_HOLDS, {
        asset: heldShares.tokenId,
        heldMicros: num(heldShares.held),
      }))
    }
    const a = this.openAccount(c.address)
    a.allowance = allowance
    a.sharesApproved = allowance > 0n
    step.events.push({
      type: 'allowance',
      address: c.address,
      usdcAllowanceMicros: c.usdcAllowanceMicros,
      sharesApproved: a.sharesApproved,
    })
    return DONE
  }

  private split(c: Split, step: Step): CommandResult {
    const market = this.findMarket(c.marketId)
    if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    if (market.status === 'Resolved') {
      return rejection(refuse(Code.LEDGER_MARKET_RESOLVED, { marketId: c.marketId }))
    }
    if (!isPositiveInt(c.amountMicros)) return ledgerInvalid('amountMicros')
    const amount = BigInt(c.amountMicros)
    const a = this.accounts.get(c.address)
    const free = (a?.usdc ?? 0n) - this.heldUsdc(c.address)
    if (free < amount) return insufficient(USDC, amount, free)
    const account = this.mustAccount(c.address)
    account.usdc -= amount
    addShares(account, market.input.yesTokenId, amount)
    addShares(account, market.input.noTokenId, amount)
    market.collateral += amount
    market.minted += amount
    this.emitLedger(step, 'split', c.address, c.marketId, c.amountMicros, 0)
    return DONE
  }

  private merge(c: Merge, step: Step): CommandResult {
    const market = this.findMarket(c.marketId)
    if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    if (!isPositiveInt(c.amountMicros)) return ledgerInvalid('amountMicros')
    const amount = BigInt(c.amountMicros)
    const a = this.accounts.get(c.address)
    const { yesTokenId, noTokenId } = market.input
    for (const token of [yesTokenId, noTokenId]) {
      const free = (a?.shares.get(token) ?? 0n) - this.heldShares(c.address, token)
      if (free < amount) return insufficient(token, amount, free)
    }
    const account = this.mustAccount(c.address)
    addShares(account, yesTokenId, -amount)
    addShares(account, noTokenId, -amount)
    account.usdc += amount
    market.collateral -= amount
    market.merged += amount
    this.emitLedger(step, 'merge', c.address, c.marketId, c.amountMicros, 0)
    return DONE
  }

  private redeem(c: Redeem, step: Step): CommandResult {
    const market = this.findMarket(c.marketId)
    if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    if (market.status !== 'Resolved') {
      return rejection(refuse(Code.LEDGER_MARKET_NOT_RESOLVED, { marketId: c.marketId, status: market.status }))
    }
    const a = this.accounts.get(c.address)
    const { yesTokenId, noTokenId } = market.input
    const yes = a?.shares.get(yesTokenId) ?? 0n
    const no = a?.shares.get(noTokenId) ?? 0n
    if (a === undefined || yes + no === 0n) {
      return rejection(refuse(Code.LEDGER_NOTHING_TO_REDEEM, { marketId: c.marketId }))
    }
    const payout = market.winningOutcome === 'Yes' ? yes : no
    addShares(a, yesTokenId, -yes)
    addShares(a, noTokenId, -no)
    a.usdc += payout
    market.redeemedYes += yes
    market.redeemedNo += no
    market.collateral -= payout
    this.emitLedger(step, 'redeem', c.address, c.marketId, num(yes + no), num(payout))
    return DONE
  }

  private emitLedger(
    step: Step,
    action: 'split' | 'merge' | 'redeem',
    address: string,
    marketId: string,
    amountMicros: number,
    payoutMicros: number,
  ): void {
    step.events.push({ type: 'ledger', action, address, marketId, amountMicros, payoutMicros })
  }

  // -------------------------------------------------------------------------------------------
  // Relay: shape, deadline, nonce, then the action as its own command; the nonce moves on success
  // -------------------------------------------------------------------------------------------

  private relay(c: Relay, step: Step): CommandResult {
    if (!isNonNegativeInt(c.nonce)) return relayInvalid('nonce')
    if (!isNonNegativeInt(c.deadlineSec)) return relayInvalid('deadlineSec')
    const raw: unknown = c.action
    const kind = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).kind : undefined
    if (kind !== 'approve' && kind !== 'split' && kind !== 'merge' && kind !== 'redeem') return relayInvalid('action')
    // "timeMs > deadlineSec * 1000" in exact integers: the instant of the deadline itself is in time.
    const now = BigInt(this.timeMs)
    if (now > BigInt(c.deadlineSec) * 1000n) {
      return rejection(refuse(Code.RELAY_DEADLINE_PASSED, { deadlineSec: c.deadlineSec, nowSec: num(now / 1000n) }))
    }
    const owner = c.action.address
    const expected = this.accounts.get(owner)?.relayNonce ?? 0
    if (c.nonce !== expected) return rejection(refuse(Code.RELAY_NONCE_MISMATCH, { expected, nonce: c.nonce }))
    const inner = { ...c.action, seq: c.seq, timeMs: c.timeMs }
    let result: CommandResult
    switch (inner.kind) {
      case 'approve':
        result = this.approve(inner, step)
        break
      case 'split':
        result = this.split(inner, step)
        break
      case 'merge':
        result = this.merge(inner, step)
        break
      case 'redeem':
        result = this.redeem(inner, step)
        break
    }
    // A refused action left everything as it was, the nonce included.
    if (result.ok) this.mustAccount(owner).relayNonce += 1
    return result
  }

  // -------------------------------------------------------------------------------------------
  // API keys
  // -------------------------------------------------------------------------------------------

  private registerApiKey(c: RegisterApiKey, step: Step): CommandResult {
    const fields: readonly (readonly [string, boolean])[] = [
      ['apiKey', isId(c.apiKey)],
      ['address', isId(c.address)],
      ['secret', isId(c.secret)],
      ['passphrase', isId(c.passphrase)],
      ['nonce', isNonNegativeInt(c.nonce)],
    ]
    const bad = fields.find(([, ok]) => !ok)
    if (bad !== undefined) return rejection(refuse(Code.API_KEY_INVALID, { field: bad[0] }))
    // SPEC: a revoked key is forgotten (revoking "frees the (address, nonce) slot"), so it is
    // not "a known apiKey" and may be registered again.
    if (this.apiKeys.has(c.apiKey)) return rejection(refuse(Code.API_KEY_EXISTS, { field: 'apiKey' }))
    const slotTaken = [...this.apiKeys.values()].some((k) => k.address === c.address && k.nonce === c.nonce)
    if (slotTaken) return rejection(refuse(Code.API_KEY_EXISTS, { field: 'nonce' }))
    this.apiKeys.set(c.apiKey, { address: c.address, nonce: c.nonce })
    step.events.push({ type: 'apiKey', action: 'registered', apiKey: c.apiKey, address: c.address, nonce: c.nonce })
    return DONE
  }

  private revokeApiKey(c: RevokeApiKey, step: Step): CommandResult {
    const k = this.apiKeys.get(c.apiKey)
    if (k === undefined) return rejection(refuse(Code.API_KEY_NOT_FOUND, null))
    this.apiKeys.delete(c.apiKey)
    step.events.push({ type: 'apiKey', action: 'revoked', apiKey: c.apiKey, address: k.address, nonce: k.nonce })
    return DONE
  }

  // -------------------------------------------------------------------------------------------
  // Accounts and holds (holds are always derived from the open orders)
  // -------------------------------------------------------------------------------------------

  private openAccount(address: string): AccountState {
    let a = this.accounts.get(address)
    if (a === undefined) {
      a = { usdc: 0n, allowance: 0n, sharesApproved: false, gas: 0n, relayNonce: 0, shares: new Map() }
      this.accounts.set(address, a)
    }
    return a
  }

  /** An account that must exist (it has funds that an accepted operation moves). */
  private mustAccount(address: string): AccountState {
    const a = this.accounts.get(address)
    if (a === undefined) throw new Error(`reference: account ${address} should exist`)
    return a
  }

  private heldUsdc(address: string): bigint {
    return this.live
      .filter((o) => o.input.maker === address && o.input.side === 'BUY')
      .reduce((sum, o) => sum + BigInt(o.pips) * BigInt(o.lots), 0n)
  }

  private heldShares(address: string, tokenId: string): bigint {
    return this.live
      .filter((o) => o.input.maker === address && o.input.side === 'SELL' && o.input.tokenId === tokenId)
      .reduce((sum, o) => sum + BigInt(o.lots) * LOT, 0n)
  }

  /** The first token, in market order (Yes before No), in which `address` holds shares. */
  private firstHeldToken(address: string): { tokenId: string; held: bigint } | undefined {
    for (const m of this.markets) {
      for (const tokenId of [m.input.yesTokenId, m.input.noTokenId]) {
        const held = this.heldShares(address, tokenId)
        if (held > 0n) return { tokenId, held }
      }
    }
    return undefined
  }

  /** All holds in one pass: (address, asset) -> held. */
  private holds(): Table<string, bigint> {
    const held = new Table<string, bigint>()
    for (const o of this.live) {
      const asset = o.input.side === 'BUY' ? USDC : o.input.tokenId
      const amount = o.input.side === 'BUY' ? BigInt(o.pips) * BigInt(o.lots) : BigInt(o.lots) * LOT
      held.set(o.input.maker, asset, (held.get(o.input.maker, asset) ?? 0n) + amount)
    }
    return held
  }

  // -------------------------------------------------------------------------------------------
  // Aggregated events: full copies before, diffed against after
  // -------------------------------------------------------------------------------------------

  /** Every (address, asset) with its balance and hold. */
  private balanceRows(): Table<string, BalanceRow> {
    const holds = this.holds()
    const rows = new Table<string, BalanceRow>()
    const put = (address: string, asset: string, balance: bigint): void => {
      rows.set(address, asset, { address, asset, balance, held: holds.get(address, asset) ?? 0n })
    }
    for (const [address, a] of this.accounts) {
      put(address, USDC, a.usdc)
      for (const [token, balance] of a.shares) put(address, token, balance)
    }
    // Holds of an asset the account has no balance entry for (cannot happen, but be complete).
    for (const [address, asset] of holds.keys()) {
      if (rows.get(address, asset) === undefined) put(address, asset, 0n)
    }
    return rows
  }

  private balanceChanges(before: Table<string, BalanceRow>, after: Table<string, BalanceRow>): Balance[] {
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
  private levelRows(): Table<number, LevelRow> {
    const rows = new Table<number, LevelRow>()
    for (const o of this.live) {
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

  private levelChanges(before: Table<number, LevelRow>, after: Table<number, LevelRow>): BookLevel[] {
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

  // -------------------------------------------------------------------------------------------
  // Summary
  // -------------------------------------------------------------------------------------------

  summary(): StateSummary {
    return {
      seq: this.seq,
      timeMs: this.timeMs,
      creditedMicros: num(this.credited),
      feesMicros: num(this.fees),
      accounts: [...this.accounts.keys()].sort(compareStrings).map((a) => this.accountSummary(a)),
      openOrders: this.live.map(openOrderSummary),
      markets: this.markets.map(marketSummary),
      orderStatuses: [...this.orders.values()]
        .map((o) => ({ orderId: o.input.orderId, status: o.status }))
        .sort((x, y) => compareStrings(x.orderId, y.orderId)),
    }
  }

  private accountSummary(address: string): AccountSummary {
    const a = this.mustAccount(address)
    const tokens = new Set<string>(a.shares.keys())
    for (const o of this.live) {
      if (o.input.maker === address && o.input.side === 'SELL') tokens.add(o.input.tokenId)
    }
    const shares = [...tokens]
      .sort(compareStrings)
      .map((tokenId) => ({
        tokenId,
        balanceMicros: num(a.shares.get(tokenId) ?? 0n),
        heldMicros: num(this.heldShares(address, tokenId)),
      }))
      .filter((s) => s.balanceMicros !== 0 || s.heldMicros !== 0)
    return {
      address,
      usdcMicros: num(a.usdc),
      usdcHeldMicros: num(this.heldUsdc(address)),
      usdcAllowanceMicros: num(a.allowance),
      sharesApproved: a.sharesApproved,
      gasMicros: num(a.gas),
      relayNonce: a.relayNonce,
      shares,
    }
  }

  private findMarket(marketId: string): MarketState | undefined {
    return this.markets.find((m) => m.input.marketId === marketId)
  }

  private marketOf(marketId: string): MarketState {
    const m = this.findMarket(marketId)
    if (m === undefined) throw new Error(`reference: token of unknown market ${marketId}`)
    return m
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers that need no model state
// ---------------------------------------------------------------------------------------------

/** Yes-space side: BUY Yes and SELL No are bids; SELL Yes and BUY No are asks. */
function isBid(side: Side, outcome: Outcome): boolean {
  return (side === 'BUY') === (outcome === 'Yes')
}

/** Steps 10, 12 and 13 for a resting order: lots, whole pips on the tick grid, min size. */
function restingTerms(input: OrderInput, market: MarketState): Refusal | { refused: false; pips: number; lots: number } {
  const buy = input.side === 'BUY'
  const shareField = buy ? 'takerAmountMicros' : 'makerAmountMicros'
  const shareAmount = buy ? input.takerAmountMicros : input.makerAmountMicros
  const cashAmount = buy ? input.makerAmountMicros : input.takerAmountMicros
  if (shareAmount % MICROS_PER_LOT !== 0) {
    return refuse(Code.INVALID_ORDER_AMOUNTS, { field: shareField, lotMicros: MICROS_PER_LOT })
  }
  const lots = shareAmount / MICROS_PER_LOT
  const tickSizeMicros = market.tickPips * MICROS_PER_PIP
  if (cashAmount % lots !== 0 || (cashAmount / lots) % market.tickPips !== 0) {
    return refuse(Code.INVALID_ORDER_MIN_TICK_SIZE, { tickSizeMicros })
  }
  if (lots * MICROS_PER_LOT < market.input.minOrderSizeMicros) {
    return refuse(Code.INVALID_ORDER_MIN_SIZE, {
      sizeMicros: lots * MICROS_PER_LOT,
      minOrderSizeMicros: market.input.minOrderSizeMicros,
    })
  }
  return { refused: false, pips: cashAmount / lots, lots }
}

/** Steps 10, 12 and 13 for an immediate order: lots (SELL), a usable limit, a usable budget. */
function immediateTerms(input: OrderInput): Refusal | { refused: false; pips: number; lots: number } {
  const ma = BigInt(input.makerAmountMicros)
  const ta = BigInt(input.takerAmountMicros)
  if (input.side === 'SELL') {
    if (input.makerAmountMicros % MICROS_PER_LOT !== 0) {
      return refuse(Code.INVALID_ORDER_AMOUNTS, { field: 'makerAmountMicros', lotMicros: MICROS_PER_LOT })
    }
    const pips = num(ceilDiv(ta * UNIT_PIPS, ma))
    if (pips >= PIPS_PER_UNIT) return refuse(Code.INVALID_ORDER_PRICE, null)
    return { refused: false, pips, lots: input.makerAmountMicros / MICROS_PER_LOT }
  }
  const pips = num((ma * UNIT_PIPS) / ta)
  if (pips < 1) return refuse(Code.INVALID_ORDER_PRICE, null)
  if (ma < BigInt(pips)) {
    return refuse(Code.INVALID_ORDER_MIN_SIZE, { budgetMicros: input.makerAmountMicros, minBudgetMicros: pips })
  }
  return { refused: false, pips, lots: 0 }
}

/**
 * The FOK dry run: the walk over `makers` (the eligible ones, the taker's own among them, in walk
 * order) without changing anything; whether it would end with the taker filled.
 * SPEC: it walks the makers the walk would meet ("the dry run walks the same makers"): the walk's
 * fills count in the groups' windows (`windowNow` is each group's before the walk), and a group
 * they bring to a limit triggers and pulls its resting orders, which the walk then never meets;
 * so the dry run skips them too. A FOK that would fill only with quotes a trigger pulls on its way
 * is not filled entirely: refused, never half filled.
 */
function dryRunFills(
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

/** The lots and notional micro-USDC of a group's window. */
interface WindowSums {
  readonly lots: bigint
  readonly notional: bigint
}

/** Whether a fill in `bucket` is in a group's window at `now` (a bucket): the last windowMs / 100 buckets up to now's. */
function inWindow(g: GroupState, bucket: number, now: number): boolean {
  return bucket > now - g.windowMs / ORDER_GROUP_BUCKET_MS && bucket <= now
}

/** A group's window at bucket `now`. */
function windowSums(g: GroupState, now: number): WindowSums {
  let lots = 0n
  let notional = 0n
  for (const f of g.fills) {
    if (!inWindow(g, f.bucket, now)) continue
    lots += f.lots
    notional += f.notional
  }
  return { lots, notional }
}

/** Whether a window reaches one of the group's limits (0: no such limit); micro-shares are lots x 10 000. */
function reachesLimit(g: GroupState, w: WindowSums): boolean {
  return (g.contractsLimitMicros > 0 && w.lots * LOT >= BigInt(g.contractsLimitMicros)) ||
    (g.notionalLimitMicros > 0 && w.notional >= BigInt(g.notionalLimitMicros))
}

/**
 * The first unacceptable limit of a create or update, or null: each limit a whole number of
 * micro-units, at least one of them not 0; a window of 1 to 60 s in whole buckets; a freeze of 0
 * to an hour. SPEC: a limit is bounded as an order's amount is (ORDER_AMOUNT_MICROS_MAX: the docs
 * give no bound, and no fill can pass that); a contracts limit need not be a whole number of lots
 * (the window reaches it at the first lot at or above it). Neither limit is a limit when 0, so
 * both 0 names the first field.
 */
function limitsError(c: OrderGroupCommand): string | null {
  const isLimit = (v: unknown): boolean => isNonNegativeInt(v) && (v as number) <= ORDER_AMOUNT_MICROS_MAX
  if (!isLimit(c.contractsLimitMicros)) return 'contractsLimitMicros'
  if (!isLimit(c.notionalLimitMicros)) return 'notionalLimitMicros'
  if (c.contractsLimitMicros === 0 && c.notionalLimitMicros === 0) return 'contractsLimitMicros'
  const w: unknown = c.windowMs
  if (!isNonNegativeInt(w) || (w as number) < ORDER_GROUP_WINDOW_MS_MIN || (w as number) > ORDER_GROUP_WINDOW_MS_MAX ||
    (w as number) % ORDER_GROUP_BUCKET_MS !== 0) return 'windowMs'
  if (!isNonNegativeInt(c.freezeMs) || c.freezeMs > ORDER_GROUP_FREEZE_MS_MAX) return 'freezeMs'
  return null
}

function groupInvalid(field: string): Rejection {
  return rejection(refuse(Code.ORDER_GROUP_INVALID, { field }))
}

/**
 * The FAK check: whether the walk would match anything. With cancel-maker it cancels its own
 * orders and goes on, so any other account's eligible order is a match; with cancel-taker or
 * cancel-both it stops at the first of its own, so the first eligible order must be another's.
 * (The walk meets that first order: a FAK passed its size checks, so it can take a lot at any
 * level its limit reaches. Order groups change nothing here: a trigger follows a fill, so it never
 * pulls a FAK's first match.)
 */
function hasMatch(input: OrderInput, makers: readonly OrderState[], mode: SelfTradeMode): boolean {
  const firstOther = makers.findIndex((m) => m.input.maker !== input.maker)
  return mode === 'cancel-maker' ? firstOther >= 0 : firstOther === 0
}

/** What one fill of `x` lots moves (docs/engine.md, Matching, steps 2 to 4). */
interface FillTerms {
  readonly matchType: MatchType
  /** The taker's native price at the maker's level, in pips. */
  readonly tp: bigint
  readonly shares: bigint
  readonly takerCash: bigint
  readonly makerCash: bigint
  readonly fee: bigint
}

function fillTerms(t: Taker, m: OrderState, x: number): FillTerms {
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

function tradeEvent(tradeId: string, t: Taker, m: OrderState, f: FillTerms, timeMs: number): Trade {
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

function addShares(account: AccountState, tokenId: string, delta: bigint): void {
  const next = (account.shares.get(tokenId) ?? 0n) + delta
  if (next < 0n) throw new Error(`reference: negative share balance of ${tokenId}`)
  // A zero balance is no entry, so state does not grow with every token ever held.
  if (next === 0n) account.shares.delete(tokenId)
  else account.shares.set(tokenId, next)
}

function isTick(tickSizeMicros: unknown): boolean {
  return TICK_PIPS_ALLOWED.some((t) => t * MICROS_PER_PIP === tickSizeMicros)
}

function isFeeRate(rate: unknown): boolean {
  return typeof rate === 'number' && Number.isSafeInteger(rate) && rate >= 0 && rate <= FEE_RATE_BPS_MAX
}

function ledgerInvalid(field: string): Rejection {
  return rejection(refuse(Code.LEDGER_AMOUNT_INVALID, { field }))
}

function relayInvalid(field: string): Rejection {
  return rejection(refuse(Code.RELAY_INVALID, { field }))
}

function balanceLimit(asset: string): Rejection {
  return rejection(refuse(Code.LEDGER_BALANCE_LIMIT, { asset }))
}

function insufficient(asset: string, required: bigint, available: bigint): Rejection {
  return rejection(refuse(Code.LEDGER_INSUFFICIENT_BALANCE, {
    asset,
    requiredMicros: num(required),
    availableMicros: num(available),
  }))
}

/** The first malformed field of a new market, in the order docs/engine.md checks them. */
function marketShapeError(m: MarketInput): string | null {
  const checks: readonly (readonly [string, () => boolean])[] = [
    ['marketId', () => isId(m.marketId)],
    ['conditionId', () => isId(m.conditionId)],
    ['question', () => isText(m.question) && m.question.length > 0],
    ['slug', () => isId(m.slug)],
    ['description', () => isText(m.description)],
    ['yesTokenId', () => isId(m.yesTokenId)],
    ['noTokenId', () => isId(m.noTokenId) && m.noTokenId !== m.yesTokenId],
    ['tickSizeMicros', () => isTick(m.tickSizeMicros)],
    ['minOrderSizeMicros', () => isNonNegativeInt(m.minOrderSizeMicros) &&
      m.minOrderSizeMicros % MICROS_PER_LOT === 0 && m.minOrderSizeMicros <= ORDER_AMOUNT_MICROS_MAX],
    ['feeRateBps', () => isFeeRate(m.feeRateBps)],
    ['negRisk', () => typeof m.negRisk === 'boolean'],
    ['endDateMs', () => isNonNegativeInt(m.endDateMs)],
    ['status', () => m.status === 'Active' || m.status === 'Upcoming'],
  ]
  return checks.find(([, ok]) => !ok())?.[0] ?? null
}

function marketRecord(m: MarketState): MarketRecord {
  const i = m.input
  return {
    marketId: i.marketId,
    conditionId: i.conditionId,
    question: i.question,
    slug: i.slug,
    description: i.description,
    yesTokenId: i.yesTokenId,
    noTokenId: i.noTokenId,
    tickSizeMicros: m.tickPips * MICROS_PER_PIP,
    minOrderSizeMicros: i.minOrderSizeMicros,
    feeRateBps: m.feeRateBps,
    negRisk: i.negRisk,
    endDateMs: i.endDateMs,
    status: m.status,
    createdMs: m.createdMs,
    winningOutcome: m.winningOutcome,
    resolvedMs: m.resolvedMs,
  }
}

function marketSummary(m: MarketState): MarketSummary {
  return {
    marketId: m.input.marketId,
    status: m.status,
    tickSizeMicros: m.tickPips * MICROS_PER_PIP,
    feeRateBps: m.feeRateBps,
    winningOutcome: m.winningOutcome,
    collateralMicros: num(m.collateral),
    mintedMicros: num(m.minted),
    mergedMicros: num(m.merged),
    redeemedYesMicros: num(m.redeemedYes),
    redeemedNoMicros: num(m.redeemedNo),
  }
}

function openOrderSummary(o: OrderState): OpenOrderSummary {
  const buy = o.input.side === 'BUY'
  return {
    orderNumber: o.number,
    orderId: o.input.orderId,
    maker: o.input.maker,
    tokenId: o.input.tokenId,
    side: o.input.side,
    timeInForce: o.input.timeInForce,
    priceMicros: o.pips * MICROS_PER_PIP,
    remainingMicros: o.lots * MICROS_PER_LOT,
    sizeMatchedMicros: o.matchedLots * MICROS_PER_LOT,
    heldMicros: num(buy ? BigInt(o.pips) * BigInt(o.lots) : BigInt(o.lots) * LOT),
  }
}
