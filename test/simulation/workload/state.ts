/**
 * The workload's view of the engine (accounts, markets, live orders, what it sent), its stamp and
 * random source, and the small helpers every command family draws with.
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { Approve, Command, MarketInput, MarketStatus, Merge, OrderInput, Outcome, Redeem, Relay, RelayAction, Split }
  from '../../../src/engine/command.js'
import { GTD_MARGIN_MS, PIPS_PER_UNIT } from '../../../src/engine/limits.js'
import { Random } from '../random.js'

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

export interface Stamp {
  readonly seq: number
  readonly timeMs: number
}

/** A command waiting for its stamp. */
export type Build = (s: Stamp) => Command

export interface Holding {
  balance: number
  held: number
}

export interface AccountView {
  readonly address: string
  /** The key that signs this account's orders (differs from `address` for proxy wallets). */
  readonly signer: string
  readonly apiKey: string
  usdc: Holding
  allowance: number
  approved: boolean
  readonly shares: Map<string, Holding>
}

export interface MarketView {
  readonly input: MarketInput
  status: MarketStatus
  tickPips: number
  feeRateBps: number
  /** Where trading happens, in Yes-space pips; follows trades and drifts. */
  midPips: number
}

export interface OrderView {
  readonly input: OrderInput
  readonly marketId: string
  readonly bid: boolean
  readonly yesPips: number
  readonly number: number
  /** What rests, as the last orderUpdate said (the original size until one does). */
  remainingMicros: number
}

export type Kind =
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

export const START_MS = 1_700_000_000_000
export const RECENT_MAX = 400
export const TICKS_MICROS = [100_000, 10_000, 5_000, 2_500, 1_000, 100]
/** Client order ids an API key uses: few, so that repeats of live ones and reuse of ended ones happen. */
export const CLIENT_ORDER_IDS_PER_KEY = 10
/** The self-trade prevention modes (with `selfTradeModes`). */
export const SELF_TRADE_MODES = ['cancel-maker', 'cancel-taker', 'cancel-both'] as const
/** The group ids every key uses (with `orderGroups`): few, so that creates meet existing ones. */
export const GROUP_IDS = ['mmp', 'g 2', 'quotes~'] as const

/** What the workload knows of the engine and draws with: one per Workload, handed to every function of its modules. */
export class WorkloadState {
  readonly rng: Random
  readonly lifecycleEvery: number
  readonly amendsAndReplaces: boolean
  readonly selfTradeModes: boolean
  readonly massQuotes: boolean
  readonly orderGroups: boolean
  /** API key -> its order groups by id, as the orderGroup events told them (with `orderGroups`). */
  readonly groups = new Map<string, Map<string, { triggered: boolean }>>()
  /** Extra groups created for the first account's key, one new id each (ORDER_GROUPS_FULL once it has 16). */
  extraGroups = 0
  seq = 0
  timeMs: number
  readonly accounts: AccountView[] = []
  readonly markets = new Map<string, MarketView>()
  /** Inputs of every market the workload created, observed or not (for MARKET_EXISTS). */
  readonly marketInputs: MarketInput[] = []
  readonly tokens = new Map<string, { readonly marketId: string; readonly outcome: Outcome }>()
  readonly live = new Map<string, OrderView>()
  readonly ended: { readonly id: string; readonly maker: string }[] = []
  readonly sent: { readonly input: OrderInput; readonly accepted: boolean }[] = []
  readonly apiKeys: { readonly apiKey: string; readonly address: string; readonly nonce: number }[] = []
  readonly queue: Build[] = []
  readonly agenda: { readonly at: number; readonly build: Build }[] = []
  nextOrderNumber = 1
  pendingInput = new Map<string, OrderInput>()
  nonce = 0
  lifecycles = 0
  /** Address -> its next relay nonce (relays the engine accepted). */
  readonly relayNonces = new Map<string, number>()
  /** Relays the engine accepted, to replay some of them (RELAY_NONCE_MISMATCH). */
  readonly relayed: Omit<Relay, 'seq' | 'timeMs'>[] = []

  constructor(options: WorkloadOptions) {
    this.rng = new Random(options.seed)
    this.lifecycleEvery = options.lifecycleEvery ?? 5000
    this.amendsAndReplaces = options.amendsAndReplaces ?? false
    this.selfTradeModes = options.selfTradeModes ?? false
    this.massQuotes = options.massQuotes ?? false
    this.orderGroups = options.orderGroups ?? false
    this.timeMs = options.startMs ?? START_MS
  }
}

/** A trading account other than `address`'s (any account if there is no other). */
export function otherAccount(w: WorkloadState, address: string): AccountView {
  const others = w.accounts.filter((x) => x.address !== address)
  return others.length > 0 ? w.rng.pick(others) : pickAccount(w)
}

