/**
 * The ledger on a real chain is the chain plus the trades matched and not settled yet, exactly,
 * whatever happens in between (src/engine/trade-reversal.ts, chain-sync.ts). A seeded run drives
 * the engine beside a model of the chain: wallets trade in the engine; the chain does what wallets
 * send it (transfers, splits and merges of what they hold on chain, which the ledger mirrors);
 * each matched trade then settles on chain when both sides still have there what it takes, and
 * FAILS otherwise (or at random, as an expired order would), and its reversal is applied. After
 * every command, for every wallet and asset: the ledger's balance less what it owes equals the
 * chain's plus its pending trades' effects, and so do the fees and each market's collateral; the
 * invariants hold (the harness). At the end every pending trade settles or fails, and the ledger
 * equals the chain. The journal replays, through the command codec, to the same state, and
 * snapshots (version 7 with debts) load to it. Replay a failure with REVERSAL_SEED=<seed>.
 */
import t from 'tap'
import { Harness, addressOf, USDC } from '../support/harness.js'
import type { ChainEntry, Side } from '../../src/engine/command.js'
import { Engine } from '../../src/engine/engine.js'
import type { Trade } from '../../src/engine/event.js'
import { decodeSnapshot, encodeSnapshot, stateHashOf } from '../../src/engine/snapshot.js'
import { reversalOf } from '../../src/engine/trade-reversal.js'
import { decodeStampedCommand, encodeStampedCommand } from '../../src/codec/command-codec.js'
import { seedOf } from '../support/seed.js'
import { Random } from './random.js'

const SEED = seedOf('REVERSAL_SEED')
const STEPS = 4_000
const WALLETS = [1, 2, 3, 4, 5].map(addressOf)
const USDC_ASSET = 'USDC'

/** Amounts by wallet and asset ('USDC' or a token id), and what is outside wallets. */
class Books {
  readonly held = new Map<string, Map<string, number>>()
  feesMicros = 0
  readonly collateralMicros = new Map<string, number>()

  of(wallet: string, asset: string): number {
    return this.held.get(wallet)?.get(asset) ?? 0
  }

  add(wallet: string, asset: string, amountMicros: number): void {
    let assets = this.held.get(wallet)
    if (assets === undefined) this.held.set(wallet, (assets = new Map()))
    assets.set(asset, (assets.get(asset) ?? 0) + amountMicros)
  }

  addCollateral(marketId: string, amountMicros: number): void {
    this.collateralMicros.set(marketId, (this.collateralMicros.get(marketId) ?? 0) + amountMicros)
  }
}

interface MarketTokens {
  readonly marketId: string
  readonly yes: string
  readonly no: string
}

/** What a trade moves, as matching.ts's settle does: [wallet, asset, amount] moves, fee, collateral. */
function effectsOf(trade: Trade): { moves: [string, string, number][]; feeMicros: number; collateralMicros: number } {
  const takerUsdc = (trade.priceMicros * trade.sizeMicros) / USDC
  const makerUsdc = (trade.makerPriceMicros * trade.sizeMicros) / USDC
  const side = (buys: boolean, usdc: number): [number, number] =>
    buys ? [-usdc, trade.sizeMicros] : [usdc, -trade.sizeMicros]
  const [takerUsdcMove, takerShares] = side(trade.side === 'BUY', takerUsdc)
  const [makerUsdcMove, makerShares] = side(trade.makerSide === 'BUY', makerUsdc)
  const collateral = trade.matchType === 'mint' ? trade.sizeMicros : trade.matchType === 'merge' ? -trade.sizeMicros : 0
  return {
    moves: [[trade.takerAddress, USDC_ASSET, takerUsdcMove - trade.feeMicros],
      [trade.takerAddress, trade.tokenId, takerShares],
      [trade.makerAddress, USDC_ASSET, makerUsdcMove], [trade.makerAddress, trade.makerTokenId, makerShares]],
    feeMicros: trade.feeMicros, collateralMicros: collateral,
  }
}

function applyTrade(books: Books, trade: Trade, sign: 1 | -1): void {
  const { moves, feeMicros, collateralMicros } = effectsOf(trade)
  for (const [wallet, asset, amount] of moves) books.add(wallet, asset, sign * amount)
  books.feesMicros += sign * feeMicros
  books.addCollateral(trade.marketId, sign * collateralMicros)
}

