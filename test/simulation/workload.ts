/**
 * A seeded workload for the engine simulation: an endless, realistic stream of commands that
 * exercises every rule of docs/engine.md. It steers with what the engine answers (`observe`):
 * which orders rest, which ids were accepted, market statuses, balances (the `balance` events
 * are exact, so the workload's view of funds is too). It never decides outcomes itself; it only
 * aims, so its bookkeeping can stay simple.
 *
 * The stream: a setup (markets, API keys, credits, approvals, splits), then a mix dominated by
 * GTC limit orders around a moving mid on both tokens and both sides (so normal, mint and merge
 * matches all happen), with cancels, batches, immediate orders, post-only and GTD orders,
 * self-trades, duplicates, client order ids (a few per API key, so that a live one is often
 * repeated and an ended one reused) and cancels by them, invalid inputs for every validation step, ledger operations (also
 * through the gasless relay: mostly the owner's next nonce before the deadline, sometimes a
 * replayed or future nonce, a passed deadline or a malformed request), admin changes, and every
 * `lifecycleEvery` commands one market is closed, resolved, redeemed and replaced by a fresh one.
 * With `amendsAndReplaces` (the simulation's seeds), also amends (about 3 % of the random mix: of
 * live orders, to a new size or by a reduction, some refused) and cancel-replaces (about 3 %: of
 * live orders by re-quotes, crossing, post-only, immediate or faulty new orders; some of ended,
 * unknown or someone else's orders). With `selfTradeModes` (the simulation's seeds too), orders
 * carry a self-trade prevention mode now and then (about 15 %, a malformed one on 0.5 %), and
 * those aimed at their own account's best order mostly do. With `massQuotes`, also mass quotes
 * (about 2.5 %: a trader re-quotes a small ladder on a market, keeping some of its live quotes
 * there, naming now and then ended or unknown ids; some malformed). With `orderGroups`, also order
 * groups (about 2.5 %: small fill limits, so that fills trigger them often; manual trigger, reset,
 * update, delete; invalid limits and ids, unknown groups; a key filled to its 16), most triggered
 * groups reset a little later, and 30 % of the orders of a key with groups join one of them.
 */
import type {
  Approve,
  Command,
  MarketInput,
  MarketStatus,
  MassQuote,
  Merge,
  OrderGroupAction,
  OrderGroupCommand,
  OrderInput,
  Outcome,
  Redeem,
  Relay,
  RelayAction,
  Split,
  TimeInForce,
} from '../../src/engine/command.js'
import type { EngineEvent, OrderGroupChanged, OrderStatus } from '../../src/engine/event.js'
import type { CommandResult, PlaceResult } from '../../src/engine/result.js'
import { Code } from '../../src/engine/codes.js'
import {
  ALLOWANCE_MICROS_UNLIMITED,
  BALANCE_MICROS_MAX,
  BATCH_ORDERS_MAX,
  CANCEL_IDS_MAX,
  CLIENT_ORDER_ID_LENGTH_MAX,
  FEE_RATE_BPS_MAX,
  GTD_MARGIN_MS,
  ID_LENGTH_MAX,
  MASS_QUOTE_LEVELS_MAX,
  MICROS_PER_LOT,
  MICROS_PER_PIP,
  MICROS_PER_UNIT,
  ORDER_AMOUNT_MICROS_MAX,
  ORDER_GROUP_FREEZE_MS_MAX,
  ORDER_GROUP_ID_LENGTH_MAX,
  ORDER_GROUP_WINDOW_MS_MAX,
  ORDER_GROUP_WINDOW_MS_MIN,
  PIPS_PER_UNIT,
} from '../../src/engine/limits.js'
import { Random } from './random.js'

/** Every rejection code this workload sets out to provoke (the simulation checks each occurs). */
export const TARGETED_CODES: readonly Code[] = [
  Code.INVALID_ORDER_PAYLOAD,
  Code.INVALID_ORDER_AMOUNTS,
  Code.INVALID_ORDER_PRICE,
  Code.INVALID_ORDER_MIN_TICK_SIZE,
  Code.INVALID_ORDER_MIN_SIZE,
  Code.INVALID_ORDER_SIZE_MAX,
  Code.INVALID_ORDER_EXPIRATION,
  Code.INVALID_ORDER_FEE_RATE,
  Code.INVALID_ORDER_DUPLICATED,
  Code.CLIENT_ORDER_ID_DUPLICATED,
  Code.INVALID_ORDER_NOT_ENOUGH_BALANCE,
  Code.INVALID_POST_ONLY_ORDER_TYPE,
  Code.INVALID_POST_ONLY_ORDER,
  Code.FOK_ORDER_NOT_FILLED,
  Code.FAK_ORDER_NOT_FILLED,
  Code.TOKEN_NOT_FOUND,
  Code.MARKET_NOT_READY,
  Code.MARKET_CANCEL_ONLY,
  Code.MARKET_CLOSED,
  Code.BATCH_TOO_LARGE,
  Code.CANCEL_TOO_MANY,
  Code.MARKET_NOT_FOUND,
  Code.MARKET_EXISTS,
  Code.MARKET_INVALID,
  Code.MARKET_STATUS_TRANSITION,
  Code.MARKET_TICK_SIZE_INVALID,
  Code.MARKET_TICK_SIZE_OFF_GRID,
  Code.MARKET_FEE_RATE_INVALID,
  Code.LEDGER_AMOUNT_INVALID,
  Code.LEDGER_BALANCE_LIMIT,
  Code.LEDGER_INSUFFICIENT_BALANCE,
  Code.LEDGER_ALLOWANCE_BELOW_HOLDS,
  Code.LEDGER_MARKET_RESOLVED,
  Code.LEDGER_MARKET_NOT_RESOLVED,
  Code.LEDGER_NOTHING_TO_REDEEM,
  Code.RELAY_INVALID,
  Code.RELAY_DEADLINE_PASSED,
  Code.RELAY_NONCE_MISMATCH,
  Code.API_KEY_EXISTS,
  Code.API_KEY_NOT_FOUND,
  Code.API_KEY_INVALID,
  // With `amendsAndReplaces` only.
  Code.AMEND_SIZE_INVALID,
  Code.AMEND_NOT_REDUCING,
]

/** The codes the workload provokes too with `massQuotes` and `orderGroups` (refusals of commands and of orders). */
export const QUOTE_AND_GROUP_CODES: readonly Code[] = [
  Code.MASS_QUOTE_INVALID,
  Code.MASS_QUOTE_TOO_LARGE,
  Code.ORDER_GROUP_INVALID,
  Code.ORDER_GROUP_NOT_FOUND,
  Code.ORDER_GROUP_EXISTS,
  Code.ORDER_GROUPS_FULL,
  Code.ORDER_GROUP_TRIGGERED,
]

export interface WorkloadOptions {
  readonly seed: number
  /** Trading accounts (default 12); the last one is never approved, to sell unapproved. */
  readonly accounts?: number
  /** Commands between two market lifecycles (close, resolve, redeem, replace); default 5000. */
  readonly lifecycleEvery?: number
  /** Time of the first command, Unix ms (default 1_700_000_000_000). */
  readonly startMs?: number
  /**
   * Also amends and cancel-replaces (a few percent each; default false). Off, the stream is the
   * one it was before they existed, command for command: test/unit/engine/object-layout.fixture.ts
   * pins it.
   */
  readonly amendsAndReplaces?: boolean
  /**
   * Also self-trade prevention modes on orders (default false, for the same reason): absent on
   * most, each of the three modes on a few percent, a malformed value on a few in a thousand; and
   * orders aimed at their own account's best order carry a mode more often, so each mode meets
   * its own orders (cancel-maker walking on, cancel-taker and cancel-both stopping, FOK and FAK
   * refused).
   */
  readonly selfTradeModes?: boolean
  /** Also mass quotes (default false, for the same reason). */
  readonly massQuotes?: boolean
  /** Also order groups, and orders that join them (default false, for the same reason). */
  readonly orderGroups?: boolean
}

interface Stamp {
  readonly seq: number
  readonly timeMs: number
}

/** A command waiting for its stamp. */
type Build = (s: Stamp) => Command

interface Holding {
  balance: number
  held: number
}

interface AccountView {
  readonly address: string
  /** The key that signs this account's orders (differs from `address` for proxy wallets). */
  readonly signer: string
  readonly apiKey: string
  usdc: Holding
  allowance: number
  approved: boolean
  readonly shares: Map<string, Holding>
}

interface MarketView {
  readonly input: MarketInput
  status: MarketStatus
  tickPips: number
  feeRateBps: number
  /** Where trading happens, in Yes-space pips; follows trades and drifts. */
  midPips: number
}

interface OrderView {
  readonly input: OrderInput
  readonly marketId: string
  readonly bid: boolean
  readonly yesPips: number
  readonly number: number
  /** What rests, as the last orderUpdate said (the original size until one does). */
  remainingMicros: number
}

type Kind =
  | 'limit'
  | 'gtd'
  | 'immediate'
  | 'postOnly'
  | 'batch'
  | 'selfTrade'
  | 'cancelOrder'
  | 'cancelOrders'
  | 'cancelByClientOrderId'
  | 'cancelAll'
  | 'cancelMarket'
  | 'invalidOrder'
  | 'duplicate'
  | 'split'
  | 'merge'
  | 'redeem'
  | 'credit'
  | 'approve'
  | 'relay'
  | 'expire'
  | 'tickSize'
  | 'feeRate'
  | 'marketStatus'
  | 'marketAdmin'
  | 'apiKey'
  | 'amend'
  | 'cancelReplace'
  | 'massQuote'
  | 'orderGroup'

const START_MS = 1_700_000_000_000
const RECENT_MAX = 400
const TICKS_MICROS = [100_000, 10_000, 5_000, 2_500, 1_000, 100]
/** Client order ids an API key uses: few, so that repeats of live ones and reuse of ended ones happen. */
const CLIENT_ORDER_IDS_PER_KEY = 10
/** The self-trade prevention modes (with `selfTradeModes`). */
const SELF_TRADE_MODES = ['cancel-maker', 'cancel-taker', 'cancel-both'] as const
/** The group ids every key uses (with `orderGroups`): few, so that creates meet existing ones. */
const GROUP_IDS = ['mmp', 'g 2', 'quotes~'] as const

export class Workload {
  private readonly rng: Random
  private readonly lifecycleEvery: number
  private readonly amendsAndReplaces: boolean
  private readonly selfTradeModes: boolean
  private readonly massQuotes: boolean
  private readonly orderGroups: boolean
  /** API key -> its order groups by id, as the orderGroup events told them (with `orderGroups`). */
  private readonly groups = new Map<string, Map<string, { triggered: boolean }>>()
  /** Extra groups created for the first account's key, one new id each (ORDER_GROUPS_FULL once it has 16). */
  private extraGroups = 0
  private seq = 0
  private timeMs: number
  private readonly accounts: AccountView[] = []
  private readonly markets = new Map<string, MarketView>()
  /** Inputs of every market the workload created, observed or not (for MARKET_EXISTS). */
  private readonly marketInputs: MarketInput[] = []
  private readonly tokens = new Map<string, { readonly marketId: string; readonly outcome: Outcome }>()
  private readonly live = new Map<string, OrderView>()
  private readonly ended: { readonly id: string; readonly maker: string }[] = []
  private readonly sent: { readonly input: OrderInput; readonly accepted: boolean }[] = []
  private readonly apiKeys: { readonly apiKey: string; readonly address: string; readonly nonce: number }[] = []
  private readonly queue: Build[] = []
  private readonly agenda: { readonly at: number; readonly build: Build }[] = []
  private nextOrderNumber = 1
  private pendingInput = new Map<string, OrderInput>()
  private nonce = 0
  private lifecycles = 0
  /** Address -> its next relay nonce (relays the engine accepted). */
  private readonly relayNonces = new Map<string, number>()
  /** Relays the engine accepted, to replay some of them (RELAY_NONCE_MISMATCH). */
  private readonly relayed: Omit<Relay, 'seq' | 'timeMs'>[] = []

