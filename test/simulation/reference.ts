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
 * Accounts (summary().accounts): an account exists once an accepted `credit` or `approve` names
 * its address. Every other operation that changes an account needs a balance or an allowance
 * first, so these are the only two ways to appear; rejected commands and cancels create nothing.
 *
 * Points where docs/engine.md leaves a choice open are marked `// SPEC:` with the reading taken.
 */
import type {
  Approve,
  CancelMarketOrders,
  Command,
  CreateMarket,
  Credit,
  MarketInput,
  MarketStatus,
  Merge,
  OrderInput,
  Outcome,
  Redeem,
  RegisterApiKey,
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
  OrderStatus,
} from '../../src/engine/event.js'
import type {
  Canceled,
  CommandResult,
  ContextValue,
  NotCanceled,
  OrderPlaced,
  OrderRejection,
  PlaceResult,
  Rejection,
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
  FEE_RATE_BPS_MAX,
  GTD_MARGIN_MS,
  ID_LENGTH_MAX,
  MARKETS_MAX,
  MICROS_PER_LOT,
  MICROS_PER_PIP,
  ORDER_AMOUNT_MICROS_MAX,
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
}

interface AccountState {
  usdc: bigint
  allowance: bigint
  sharesApproved: boolean
  gas: bigint
  /** Token id -> share balance. */
  readonly shares: Map<string, bigint>
}

interface ApiKeyState {
  readonly address: string
  readonly nonce: number
}

type Context = Readonly<Record<string, ContextValue>> | null

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
  ['feeRateBps', isNonNegativeInt],
  ['postOnly', (v) => typeof v === 'boolean'],
]

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

