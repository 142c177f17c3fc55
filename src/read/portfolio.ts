/**
 * Wallets' portfolio histories, kept as the read model applies events: each trade (as taker or
 * maker) and ledger operation (credit, split, merge, redeem) of a wallet is a milestone with the
 * USDC it moved and the running USDC balance and positions after it, so a client can value the
 * portfolio at any time (seed: "position-changing events (buy, sell, mint, redemption) together
 * with the running USDC balance"). Each event costs O(1) per wallet it touches; a page of the
 * history costs what it holds, not what came before it (issue 14, finding 6: the history used
 * to be replayed from zero for every request).
 *
 * Exact, in micro-units, by the engine's settlement rules (docs/engine.md, "Matching"): a taker
 * BUY pays price x size + fee, a taker SELL receives price x size - fee, makers pay or receive
 * their own price x size; a split costs its amount in USDC for as many Yes and No shares, a merge
 * the reverse, a redemption burns every share of the market for its payout. A new address starts
 * with nothing, so the history ends at the engine's balances (test/simulation/portfolio.test.ts).
 *
 * Realized profit and loss, by average cost per token: buys (fees included) and splits (half
 * the amount to each token) add to a token's cost; a sell, merge or redemption realizes what it
 * brings in minus the cost of the shares it takes out (in proportion, rounded down, the remainder
 * staying with the shares kept, so no micro-unit is created or lost).
 *
 * Positions are kept per (market, outcome), which every trade and ledger record names, so the
 * history needs no market record while it is built (at start-up the stored records are loaded
 * before the markets); token ids are looked up when a page is read. A milestone keeps only the
 * positions it changed; the whole positions are copied every PORTFOLIO_CHECKPOINT_EVERY
 * milestones, and a page starts from the copy before it.
 */
import type { Outcome } from '../engine/command.js'
import type { ChainTransaction } from '../engine/event.js'
import { notionalMicros } from '../engine/units.js'
import { PORTFOLIO_CHECKPOINT_EVERY } from '../limits.js'
import type { History } from './history.js'
import type { LedgerRecord, TradeRecord } from './read-model.js'

/** `reversal`: a trade whose settlement failed on a real chain, moved back (docs/testnet.md, "Settlement"). */
export type MilestoneKind = 'buy' | 'sell' | 'mint' | 'merge' | 'redemption' | 'deposit' | 'reversal'

export interface Milestone {
  readonly seq: number
  readonly timeMs: number
  readonly kind: MilestoneKind
  readonly marketId: string
  /** The token bought or sold; empty for deposits, mints, merges and redemptions (both tokens). */
  readonly tokenId: string
  readonly sharesMicros: number
  /** Price of a buy or sell; null otherwise. */
  readonly priceMicros: number | null
  readonly usdcDeltaMicros: number
  readonly usdcBalanceMicros: number
  /**
   * The trade a buy, sell or reversal is of ('' otherwise), so that on a real chain its settlement
   * transaction can be named; absent in milestones kept before it was.
   */
  readonly tradeId?: string
  /** On a real chain, the transaction a ledger milestone's fact is of (chain-sync.ts); else null or absent. */
  readonly chainTransaction?: ChainTransaction | null
  /** Token id -> shares, non-zero ones, after this milestone. */
  readonly positions: Readonly<Record<string, number>>
}

/** A market's token of an outcome (the read model's markets), or null for a market it does not know. */
export type TokenOf = (marketId: string, outcome: Outcome) => string | null

/** A position inside a wallet's history: the outcome's initial, then the market id ("Y<market id>"). */
type PositionKey = string

function keyOf(marketId: string, outcome: Outcome): PositionKey {
  return (outcome === 'Yes' ? 'Y' : 'N') + marketId
}

/** A milestone as kept: its own fields and the shares after it of the positions it changed, not all of them. */
export interface Step extends Omit<Milestone, 'positions'> {
  /** Shares of the market's Yes after this milestone, when it changed them; else null. */
  readonly yesMicros: number | null
  readonly noMicros: number | null
  /** Non-zero positions after it: what a page of it shows, known before the page is built. */
  readonly positionsCount: number
}

/** The fields of a milestone that say what happened (the balances after it are the history's). */
type Happening = Pick<Step, 'seq' | 'timeMs' | 'kind' | 'marketId' | 'tokenId' | 'sharesMicros' | 'priceMicros'
  | 'usdcDeltaMicros' | 'tradeId' | 'chainTransaction'>