  constructor(options: WorkloadOptions) {
    this.rng = new Random(options.seed)
    this.lifecycleEvery = options.lifecycleEvery ?? 5000
    this.amendsAndReplaces = options.amendsAndReplaces ?? false
    this.selfTradeModes = options.selfTradeModes ?? false
    this.massQuotes = options.massQuotes ?? false
    this.orderGroups = options.orderGroups ?? false
    this.timeMs = options.startMs ?? START_MS
    this.setup(options.accounts ?? 12)
  }

  /** The next command: seq 1, 2, ...; time never decreasing. */
  next(): Command {
    const stamp = this.stamp()
    this.schedule(stamp.seq)
    const build = this.queue.shift() ?? this.dueAgenda(stamp.seq)
    return build !== undefined ? build(stamp) : this.random(stamp)
  }

  /** Learns from what the engine did with `command`. */
  observe(command: Command, result: CommandResult, events: readonly EngineEvent[]): void {
    // orderAccepted events carry no token or side; the inputs come from the command.
    this.pendingInput = new Map(ordersOf(command).map((o) => [o.orderId, o]))
    for (const e of events) this.learn(e)
    this.rememberSent(command, result)
    if (command.kind === 'relay' && result.ok) {
      const owner = command.action.address
      this.relayNonces.set(owner, (this.relayNonces.get(owner) ?? 0) + 1)
      this.relayed.push({ kind: 'relay', nonce: command.nonce, deadlineSec: command.deadlineSec, action: command.action })
      if (this.relayed.length > RECENT_MAX) this.relayed.shift()
    }
  }

  // -------------------------------------------------------------------------------------------
  // Time, setup and the agenda
  // -------------------------------------------------------------------------------------------

  private stamp(): Stamp {
    this.seq += 1
    // Mostly sub-second steps; sometimes minutes pass, so GTD orders expire between commands.
    this.timeMs += this.rng.chance(0.004) ? this.rng.int(60_000, 900_000) : this.rng.int(0, 1_500)
    return { seq: this.seq, timeMs: this.timeMs }
  }

  private setup(accountCount: number): void {
    const fee = this.newMarket({ tickSizeMicros: 10_000, feeRateBps: 100, min: 5, negRisk: false, status: 'Active' })
    const fine = this.newMarket({ tickSizeMicros: 1_000, feeRateBps: 0, min: 1, negRisk: false, status: 'Active' })
    const neg = this.newMarket({ tickSizeMicros: 10_000, feeRateBps: 0, min: 5, negRisk: true, status: 'Upcoming' })
    for (const m of [fee, fine, neg]) this.queue.push((s) => ({ kind: 'createMarket', ...s, market: m }))
    for (let i = 0; i < accountCount; i++) this.setupAccount(i, accountCount, [fee, fine])
    // The Upcoming market opens a little later; until then its orders are MARKET_NOT_READY.
    this.agenda.push({ at: 150, build: (s) => ({ kind: 'setMarketStatus', ...s, marketId: neg.marketId, status: 'Active' }) })
  }

  private setupAccount(i: number, count: number, splitIn: readonly MarketInput[]): void {
    const address = this.address()
    const signer = i < 3 ? this.address() : address
    const apiKey = this.uuid()
    const account: AccountView = {
      address, signer, apiKey,
      usdc: { balance: 0, held: 0 }, allowance: 0, approved: false, shares: new Map(),
    }
    this.accounts.push(account)
    const nonce = this.nonce++
    this.queue.push((s) => ({ kind: 'registerApiKey', ...s, apiKey, address, secret: this.rng.hex(32), passphrase: this.rng.hex(32), nonce }))
    this.queue.push((s) => ({ kind: 'credit', ...s, address, usdcMicros: 20_000 * MICROS_PER_UNIT, gasMicros: 1_000_000 }))
    if (i < count - 1) {
      // One account approves a finite allowance, so min(balance, allowance) matters.
      const allowance = i === 1 ? 3_000 * MICROS_PER_UNIT : ALLOWANCE_MICROS_UNLIMITED
      this.queue.push((s) => ({ kind: 'approve', ...s, address, usdcAllowanceMicros: allowance }))
    }
    for (const m of splitIn) {
      this.queue.push((s) => ({ kind: 'split', ...s, address, marketId: m.marketId, amountMicros: 1_500 * MICROS_PER_UNIT }))
    }
  }

  private newMarket(p: {
    tickSizeMicros: number
    feeRateBps: number
    min: number
    negRisk: boolean
    status: 'Active' | 'Upcoming'
  }): MarketInput {
    const n = this.marketInputs.length + 1
    const input: MarketInput = {
      marketId: this.uuid(),
      conditionId: `0x${this.rng.hex(32)}`,
      question: `Will event ${n} happen?`,
      slug: `will-event-${n}-happen`,
      description: `Simulation market ${n}.`,
      yesTokenId: this.rng.decimal(77),
      noTokenId: this.rng.decimal(77),
      tickSizeMicros: p.tickSizeMicros,
      minOrderSizeMicros: p.min * MICROS_PER_UNIT,
      feeRateBps: p.feeRateBps,
      negRisk: p.negRisk,
      endDateMs: this.timeMs + 30 * 86_400_000,
      status: p.status,
    }
    this.marketInputs.push(input)
    return input
  }

  /** Starts a market lifecycle every `lifecycleEvery` commands. */
  private schedule(seq: number): void {
    if (seq % this.lifecycleEvery !== 0) return
    const m = [...this.markets.values()].find((x) => x.status === 'Active')
    if (m === undefined) return
    const id = m.input.marketId
    const outcome: Outcome = this.rng.chance(0.5) ? 'Yes' : 'No'
    const variant = this.lifecycles++ % 3
    // Three ways to end: Closed then Resolving (cancels: market-closed), Resolving directly
    // (market-closed), or resolving while active (market-resolved).
    const steps: Build[] = []
    if (variant === 0) steps.push((s) => ({ kind: 'setMarketStatus', ...s, marketId: id, status: 'Closed' }))
    if (variant !== 2) steps.push((s) => ({ kind: 'setMarketStatus', ...s, marketId: id, status: 'Resolving' }))
    steps.push((s) => ({ kind: 'resolveMarket', ...s, marketId: id, outcome }))
    steps.forEach((build, k) => this.agenda.push({ at: seq + 20 * k, build }))
    const done = seq + 20 * steps.length
    const fresh = this.newMarket({
      tickSizeMicros: m.input.tickSizeMicros,
      feeRateBps: m.feeRateBps,
      min: m.input.minOrderSizeMicros / MICROS_PER_UNIT,
      negRisk: m.input.negRisk,
      status: 'Active',
    })
    this.agenda.push({ at: done, build: (s) => ({ kind: 'createMarket', ...s, market: fresh }) })
    this.accounts.forEach((a, k) => {
      this.agenda.push({ at: done + 5 + 3 * k, build: (s) => ({ kind: 'redeem', ...s, address: a.address, marketId: id }) })
    })
  }

  private dueAgenda(seq: number): Build | undefined {
    this.agenda.sort((a, b) => a.at - b.at)
    const first = this.agenda[0]
    if (first === undefined || first.at > seq) return undefined
    this.agenda.shift()
    return first.build
  }

  // -------------------------------------------------------------------------------------------
  // The random mix
  // -------------------------------------------------------------------------------------------

  private random(s: Stamp): Command {
    // Only if the engine refused the setup's markets: keep the clock ticking.
    if (this.markets.size === 0) return { kind: 'expire', ...s }
    const crowded = Math.max(0, this.live.size - 150) / 10
    const weights = {
      limit: 38,
      gtd: 5,
      immediate: 9,
      postOnly: 3,
      batch: 5,
      selfTrade: 2,
      cancelOrder: 7 + crowded,
      cancelOrders: 2.5 + crowded / 3,
      cancelByClientOrderId: 1.5 + crowded / 3,
      cancelAll: 0.3,
      cancelMarket: 0.8,
      invalidOrder: 7,
      duplicate: 2,
      split: 3,
      merge: 1.5,
      redeem: 0.3,
      credit: 1.5,
      approve: 1,
      relay: 1.5,
      expire: 1,
      tickSize: 0.3,
      feeRate: 0.3,
      marketStatus: 0.5,
      marketAdmin: 0.3,
      apiKey: 0.6,
      // Last and only when asked for, so that without them every draw picks as it did before.
      ...(this.amendsAndReplaces ? { amend: 3, cancelReplace: 3 } : {}),
      ...(this.massQuotes ? { massQuote: 2.5 } : {}),
      ...(this.orderGroups ? { orderGroup: 2.5 } : {}),
    }
    return this.build(this.rng.weighted(weights as Record<Kind, number>), s)
  }

  private build(kind: Kind, s: Stamp): Command {
    switch (kind) {
      case 'limit':
        return this.placeOne(s, this.limitOrder('GTC', false))
      case 'gtd':
        return this.placeOne(s, this.limitOrder('GTD', false))
      case 'immediate':
        return this.placeOne(s, this.immediateOrder())
      case 'postOnly':
        return this.placeOne(s, this.limitOrder(this.rng.chance(0.7) ? 'GTC' : 'GTD', true))
      case 'batch':
        return this.batch(s)
      case 'selfTrade':
        return this.placeOne(s, this.selfTradeOrder())
      case 'cancelOrder':
        return this.cancelOrder(s)
      case 'cancelOrders':
        return this.cancelOrders(s)
      case 'cancelByClientOrderId':
        return this.cancelByClientOrderId(s)
      case 'cancelAll':
        return { kind: 'cancelAll', ...s, address: this.requester(this.account()) }
      case 'cancelMarket':
        return this.cancelMarket(s)
      case 'invalidOrder':
        return this.placeOne(s, this.invalidOrder())
      case 'duplicate':
        return this.placeOne(s, this.duplicate())
      case 'split':
        return this.split(s)
      case 'merge':
        return this.merge(s)
      case 'redeem':
        return this.redeem(s)
      case 'credit':
        return this.credit(s)
      case 'approve':
        return this.approve(s)
      case 'relay':
        return this.relay(s)
      case 'expire':
        return { kind: 'expire', ...s }
      case 'tickSize':
        return this.tickSize(s)
      case 'feeRate':
        return this.feeRate(s)
      case 'marketStatus':
        return this.marketStatus(s)
      case 'marketAdmin':
        return this.marketAdmin(s)
      case 'apiKey':
        return this.apiKey(s)
      case 'amend':
        return this.amend(s)
      case 'cancelReplace':
        return this.cancelReplace(s)
      case 'massQuote':
        return this.massQuote(s)
      case 'orderGroup':
        return this.orderGroup(s)
    }
  }

  private placeOne(s: Stamp, order: OrderInput): Command {
    return { kind: 'placeOrder', ...s, order }
  }