function key(...parts: readonly (string | number)[]): string {
  return parts.join('\u0000')
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
  private gasCredited = 0n
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

  apply(command: Command): { result: CommandResult; events: EngineEvent[] } {
    this.checkStamp(command)
    const balancesBefore = this.balanceRows()
    const booksBefore = this.levelRows()
    const step: Step = { events: [], trades: 0 }
    this.expire(step)
    const result = this.execute(command, step)
    step.events.push(...this.balanceChanges(balancesBefore), ...this.levelChanges(booksBefore))
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
    const field = shapeError(input)
    if (field !== null) return refuse(Code.INVALID_ORDER_PAYLOAD, { field })
    const prior = this.orders.get(input.orderId)
    if (prior !== undefined) {
      return refuse(Code.INVALID_ORDER_DUPLICATED, { orderId: input.orderId, status: prior.status })
    }
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
    if (input.feeRateBps !== market.feeRateBps) {
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

  /** Steps 10 to 18 (11 no longer exists: step 8 bounds the lots). */
  private priceAndSize(input: OrderInput, market: MarketState, outcome: Outcome): Refusal | Plan {
    const terms = isImmediate(input) ? immediateTerms(input) : restingTerms(input, market)
    if (terms.refused) return terms
    const plan: Plan = {
      refused: false,
      market,
      outcome,
      immediate: isImmediate(input),
      pips: terms.pips,
      lots: terms.lots,
    }
    return this.balanceRefusal(input, plan) ?? this.bookRefusal(input, plan) ?? plan
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
    const others = this.eligibleMakers(plan.market.input.marketId, bid, yesPips)
      .filter((m) => m.input.maker !== input.maker)
    if (input.timeInForce === 'FOK' && !dryRunFills(input, plan, others)) {
      return refuse(Code.FOK_ORDER_NOT_FILLED, null)
    }
    if (input.timeInForce === 'FAK' && others.length === 0) {
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
    if (verdict.refused) {
      const orderId = rawString(input, 'orderId')
      step.events.push({
        type: 'orderRejected',
        orderId,
        maker: rawString(input, 'maker'),
        code: verdict.code,
        message: CODE_MESSAGES[verdict.code],
      })
      const result: OrderRejection = { ...rejection(verdict), orderId }
      return result
    }
    return this.accept(input, verdict, step)
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
      timeMs: this.timeMs,
    })
    const budgetCounted = plan.immediate && input.side === 'BUY'
    const taker: Taker = {
      order,
      market: plan.market,
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
      // SPEC: a lot-counted taker stops as soon as it has no lots left, so it never looks at
      // (and never self-trade-cancels) a maker after its last fill. A budget-counted taker has
      // no such test: it stops only at a level beyond its limit or at a fill of 0 lots, after
      // step 1 (self-trade) has run for that maker, as the numbered steps say.
      if (!t.budgetCounted && t.lots === 0) return
      const m = this.bestMaker(t.order.marketId, t.order.bid)
      if (m === undefined || !reaches(t.order.bid, t.order.yesPips, m.yesPips)) return
      if (m.input.maker === t.order.input.maker) {
        this.end(m, 'CANCELED', 'self-trade', step)
        continue
      }
      const tp = nativePips(t.order.outcome, m.yesPips)
      const x = t.budgetCounted
        ? Math.min(m.lots, num(t.budget / BigInt(tp)))
        : Math.min(m.lots, t.lots)
      if (x === 0) return
      this.fill(t, m, x, step)
    }
  }

  /** One fill of `x` lots between taker `t` and maker `m`, at the maker's level. */
  private fill(t: Taker, m: OrderState, x: number, step: Step): void {
    const market = t.market
    const T = t.order.input
    const M = m.input
    const tp = BigInt(nativePips(t.order.outcome, m.yesPips))
    const mp = BigInt(m.pips)
    const lots = BigInt(x)
    const shares = lots * LOT
    const matchType: MatchType = T.tokenId === M.tokenId ? 'normal' : T.side === 'BUY' ? 'mint' : 'merge'
    const feeBase = BigInt(Math.min(m.yesPips, PIPS_PER_UNIT - m.yesPips))
    const fee = (BigInt(market.feeRateBps) * feeBase * lots) / UNIT_PIPS
    const takerCash = tp * lots
    const makerCash = mp * lots

    // Each side pays or receives its own native price; for a normal match tp == mp, so this is
    // a transfer; for mint/merge tp + mp == 1 USDC, which is the full set made or unmade.
    const taker = this.mustAccount(T.maker)
    const maker = this.mustAccount(M.maker)
    if (T.side === 'BUY') {
      taker.usdc -= takerCash + fee
      addShares(taker, T.tokenId, shares)
    } else {
      addShares(taker, T.tokenId, -shares)
      taker.usdc += takerCash - fee
    }
    if (M.side === 'BUY') {
      maker.usdc -= makerCash
      addShares(maker, M.tokenId, shares)
    } else {
      addShares(maker, M.tokenId, -shares)
      maker.usdc += makerCash
    }
    if (matchType === 'mint') {
      market.collateral += shares
      market.minted += shares
    } else if (matchType === 'merge') {
      market.collateral -= shares
      market.merged += shares
    }
    this.fees += fee

    const tradeId = tradeIdOf(this.seq, step.trades++)
    step.events.push({
      type: 'trade',
      tradeId,
      marketId: market.input.marketId,
      matchType,
      takerOrderId: T.orderId,
      takerAddress: T.maker,
      takerOwner: T.owner,
      tokenId: T.tokenId,
      outcome: t.order.outcome,
      side: T.side,
      priceMicros: num(tp) * MICROS_PER_PIP,
      sizeMicros: num(shares),
      feeMicros: num(fee),
      feeRateBps: market.feeRateBps,
      makerOrderId: M.orderId,
      makerAddress: M.maker,
      makerOwner: M.owner,
      makerTokenId: M.tokenId,
      makerOutcome: m.outcome,
      makerSide: M.side,
      makerPriceMicros: m.pips * MICROS_PER_PIP,
      timeMs: this.timeMs,
    })

    m.matchedLots += x
    m.lots -= x
    if (m.lots === 0) this.end(m, 'MATCHED', null, step)
    else this.emitUpdate(m, step, null)

    t.order.matchedLots += x
    if (t.budgetCounted) t.budget -= takerCash
    else t.lots -= x
    t.making += T.side === 'BUY' ? takerCash : shares
    t.taking += T.side === 'BUY' ? shares : takerCash
    t.fee += fee
    t.tradeIds.push(tradeId)
  }

  /** End of the walk: rest, or end the taker, and emit its final update. */
  private finish(t: Taker, step: Step): void {
    const o = t.order
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
    const filled = t.budgetCounted ? t.budget < BigInt(o.pips) : t.lots === 0
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
      const o = this.orders.get(id)
      // SPEC: "an ended order of this account" uses the same test as cancelling: the address is
      // the order's maker or its signer.
      if (o === undefined || (o.input.maker !== address && o.input.signer !== address)) {
        notCanceled.push({ orderId: id, reason: CODE_MESSAGES.ORDER_NOT_FOUND })
      } else if (o.status === 'LIVE') {
        this.end(o, 'CANCELED', 'owner', step)
        canceled.push(id)
      } else {
        const code = o.status === 'MATCHED' ? Code.ORDER_ALREADY_MATCHED : Code.ORDER_ALREADY_CANCELED
        notCanceled.push({ orderId: id, reason: CODE_MESSAGES[code] })
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

  /**
   * SPEC: docs/engine.md does not spell out createMarket's checks. Taken here, in this order:
   * MARKET_INVALID {field} for a malformed field (ids non-empty and at most ID_LENGTH_MAX,
   * texts at most TEXT_LENGTH_MAX, the two token ids distinct, minOrderSizeMicros and endDateMs
   * safe integers >= 0, negRisk boolean, status Active or Upcoming); then
   * MARKET_TICK_SIZE_INVALID {tickSizeMicros}; MARKET_FEE_RATE_INVALID {feeRateBps};
   * MARKET_EXISTS {field} naming the first of marketId, conditionId, slug, yesTokenId,
   * noTokenId already in use (token ids collide across Yes and No); MARKETS_FULL (null).
   */
  private marketInputRefusal(m: MarketInput): Refusal | null {
    const invalid = marketShapeError(m)
    if (invalid !== null) return refuse(Code.MARKET_INVALID, { field: invalid })
    if (!isTick(m.tickSizeMicros)) {
      return refuse(Code.MARKET_TICK_SIZE_INVALID, { tickSizeMicros: m.tickSizeMicros })
    }
    if (!isFeeRate(m.feeRateBps)) {
      return refuse(Code.MARKET_FEE_RATE_INVALID, { feeRateBps: m.feeRateBps })
    }
    const taken = this.takenMarketField(m)
    if (taken !== null) return refuse(Code.MARKET_EXISTS, { field: taken })
    if (this.markets.length >= MARKETS_MAX) return refuse(Code.MARKETS_FULL, null)
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
    // SPEC: "setting the current status again" is checked first, so even Resolved -> Resolved
    // through setMarketStatus is an accepted no-op.
    if (market.status === c.status) return DONE
    if (!TRANSITIONS[market.status].includes(c.status)) {
      return rejection(refuse(Code.MARKET_STATUS_TRANSITION, { from: market.status, to: c.status }))
    }
    market.status = c.status
    this.emitMarketUpdated(market, step)
    // SPEC: the marketUpdated event comes first, then the cancels it causes. Entering Resolving
    // through setMarketStatus cancels with reason market-closed (market-resolved is for
    // resolveMarket only).
    if (c.status === 'Closed' || c.status === 'Resolving') this.cancelMarket(market, 'market-closed', step)
    return DONE
  }

  private setTickSize(c: SetTickSize, step: Step): CommandResult {
    // SPEC: an unknown market is checked before the tick's validity (as for every market
    // command here); MARKET_TICK_SIZE_INVALID and MARKET_TICK_SIZE_OFF_GRID carry
    // {tickSizeMicros}.
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
      // SPEC: an outcome that is neither Yes nor No → MARKET_INVALID {field: 'outcome'}.
      return rejection(refuse(Code.MARKET_INVALID, { field: 'outcome' }))
    }
    if (market.status === 'Resolved') {
      return rejection(refuse(Code.MARKET_STATUS_TRANSITION, { from: 'Resolved', to: 'Resolved' }))
    }
    market.status = 'Resolved'
    market.winningOutcome = c.outcome
    market.resolvedMs = this.timeMs
    this.emitMarketUpdated(market, step)
    this.cancelMarket(market, 'market-resolved', step)
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
    })
  }

  // -------------------------------------------------------------------------------------------
  // Ledger
  // -------------------------------------------------------------------------------------------

  private credit(c: Credit, step: Step): CommandResult {
    if (!isNonNegativeInt(c.usdcMicros)) return ledgerInvalid('usdcMicros')
    if (!isNonNegativeInt(c.gasMicros)) return ledgerInvalid('gasMicros')
    // SPEC: "not both 0" names the field usdcMicros.
    if (c.usdcMicros === 0 && c.gasMicros === 0) return ledgerInvalid('usdcMicros')
    const account = this.accounts.get(c.address)
    const usdc = BigInt(c.usdcMicros)
    const gas = BigInt(c.gasMicros)
    // SPEC: both limits apply to both assets: the new balance and the credited total of USDC,
    // then of gas (which has its own credited total, not part of USDC conservation).
    if ((account?.usdc ?? 0n) + usdc > BigInt(BALANCE_MICROS_MAX)) return balanceLimit(USDC)
    if (this.credited + usdc > BigInt(SUPPLY_MICROS_MAX)) return balanceLimit(USDC)
    if ((account?.gas ?? 0n) + gas > BigInt(BALANCE_MICROS_MAX)) return balanceLimit('GAS')
    if (this.gasCredited + gas > BigInt(SUPPLY_MICROS_MAX)) return balanceLimit('GAS')
    const a = this.openAccount(c.address)
    a.usdc += usdc
    a.gas += gas
    this.credited += usdc
    this.gasCredited += gas
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
    const heldUsdc = this.heldUsdc(c.address)
    // SPEC: LEDGER_ALLOWANCE_BELOW_HOLDS carries {asset, heldMicros}: USDC is checked first;
    // for a zero approval with shares held, the asset is the smallest token id that is held.
    if (allowance < heldUsdc) {
      return rejection(refuse(Code.LEDGER_ALLOWANCE_BELOW_HOLDS, { asset: USDC, heldMicros: num(heldUsdc) }))
    }
    if (allowance === 0n) {
      const held = this.sharesHeldBy(c.address)
      if (held !== undefined) {
        return rejection(refuse(Code.LEDGER_ALLOWANCE_BELOW_HOLDS, {
          asset: held.tokenId,
          heldMicros: num(held.held),
        }))
      }
    }
    const a = this.openAccount(c.address)
    a.allowance = allowance
    a.sharesApproved = allowance > 0n
    // SPEC: an approval always emits `allowance`, even when nothing changes.
    step.events.push({
      type: 'allowance',
      address: c.address,
      usdcAllowanceMicros: c.usdcAllowanceMicros,
      sharesApproved: a.sharesApproved,
    })
    return DONE
  }

  /**
   * SPEC (split, merge, redeem): checks run in the order the errors are listed: unknown market,
   * then the amount, then the market status, then the balances, then the balance limit.
   * LEDGER_MARKET_RESOLVED, LEDGER_MARKET_NOT_RESOLVED and LEDGER_NOTHING_TO_REDEEM carry
   * {marketId}; LEDGER_BALANCE_LIMIT names the asset that would overflow.
   */
  private split(c: Split, step: Step): CommandResult {
    const market = this.findMarket(c.marketId)
    if (market === undefined) return rejection(refuse(Code.MARKET_NOT_FOUND, { marketId: c.marketId }))
    if (!isPositiveInt(c.amountMicros)) return ledgerInvalid('amountMicros')
    if (market.status === 'Resolved') {
      return rejection(refuse(Code.LEDGER_MARKET_RESOLVED, { marketId: c.marketId }))
    }
    const amount = BigInt(c.amountMicros)
    const a = this.accounts.get(c.address)
    const free = (a?.usdc ?? 0n) - this.heldUsdc(c.address)
    if (free < amount) return insufficient(USDC, amount, free)
    const { yesTokenId, noTokenId } = market.input
    for (const token of [yesTokenId, noTokenId]) {
      if ((a?.shares.get(token) ?? 0n) + amount > BigInt(BALANCE_MICROS_MAX)) return balanceLimit(token)
    }
    const account = this.mustAccount(c.address)
    account.usdc -= amount
    addShares(account, yesTokenId, amount)
    addShares(account, noTokenId, amount)
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
    if (account.usdc + amount > BigInt(BALANCE_MICROS_MAX)) return balanceLimit(USDC)
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
      return rejection(refuse(Code.LEDGER_MARKET_NOT_RESOLVED, { marketId: c.marketId }))
    }
    const a = this.accounts.get(c.address)
    const { yesTokenId, noTokenId } = market.input
    const yes = a?.shares.get(yesTokenId) ?? 0n
    const no = a?.shares.get(noTokenId) ?? 0n
    if (a === undefined || yes + no === 0n) {
      return rejection(refuse(Code.LEDGER_NOTHING_TO_REDEEM, { marketId: c.marketId }))
    }
    const payout = market.winningOutcome === 'Yes' ? yes : no
    if (a.usdc + payout > BigInt(BALANCE_MICROS_MAX)) return balanceLimit(USDC)
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
  // API keys
  // -------------------------------------------------------------------------------------------

  /**
   * SPEC: docs/engine.md does not detail API keys. Taken here: API_KEY_INVALID {field} unless
   * apiKey, address, secret and passphrase are non-empty strings of at most ID_LENGTH_MAX and
   * nonce a safe integer >= 0 (checked in that order); API_KEY_EXISTS {apiKey} while the key is
   * registered; API_KEY_NOT_FOUND {apiKey} to revoke a key that is not registered. A revoked key
   * is forgotten, so it may be registered again. Keys create no account.
   */
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
    if (this.apiKeys.has(c.apiKey)) return rejection(refuse(Code.API_KEY_EXISTS, { apiKey: c.apiKey }))
    this.apiKeys.set(c.apiKey, { address: c.address, nonce: c.nonce })
    step.events.push({ type: 'apiKey', action: 'registered', apiKey: c.apiKey, address: c.address, nonce: c.nonce })
    return DONE
  }

  private revokeApiKey(c: RevokeApiKey, step: Step): CommandResult {
    const k = this.apiKeys.get(c.apiKey)
    if (k === undefined) return rejection(refuse(Code.API_KEY_NOT_FOUND, { apiKey: c.apiKey }))
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
      a = { usdc: 0n, allowance: 0n, sharesApproved: false, gas: 0n, shares: new Map() }
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

  /** The held shares of `address` in its smallest held token id, if it holds any. */
  private sharesHeldBy(address: string): { tokenId: string; held: bigint } | undefined {
    const tokens = [
      ...new Set(
        this.live
          .filter((o) => o.input.maker === address && o.input.side === 'SELL')
          .map((o) => o.input.tokenId),
      ),
    ].sort(compareStrings)
    const first = tokens[0]
    return first === undefined ? undefined : { tokenId: first, held: this.heldShares(address, first) }
  }

  /** All holds in one pass: (address, asset) -> held. */
  private holds(): Map<string, BalanceRow> {
    const rows = new Map<string, BalanceRow>()
    for (const o of this.live) {
      const asset = o.input.side === 'BUY' ? USDC : o.input.tokenId
      const amount = o.input.side === 'BUY' ? BigInt(o.pips) * BigInt(o.lots) : BigInt(o.lots) * LOT
      const k = key(o.input.maker, asset)
      const prev = rows.get(k)
      rows.set(k, { address: o.input.maker, asset, balance: 0n, held: (prev?.held ?? 0n) + amount })
    }
    return rows
  }

  // -------------------------------------------------------------------------------------------
  // Aggregated events: full copies before, diffed against after
  // -------------------------------------------------------------------------------------------

  /** Every (address, asset) with its balance and hold. */
  private balanceRows(): Map<string, BalanceRow> {
    const holds = this.holds()
    const rows = new Map<string, BalanceRow>()
    const put = (address: string, asset: string, balance: bigint): void => {
      const held = holds.get(key(address, asset))?.held ?? 0n
      rows.set(key(address, asset), { address, asset, balance, held })
    }
    for (const [address, a] of this.accounts) {
      put(address, USDC, a.usdc)
      for (const [token, balance] of a.shares) put(address, token, balance)
    }
    for (const [k, h] of holds) if (!rows.has(k)) rows.set(k, h)
    return rows
  }

  private balanceChanges(before: Map<string, BalanceRow>): Balance[] {
    const after = this.balanceRows()
    const changed: BalanceRow[] = []
    for (const k of new Set([...before.keys(), ...after.keys()])) {
      const b = before.get(k)
      const a = after.get(k)
      const row = a ?? { address: b?.address ?? '', asset: b?.asset ?? '', balance: 0n, held: 0n }
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

  /** Every level of every native book: (token, side, native price) -> size. */
  private levelRows(): Map<string, LevelRow> {
    const rows = new Map<string, LevelRow>()
    for (const o of this.live) {
      const k = key(o.input.tokenId, o.input.side, o.pips)
      const size = (rows.get(k)?.size ?? 0n) + BigInt(o.lots) * LOT
      rows.set(k, { marketId: o.marketId, tokenId: o.input.tokenId, side: o.input.side, pips: o.pips, size })
    }
    return rows
  }

  private levelChanges(before: Map<string, LevelRow>): BookLevel[] {
    const after = this.levelRows()
    const changed: LevelRow[] = []
    for (const k of new Set([...before.keys(), ...after.keys()])) {
      const b = before.get(k)
      const a = after.get(k)
      const size = a?.size ?? 0n
      if ((b?.size ?? 0n) !== size) {
        const row = a ?? b
        if (row !== undefined) changed.push({ ...row, size })
      }
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

/** The FOK dry run over `makers` (already without the taker's own, in walk order). */
function dryRunFills(input: OrderInput, plan: Plan, makers: readonly OrderState[]): boolean {
  if (input.side === 'BUY') {
    let budget = BigInt(input.makerAmountMicros)
    for (const m of makers) {
      const tp = BigInt(nativePips(plan.outcome, m.yesPips))
      const x = minBig(BigInt(m.lots), budget / tp)
      if (x === 0n) break
      budget -= x * tp
    }
    return budget < BigInt(plan.pips)
  }
  let lots = plan.lots
  for (const m of makers) {
    if (lots === 0) break
    lots -= Math.min(m.lots, lots)
  }
  return lots === 0
}

function addShares(account: AccountState, tokenId: string, delta: bigint): void {
  const next = (account.shares.get(tokenId) ?? 0n) + delta
  if (next < 0n) throw new Error(`reference: negative share balance of ${tokenId}`)
  account.shares.set(tokenId, next)
}

function isTick(tickSizeMicros: number): boolean {
  return TICK_PIPS_ALLOWED.some((t) => t * MICROS_PER_PIP === tickSizeMicros)
}

function isFeeRate(rate: number): boolean {
  return Number.isSafeInteger(rate) && rate >= 0 && rate <= FEE_RATE_BPS_MAX
}

function ledgerInvalid(field: string): Rejection {
  return rejection(refuse(Code.LEDGER_AMOUNT_INVALID, { field }))
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

function marketShapeError(m: MarketInput): string | null {
  const checks: readonly (readonly [string, boolean])[] = [
    ['marketId', isId(m.marketId)],
    ['conditionId', isId(m.conditionId)],
    ['question', isText(m.question)],
    ['slug', isId(m.slug)],
    ['description', isText(m.description)],
    ['yesTokenId', isId(m.yesTokenId)],
    ['noTokenId', isId(m.noTokenId) && m.noTokenId !== m.yesTokenId],
    ['minOrderSizeMicros', isNonNegativeInt(m.minOrderSizeMicros)],
    ['negRisk', typeof m.negRisk === 'boolean'],
    ['endDateMs', isNonNegativeInt(m.endDateMs)],
    ['status', m.status === 'Active' || m.status === 'Upcoming'],
  ]
  return checks.find(([, ok]) => !ok)?.[0] ?? null
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