class Run {
  readonly h = new Harness()
  readonly random = new Random(SEED)
  readonly chain = new Books()
  readonly pending = new Map<string, Trade>()
  readonly markets: MarketTokens[] = []
  private block = 0
  settled = 0
  failed = 0

  constructor() {
    for (const feeRateBps of [0, 100]) this.markets.push(this.h.market({ feeRateBps, tickSizeMicros: 10_000 }))
    const entries: ChainEntry[] = []
    for (const wallet of WALLETS) {
      entries.push(fact('usdc', '', wallet, '', 1_000 * USDC),
        fact('usdcAllowance', wallet, '', '', Number.MAX_SAFE_INTEGER),
        fact('tokenApproval', wallet, '', '', 1))
      this.chain.add(wallet, USDC_ASSET, 1_000 * USDC)
    }
    this.sync(entries)
    for (const wallet of WALLETS) for (const market of this.markets) this.chainSplit(wallet, market, 200 * USDC)
  }

  sync(entries: ChainEntry[]): void {
    const { result } = this.h.apply({ kind: 'chainSync', toBlock: ++this.block, entries })
    if (!result.ok) throw new Error(`sync refused: ${JSON.stringify(result)}`)
  }

  chainSplit(wallet: string, market: MarketTokens, amountMicros: number): void {
    this.chain.add(wallet, USDC_ASSET, -amountMicros)
    this.chain.add(wallet, market.yes, amountMicros)
    this.chain.add(wallet, market.no, amountMicros)
    this.chain.addCollateral(market.marketId, amountMicros)
    this.sync([fact('split', wallet, '', market.yes, amountMicros)])
  }

  place(): void {
    const market = this.random.pick(this.markets)
    const side: Side = this.random.chance(0.5) ? 'BUY' : 'SELL'
    const priceMicros = this.random.int(1, 99) * 10_000
    const order = this.h.order({ maker: this.random.pick(WALLETS),
      tokenId: this.random.chance(0.5) ? market.yes : market.no, side, priceMicros,
      sizeMicros: this.random.int(1, 60) * USDC, feeRateBps: this.h.engine.marketsById.get(market.marketId)!.feeRateBps,
      timeInForce: this.random.chance(0.3) ? 'FAK' : 'GTC' })
    for (const trade of Harness.eventsOf(this.h.place(order), 'trade')) this.pending.set(trade.tradeId, trade)
  }

  /** A wallet sends the chain something it holds there: a transfer, a split or a merge. */
  chainFact(): void {
    const wallet = this.random.pick(WALLETS)
    const market = this.random.pick(this.markets)
    const kind = this.random.weighted({ usdc: 1, shares: 2, split: 1, merge: 1 })
    if (kind === 'split' || kind === 'merge') {
      const most = kind === 'split' ? this.chain.of(wallet, USDC_ASSET)
        : Math.min(this.chain.of(wallet, market.yes), this.chain.of(wallet, market.no))
      if (most < USDC) return
      const amount = this.random.int(1, Math.floor(most / USDC)) * USDC
      if (kind === 'split') return this.chainSplit(wallet, market, amount)
      this.chain.add(wallet, USDC_ASSET, amount)
      this.chain.add(wallet, market.yes, -amount)
      this.chain.add(wallet, market.no, -amount)
      this.chain.addCollateral(market.marketId, -amount)
      return this.sync([fact('merge', wallet, '', market.yes, amount)])
    }
    const asset = kind === 'usdc' ? USDC_ASSET : this.random.chance(0.5) ? market.yes : market.no
    const most = this.chain.of(wallet, asset)
    if (most < USDC) return
    const amount = this.random.int(1, Math.floor(most / USDC)) * USDC
    const to = this.random.pick(WALLETS.filter((w) => w !== wallet))
    this.chain.add(wallet, asset, -amount)
    this.chain.add(to, asset, amount)
    this.sync([fact(kind, wallet, to, kind === 'usdc' ? '' : asset, amount)])
  }

  /** A pending trade settles when each side has on chain what it gives; else (or at random) it fails: reversed. */
  settleOrFail(trade: Trade, failAnyway: boolean): void {
    this.pending.delete(trade.tradeId)
    const gives = effectsOf(trade).moves.filter(([, , amount]) => amount < 0)
    if (!failAnyway && gives.every(([wallet, asset, amount]) => this.chain.of(wallet, asset) >= -amount)) {
      applyTrade(this.chain, trade, 1)
      this.settled++
      return
    }
    const { result } = this.h.apply(reversalOf(trade))
    if (!result.ok) throw new Error(`reversal refused: ${JSON.stringify(result)}`)
    this.failed++
  }