  private batch(s: Stamp): Command {
    const n = this.rng.chance(0.04) ? BATCH_ORDERS_MAX + 1 : this.rng.int(1, BATCH_ORDERS_MAX)
    const orders: OrderInput[] = []
    for (let i = 0; i < n; i++) {
      const r = this.rng.int(0, 99)
      if (r < 70) orders.push(this.limitOrder(this.rng.chance(0.85) ? 'GTC' : 'GTD', this.rng.chance(0.1)))
      else if (r < 82) orders.push(this.immediateOrder())
      else if (r < 90) orders.push(this.invalidOrder())
      else if (r < 95 && orders.length > 0) orders.push(this.rng.pick(orders)) // a repeat in the batch
      else orders.push(this.selfTradeOrder())
    }
    return { kind: 'placeOrders', ...s, orders }
  }

  // -------------------------------------------------------------------------------------------
  // Orders
  // -------------------------------------------------------------------------------------------

  /** A resting order around the mid of a market, on a random token and side. */
  private limitOrder(tif: 'GTC' | 'GTD', postOnly: boolean): OrderInput {
    const m = this.orderMarket()
    const a = this.account()
    const bid = this.rng.chance(0.5)
    // Offsets in ticks from the mid, away from the other side; negative ones cross.
    const offset = postOnly ? this.rng.int(-2, 6) : this.rng.int(-3, 12)
    const yesPips = this.onGrid(m, m.midPips + (bid ? -offset : offset) * m.tickPips)
    return this.restingAt(m, a, bid, yesPips, tif, postOnly)
  }

  /** A resting order of `a` at Yes-space `yesPips`, as a SELL when it has the shares. */
  private restingAt(
    m: MarketView,
    a: AccountView,
    bid: boolean,
    yesPips: number,
    tif: 'GTC' | 'GTD',
    postOnly: boolean,
  ): OrderInput {
    // A bid is BUY Yes or SELL No; an ask is SELL Yes or BUY No.
    const sellToken = bid ? m.input.noTokenId : m.input.yesTokenId
    const buyToken = bid ? m.input.yesTokenId : m.input.noTokenId
    const minLots = Math.max(1, Math.ceil(m.input.minOrderSizeMicros / MICROS_PER_LOT))
    let lots = this.lots(minLots)
    const freeLots = Math.floor(this.freeShares(a, sellToken) / MICROS_PER_LOT)
    const sell = freeLots >= minLots && this.rng.chance(0.55)
    const tokenId = sell ? sellToken : buyToken
    const pips = this.tokenPips(tokenId, yesPips)
    if (sell) lots = Math.min(lots, freeLots)
    else lots = this.affordableLots(a, m, pips, lots, minLots)
    this.drift(m)
    return this.order(a, m, {
      tokenId,
      side: sell ? 'SELL' : 'BUY',
      makerAmountMicros: sell ? lots * MICROS_PER_LOT : pips * lots,
      takerAmountMicros: sell ? pips * lots : lots * MICROS_PER_LOT,
      timeInForce: tif,
      expirationSec: tif === 'GTD' ? this.validExpiration() : 0,
      postOnly,
    })
  }

  /**
   * A FOK or FAK: a BUY for a USDC budget or a SELL of some lots, limit ratio not on the grid; of
   * `account` when given.
   */
  private immediateOrder(account?: AccountView): OrderInput {
    const m = this.orderMarket()
    const a = account ?? this.account()
    const tif: TimeInForce = this.rng.chance(0.5) ? 'FOK' : 'FAK'
    const yes = this.rng.chance(0.5)
    const tokenId = yes ? m.input.yesTokenId : m.input.noTokenId
    const mid = this.tokenPips(tokenId, m.midPips)
    const freeLots = Math.floor(this.freeShares(a, tokenId) / MICROS_PER_LOT)
    const sell = freeLots > 0 && this.rng.chance(0.45)
    // Aggressive by 0..8 ticks, sometimes passive (FAK_ORDER_NOT_FILLED), off the grid by a bit.
    const aggression = this.rng.int(-3, 8) * m.tickPips * (sell ? -1 : 1)
    const limitMicros = clamp((mid + aggression) * MICROS_PER_PIP + this.rng.int(-99, 99), 101, 989_999)
    if (sell) {
      const lots = this.rng.int(1, Math.min(freeLots, this.rng.chance(0.2) ? 50_000 : 3_000))
      const ma = lots * MICROS_PER_LOT
      const ta = clamp(Math.ceil((ma * limitMicros) / MICROS_PER_UNIT), 1, ma - 1)
      return this.order(a, m, { tokenId, side: 'SELL', makerAmountMicros: ma, takerAmountMicros: ta, timeInForce: tif, expirationSec: 0, postOnly: false })
    }
    const free = Math.min(a.usdc.balance, a.allowance) - a.usdc.held
    const cap = Math.max(1_000_000, Math.floor((free * 10_000) / (10_000 + m.feeRateBps)) - 1)
    const budget = this.rng.int(1_000_000, Math.min(cap, this.rng.chance(0.2) ? 400_000_000 : 60_000_000))
    const ta = Math.max(budget + 1, Math.floor((budget * MICROS_PER_UNIT) / limitMicros))
    return this.order(a, m, { tokenId, side: 'BUY', makerAmountMicros: budget, takerAmountMicros: ta, timeInForce: tif, expirationSec: 0, postOnly: false })
  }

  /**
   * An order that crosses the best open order of its own maker (self-trade prevention); with
   * `selfTradeModes`, mostly with an explicit mode.
   */
  private selfTradeOrder(): OrderInput {
    const target = this.bestLiveOrder()
    if (target === undefined) return this.limitOrder('GTC', false)
    const m = this.markets.get(target.marketId)
    const a = this.accounts.find((x) => x.address === target.input.maker)
    if (m === undefined || a === undefined || m.status !== 'Active') return this.limitOrder('GTC', false)
    const order = this.rng.chance(0.25)
      ? this.immediateAgainst(m, a, target)
      : this.restingAt(m, a, !target.bid, target.yesPips, 'GTC', false)
    if (!this.selfTradeModes || this.rng.chance(0.3)) return order
    const { selfTradePrevention: _drawn, ...rest } = order
    return { ...rest, selfTradePrevention: this.rng.pick(SELF_TRADE_MODES) }
  }

  /** A FAK of the target's maker on the other side of the target's own token, at its price. */
  private immediateAgainst(m: MarketView, a: AccountView, target: OrderView): OrderInput {
    const tokenId = target.input.tokenId
    const pips = this.tokenPips(tokenId, target.yesPips)
    if (target.input.side === 'SELL') {
      const budget = pips * this.rng.int(100, 2_000)
      const ta = Math.max(budget + 1, Math.floor((budget * PIPS_PER_UNIT) / pips))
      return this.order(a, m, { tokenId, side: 'BUY', makerAmountMicros: budget, takerAmountMicros: ta, timeInForce: 'FAK', expirationSec: 0, postOnly: false })
    }
    const free = Math.floor(this.freeShares(a, tokenId) / MICROS_PER_LOT)
    const lots = Math.max(1, Math.min(free, this.rng.int(100, 2_000)))
    return this.order(a, m, { tokenId, side: 'SELL', makerAmountMicros: lots * MICROS_PER_LOT, takerAmountMicros: pips * lots, timeInForce: 'FAK', expirationSec: 0, postOnly: false })
  }

  /** A fresh order of account `a` in market `m` (a new id, the market's fee rate). */
  private order(
    a: AccountView,
    m: MarketView,
    o: Pick<OrderInput, 'tokenId' | 'side' | 'makerAmountMicros' | 'takerAmountMicros' | 'timeInForce' | 'expirationSec' | 'postOnly'>,
  ): OrderInput {
    return {
      orderId: `0x${this.rng.hex(32)}`,
      owner: a.apiKey,
      maker: a.address,
      signer: a.signer,
      // A V2 order signs no fee rate: the market's applies at match, as for a V1 order.
      feeRateBps: this.rng.chance(0.3) ? null : m.feeRateBps,
      clientOrderId: this.rng.chance(0.15) ? this.clientOrderId() : '',
      ...(this.selfTradeModes ? this.selfTradeMode() : {}),
      ...(this.orderGroups ? this.orderGroupOf(a) : {}),
      ...o,
    }
  }

  /**
   * With `orderGroups`: an order of a key with groups joins one on 30 % (mostly one not triggered
   * as far as the workload heard; a triggered one is ORDER_GROUP_TRIGGERED unless its freeze has
   * ended); any order names an unknown group on 1 %, a malformed id on 0.3 %
   * (INVALID_ORDER_PAYLOAD, field orderGroupId), '' (none) on 2 %.
   */
  private orderGroupOf(a: AccountView): Pick<OrderInput, 'orderGroupId'> {
    const r = this.rng.int(0, 999)
    const groups = [...(this.groups.get(a.apiKey) ?? [])]
    if (r < 300 && groups.length > 0) {
      const open = groups.filter(([, g]) => !g.triggered)
      return { orderGroupId: this.rng.pick(open.length > 0 && this.rng.chance(0.9) ? open : groups)[0] }
    }
    if (r < 310) return { orderGroupId: this.rng.chance(0.5) ? `nope ${this.rng.int(1, 3)}` : this.rng.pick(GROUP_IDS) }
    if (r < 313) {
      const bad: readonly unknown[] = ['g'.repeat(ORDER_GROUP_ID_LENGTH_MAX + 1), 'tab\there', 'caf\u00e9', 7, null]
      return { orderGroupId: this.rng.pick(bad) as string }
    }
    if (r < 333) return { orderGroupId: '' }
    return {}
  }

  /**
   * With `selfTradeModes`: no mode on 85 % of orders (the default, cancel-maker), cancel-maker
   * named on 4 %, cancel-taker on 5 %, cancel-both on 5.5 %, and a malformed one on 0.5 %
   * (INVALID_ORDER_PAYLOAD, field selfTradePrevention).
   */
  private selfTradeMode(): Pick<OrderInput, 'selfTradePrevention'> {
    const r = this.rng.int(0, 199)
    if (r < 170) return {}
    if (r < 178) return { selfTradePrevention: 'cancel-maker' }
    if (r < 188) return { selfTradePrevention: 'cancel-taker' }
    if (r < 199) return { selfTradePrevention: 'cancel-both' }
    const bad: readonly unknown[] = ['cancel-oldest', 'CANCEL-TAKER', 'none', '', 'cancel_both', 0, 1, null, true, ['cancel-maker']]
    return { selfTradePrevention: this.rng.pick(bad) as OrderInput['selfTradePrevention'] }
  }

  /** One of the few client order ids every key uses (printable ASCII, a space and a tilde among them). */
  private clientOrderId(): string {
    return `c ${this.rng.int(1, CLIENT_ORDER_IDS_PER_KEY)}~`
  }