/** The positions after a milestone, zeros kept (for the keys' order). */
export type Checkpoint = readonly (readonly [PositionKey, number])[]

/** A wallet's running state: what its next milestone starts from (kept across restarts by the read store). */
export interface WalletState {
  readonly usdcMicros: number
  readonly realizedPnlMicros: number
  readonly volumeMicros: number
  readonly marketsTraded: readonly string[]
  readonly positions: readonly (readonly [PositionKey, number])[]
  readonly cost: readonly (readonly [PositionKey, number])[]
  readonly nonZero: number
  readonly length: number
}

/** Sets a position in `positions`, keeping `nonZero` (the count of non-zero ones) in step. */
function setPosition(positions: Map<PositionKey, number>, key: PositionKey, sharesMicros: number): number {
  const before = positions.get(key) ?? 0
  positions.set(key, sharesMicros)
  return (before === 0 ? 0 : -1) + (sharesMicros === 0 ? 0 : 1)
}

/**
 * One wallet's history and running state. The state (balances, positions, cost) is in memory:
 * it is bounded by the markets the wallet holds. The milestones and checkpoints are appended to
 * the history's lists (read-store.ts keeps them on disk), read back a page at a time.
 */
export class WalletHistory {
  usdcMicros = 0
  realizedPnlMicros = 0
  /** USDC traded, at the wallet's own price of each trade. */
  volumeMicros = 0
  /** The markets it traded in (bounded by the markets). */
  readonly marketsTraded = new Set<string>()
  private readonly positions = new Map<PositionKey, number>()
  private nonZero = 0
  /** Position -> cost of the shares held (micro-USDC). */
  private readonly cost = new Map<PositionKey, number>()
  /** Milestones so far. */
  length = 0

  constructor(private readonly address: string, private readonly history: History) {}

  /** The running state, to keep across a restart. */
  state(): WalletState {
    return { usdcMicros: this.usdcMicros, realizedPnlMicros: this.realizedPnlMicros, volumeMicros: this.volumeMicros,
      marketsTraded: [...this.marketsTraded], positions: [...this.positions], cost: [...this.cost],
      nonZero: this.nonZero, length: this.length }
  }

  /** Back to a kept running state (start-up). */
  restore(state: WalletState): void {
    this.usdcMicros = state.usdcMicros
    this.realizedPnlMicros = state.realizedPnlMicros
    this.volumeMicros = state.volumeMicros
    for (const marketId of state.marketsTraded) this.marketsTraded.add(marketId)
    for (const [key, shares] of state.positions) this.positions.set(key, shares)
    for (const [key, cost] of state.cost) this.cost.set(key, cost)
    this.nonZero = state.nonZero
    this.length = state.length
  }

  /** Milestones `from` to `to` as kept (their entries on a page: 1 + positionsCount each). */
  steps(from: number, to: number): Step[] {
    return this.history.range('steps', this.address, from, to)
  }

  trade(trade: TradeRecord, address: string): void {
    const { tokenId, outcome, price, value, fee, key, buy } = sideOf(trade, address)
    if (buy) this.move(key, trade.sizeMicros, value + fee)
    else this.realize(key, trade.sizeMicros, value - fee)
    this.volumeMicros += value
    this.marketsTraded.add(trade.marketId)
    const shares = this.positions.get(key)!
    this.record({ seq: trade.seq, timeMs: trade.timeMs, kind: buy ? 'buy' : 'sell', marketId: trade.marketId, tokenId,
      sharesMicros: trade.sizeMicros, priceMicros: price, usdcDeltaMicros: buy ? -(value + fee) : value - fee,
      tradeId: trade.tradeId, chainTransaction: null },
    outcome === 'Yes' ? shares : null, outcome === 'No' ? shares : null)
  }

  /**
   * A trade whose settlement failed, moved back at command `seq` (src/engine/trade-reversal.ts):
   * a bought position gives the shares back for what they cost, a sold one takes them back for
   * what they brought, and the trade's volume is no longer the wallet's.
   */
  reversal(trade: TradeRecord, address: string, seq: number, timeMs: number): void {
    const { tokenId, outcome, price, value, fee, key, buy } = sideOf(trade, address)
    if (buy) this.realize(key, trade.sizeMicros, value + fee)
    else this.move(key, trade.sizeMicros, value - fee)
    this.volumeMicros -= value
    const shares = this.positions.get(key)!
    this.record({ seq, timeMs, kind: 'reversal', marketId: trade.marketId, tokenId, sharesMicros: trade.sizeMicros,
      priceMicros: price, usdcDeltaMicros: buy ? value + fee : -(value - fee), tradeId: trade.tradeId,
      chainTransaction: null },
    outcome === 'Yes' ? shares : null, outcome === 'No' ? shares : null)
  }

