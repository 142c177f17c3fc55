/**
 * The read model on disk: its own LMDB environment (`<data>/read`), separate from the journal.
 * Each projected batch is written as one transaction, not waited for: the read model is derived
 * data, and whatever a crash loses is projected again from the journal at the next start
 * (catch-up.ts), from the seq stored with it.
 */
import { open, type Database, type RootDatabase } from 'lmdb'
import { join } from 'node:path'
import type { LedgerRecord, OrderRecord, ReadModel, TradeRecord } from './read-model.js'

export class ReadStore {
  private readonly root: RootDatabase
  private readonly orders: Database<OrderRecord, string>
  private readonly trades: Database<TradeRecord, string>
  private readonly ledger: Database<LedgerRecord, string>
  private readonly meta: Database<number, string>

  /** `onDurable(seq)`: the records up to `seq` are on disk (the journal may then let go of them). */
  constructor(dataDir: string, private readonly onDurable: (seq: number) => void = () => undefined) {
    this.root = open({ path: join(dataDir, 'read'), noSubdir: false, maxDbs: 5 })
    this.orders = this.root.openDB<OrderRecord, string>({ name: 'orders' })
    this.trades = this.root.openDB<TradeRecord, string>({ name: 'trades' })
    this.ledger = this.root.openDB<LedgerRecord, string>({ name: 'ledger' })
    this.meta = this.root.openDB<number, string>({ name: 'meta' })
  }

  /** The projected seq stored with the records (0 for a new store). */
  storedSeq(): number {
    return this.meta.get('seq') ?? 0
  }

  /** Loads every record into the model and returns the stored seq. */
  loadInto(model: ReadModel): number {
    model.load(
      [...this.orders.getRange({})].map((entry) => entry.value),
      [...this.trades.getRange({})].map((entry) => entry.value),
      [...this.ledger.getRange({})].map((entry) => entry.value),
    )
    const seq = this.storedSeq()
    model.seq = seq
    return seq
  }

  /** Writes what changed since the last save, with the model's seq, as one transaction. */
  save(model: ReadModel): void {
    const { orders, trades, ledger } = model.drainChanges()
    for (const record of ledger) void this.ledger.put(`${record.seq}/${record.index}`, record)
    for (const order of orders) void this.orders.put(order.orderId, order)
    for (const trade of trades) void this.trades.put(trade.tradeId, trade)
    const seq = model.seq
    // The puts of one turn are one transaction: once it is committed and flushed, all are on disk.
    void this.meta.put('seq', seq).then(() => this.root.flushed).then(() => this.onDurable(seq))
  }

  async close(): Promise<void> {
    await this.root.flushed
    await this.root.close()
  }
}