  /** A valid order with exactly one fault, aimed at one validation step. */
  private invalidOrder(): OrderInput {
    const base = this.limitOrder(this.rng.chance(0.5) ? 'GTC' : 'GTD', false)
    const faults: readonly (() => OrderInput)[] = [
      () => this.badShape(base),
      () => ({ ...base, tokenId: this.rng.decimal(77) }),
      () => ({ ...base, feeRateBps: (base.feeRateBps ?? 0) + this.rng.pick([1, 50, 100]) }),
      () => ({ ...base, timeInForce: this.rng.pick(['FOK', 'FAK'] as const), expirationSec: 0, postOnly: true }),
      () => this.badExpiration(base),
      () => this.tooLarge(base),
      () => this.priceOutOfRange(base),
      () => this.notLots(base),
      () => this.offTick(base),
      () => this.unusableLimit(base),
      () => this.tooSmall(base),
      () => this.tooExpensive(base),
      () => this.unapprovedSell(),
      () => this.unfillable(base),
    ]
    return this.rng.pick(faults)()
  }

  private badShape(base: OrderInput): OrderInput {
    const loose = { ...base } as Record<string, unknown>
    const field = this.rng.pick(Object.keys(loose))
    const bad: readonly unknown[] = [
      '', 'x'.repeat(ID_LENGTH_MAX + 1), 0, -1, 1.5, null, undefined, 'buy', 'IOC', 'true',
      Number.MAX_SAFE_INTEGER + 2, Number.NaN, 'y'.repeat(CLIENT_ORDER_ID_LENGTH_MAX + 1), 'tab\there', 'caf\u00e9',
    ]
    loose[field] = this.rng.pick(bad)
    return loose as unknown as OrderInput
  }

  private badExpiration(base: OrderInput): OrderInput {
    const earliest = Math.ceil((this.timeMs + GTD_MARGIN_MS) / 1000)
    const r = this.rng.int(0, 2)
    if (r === 0) return { ...base, timeInForce: 'GTD', expirationSec: earliest - this.rng.int(1, 70) }
    if (r === 1) return { ...base, timeInForce: 'GTD', expirationSec: 0 }
    return { ...base, timeInForce: this.rng.pick(['GTC', 'FOK', 'FAK'] as const), expirationSec: earliest + 100 }
  }

  private tooLarge(base: OrderInput): OrderInput {
    const huge = ORDER_AMOUNT_MICROS_MAX + this.rng.pick([1, MICROS_PER_LOT, 10 ** 14])
    return this.rng.chance(0.5) ? { ...base, makerAmountMicros: huge } : { ...base, takerAmountMicros: huge }
  }

  private priceOutOfRange(base: OrderInput): OrderInput {
    // A price of 1 or more: BUY offers at least the shares; SELL asks at least the shares.
    const size = base.side === 'BUY' ? base.takerAmountMicros : base.makerAmountMicros
    const cash = size + this.rng.pick([0, 0, MICROS_PER_LOT, size])
    return base.side === 'BUY'
      ? { ...base, makerAmountMicros: cash }
      : { ...base, takerAmountMicros: cash }
  }

  private notLots(base: OrderInput): OrderInput {
    const odd = this.rng.int(1, MICROS_PER_LOT - 1)
    return base.side === 'BUY'
      ? { ...base, takerAmountMicros: base.takerAmountMicros + odd }
      : { ...base, makerAmountMicros: base.makerAmountMicros + odd }
  }

  private offTick(base: OrderInput): OrderInput {
    const lots = (base.side === 'BUY' ? base.takerAmountMicros : base.makerAmountMicros) / MICROS_PER_LOT
    // Either one pip off the tick (when the tick is coarser than a pip) or not a whole pip.
    const bump = this.rng.chance(0.5) ? lots : 1
    return base.side === 'BUY'
      ? { ...base, makerAmountMicros: Math.max(1, base.makerAmountMicros - bump) }
      : { ...base, takerAmountMicros: base.takerAmountMicros + bump }
  }

  private unusableLimit(base: OrderInput): OrderInput {
    if (this.rng.chance(0.5)) {
      // A BUY limit below one pip: at most 99 micro-USDC for 2 shares.
      return { ...base, side: 'BUY', timeInForce: 'FAK', expirationSec: 0, makerAmountMicros: this.rng.int(1, 99), takerAmountMicros: 2_000_000 }
    }
    // SELL whose ratio rounds up to 1: 0.99999 per share.
    return { ...base, side: 'SELL', timeInForce: 'FOK', expirationSec: 0, makerAmountMicros: MICROS_PER_UNIT, takerAmountMicros: 999_999 }
  }

  private tooSmall(base: OrderInput): OrderInput {
    if (this.rng.chance(0.3)) {
      // An immediate BUY whose budget cannot buy one lot at its limit (0.003 USDC at 0.75).
      return { ...base, side: 'BUY', timeInForce: 'FAK', expirationSec: 0, makerAmountMicros: 3_000, takerAmountMicros: 4_000 }
    }
    const m = this.marketOfToken(base.tokenId)
    const minLots = m === undefined ? 1 : Math.ceil(m.input.minOrderSizeMicros / MICROS_PER_LOT)
    const lots = this.rng.int(1, Math.max(1, minLots - 1))
    const pips = base.side === 'BUY'
      ? base.makerAmountMicros / (base.takerAmountMicros / MICROS_PER_LOT)
      : base.takerAmountMicros / (base.makerAmountMicros / MICROS_PER_LOT)
    return base.side === 'BUY'
      ? { ...base, makerAmountMicros: pips * lots, takerAmountMicros: lots * MICROS_PER_LOT }
      : { ...base, makerAmountMicros: lots * MICROS_PER_LOT, takerAmountMicros: pips * lots }
  }

  private tooExpensive(base: OrderInput): OrderInput {
    // A million shares (within the bounds) at the order's price: more than anyone has.
    const lots = 100_000_000
    const pips = base.side === 'BUY'
      ? base.makerAmountMicros / (base.takerAmountMicros / MICROS_PER_LOT)
      : base.takerAmountMicros / (base.makerAmountMicros / MICROS_PER_LOT)
    return base.side === 'BUY'
      ? { ...base, makerAmountMicros: pips * lots, takerAmountMicros: lots * MICROS_PER_LOT }
      : { ...base, makerAmountMicros: lots * MICROS_PER_LOT, takerAmountMicros: pips * lots }
  }

  /** The never-approved account sells shares it holds (it split some at the start). */
  private unapprovedSell(): OrderInput {
    const m = this.orderMarket()
    const a = this.accounts[this.accounts.length - 1] ?? this.account()
    const pips = this.onGrid(m, m.midPips + 5 * m.tickPips)
    const lots = 500
    return this.order(a, m, {
      tokenId: m.input.yesTokenId, side: 'SELL', makerAmountMicros: lots * MICROS_PER_LOT,
      takerAmountMicros: pips * lots, timeInForce: 'GTC', expirationSec: 0, postOnly: false,
    })
  }

  /** A FOK far larger than the book, or a FAK whose limit is far from it. */
  private unfillable(base: OrderInput): OrderInput {
    const m = this.marketOfToken(base.tokenId)
    if (m === undefined) return base
    const a = this.accounts.find((x) => x.address === base.maker) ?? this.account()
    if (this.rng.chance(0.5)) {
      const tokenId = base.tokenId
      const pips = clamp(this.tokenPips(tokenId, m.midPips) + 20 * m.tickPips, 1, 9_999)
      const free = Math.min(a.usdc.balance, a.allowance) - a.usdc.held
      const budget = clamp(Math.floor(free * 0.9), 1_000_000, 5_000_000_000)
      const ta = Math.max(budget + 1, Math.floor((budget * PIPS_PER_UNIT) / pips))
      return { ...base, side: 'BUY', timeInForce: 'FOK', expirationSec: 0, makerAmountMicros: budget, takerAmountMicros: ta, postOnly: false }
    }
    // A FAK BUY limited to one pip (0.0001) per share: far below any ask.
    return { ...base, side: 'BUY', timeInForce: 'FAK', expirationSec: 0, makerAmountMicros: 1_000_000, takerAmountMicros: 10_000_000_000, postOnly: false }
  }

  private duplicate(): OrderInput {
    const accepted = this.sent.filter((x) => x.accepted)
    const pool = accepted.length > 0 && this.rng.chance(0.75) ? accepted : this.sent
    if (pool.length === 0) return this.limitOrder('GTC', false)
    return this.rng.pick(pool).input
  }

  // -------------------------------------------------------------------------------------------
  // Cancels
  // -------------------------------------------------------------------------------------------

  private cancelOrder(s: Stamp): Command {
    const [address, orderId] = this.cancelTarget()
    return { kind: 'cancelOrder', ...s, address, orderId }
  }

  private cancelOrders(s: Stamp): Command {
    const a = this.account()
    if (this.rng.chance(0.01)) {
      const orderIds = Array.from({ length: CANCEL_IDS_MAX + 1 }, () => `0x${this.rng.hex(32)}`)
      return { kind: 'cancelOrders', ...s, address: a.address, orderIds }
    }
    const address = this.requester(a)
    const own = [...this.live.values()].filter((o) => o.input.maker === a.address).map((o) => o.input.orderId)
    const ids: string[] = []
    for (let i = this.rng.int(1, 8); i > 0; i--) {
      const r = this.rng.int(0, 9)
      if (r < 6 && own.length > 0) ids.push(this.rng.pick(own))
      else if (r < 8) ids.push(this.cancelTarget()[1])
      else if (ids.length > 0) ids.push(this.rng.pick(ids)) // a repeat: ignored
      else ids.push(`0x${this.rng.hex(32)}`)
    }
    return { kind: 'cancelOrders', ...s, address, orderIds: ids }
  }

  /**
   * Mostly client order ids of the key's live orders, with its maker or signer asking; sometimes
   * ids it does not use now, an other account asking, or more ids than allowed.
   */
  private cancelByClientOrderId(s: Stamp): Command {
    const a = this.account()
    if (this.rng.chance(0.01)) {
      const clientOrderIds = Array.from({ length: CANCEL_IDS_MAX + 1 }, () => this.clientOrderId())
      return { kind: 'cancelByClientOrderId', ...s, address: a.address, owner: a.apiKey, clientOrderIds }
    }
    const other = this.rng.chance(0.1) ? this.account() : a
    const own = [...this.live.values()].filter((o) => o.input.owner === a.apiKey && o.input.clientOrderId !== '')
    const clientOrderIds: string[] = []
    for (let i = this.rng.int(1, 4); i > 0; i--) {
      const r = this.rng.int(0, 9)
      if (r < 6 && own.length > 0) clientOrderIds.push(this.rng.pick(own).input.clientOrderId)
      else if (r < 8 || clientOrderIds.length === 0) clientOrderIds.push(this.rng.chance(0.9) ? this.clientOrderId() : '')
      else clientOrderIds.push(this.rng.pick(clientOrderIds)) // a repeat: ignored
    }
    return { kind: 'cancelByClientOrderId', ...s, address: this.requester(other), owner: a.apiKey, clientOrderIds }
  }

  /** [requester, order id]: mostly the owner of a live order, sometimes not. */
  private cancelTarget(): [string, string] {
    const r = this.rng.int(0, 99)
    const liveOrders = [...this.live.values()]
    if (r < 70 && liveOrders.length > 0) {
      const o = this.rng.pick(liveOrders)
      return [this.rng.chance(0.2) ? o.input.signer : o.input.maker, o.input.orderId]
    }
    if (r < 80 && liveOrders.length > 0) {
      const o = this.rng.pick(liveOrders)
      const other = this.accounts.find((a) => a.address !== o.input.maker) ?? this.account()
      return [other.address, o.input.orderId]
    }
    if (r < 92 && this.ended.length > 0) {
      const e = this.rng.pick(this.ended)
      const mine = this.rng.chance(0.7)
      return [mine ? e.maker : this.account().address, e.id]
    }
    return [this.account().address, `0x${this.rng.hex(32)}`]
  }