  ledger(record: LedgerRecord): void {
    const yes = keyOf(record.marketId, 'Yes')
    const no = keyOf(record.marketId, 'No')
    switch (record.action) {
      case 'credit':
        return this.record(this.happening(record, 'deposit', 0, record.amountMicros), null, null)
      case 'split': {
        const half = Math.floor(record.amountMicros / 2)
        this.move(yes, record.amountMicros, half)
        this.move(no, record.amountMicros, record.amountMicros - half)
        return this.recordFullSets(this.happening(record, 'mint', record.amountMicros, -record.amountMicros))
      }
      case 'merge': {
        // The USDC comes back for both tokens at once: half of it realizes each side.
        const half = Math.floor(record.amountMicros / 2)
        this.realize(yes, record.amountMicros, half)
        this.realize(no, record.amountMicros, record.amountMicros - half)
        return this.recordFullSets(this.happening(record, 'merge', record.amountMicros, record.amountMicros))
      }
      case 'redeem':
        // Every share of both tokens goes, so which one won does not matter here: the payout and
        // the cost of all the shares held are realized either way.
        this.realize(yes, this.positions.get(yes) ?? 0, record.payoutMicros)
        this.realize(no, this.positions.get(no) ?? 0, 0)
        return this.recordFullSets(this.happening(record, 'redemption', record.amountMicros, record.payoutMicros))
      case 'approve': return
    }
  }

  /**
   * Milestones `from` (included) to `to` (excluded), oldest first, with their positions: from the
   * copy of the positions at or before `from`, so at most PORTFOLIO_CHECKPOINT_EVERY milestones
   * are stepped through before the first one.
   */
  slice(from: number, to: number, tokenOf: TokenOf): Milestone[] {
    const start = Math.floor(from / PORTFOLIO_CHECKPOINT_EVERY) * PORTFOLIO_CHECKPOINT_EVERY
    const checkpoint = this.history.range('checkpoints', this.address, start / PORTFOLIO_CHECKPOINT_EVERY,
      start / PORTFOLIO_CHECKPOINT_EVERY + 1)[0]
    const positions = new Map(checkpoint)
    const milestones: Milestone[] = []
    const steps = this.steps(start, Math.min(to, this.length))
    for (let index = start; index < start + steps.length; index++) {
      const step = steps[index - start]!
      if (index > start) {
        if (step.yesMicros !== null) positions.set(keyOf(step.marketId, 'Yes'), step.yesMicros)
        if (step.noMicros !== null) positions.set(keyOf(step.marketId, 'No'), step.noMicros)
      }
      if (index >= from) milestones.push(milestoneOf(step, positions, tokenOf))
    }
    return milestones
  }

  private happening(record: LedgerRecord, kind: MilestoneKind, sharesMicros: number, usdcDeltaMicros: number):
    Happening {
    return { seq: record.seq, timeMs: record.timeMs, kind, marketId: record.marketId, tokenId: '', sharesMicros,
      priceMicros: null, usdcDeltaMicros, tradeId: '', chainTransaction: record.chainTransaction ?? null }
  }

  /** Adds shares bought for `costMicros`. */
  private move(key: PositionKey, sharesMicros: number, costMicros: number): void {
    this.nonZero += setPosition(this.positions, key, (this.positions.get(key) ?? 0) + sharesMicros)
    this.cost.set(key, (this.cost.get(key) ?? 0) + costMicros)
  }

  /** Takes shares out for `proceedsMicros`: realizes proceeds minus their share of the cost. */
  private realize(key: PositionKey, sharesMicros: number, proceedsMicros: number): void {
    const held = this.positions.get(key) ?? 0
    const cost = this.cost.get(key) ?? 0
    const costOut = held <= 0 ? 0
      : sharesMicros >= held ? cost
        : Number((BigInt(cost) * BigInt(sharesMicros)) / BigInt(held))
    this.nonZero += setPosition(this.positions, key, held - sharesMicros)
    this.cost.set(key, cost - costOut)
    this.realizedPnlMicros += proceedsMicros - costOut
  }