/** Mostly an active market; sometimes any (orders then meet Upcoming, Paused, Resolved). */
export function orderMarket(w: WorkloadState): MarketView {
  const all = [...w.markets.values()]
  const active = all.filter((m) => m.status === 'Active')
  if (active.length > 0 && w.rng.chance(0.95)) return w.rng.pick(active)
  return w.rng.pick(all)
}

/** Mostly a market still trading; sometimes any (split then meets a resolved market). */
export function ledgerMarket(w: WorkloadState): MarketView {
  const all = [...w.markets.values()]
  const open = all.filter((m) => m.status !== 'Resolved')
  return open.length > 0 && w.rng.chance(0.9) ? w.rng.pick(open) : w.rng.pick(all)
}

/** Any account but the never-approved last one, which is picked rarely. */
export function pickAccount(w: WorkloadState): AccountView {
  const n = w.accounts.length
  const i = w.rng.chance(0.02) ? n - 1 : w.rng.int(0, Math.max(0, n - 2))
  const a = w.accounts[i]
  if (a === undefined) throw new Error('workload: no accounts')
  return a
}

/** Who asks for a cancel on behalf of `a`: its address or, sometimes, its signer. */
export function requester(w: WorkloadState, a: AccountView): string {
  return w.rng.chance(0.2) ? a.signer : a.address
}

/** The best live order (by the workload's view) on a random side of a random active market. */
export function bestLiveOrder(w: WorkloadState): OrderView | undefined {
  const bid = w.rng.chance(0.5)
  const orders = [...w.live.values()].filter((o) => o.bid === bid)
  if (orders.length === 0) return undefined
  const marketId = w.rng.pick(orders).marketId
  return orders
    .filter((o) => o.marketId === marketId)
    .sort((a, b) => (bid ? b.yesPips - a.yesPips : a.yesPips - b.yesPips) || a.number - b.number)[0]
}

export function drawLots(w: WorkloadState, minLots: number): number {
  if (w.rng.chance(0.6)) {
    return Math.max(minLots, w.rng.pick([5, 10, 20, 25, 50, 100, 150, 250]) * 100)
  }
  return w.rng.int(minLots, minLots * 40)
}

/** Lots of a BUY at `pips` that `a` can pay for, fee bound included (at least `minLots`). */
export function affordableLots(w: WorkloadState, a: AccountView, m: MarketView, pips: number, lots: number, minLots: number): number {
  const free = Math.min(a.usdc.balance, a.allowance) - a.usdc.held
  const perLot = pips + Math.ceil((pips * m.feeRateBps) / 10_000)
  const can = Math.floor(free / perLot) - 1
  // Mostly stay within means; now and then overreach (INVALID_ORDER_NOT_ENOUGH_BALANCE).
  return can >= minLots && !w.rng.chance(0.01) ? Math.min(lots, can) : lots
}

export function freeShares(a: AccountView, tokenId: string): number {
  const h = a.shares.get(tokenId)
  return h === undefined ? 0 : Math.max(0, h.balance - h.held)
}

/** A Yes-space price snapped to the market's tick, within (0, 1). */
export function onGrid(m: MarketView, yesPips: number): number {
  const t = m.tickPips
  return clamp(Math.round(yesPips / t) * t, t, PIPS_PER_UNIT - t)
}

/** The price of `tokenId` at Yes-space `yesPips` (and back: the map is its own inverse). */
export function tokenPips(w: WorkloadState, tokenId: string, yesPips: number): number {
  return w.tokens.get(tokenId)?.outcome === 'No' ? PIPS_PER_UNIT - yesPips : yesPips
}

export function marketOfToken(w: WorkloadState, tokenId: string): MarketView | undefined {
  const t = w.tokens.get(tokenId)
  return t === undefined ? undefined : w.markets.get(t.marketId)
}

/** The mid wanders a tick now and then, and is pulled back from the edges. */
export function drift(w: WorkloadState, m: MarketView): void {
  if (!w.rng.chance(0.03)) return
  const step = (w.rng.chance(0.5) ? 1 : -1) * m.tickPips * w.rng.int(1, 3)
  m.midPips = onGrid(m, clamp(m.midPips + step, 1_500, 8_500))
}

export function validExpiration(w: WorkloadState): number {
  const earliest = Math.ceil((w.timeMs + GTD_MARGIN_MS) / 1000)
  return earliest + (w.rng.chance(0.1) ? 0 : w.rng.int(1, 900))
}

export function newAddress(w: WorkloadState): string {
  return `0x${w.rng.hex(20)}`
}

export function uuid(w: WorkloadState): string {
  const h = w.rng.hex(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}

export function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v))
}

export function unstamped(command: Approve | Split | Merge | Redeem): RelayAction {
  const { seq: _seq, timeMs: _timeMs, ...action } = command
  return action
}

export function ordersOf(command: Command): readonly OrderInput[] {
  if (command.kind === 'placeOrder') return [command.order]
  if (command.kind === 'placeOrders') return command.orders
  if (command.kind === 'cancelReplace') return [command.order]
  if (command.kind === 'massQuote') return command.orders
  return []
}