  // -------------------------------------------------------------------------------------------
  // Amends and cancel-replaces (with `amendsAndReplaces`)
  // -------------------------------------------------------------------------------------------

  /**
   * Mostly an amend of a live order by its maker or signer that lowers it, to a new size or by a
   * reduction; sometimes sizes that are refused (both or neither given, not whole lots, not
   * numbers, beyond an order's bound, not lowering), someone else's order, an ended or unknown one.
   */
  private amend(s: Stamp): Command {
    const r = this.rng.int(0, 99)
    const liveOrders = [...this.live.values()]
    let address: string
    let orderId: string
    let remainingMicros = this.rng.int(1, 500) * MICROS_PER_LOT
    if (r < 80 && liveOrders.length > 0) {
      const o = this.rng.pick(liveOrders)
      address = this.rng.chance(0.2) ? o.input.signer : o.input.maker
      orderId = o.input.orderId
      remainingMicros = o.remainingMicros
    } else if (r < 87 && liveOrders.length > 0) {
      const o = this.rng.pick(liveOrders)
      address = this.otherAccount(o.input.maker).address
      orderId = o.input.orderId
      remainingMicros = o.remainingMicros
    } else if (r < 97 && this.ended.length > 0) {
      const e = this.rng.pick(this.ended)
      address = this.rng.chance(0.8) ? e.maker : this.account().address
      orderId = e.id
    } else {
      address = this.account().address
      orderId = `0x${this.rng.hex(32)}`
    }
    const [newSizeMicros, reduceByMicros] = this.amendSizes(remainingMicros)
    return { kind: 'amendOrder', ...s, address, orderId, newSizeMicros, reduceByMicros }
  }

  /** [newSizeMicros, reduceByMicros] for an order with `remainingMicros` resting. */
  private amendSizes(remainingMicros: number): [number, number] {
    const lots = Math.max(1, Math.floor(remainingMicros / MICROS_PER_LOT))
    // Below what rests (when more than one lot rests: one lot cannot be lowered).
    const below = (): number => this.rng.int(1, Math.max(1, lots - 1)) * MICROS_PER_LOT
    const r = this.rng.int(0, 99)
    if (r < 40) return [below(), this.rng.chance(0.05) ? -0 : 0]
    if (r < 75) return [this.rng.chance(0.05) ? -0 : 0, below()]
    if (r < 83) {
      // The same size or more, or a reduction by all of it or more: AMEND_NOT_REDUCING.
      const size = remainingMicros + this.rng.pick([0, 0, MICROS_PER_LOT, this.rng.int(1, 50) * MICROS_PER_LOT])
      return this.rng.chance(0.5) ? [size, 0] : [0, size]
    }
    if (r < 87) return [below(), below()]
    if (r < 90) return [0, 0]
    if (r < 95) {
      const odd = below() + this.rng.int(1, MICROS_PER_LOT - 1)
      return this.rng.chance(0.5) ? [odd, 0] : [0, odd]
    }
    const bad = this.rng.pick<unknown>([
      -MICROS_PER_LOT, Number.NaN, 1.5, ORDER_AMOUNT_MICROS_MAX + MICROS_PER_LOT, Number.MAX_SAFE_INTEGER + 2,
      Number.POSITIVE_INFINITY, '10000', null,
    ]) as number
    return this.rng.chance(0.5) ? [bad, 0] : [0, bad]
  }

  /**
   * Mostly a cancel-replace of a live order by its maker or signer; sometimes of someone else's
   * order, of an ended one (its new order now and then malformed: the old one is judged first),
   * or of an unknown one.
   */
  private cancelReplace(s: Stamp): Command {
    const r = this.rng.int(0, 99)
    const liveOrders = [...this.live.values()]
    if (r < 82 && liveOrders.length > 0) {
      const old = this.rng.pick(liveOrders)
      const a = this.accounts.find((x) => x.address === old.input.maker) ?? this.account()
      const address = this.rng.chance(0.2) ? old.input.signer : old.input.maker
      return { kind: 'cancelReplace', ...s, address, orderId: old.input.orderId, order: this.replacement(old, a) }
    }
    if (r < 88 && liveOrders.length > 0) {
      const old = this.rng.pick(liveOrders)
      const a = this.otherAccount(old.input.maker)
      return { kind: 'cancelReplace', ...s, address: a.address, orderId: old.input.orderId, order: this.freshQuote(a) }
    }
    if (r < 97 && this.ended.length > 0) {
      const e = this.rng.pick(this.ended)
      const a = this.accounts.find((x) => x.address === e.maker) ?? this.account()
      const address = this.rng.chance(0.8) ? e.maker : this.account().address
      const order = this.rng.chance(0.15) ? this.badShape(this.freshQuote(a)) : this.freshQuote(a)
      return { kind: 'cancelReplace', ...s, address, orderId: e.id, order }
    }
    const a = this.account()
    return { kind: 'cancelReplace', ...s, address: a.address, orderId: `0x${this.rng.hex(32)}`, order: this.freshQuote(a) }
  }

  /**
   * The order that takes the place of `old` (of account `a`): mostly the same quote moved a few
   * ticks and resized, keeping the old client order id more often than not; sometimes one that
   * crosses the book, a post-only one that would cross or one beyond the account's means (both
   * refused once the old one is cancelled), an immediate order, one with a fault in its terms
   * (refused: the old one stays), the old order's own id, another live order's client order id,
   * or a quote elsewhere.
   */
  private replacement(old: OrderView, a: AccountView): OrderInput {
    const m = this.markets.get(old.marketId)
    if (m === undefined) return this.freshQuote(a)
    const r = this.rng.int(0, 99)
    if (r < 45) return this.requote(old, a, m)
    if (r < 55) return this.crossing(m, a, false)
    if (r < 63) return this.crossing(m, a, true)
    if (r < 70) return this.immediateOrder(a)
    if (r < 73) return this.tooExpensive(this.requote(old, a, m)) // refused for funds once the old one is cancelled
    if (r < 87) {
      const base = this.requote(old, a, m)
      const faults: readonly (() => OrderInput)[] = [
        () => this.offTick(base),
        () => this.offTick(base),
        () => this.notLots(base),
        () => this.tooSmall(base),
        () => this.badExpiration(base),
        () => this.priceOutOfRange(base),
        () => ({ ...base, feeRateBps: (base.feeRateBps ?? 0) + this.rng.pick([1, 50]) }),
        () => ({ ...base, tokenId: this.rng.decimal(77) }),
        () => this.badShape(base),
      ]
      return this.rng.pick(faults)()
    }
    if (r < 91) return { ...this.requote(old, a, m), orderId: old.input.orderId } // INVALID_ORDER_DUPLICATED
    if (r < 96) {
      const twins = [...this.live.values()].filter((o) => o !== old && o.input.owner === a.apiKey && o.input.clientOrderId !== '')
      const requote = this.requote(old, a, m)
      return twins.length > 0 ? { ...requote, clientOrderId: this.rng.pick(twins).input.clientOrderId } : requote
    }
    return this.freshQuote(a)
  }

  /** `old` moved 0 to a few ticks (mostly away from the other side) with a new size, same token and side. */
  private requote(old: OrderView, a: AccountView, m: MarketView): OrderInput {
    const offset = this.rng.int(-2, 4)
    const yesPips = this.onGrid(m, old.yesPips + (old.bid ? -offset : offset) * m.tickPips)
    const tokenId = old.input.tokenId
    const pips = this.tokenPips(tokenId, yesPips)
    const minLots = Math.max(1, Math.ceil(m.input.minOrderSizeMicros / MICROS_PER_LOT))
    const oldLots = Math.floor(old.remainingMicros / MICROS_PER_LOT)
    let lots = this.lots(minLots)
    const sell = old.input.side === 'SELL'
    if (sell) {
      // The old order's shares come free when it is cancelled.
      lots = Math.max(minLots, Math.min(lots, Math.floor(this.freeShares(a, tokenId) / MICROS_PER_LOT) + oldLots))
    } else {
      const oldPips = this.tokenPips(tokenId, old.yesPips)
      const free = Math.min(a.usdc.balance, a.allowance) - a.usdc.held + oldPips * oldLots
      const can = Math.floor(free / (pips + Math.ceil((pips * m.feeRateBps) / 10_000))) - 1
      if (can >= minLots) lots = Math.min(lots, can)
    }
    const tif = this.rng.chance(0.85) ? 'GTC' : 'GTD'
    const order = this.order(a, m, {
      tokenId,
      side: old.input.side,
      makerAmountMicros: sell ? lots * MICROS_PER_LOT : pips * lots,
      takerAmountMicros: sell ? pips * lots : lots * MICROS_PER_LOT,
      timeInForce: tif,
      expirationSec: tif === 'GTD' ? this.validExpiration() : 0,
      postOnly: this.rng.chance(0.1),
    })
    const keep = old.input.clientOrderId !== '' && this.rng.chance(0.7)
    return keep ? { ...order, clientOrderId: old.input.clientOrderId } : order
  }

  /** A resting order of `a` priced a few ticks through the mid: it crosses, or is refused as post-only. */
  private crossing(m: MarketView, a: AccountView, postOnly: boolean): OrderInput {
    const bid = this.rng.chance(0.5)
    const yesPips = this.onGrid(m, m.midPips + (bid ? 1 : -1) * this.rng.int(1, 4) * m.tickPips)
    return this.restingAt(m, a, bid, yesPips, 'GTC', postOnly)
  }

  /** A resting order of `a` around the mid of a market, mostly away from the other side. */
  private freshQuote(a: AccountView): OrderInput {
    const m = this.orderMarket()
    const bid = this.rng.chance(0.5)
    const offset = this.rng.int(-1, 10)
    return this.restingAt(m, a, bid, this.onGrid(m, m.midPips + (bid ? -offset : offset) * m.tickPips), 'GTC', false)
  }

  // -------------------------------------------------------------------------------------------
  // Mass quotes (with `massQuotes`) and order groups (with `orderGroups`)
  // -------------------------------------------------------------------------------------------

