/**
 * The reference for the portfolio tests: the replay the read model used before its history was
 * maintained incrementally (src/read/portfolio.ts up to issue 14, finding 6), kept as it was. It
 * replays a wallet's trades and ledger records from zero on each call, so it is slow on purpose
 * and obviously right: the incremental history must give exactly its milestones, balances,
 * positions and realized P&L.
 */
import type { LedgerRecord, ReadModel, TradeRecord } from '../../src/read/read-model.js'
import { notionalMicros } from '../../src/engine/units.js'

export type MilestoneKind = 'buy' | 'sell' | 'mint' | 'merge' | 'redemption' | 'deposit'

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
  /** The trade of a buy or sell; '' otherwise. */
  readonly tradeId: string
  /** A ledger milestone's chain transaction (a real chain's fact); null otherwise. */
  readonly chainTransaction: LedgerRecord['chainTransaction'] | null
  readonly usdcBalanceMicros: number
  /** Token id -> shares, non-zero ones, after this milestone. */
  readonly positions: Readonly<Record<string, number>>
}

export interface Portfolio {
  readonly milestones: readonly Milestone[]
  readonly usdcMicros: number
  readonly realizedPnlMicros: number
}

type Entry = {
  readonly seq: number
  readonly order: number
  readonly trade?: TradeRecord
  readonly ledger?: LedgerRecord
}

class Replay {
  usdc = 0
  realized = 0
  readonly positions = new Map<string, number>()
  /** Token id -> cost of the shares held (micro-USDC). */
  private readonly cost = new Map<string, number>()
  readonly milestones: Milestone[] = []
  /** What the milestone being recorded is of: its trade, or its ledger record's chain transaction. */
  private tradeId = ''
  private chainTransaction: Milestone['chainTransaction'] = null

  constructor(private readonly read: ReadModel) {}

  trade(trade: TradeRecord, address: string): void {
    const taker = trade.takerAddress === address
    const tokenId = taker ? trade.tokenId : trade.makerTokenId
    const side = taker ? trade.side : trade.makerSide
    const price = taker ? trade.priceMicros : trade.makerPriceMicros
    const value = notionalMicros(price, trade.sizeMicros)
    const fee = taker ? trade.feeMicros : 0
    this.tradeId = trade.tradeId
    if (side === 'BUY') {
      this.move(tokenId, trade.sizeMicros, value + fee)
      this.record(trade.seq, trade.timeMs, 'buy', trade.marketId, tokenId, trade.sizeMicros, price, -(value + fee))
    } else {
      this.realize(tokenId, trade.sizeMicros, value - fee)
      this.record(trade.seq, trade.timeMs, 'sell', trade.marketId, tokenId, trade.sizeMicros, price, value - fee)
    }
    this.tradeId = ''
  }

  ledger(record: LedgerRecord): void {
    this.chainTransaction = record.chainTransaction ?? null
    const market = record.marketId === '' ? undefined : this.read.markets.get(record.marketId)
    switch (record.action) {
      case 'credit':
        return this.record(record.seq, record.timeMs, 'deposit', '', '', 0, null, record.amountMicros)
      case 'split': {
        const half = Math.floor(record.amountMicros / 2)
        this.move(market!.yesTokenId, record.amountMicros, half)
        this.move(market!.noTokenId, record.amountMicros, record.amountMicros - half)
        return this.recordFullSets(record, 'mint', -record.amountMicros)
      }
      case 'merge': {
        // The USDC comes back for both tokens at once: half of it realizes each side.
        const half = Math.floor(record.amountMicros / 2)
        this.realize(market!.yesTokenId, record.amountMicros, half)
        this.realize(market!.noTokenId, record.amountMicros, record.amountMicros - half)
        return this.recordFullSets(record, 'merge', record.amountMicros)
      }
      case 'redeem': {
        const winner = market!.winningOutcome === 'No' ? market!.noTokenId : market!.yesTokenId
        const loser = winner === market!.yesTokenId ? market!.noTokenId : market!.yesTokenId
        this.realize(winner, this.positions.get(winner) ?? 0, record.payoutMicros)
        this.realize(loser, this.positions.get(loser) ?? 0, 0)
        return this.recordFullSets(record, 'redemption', record.payoutMicros)
      }
      case 'approve':
        this.chainTransaction = null // no milestone: nothing to name it
    }
  }

  /** Adds shares bought for `costMicros`. */
  private move(tokenId: string, sharesMicros: number, costMicros: number): void {
    this.positions.set(tokenId, (this.positions.get(tokenId) ?? 0) + sharesMicros)
    this.cost.set(tokenId, (this.cost.get(tokenId) ?? 0) + costMicros)
  }

  /** Takes shares out for `proceedsMicros`: realizes proceeds minus their share of the cost. */
  private realize(tokenId: string, sharesMicros: number, proceedsMicros: number): void {
    const held = this.positions.get(tokenId) ?? 0
    const cost = this.cost.get(tokenId) ?? 0
    const costOut = held <= 0 ? 0
      : sharesMicros >= held ? cost
        : Number((BigInt(cost) * BigInt(sharesMicros)) / BigInt(held))
    this.positions.set(tokenId, held - sharesMicros)
    this.cost.set(tokenId, cost - costOut)
    this.realized += proceedsMicros - costOut
  }

  /** A ledger event on a market's full sets (mint, merge, redemption): no token, no price. */
  private recordFullSets(record: LedgerRecord, kind: MilestoneKind, usdcDeltaMicros: number): void {
    this.record(record.seq, record.timeMs, kind, record.marketId, '', record.amountMicros, null, usdcDeltaMicros)
  }

  private record(seq: number, timeMs: number, kind: MilestoneKind, marketId: string, tokenId: string,
    sharesMicros: number, priceMicros: number | null, usdcDeltaMicros: number): void {
    this.usdc += usdcDeltaMicros
    const positions: Record<string, number> = {}
    for (const [token, shares] of this.positions) if (shares !== 0) positions[token] = shares
    this.milestones.push({ seq, timeMs, kind, marketId, tokenId, sharesMicros, priceMicros, usdcDeltaMicros,
      tradeId: this.tradeId, chainTransaction: this.chainTransaction, usdcBalanceMicros: this.usdc, positions })
    this.chainTransaction = null
  }
}

export function referencePortfolioOf(read: ReadModel, address: string): Portfolio {
  const entries: Entry[] = []
  for (const tradeId of read.items('tradesByAddress', address)) {
    const trade = read.trade(tradeId)!
    entries.push({ seq: trade.seq, order: entries.length, trade })
  }
  for (const record of read.items('ledgerByAddress', address)) {
    entries.push({ seq: record.seq, order: entries.length, ledger: record })
  }
  // Journal order; within a command, trades keep their order (a taker's fills one after another).
  entries.sort((a, b) => a.seq - b.seq || a.order - b.order)
  const replay = new Replay(read)
  for (const entry of entries) {
    if (entry.trade !== undefined) replay.trade(entry.trade, address)
    else replay.ledger(entry.ledger!)
  }
  return { milestones: replay.milestones, usdcMicros: replay.usdc, realizedPnlMicros: replay.realized }
}