  step(): void {
    const action = this.random.weighted({ place: 6, fact: 2, settle: 2, fail: 1 })
    if (action === 'place') return this.place()
    if (action === 'fact') return this.chainFact()
    if (this.pending.size === 0) return
    this.settleOrFail(this.random.pick([...this.pending.values()]), action === 'fail')
  }

  /** The ledger less debts against the chain plus the pending trades: the first difference, or null. */
  difference(): string | null {
    const expected = new Books()
    for (const [wallet, assets] of this.chain.held) {
      for (const [asset, amount] of assets) expected.add(wallet, asset, amount)
    }
    expected.feesMicros = this.chain.feesMicros
    for (const [marketId, amount] of this.chain.collateralMicros) expected.addCollateral(marketId, amount)
    for (const trade of this.pending.values()) applyTrade(expected, trade, 1)
    const engine = this.h.engine
    for (const wallet of WALLETS) {
      const account = engine.accountsByAddress.get(wallet)!
      const ledgerUsdc = account.usdcMicros - account.usdcOwedMicros
      const usdc = expected.of(wallet, USDC_ASSET)
      if (ledgerUsdc !== usdc) return `${wallet} USDC ${ledgerUsdc} != ${usdc}`
      for (const market of engine.markets) {
        for (const isNo of [false, true]) {
          const tokenId = market.tokenIdOf(isNo)
          const shares = account.sharesOf(market.index * 2 + (isNo ? 1 : 0), tokenId)
          const ledger = shares.balanceMicros - shares.owedMicros
          const want = expected.of(wallet, tokenId)
          if (ledger !== want) return `${wallet} ${tokenId} ${ledger} != ${want}`
        }
      }
    }
    if (engine.feesMicros !== expected.feesMicros) return `fees ${engine.feesMicros} != ${expected.feesMicros}`
    for (const market of engine.markets) {
      const want = expected.collateralMicros.get(market.marketId) ?? 0
      if (market.collateralMicros !== want) return `${market.marketId} collateral ${market.collateralMicros} != ${want}`
    }
    return null
  }
}

function fact(kind: ChainEntry['kind'], from: string, to: string, tokenId: string, amountMicros: number): ChainEntry {
  return { kind, from, to, tokenId, amountMicros, transactionHash: '', blockNumber: 0 }
}

t.test(`the ledger is the chain plus the pending trades, through failures and their reversals (seed ${SEED})`, (t) => {
  const run = new Run()
  let debtsSeen = 0
  let snapshotsChecked = 0
  for (let i = 0; i < STEPS; i++) {
    run.step()
    const difference = run.difference()
    if (difference !== null) {
      t.fail(`step ${i}: ${difference} (seed ${SEED})`)
      t.end()
      return
    }
    const engine = run.h.engine
    const owing = engine.accounts.some((a) => a.usdcOwedMicros > 0 ||
      [...a.shares.values()].some((s) => s.owedMicros > 0))
    if (owing) debtsSeen++
    if (i % 250 === 0 || (owing && snapshotsChecked < 20)) {
      snapshotsChecked++
      if (stateHashOf(decodeSnapshot(encodeSnapshot(engine))) !== stateHashOf(engine)) {
        t.fail(`step ${i}: the snapshot does not load to the same state (seed ${SEED})`)
        t.end()
        return
      }
    }
  }
  for (const trade of [...run.pending.values()]) run.settleOrFail(trade, false)
  t.equal(run.difference(), null, 'every pending trade settled or failed: the ledger equals the chain')
  t.ok(run.settled > 100 && run.failed > 100, `trades settled (${run.settled}) and failed (${run.failed})`)
  t.ok(debtsSeen > 0, `debts arose and were paid back (${debtsSeen} steps with one)`)

  const replayed = new Engine()
  for (const command of run.h.commands) replayed.applyForReplay(decodeStampedCommand(encodeStampedCommand(command)))
  t.equal(stateHashOf(replayed), stateHashOf(run.h.engine), 'the journal replays to the same state')
  t.end()
})