  /**
   * A trader re-quotes a small ladder on a market: it keeps about half of its key's live quotes
   * there, names now and then an ended order of its own (reported: already matched or cancelled),
   * someone's (not found) or an unknown id, and places 0 to 4 new levels a side from a tick or two
   * through the mid outwards (so some trade at once). About one in seven is malformed: an unknown
   * market, an order of another market or of another key, an id named twice (a kept one again, or
   * a new order's), an id that is not a string, more than MASS_QUOTE_LEVELS_MAX on a side. Sent by
   * the key's wallet, now and then by its signer (whose wallet, for the proxy-wallet accounts, has
   * no orders: the new orders' maker is what finds the ladder then).
   */
  private massQuote(s: Stamp): Command {
    const a = this.account()
    const m = this.orderMarket()
    let marketId = m.input.marketId
    const mine = [...this.live.values()].filter((o) => o.input.owner === a.apiKey && o.marketId === marketId)
    const keep: unknown[] = mine.filter(() => this.rng.chance(0.55)).map((o) => o.input.orderId)
    const ownEnded = this.ended.filter((e) => e.maker === a.address)
    if (ownEnded.length > 0 && this.rng.chance(0.25)) keep.push(this.rng.pick(ownEnded).id)
    if (this.rng.chance(0.05)) {
      const others = [...this.live.values()].filter((o) => o.input.owner !== a.apiKey)
      const pool = others.length > 0 && this.rng.chance(0.5) ? others.map((o) => o.input.orderId) : this.ended.map((e) => e.id)
      const id = pool.length > 0 ? this.rng.pick(pool) : `0x${this.rng.hex(32)}`
      if (!keep.includes(id)) keep.push(id)
    }
    if (this.rng.chance(0.04)) keep.push(`0x${this.rng.hex(32)}`)
    const orders = [...this.ladder(m, a, true, this.rng.int(0, 4)), ...this.ladder(m, a, false, this.rng.int(0, 4))]
    const r = this.rng.int(0, 99)
    if (r < 3) marketId = this.uuid()
    else if (r < 6) {
      const elsewhere = [...this.markets.values()].filter((x) => x !== m)
      if (elsewhere.length > 0) orders.splice(this.rng.int(0, orders.length), 0, this.freshQuoteIn(this.rng.pick(elsewhere), a))
    } else if (r < 8) {
      const other = this.otherAccount(a.address)
      orders.push({ ...this.freshQuoteIn(m, a), owner: other.apiKey })
    } else if (r < 11) {
      const ids = [...keep, ...orders.map((o) => o.orderId)]
      const twice = ids.length > 0 ? this.rng.pick(ids) : `0x${this.rng.hex(32)}`
      if (ids.length === 0 || this.rng.chance(0.5)) keep.push(twice)
      else orders.push({ ...this.freshQuoteIn(m, a), orderId: twice as string })
    } else if (r < 12) keep.push(this.rng.pick<unknown>([null, 7, undefined, { orderId: 'x' }]))
    else if (r < 14) orders.push(...this.ladder(m, a, this.rng.chance(0.5), MASS_QUOTE_LEVELS_MAX + 1))
    const address = this.rng.chance(0.1) ? a.signer : a.address
    const quote: MassQuote = { kind: 'massQuote', ...s, address, owner: a.apiKey, marketId, keep: keep as string[], orders }
    return quote
  }

  /** `n` resting orders of `a` on one side of `m`, from a tick through the mid (or a few ticks off it) outwards. */
  private ladder(m: MarketView, a: AccountView, bid: boolean, n: number): OrderInput[] {
    const out: OrderInput[] = []
    let offset = this.rng.int(-1, 3)
    for (let i = 0; i < n; i++) {
      const yesPips = this.onGrid(m, m.midPips + (bid ? -offset : offset) * m.tickPips)
      out.push(this.restingAt(m, a, bid, yesPips, this.rng.chance(0.9) ? 'GTC' : 'GTD', this.rng.chance(0.1)))
      offset += this.rng.int(1, 2)
    }
    return out
  }

  /** A resting order of `a` in market `m`, a few ticks off the mid. */
  private freshQuoteIn(m: MarketView, a: AccountView): OrderInput {
    const bid = this.rng.chance(0.5)
    const offset = this.rng.int(1, 6)
    return this.restingAt(m, a, bid, this.onGrid(m, m.midPips + (bid ? -offset : offset) * m.tickPips), 'GTC', false)
  }

  /**
   * An order group command of a key: mostly a create with small limits (of one of the key's few
   * ids: an existing one is refused) or an update, trigger, reset or delete of one of its groups;
   * sometimes invalid limits, an unknown group, a malformed id, an unknown action, or one more
   * group for the first account's key (until it has its 16: ORDER_GROUPS_FULL).
   */
  private orderGroup(s: Stamp): Command {
    const a = this.account()
    const mine = [...(this.groups.get(a.apiKey)?.keys() ?? [])]
    const command = (action: unknown, groupId: unknown, limits = this.groupLimits(), of = a): OrderGroupCommand => ({
      kind: 'orderGroup', ...s, action: action as OrderGroupAction, address: of.address, owner: of.apiKey,
      groupId: groupId as string, ...limits,
    })
    const anyAction = (): string => this.rng.pick(['create', 'update', 'trigger', 'reset', 'delete'])
    const r = this.rng.int(0, 99)
    if (r < 26 || (r >= 49 && mine.length === 0)) return command('create', this.rng.pick(GROUP_IDS))
    if (r < 32) {
      const first = this.accounts[0] ?? a
      return command('create', `extra ${this.extraGroups++}`, this.groupLimits(), first)
    }
    if (r < 38) {
      const groupId = mine.length > 0 && this.rng.chance(0.6) ? this.rng.pick(mine) : this.rng.pick(GROUP_IDS)
      return command(this.rng.chance(0.5) ? 'create' : 'update', groupId, this.badLimits())
    }
    if (r < 43) return command(anyAction(), `nope ${this.rng.int(1, 3)}`)
    if (r < 46) {
      const bad: readonly unknown[] = ['', 'g'.repeat(ORDER_GROUP_ID_LENGTH_MAX + 1), 'tab\there', 'caf\u00e9', 5, null]
      return command(anyAction(), this.rng.pick(bad))
    }
    if (r < 49) {
      const groupId = mine.length > 0 ? this.rng.pick(mine) : this.rng.pick(GROUP_IDS)
      return command(this.rng.pick(['cancel', 'TRIGGER', '', 7]), groupId)
    }
    const groupId = this.rng.pick(mine)
    if (r < 62) return command('update', groupId)
    if (r < 72) return command('trigger', groupId)
    if (r < 92) return command('reset', groupId)
    return command('delete', groupId)
  }

  /**
   * Small limits, so that a few fills reach them: a contracts limit of 1 to 40 shares (now and
   * then not whole lots) and/or a notional one of 1 to 30 USDC; a window of 1 to 60 s; no freeze
   * (until reset), or one of up to 10 s or a minute.
   */
  private groupLimits(): Pick<OrderGroupCommand, 'contractsLimitMicros' | 'notionalLimitMicros' | 'windowMs' | 'freezeMs'> {
    const r = this.rng.int(0, 99)
    let contractsLimitMicros = r < 70 ? this.rng.int(1, 40) * MICROS_PER_UNIT : 0
    if (contractsLimitMicros > 0 && this.rng.chance(0.1)) contractsLimitMicros += this.rng.int(1, MICROS_PER_LOT - 1)
    let notionalLimitMicros = r >= 50 ? this.rng.int(1, 30) * MICROS_PER_UNIT : 0
    if (notionalLimitMicros > 0 && this.rng.chance(0.2)) notionalLimitMicros += this.rng.int(1, MICROS_PER_UNIT - 1)
    const windowMs = this.rng.chance(0.6)
      ? this.rng.pick([ORDER_GROUP_WINDOW_MS_MIN, 2_000, 5_000, 10_000, ORDER_GROUP_WINDOW_MS_MAX])
      : this.rng.int(10, 600) * 100
    const f = this.rng.int(0, 9)
    const freezeMs = f < 4 ? 0 : f < 8 ? this.rng.int(1, 100) * 100 : this.rng.int(1, 60) * 1_000
    return { contractsLimitMicros, notionalLimitMicros, windowMs, freezeMs }
  }

  /** Limits with one fault (ORDER_GROUP_INVALID). */
  private badLimits(): Pick<OrderGroupCommand, 'contractsLimitMicros' | 'notionalLimitMicros' | 'windowMs' | 'freezeMs'> {
    const good = this.groupLimits()
    const bad = <T>(values: readonly unknown[]): T => this.rng.pick(values) as T
    const faults = [
      (): typeof good => ({ ...good, contractsLimitMicros: 0, notionalLimitMicros: 0 }),
      (): typeof good => ({ ...good, contractsLimitMicros: bad([-1, 1.5, Number.NaN, ORDER_AMOUNT_MICROS_MAX + 1, '5000000']) }),
      (): typeof good => ({ ...good, notionalLimitMicros: bad([-1, 2.5, Number.POSITIVE_INFINITY, null]) }),
      (): typeof good => ({
        ...good,
        windowMs: bad([0, ORDER_GROUP_WINDOW_MS_MIN - 100, 1_050, ORDER_GROUP_WINDOW_MS_MAX + 100, -1_000, 1_500.5]),
      }),
      (): typeof good => ({ ...good, freezeMs: bad([-1, ORDER_GROUP_FREEZE_MS_MAX + 1, 2.5, Number.NaN]) }),
    ]
    return this.rng.pick(faults)()
  }

  /** A trading account other than `address`'s (any account if there is no other). */
  private otherAccount(address: string): AccountView {
    const others = this.accounts.filter((x) => x.address !== address)
    return others.length > 0 ? this.rng.pick(others) : this.account()
  }

  private cancelMarket(s: Stamp): Command {
    const a = this.account()
    const ms = [...this.markets.values()]
    const m = this.rng.pick(ms)
    const other = this.rng.pick(ms)
    const token = this.rng.chance(0.5) ? m.input.yesTokenId : m.input.noTokenId
    const variants: readonly (readonly [string, string])[] = [
      ['', ''],
      [m.input.marketId, ''],
      [m.input.marketId, ''],
      ['', token],
      [m.input.marketId, token],
      [this.uuid(), ''],
      [m.input.marketId, other === m ? this.rng.decimal(77) : other.input.yesTokenId],
      ['', this.rng.decimal(77)],
    ]
    const [marketId, tokenId] = this.rng.pick(variants)
    return { kind: 'cancelMarketOrders', ...s, address: a.address, marketId, tokenId }
  }

  // -------------------------------------------------------------------------------------------
  // Ledger
  // -------------------------------------------------------------------------------------------

  private split(s: Stamp): Command {
    const a = this.account()
    const m = this.ledgerMarket()
    const free = a.usdc.balance - a.usdc.held
    const wanted = this.rng.chance(0.5)
      ? this.rng.int(1, 400) * MICROS_PER_UNIT
      : this.rng.int(1, 400 * MICROS_PER_UNIT) // not a whole number of lots: odd share balances
    const r = this.rng.int(0, 99)
    let marketId = m.input.marketId
    let amount = Math.min(wanted, Math.max(1, free))
    if (r < 3) amount = this.rng.pick([0, -5, 1.5])
    else if (r < 5) marketId = this.uuid()
    else if (r < 11) amount = free + this.rng.int(1, 1_000 * MICROS_PER_UNIT)
    return { kind: 'split', ...s, address: a.address, marketId, amountMicros: amount }
  }

  private merge(s: Stamp): Command {
    const a = this.account()
    const m = this.ledgerMarket()
    const free = Math.min(this.freeShares(a, m.input.yesTokenId), this.freeShares(a, m.input.noTokenId))
    const tooMuch = this.rng.chance(0.1) || free <= 0
    const amount = tooMuch ? free + this.rng.int(1, 100 * MICROS_PER_UNIT) : this.rng.int(1, free)
    return { kind: 'merge', ...s, address: a.address, marketId: m.input.marketId, amountMicros: Math.max(1, amount) }
  }

  private redeem(s: Stamp): Command {
    const ms = [...this.markets.values()]
    const m = this.rng.chance(0.9) ? this.rng.pick(ms) : undefined
    return { kind: 'redeem', ...s, address: this.account().address, marketId: m?.input.marketId ?? this.uuid() }
  }