  /** A milestone on a market's full sets (mint, merge, redemption): both its positions changed. */
  private recordFullSets(happening: Happening): void {
    const { marketId } = happening
    this.record(happening, this.positions.get(keyOf(marketId, 'Yes'))!, this.positions.get(keyOf(marketId, 'No'))!)
  }

  private record(happening: Happening, yesMicros: number | null, noMicros: number | null): void {
    this.usdcMicros += happening.usdcDeltaMicros
    // Written out, not spread: one shape for every step keeps each at about 180 bytes (a spread copy took 600).
    const { seq, timeMs, kind, marketId, tokenId, sharesMicros, priceMicros, usdcDeltaMicros, tradeId,
      chainTransaction } = happening
    this.history.append('steps', this.address, { seq, timeMs, kind, marketId, tokenId, sharesMicros, priceMicros,
      usdcDeltaMicros, tradeId, chainTransaction, usdcBalanceMicros: this.usdcMicros, yesMicros, noMicros,
      positionsCount: this.nonZero })
    if (this.length % PORTFOLIO_CHECKPOINT_EVERY === 0) {
      this.history.append('checkpoints', this.address, [...this.positions])
    }
    this.length++
  }
}

/** One side of a trade, as `address` took part in it (taker, or maker). */
function sideOf(trade: TradeRecord, address: string) {
  const taker = trade.takerAddress === address
  const price = taker ? trade.priceMicros : trade.makerPriceMicros
  const outcome = taker ? trade.outcome : trade.makerOutcome
  return { tokenId: taker ? trade.tokenId : trade.makerTokenId, outcome, price,
    value: notionalMicros(price, trade.sizeMicros), fee: taker ? trade.feeMicros : 0,
    key: keyOf(trade.marketId, outcome), buy: (taker ? trade.side : trade.makerSide) === 'BUY' }
}

function milestoneOf(step: Step, positions: ReadonlyMap<PositionKey, number>, tokenOf: TokenOf): Milestone {
  const { yesMicros: _yes, noMicros: _no, positionsCount: _count, ...fields } = step
  const shown: Record<string, number> = {}
  for (const [key, shares] of positions) {
    if (shares === 0) continue
    const marketId = key.slice(1)
    shown[tokenOf(marketId, key[0] === 'Y' ? 'Yes' : 'No') ?? key] = shares
  }
  return { ...fields, positions: shown }
}

/** Every wallet's history, fed by the read model with each trade and ledger record in journal order. */
export class Portfolios {
  private readonly wallets = new Map<string, WalletHistory>()
  /** Wallets whose running state changed since the last `drainChanged`. */
  private changed = new Set<string>()

  constructor(private readonly history: History) {}

  /** Wallets changed since the last call, with their running states (for the read store). */
  drainChanged(): [string, WalletState][] {
    const changed = [...this.changed]
      .map((address): [string, WalletState] => [address, this.wallets.get(address)!.state()])
    this.changed = new Set()
    return changed
  }

  /** A kept wallet back (start-up). */
  restore(address: string, state: WalletState): void {
    this.walletOf(address).restore(state)
    this.changed.delete(address)
  }

  /** The wallet's history, or undefined if it never traded nor had a ledger operation that moves funds. */
  of(address: string): WalletHistory | undefined {
    return this.wallets.get(address)
  }

  trade(trade: TradeRecord): void {
    this.walletOf(trade.takerAddress).trade(trade, trade.takerAddress)
    // A self-trade is one milestone of its taker, as the wallet's trade list holds it once.
    if (trade.makerAddress !== trade.takerAddress) this.walletOf(trade.makerAddress).trade(trade, trade.makerAddress)
  }

  ledger(record: LedgerRecord): void {
    if (record.action !== 'approve') this.walletOf(record.address).ledger(record)
  }

  /** A trade moved back at command `seq`: a milestone of each side, as the trade was. */
  reversal(trade: TradeRecord, seq: number, timeMs: number): void {
    this.walletOf(trade.takerAddress).reversal(trade, trade.takerAddress, seq, timeMs)
    if (trade.makerAddress !== trade.takerAddress) {
      this.walletOf(trade.makerAddress).reversal(trade, trade.makerAddress, seq, timeMs)
    }
  }

  private walletOf(address: string): WalletHistory {
    let wallet = this.wallets.get(address)
    if (wallet === undefined) this.wallets.set(address, wallet = new WalletHistory(address, this.history))
    this.changed.add(address)
    return wallet
  }
}
