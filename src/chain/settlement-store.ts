/**
 * What settlement on a real chain must keep across a restart (`<data-dir>/chain/settlement`,
 * LMDB), beside the engine's journal:
 * - each order's signature and signed struct, kept (and flushed) before the order reaches the
 *   engine, since a trade settles on chain only against the orders its makers signed, until the
 *   order has ended and its trades are final (src/service/trading/order-retention.ts);
 * - each trade's settlement: its amounts, its status (MATCHED, MINED, CONFIRMED, RETRYING or
 *   FAILED) and its transaction;
 * - the last journal seq whose trades it has, so that a restart catches up on the trades of
 *   commands journaled before it could record them;
 * - the FAILED trades whose reversal (the engine's `reverseTrade`) is not journaled yet, so that a
 *   restart journals each once.
 * A status is a cache of the chain's answer: on a restart each unsettled trade is asked of the
 * exchange again (src/service/testnet/settlement.ts), which settles a trade id once whatever was kept.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { open, type Database, type RootDatabase } from 'lmdb'
import type { AnyOrderStruct } from '../crypto/eip712.js'
import type { ReverseTrade } from '../engine/command.js'

export type SettlementStatus = 'MATCHED' | 'MINED' | 'CONFIRMED' | 'RETRYING' | 'FAILED'

/** A FAILED trade's reversal: to be journaled, journaled, or refused by the engine (never expected). */
export type ReversalState = 'due' | 'done' | 'refused'

export interface KeptOrder {
  readonly struct: AnyOrderStruct
  readonly signature: string
  readonly negRisk: boolean
}

export interface SettlementRecord {
  readonly tradeId: string
  /** keccak256 of the trade id: its id on chain. */
  readonly chainTradeId: string
  readonly seq: number
  readonly takerOrderId: string
  readonly makerOrderId: string
  readonly sizeMicros: number
  /** USDC the taker pays (buy, mint) or gets (sell, merge); the same for the maker. */
  readonly takerCollateralMicros: number
  readonly makerCollateralMicros: number
  readonly feeMicros: number
  readonly status: SettlementStatus
  readonly transactionHash: string | null
  readonly blockNumber: number | null
  /** Why it failed, or why the last attempt did (RETRYING). */
  readonly reason: string | null
  readonly attempts: number
  readonly updatedMs: number
  /** The engine's command that moves the trade back if its settlement fails (absent in records kept before it). */
  readonly reversal?: Omit<ReverseTrade, 'seq' | 'timeMs'>
  /** Once FAILED: whether its reversal is journaled. */
  readonly reversed?: ReversalState
}

const LAST_SEQ = 'lastSeq'

export class SettlementStore {
  private constructor(
    private readonly root: RootDatabase,
    private readonly orders: Database<KeptOrder, string>,
    private readonly trades: Database<SettlementRecord, string>,
    /** chain trade id -> trade id, for the exchange's logs. */
    private readonly byChainId: Database<string, string>,
    /** The trades not CONFIRMED nor FAILED (so that a restart reads them, not the whole history). */
    private readonly open: Database<true, string>,
    private readonly meta: Database<number, string>,
    /** Kept orders that have ended while some trade of theirs was not final yet. */
    private readonly ended: Database<true, string>,
    /** FAILED trades whose reversal is not journaled yet. */
    private readonly due: Database<true, string>,
  ) {
    for (const tradeId of open.getKeys()) this.openIds.add(tradeId)
  }

  /**
   * The `open` db's keys, changed as each write is asked for (a write lands later, and reads see
   * it only then): the bound they serve is read by every placement. At most about
   * SETTLEMENT_UNSETTLED_MAX, which that bound keeps.
   */
  private readonly openIds = new Set<string>()

  /** How many trades are not CONFIRMED nor FAILED. */
  get unsettledCount(): number {
    return this.openIds.size
  }

  static open(dataDir: string): SettlementStore {
    const dir = join(dataDir, 'chain', 'settlement')
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const root = open({ path: dir, noSubdir: false, maxDbs: 7 })
    return new SettlementStore(root, root.openDB({ name: 'orders' }), root.openDB({ name: 'trades' }),
      root.openDB({ name: 'byChainId' }), root.openDB({ name: 'open' }), root.openDB({ name: 'meta' }),
      root.openDB({ name: 'ended' }), root.openDB({ name: 'due' }))
  }

  /** Keeps a signed order, durably, before it goes to the engine. */
  async keepOrder(orderId: string, order: KeptOrder): Promise<void> {
    if (this.orders.get(orderId) !== undefined) return
    await this.orders.put(orderId, order)
    await this.root.flushed
  }

  order(orderId: string): KeptOrder | undefined {
    return this.orders.get(orderId)
  }

  /** Every kept order's id (a sweep's walk: a read snapshot, safe while orders change). */
  keptOrderIds(): Iterable<string> {
    return this.orders.getKeys()
  }

  /** An ended order whose trades are not all final: kept until they are. */
  async markEnded(orderId: string): Promise<void> {
    if (this.orders.get(orderId) !== undefined) await this.ended.put(orderId, true)
  }

  isMarkedEnded(orderId: string): boolean {
    return this.ended.get(orderId) === true
  }

  /** An order settlement no longer needs: ended, and every trade of it final. */
  async forgetOrder(orderId: string): Promise<void> {
    await this.root.transaction(() => {
      void this.orders.remove(orderId)
      void this.ended.remove(orderId)
    })
  }

  trade(tradeId: string): SettlementRecord | undefined {
    return this.trades.get(tradeId)
  }

  tradeOfChainId(chainTradeId: string): SettlementRecord | undefined {
    const tradeId = this.byChainId.get(chainTradeId.toLowerCase())
    return tradeId === undefined ? undefined : this.trades.get(tradeId)
  }

  async putTrade(record: SettlementRecord): Promise<void> {
    if (isFinal(record.status)) this.openIds.delete(record.tradeId)
    else this.openIds.add(record.tradeId)
    await this.root.transaction(() => {
      void this.trades.put(record.tradeId, record)
      void this.byChainId.put(record.chainTradeId.toLowerCase(), record.tradeId)
      if (isFinal(record.status)) void this.open.remove(record.tradeId)
      else void this.open.put(record.tradeId, true)
      if (record.reversed === 'due') void this.due.put(record.tradeId, true)
      else void this.due.remove(record.tradeId)
    })
  }

  /** FAILED trades whose reversal is not journaled yet, oldest first. */
  reversalsDue(): SettlementRecord[] {
    return this.tradesListedIn(this.due)
  }

  /** Trades not CONFIRMED nor FAILED, oldest first. */
  unsettled(): SettlementRecord[] {
    return this.tradesListedIn(this.open)
  }

  /** The trades an index lists, oldest first. */
  private tradesListedIn(index: Database<true, string>): SettlementRecord[] {
    const found: SettlementRecord[] = []
    for (const { key } of index.getRange()) {
      const record = this.trades.get(key)
      if (record !== undefined) found.push(record)
    }
    return found.sort((a, b) => a.seq - b.seq)
  }

  lastSeq(): number {
    return this.meta.get(LAST_SEQ) ?? 0
  }

  async setLastSeq(seq: number): Promise<void> {
    if (seq > this.lastSeq()) await this.meta.put(LAST_SEQ, seq)
  }

  async close(): Promise<void> {
    await this.root.close()
  }
}

export function isFinal(status: SettlementStatus): boolean {
  return status === 'CONFIRMED' || status === 'FAILED'
}