  private credit(s: Stamp): Command {
    const poorest = [...this.accounts].sort((x, y) => x.usdc.balance - y.usdc.balance)[0]
    const a = poorest !== undefined && this.rng.chance(0.6) ? poorest : this.account()
    const r = this.rng.int(0, 99)
    if (r < 5) return { kind: 'credit', ...s, address: a.address, usdcMicros: 0, gasMicros: 0 }
    if (r < 9) return { kind: 'credit', ...s, address: a.address, usdcMicros: this.rng.pick([-1, 0.5, Number.NaN]), gasMicros: 0 }
    if (r < 12) return { kind: 'credit', ...s, address: a.address, usdcMicros: BALANCE_MICROS_MAX, gasMicros: 0 }
    if (r < 20) return { kind: 'credit', ...s, address: a.address, usdcMicros: 0, gasMicros: this.rng.int(1, 10 ** 9) }
    // Top-ups are large only for accounts running low, so money stays scarce enough to matter.
    const low = a.usdc.balance - a.usdc.held < 2_000 * MICROS_PER_UNIT
    const usdc = low ? this.rng.int(1_000, 10_000) * MICROS_PER_UNIT : this.rng.int(1, 200 * MICROS_PER_UNIT)
    return { kind: 'credit', ...s, address: a.address, usdcMicros: usdc, gasMicros: 0 }
  }

  private approve(s: Stamp): Command {
    const a = this.account()
    const last = this.accounts[this.accounts.length - 1]
    const r = this.rng.int(0, 99)
    if (a === last) {
      // The never-approved account stays so: it exists to trade without approval.
      return { kind: 'approve', ...s, address: a.address, usdcAllowanceMicros: r < 50 ? 0 : -1 }
    }
    let allowance: number = ALLOWANCE_MICROS_UNLIMITED
    if (r < 20 && a.usdc.held > 0) allowance = a.usdc.held - this.rng.int(1, a.usdc.held) // below holds
    else if (r < 35) {
      allowance = 0 // a revoke: refused while anything is held; approved again a bit later
      const back = (t: Stamp): Command => ({ kind: 'approve', ...t, address: a.address, usdcAllowanceMicros: ALLOWANCE_MICROS_UNLIMITED })
      this.agenda.push({ at: this.seq + this.rng.int(20, 200), build: back })
    } else if (r < 45) allowance = this.rng.pick([-1, 2.5])
    else if (r < 65) allowance = a.usdc.held + this.rng.int(0, 5_000) * MICROS_PER_UNIT
    return { kind: 'approve', ...s, address: a.address, usdcAllowanceMicros: allowance }
  }

  /**
   * A gasless relay of a ledger action built as the standalone command would be (so it meets the
   * same rejections), mostly with the owner's next nonce and a deadline ahead; sometimes a
   * replayed, stale or future nonce, a passed deadline, or a malformed request.
   */
  private relay(s: Stamp): Command {
    const r = this.rng.int(0, 99)
    if (r < 4 && this.relayed.length > 0) return { ...this.rng.pick(this.relayed), ...s } // a replay
    const action = r < 7 ? this.freshApproval() : this.relayAction(s)
    const next = this.relayNonces.get(action.address) ?? 0
    const nowSec = Math.floor(s.timeMs / 1000)
    let nonce = next
    let deadlineSec = nowSec + this.rng.int(1, 3_600)
    if (r >= 7 && r < 12) nonce = next > 0 && this.rng.chance(0.6) ? next - this.rng.int(1, Math.min(next, 3)) : next + this.rng.int(1, 3)
    else if (r < 16) deadlineSec = nowSec - this.rng.int(1, 600) // passed
    else if (r < 20) deadlineSec = this.rng.chance(0.5) ? nowSec : Math.ceil(s.timeMs / 1000) // at the deadline: in time only at its exact millisecond
    else if (r < 23) return this.malformedRelay(s, action, next, deadlineSec)
    return { kind: 'relay', ...s, nonce, deadlineSec, action }
  }

  /** An address never seen before approves through the relay: its first nonce is 0. */
  private freshApproval(): RelayAction {
    return { kind: 'approve', address: this.address(), usdcAllowanceMicros: this.rng.chance(0.8) ? ALLOWANCE_MICROS_UNLIMITED : this.rng.int(0, 1_000) * MICROS_PER_UNIT }
  }

  /** One ledger action as the standalone builders make it, without its stamp. */
  private relayAction(s: Stamp): RelayAction {
    const kind = this.rng.weighted({ approve: 25, split: 35, merge: 25, redeem: 15 })
    const command = kind === 'approve' ? this.approve(s) : kind === 'split' ? this.split(s) : kind === 'merge' ? this.merge(s) : this.redeem(s)
    return unstamped(command as Approve | Split | Merge | Redeem)
  }

  private malformedRelay(s: Stamp, action: RelayAction, nonce: number, deadlineSec: number): Command {
    const r = this.rng.int(0, 5)
    if (r === 0) return { kind: 'relay', ...s, nonce: this.rng.pick([-1, 1.5, Number.NaN]), deadlineSec, action }
    if (r === 1) return { kind: 'relay', ...s, nonce, deadlineSec: this.rng.pick([-1, 2.5, Number.MAX_SAFE_INTEGER + 2]), action }
    // An action the relay may not run (a faucet credit), or no action at all.
    const bad: unknown = r === 2 ? { kind: 'credit', address: action.address, usdcMicros: MICROS_PER_UNIT, gasMicros: 0 } : r === 3 ? null : 'approve'
    return { kind: 'relay', ...s, nonce, deadlineSec, action: bad as RelayAction }
  }

  // -------------------------------------------------------------------------------------------
  // Markets (admin)
  // -------------------------------------------------------------------------------------------

  private tickSize(s: Stamp): Command {
    const m = this.rng.pick([...this.markets.values()])
    const tick = this.rng.chance(0.1) ? this.rng.pick([7_500, 0, 150, 20_000]) : this.rng.pick(TICKS_MICROS)
    // Ticks wander but come back: the market's own tick is tried again a little later.
    const original = m.input.tickSizeMicros
    this.agenda.push({ at: this.seq + this.rng.int(50, 400), build: (t) => ({ kind: 'setTickSize', ...t, marketId: m.input.marketId, tickSizeMicros: original }) })
    return { kind: 'setTickSize', ...s, marketId: m.input.marketId, tickSizeMicros: tick }
  }

  private feeRate(s: Stamp): Command {
    const m = this.rng.pick([...this.markets.values()])
    const rate = this.rng.chance(0.15)
      ? this.rng.pick([FEE_RATE_BPS_MAX + 1, -1, 2.5])
      : this.rng.pick([0, 50, 100, 200, m.feeRateBps])
    const original = m.input.feeRateBps
    this.agenda.push({ at: this.seq + this.rng.int(50, 400), build: (t) => ({ kind: 'setFeeRate', ...t, marketId: m.input.marketId, feeRateBps: original }) })
    return { kind: 'setFeeRate', ...s, marketId: m.input.marketId, feeRateBps: rate }
  }

  /** Pauses a market for a while (then resumes it), or tries a transition that is refused. */
  private marketStatus(s: Stamp): Command {
    const ms = [...this.markets.values()]
    const m = this.rng.pick(ms)
    const id = m.input.marketId
    const r = this.rng.int(0, 99)
    if (r < 50 && m.status === 'Active') {
      this.agenda.push({ at: this.seq + this.rng.int(10, 80), build: (t) => ({ kind: 'setMarketStatus', ...t, marketId: id, status: 'Active' }) })
      return { kind: 'setMarketStatus', ...s, marketId: id, status: 'Paused' }
    }
    if (r < 60) return { kind: 'setMarketStatus', ...s, marketId: id, status: m.status } // no-op
    const refused: Readonly<Record<MarketStatus, MarketStatus>> = {
      Upcoming: 'Paused',
      Active: 'Upcoming',
      Paused: 'Upcoming',
      Closed: 'Active',
      Resolving: 'Active',
      Resolved: 'Active',
    }
    return { kind: 'setMarketStatus', ...s, marketId: id, status: refused[m.status] }
  }

  /** Commands naming markets that do not exist, already exist, or are malformed. */
  private marketAdmin(s: Stamp): Command {
    const r = this.rng.int(0, 5)
    const input = this.rng.pick(this.marketInputs)
    if (r === 0) return { kind: 'createMarket', ...s, market: input } // MARKET_EXISTS
    if (r === 5) return { kind: 'createMarket', ...s, market: this.malformedMarket(input) }
    if (r === 1) return { kind: 'setTickSize', ...s, marketId: this.uuid(), tickSizeMicros: 10_000 }
    if (r === 2) return { kind: 'setFeeRate', ...s, marketId: this.uuid(), feeRateBps: 0 }
    if (r === 3) return { kind: 'setMarketStatus', ...s, marketId: this.uuid(), status: 'Paused' }
    return { kind: 'resolveMarket', ...s, marketId: this.uuid(), outcome: 'Yes' }
  }

  /** A market input with one bad field (MARKET_INVALID), never created. */
  private malformedMarket(like: MarketInput): MarketInput {
    const fresh = { ...like, marketId: this.uuid(), conditionId: `0x${this.rng.hex(32)}`, slug: `bad-${this.rng.hex(4)}`, yesTokenId: this.rng.decimal(77), noTokenId: this.rng.decimal(77) }
    const faults: readonly MarketInput[] = [
      { ...fresh, question: '' },
      { ...fresh, noTokenId: fresh.yesTokenId },
      { ...fresh, tickSizeMicros: 7_500 },
      { ...fresh, minOrderSizeMicros: 12_345 },
      { ...fresh, feeRateBps: FEE_RATE_BPS_MAX + 1 },
      { ...fresh, slug: '' },
    ]
    return this.rng.pick(faults)
  }

  private apiKey(s: Stamp): Command {
    const a = this.account()
    const r = this.rng.int(0, 99)
    const existing = this.apiKeys.length > 0 ? this.rng.pick(this.apiKeys) : undefined
    if (r < 35 || existing === undefined) {
      return { kind: 'registerApiKey', ...s, apiKey: this.uuid(), address: a.address, secret: this.rng.hex(32), passphrase: this.rng.hex(32), nonce: this.nonce++ }
    }
    if (r < 42) {
      return { kind: 'registerApiKey', ...s, apiKey: existing.apiKey, address: existing.address, secret: this.rng.hex(32), passphrase: this.rng.hex(32), nonce: existing.nonce }
    }
    if (r < 50) {
      // A new key for an (address, nonce) that already has one.
      return { kind: 'registerApiKey', ...s, apiKey: this.uuid(), address: existing.address, secret: this.rng.hex(32), passphrase: this.rng.hex(32), nonce: existing.nonce }
    }
    if (r < 62) {
      return { kind: 'registerApiKey', ...s, apiKey: this.uuid(), address: a.address, secret: '', passphrase: this.rng.hex(32), nonce: this.nonce++ }
    }
    if (r < 88) {
      // Revoke an extra key, never the one an account submits its orders with.
      const extra = this.apiKeys.filter((k) => !this.accounts.some((x) => x.apiKey === k.apiKey))
      if (extra.length > 0) return { kind: 'revokeApiKey', ...s, apiKey: this.rng.pick(extra).apiKey }
    }
    return { kind: 'revokeApiKey', ...s, apiKey: this.uuid() }
  }

  // -------------------------------------------------------------------------------------------
  // Learning from the engine
  // -------------------------------------------------------------------------------------------

  private rememberSent(command: Command, result: CommandResult): void {
    const orders = ordersOf(command)
    let results: readonly PlaceResult[] = []
    if (command.kind === 'placeOrder') results = [result as PlaceResult]
    else if ('results' in result) results = result.results
    else if ('placed' in result) results = [result.placed]
    else if ('newQuotes' in result) results = result.newQuotes
    orders.forEach((input, i) => {
      this.sent.push({ input, accepted: results[i]?.ok === true })
      if (this.sent.length > RECENT_MAX) this.sent.shift()
    })
  }

  private learn(e: EngineEvent): void {
    switch (e.type) {
      case 'orderAccepted':
        return this.learnAccepted(e.orderId, e.marketId, e.priceMicros, e.timeInForce, e.originalSizeMicros)
      case 'orderUpdate':
        return this.learnUpdate(e.orderId, e.maker, e.status, e.remainingMicros)
      case 'trade':
        return this.learnTrade(e.marketId, e.tokenId, e.priceMicros)
      case 'balance':
        return this.learnBalance(e.address, e.asset, e.balanceMicros, e.heldMicros)
      case 'allowance': {
        const a = this.accounts.find((x) => x.address === e.address)
        if (a !== undefined) {
          a.allowance = e.usdcAllowanceMicros
          a.approved = e.sharesApproved
        }
        return
      }
      case 'marketCreated':
        return this.learnMarket(e.market.marketId, e.market.status, e.market.tickSizeMicros, e.market.feeRateBps)
      case 'marketUpdated':
        return this.learnMarket(e.marketId, e.status, e.tickSizeMicros, e.feeRateBps)
      case 'apiKey':
        if (e.action === 'registered') this.apiKeys.push({ apiKey: e.apiKey, address: e.address, nonce: e.nonce })
        else this.apiKeys.splice(this.apiKeys.findIndex((k) => k.apiKey === e.apiKey), 1)
        return
      case 'orderGroup':
        return this.learnGroup(e)
      default:
        return
    }
  }

  private learnAccepted(
    orderId: string,
    marketId: string,
    priceMicros: number,
    tif: TimeInForce,
    originalSizeMicros: number,
  ): void {
    if (tif === 'FOK' || tif === 'FAK') return
    const input = this.findSentInput(orderId)
    const token = input === undefined ? undefined : this.tokens.get(input.tokenId)
    if (input === undefined || token === undefined) return
    const pips = priceMicros / MICROS_PER_PIP
    this.live.set(orderId, {
      input,
      marketId,
      bid: (input.side === 'BUY') === (token.outcome === 'Yes'),
      yesPips: token.outcome === 'Yes' ? pips : PIPS_PER_UNIT - pips,
      number: this.nextOrderNumber++,
      remainingMicros: originalSizeMicros,
    })
  }

  /** The input of an order being accepted: it is in the command being observed. */
  private findSentInput(orderId: string): OrderInput | undefined {
    return this.pendingInput.get(orderId)
  }

  private learnUpdate(orderId: string, maker: string, status: OrderStatus, remainingMicros: number): void {
    if (status === 'LIVE') {
      const o = this.live.get(orderId)
      if (o !== undefined) o.remainingMicros = remainingMicros
      return
    }
    this.live.delete(orderId)
    this.ended.push({ id: orderId, maker })
    if (this.ended.length > RECENT_MAX) this.ended.shift()
  }

  /** A group's change; a triggered group is mostly reset a little later, so that it trades again. */
  private learnGroup(e: OrderGroupChanged): void {
    let ofKey = this.groups.get(e.owner)
    if (e.action === 'deleted') {
      ofKey?.delete(e.groupId)
      return
    }
    if (ofKey === undefined) {
      ofKey = new Map()
      this.groups.set(e.owner, ofKey)
    }
    ofKey.set(e.groupId, { triggered: e.triggered })
    if (e.action !== 'triggered' || !this.rng.chance(0.8)) return
    const address = this.accounts.find((x) => x.apiKey === e.owner)?.address ?? e.owner
    const reset = (t: Stamp): Command => ({ kind: 'orderGroup', ...t, action: 'reset', address, owner: e.owner,
      groupId: e.groupId, contractsLimitMicros: 0, notionalLimitMicros: 0, windowMs: 0, freezeMs: 0 })
    this.agenda.push({ at: this.seq + this.rng.int(2, 30), build: reset })
  }

  private learnTrade(marketId: string, tokenId: string, priceMicros: number): void {
    const m = this.markets.get(marketId)
    if (m === undefined) return
    m.midPips = this.tokenPips(tokenId, priceMicros / MICROS_PER_PIP)
  }

  private learnBalance(address: string, asset: string, balance: number, held: number): void {
    const a = this.accounts.find((x) => x.address === address)
    if (a === undefined) return
    if (asset === 'USDC') a.usdc = { balance, held }
    else a.shares.set(asset, { balance, held })
  }

  private learnMarket(marketId: string, status: MarketStatus, tickSizeMicros: number, feeRateBps: number): void {
    const existing = this.markets.get(marketId)
    if (existing !== undefined) {
      existing.status = status
      existing.tickPips = tickSizeMicros / MICROS_PER_PIP
      existing.feeRateBps = feeRateBps
      existing.midPips = this.onGrid(existing, existing.midPips)
      return
    }
    const input = this.marketInputs.find((x) => x.marketId === marketId)
    if (input === undefined) return
    const view: MarketView = { input, status, tickPips: tickSizeMicros / MICROS_PER_PIP, feeRateBps, midPips: 0 }
    view.midPips = this.onGrid(view, this.rng.int(2_000, 8_000))
    this.markets.set(marketId, view)
    this.tokens.set(input.yesTokenId, { marketId, outcome: 'Yes' })
    this.tokens.set(input.noTokenId, { marketId, outcome: 'No' })
  }

  // -------------------------------------------------------------------------------------------
  // Small helpers
  // -------------------------------------------------------------------------------------------

  /** Mostly an active market; sometimes any (orders then meet Upcoming, Paused, Resolved). */
  private orderMarket(): MarketView {
    const all = [...this.markets.values()]
    const active = all.filter((m) => m.status === 'Active')
    if (active.length > 0 && this.rng.chance(0.95)) return this.rng.pick(active)
    return this.rng.pick(all)
  }

  /** Mostly a market still trading; sometimes any (split then meets a resolved market). */
  private ledgerMarket(): MarketView {
    const all = [...this.markets.values()]
    const open = all.filter((m) => m.status !== 'Resolved')
    return open.length > 0 && this.rng.chance(0.9) ? this.rng.pick(open) : this.rng.pick(all)
  }

  /** Any account but the never-approved last one, which is picked rarely. */
  private account(): AccountView {
    const n = this.accounts.length
    const i = this.rng.chance(0.02) ? n - 1 : this.rng.int(0, Math.max(0, n - 2))
    const a = this.accounts[i]
    if (a === undefined) throw new Error('workload: no accounts')
    return a
  }

  /** Who asks for a cancel on behalf of `a`: its address or, sometimes, its signer. */
  private requester(a: AccountView): string {
    return this.rng.chance(0.2) ? a.signer : a.address
  }

  /** The best live order (by the workload's view) on a random side of a random active market. */
  private bestLiveOrder(): OrderView | undefined {
    const bid = this.rng.chance(0.5)
    const orders = [...this.live.values()].filter((o) => o.bid === bid)
    if (orders.length === 0) return undefined
    const marketId = this.rng.pick(orders).marketId
    return orders
      .filter((o) => o.marketId === marketId)
      .sort((a, b) => (bid ? b.yesPips - a.yesPips : a.yesPips - b.yesPips) || a.number - b.number)[0]
  }

  private lots(minLots: number): number {
    if (this.rng.chance(0.6)) {
      return Math.max(minLots, this.rng.pick([5, 10, 20, 25, 50, 100, 150, 250]) * 100)
    }
    return this.rng.int(minLots, minLots * 40)
  }

  /** Lots of a BUY at `pips` that `a` can pay for, fee bound included (at least `minLots`). */
  private affordableLots(a: AccountView, m: MarketView, pips: number, lots: number, minLots: number): number {
    const free = Math.min(a.usdc.balance, a.allowance) - a.usdc.held
    const perLot = pips + Math.ceil((pips * m.feeRateBps) / 10_000)
    const can = Math.floor(free / perLot) - 1
    // Mostly stay within means; now and then overreach (INVALID_ORDER_NOT_ENOUGH_BALANCE).
    return can >= minLots && !this.rng.chance(0.01) ? Math.min(lots, can) : lots
  }

  private freeShares(a: AccountView, tokenId: string): number {
    const h = a.shares.get(tokenId)
    return h === undefined ? 0 : Math.max(0, h.balance - h.held)
  }

  /** A Yes-space price snapped to the market's tick, within (0, 1). */
  private onGrid(m: MarketView, yesPips: number): number {
    const t = m.tickPips
    return clamp(Math.round(yesPips / t) * t, t, PIPS_PER_UNIT - t)
  }

  /** The price of `tokenId` at Yes-space `yesPips` (and back: the map is its own inverse). */
  private tokenPips(tokenId: string, yesPips: number): number {
    return this.tokens.get(tokenId)?.outcome === 'No' ? PIPS_PER_UNIT - yesPips : yesPips
  }

  private marketOfToken(tokenId: string): MarketView | undefined {
    const t = this.tokens.get(tokenId)
    return t === undefined ? undefined : this.markets.get(t.marketId)
  }

  /** The mid wanders a tick now and then, and is pulled back from the edges. */
  private drift(m: MarketView): void {
    if (!this.rng.chance(0.03)) return
    const step = (this.rng.chance(0.5) ? 1 : -1) * m.tickPips * this.rng.int(1, 3)
    m.midPips = this.onGrid(m, clamp(m.midPips + step, 1_500, 8_500))
  }

  private validExpiration(): number {
    const earliest = Math.ceil((this.timeMs + GTD_MARGIN_MS) / 1000)
    return earliest + (this.rng.chance(0.1) ? 0 : this.rng.int(1, 900))
  }

  private address(): string {
    return `0x${this.rng.hex(20)}`
  }

  private uuid(): string {
    const h = this.rng.hex(16)
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v))
}

function unstamped(command: Approve | Split | Merge | Redeem): RelayAction {
  const { seq: _seq, timeMs: _timeMs, ...action } = command
  return action
}

function ordersOf(command: Command): readonly OrderInput[] {
  if (command.kind === 'placeOrder') return [command.order]
  if (command.kind === 'placeOrders') return command.orders
  if (command.kind === 'cancelReplace') return [command.order]
  if (command.kind === 'massQuote') return command.orders
  return []
}

/**
 * The self-trades of one applied command, as `<taker's mode> <who was cancelled>`: `maker` for
 * each resting order cancelled, `taker` for a taker stopped on its own order (cancel-taker,
 * cancel-both). For the simulation's tallies: an orderUpdate with reason self-trade names the
 * taker itself, or a maker in the walk of the order accepted last.
 */
export function selfTradesOf(command: Command, events: readonly EngineEvent[]): string[] {
  const modes = new Map(ordersOf(command).map((o) => [o.orderId, o.selfTradePrevention ?? 'cancel-maker']))
  const out: string[] = []
  let taker = ''
  for (const e of events) {
    if (e.type === 'orderAccepted') taker = e.orderId
    else if (e.type === 'orderUpdate' && e.reason === 'self-trade') {
      out.push(`${String(modes.get(taker))} ${e.orderId === taker ? 'taker' : 'maker'}`)
    }
  }
  return out
}
