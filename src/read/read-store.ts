/**
 * The read model's history on disk: its own LMDB environment (`<data>/read`), separate from the
 * journal, and what the model keeps in memory across a restart (wallets' running states, token
 * stats, newest trades, totals, the live orders). The model's memory stays bounded by the live
 * state; history is read from here (issue 14, bounded growth).
 *
 * Writes are not waited for: each projected batch is one transaction, and whatever a crash loses
 * is projected again from the journal at the next start (catch-up.ts), from the seq stored with
 * it. Until a batch's transaction is committed (LMDB shows it to reads only then), what it wrote
 * stays in memory here, so a client reads its own write at once; then it is let go. Records read
 * from disk are kept in a cache of READ_CACHE_RECORDS_MAX each.
 */
import { open, type Database, type RootDatabase } from 'lmdb'
import { join } from 'node:path'
import { READ_CACHE_RECORDS_MAX, READ_PRUNE_PER_SAVE_MAX, READ_STORE_SAVE_INTERVAL_MS, READ_STORE_SAVE_RECORDS_MAX,
  UNFILLED_ORDERS_RETENTION_DAYS } from '../limits.js'
import type { History, ListItems, ListName } from './history.js'
import { ID_LENGTH_MAX } from '../engine/limits.js'
import type { ModelState, OrderRecord, ReadModel, TokenStats, Totals, TradeRecord } from './read-model.js'
import type { WalletState } from './portfolio.js'
import { Lru } from '../stdx/lru.js'

/** The layout of the store: 1 kept every record and was loaded whole; 2 has the history's lists. */
const FORMAT = 2

/** A list item's key: the list, its key (address or token), its index. */
type ItemKey = [ListName, string, number]

/** An unfilled ended order's key in the retention queue: when it ended (ms), its id. */
type EndedKey = [number, string]

const DAY_MS = 86_400_000

export interface ReadStoreOptions {
  /** `onDurable(seq)`: the records up to `seq` are on disk (the journal may then let go of them). */
  readonly onDurable?: (seq: number) => void
  /** Days an order that ended with nothing filled is kept after it ended; 0 keeps it for ever. */
  readonly unfilledOrdersRetentionDays?: number
}

/** What a batch wrote, kept until its transaction is committed. */
interface Batch {
  readonly orders: Set<string>
  readonly trades: TradeRecord[]
  readonly items: [ItemKey, unknown][]
}

const newBatch = (): Batch => ({ orders: new Set(), trades: [], items: [] })

export class ReadStore implements History {
  private readonly root: RootDatabase
  private readonly orders: Database<OrderRecord, string>
  private readonly trades: Database<TradeRecord, string>
  /** Format 1's ledger records, read once to migrate. */
  private readonly ledger: Database<ListItems['ledgerByAddress'], string>
  private readonly lists: Database<unknown, ItemKey>
  /** The ids of the live orders. */
  private readonly live: Database<true, string>
  /** Unfilled ended orders by when they ended: removed in that order once past the retention. */
  private readonly ended: Database<true, EndedKey>
  private readonly onDurable: (seq: number) => void
  private readonly unfilledRetentionMs: number
  /** 'w' + address: a wallet's running state; 't' + token id: its stats; 'r' + market id: its newest trades. */
  private readonly state: Database<unknown, string>
  private readonly meta: Database<unknown, string>
  /** Orders and trades written and not yet committed: the newest state, read before the disk. */
  private readonly pendingOrders = new Map<string, { batch: Batch; order: OrderRecord }>()
  private readonly pendingTrades = new Map<string, TradeRecord>()
  private readonly pendingItems = new Map<string, unknown>()
  /** List lengths, including the pending items: one entry for every list read or written since start. */
  private readonly counts = new Map<string, number>()
  private readonly orderCache = new Lru<OrderRecord>(READ_CACHE_RECORDS_MAX)
  private readonly tradeCache = new Lru<TradeRecord>(READ_CACHE_RECORDS_MAX)
  private batch = newBatch()
  /** The last save's commit and release. */
  private committed: Promise<unknown> = Promise.resolve()
  /** A save asked for by saveSoon and not yet made: its timer and the model it saves. */
  private scheduled: { readonly timer: NodeJS.Timeout; readonly model: ReadModel } | null = null
  /** The projected seq on disk: saved and flushed (for /metrics: how far the store trails the model). */
  durableSeq = 0

  constructor(dataDir: string, options: ReadStoreOptions = {}) {
    this.onDurable = options.onDurable ?? (() => undefined)
    this.unfilledRetentionMs = (options.unfilledOrdersRetentionDays ?? UNFILLED_ORDERS_RETENTION_DAYS) * DAY_MS
    this.root = open({ path: join(dataDir, 'read'), noSubdir: false, maxDbs: 12 })
    this.orders = this.root.openDB<OrderRecord, string>({ name: 'orders' })
    this.trades = this.root.openDB<TradeRecord, string>({ name: 'trades' })
    this.ledger = this.root.openDB<ListItems['ledgerByAddress'], string>({ name: 'ledger' })
    this.lists = this.root.openDB<unknown, ItemKey>({ name: 'lists' })
    this.live = this.root.openDB<true, string>({ name: 'live' })
    this.ended = this.root.openDB<true, EndedKey>({ name: 'ended' })
    this.state = this.root.openDB<unknown, string>({ name: 'state' })
    this.meta = this.root.openDB<unknown, string>({ name: 'meta' })
    // A new store is of this format from its first record; one with records and no format is format 1.
    if (this.meta.get('seq') === undefined && this.meta.get('format') === undefined) this.meta.putSync('format', FORMAT)
    this.durableSeq = this.storedSeq()
  }

  /** The projected seq stored with the records (0 for a new store). */
  storedSeq(): number {
    return (this.meta.get('seq') as number | undefined) ?? 0
  }

  /** Brings the model back to the stored state and returns the stored seq. */
  loadInto(model: ReadModel): number {
    if (model.history !== this) throw new Error('the read model must keep its history in this store')
    const seq = this.storedSeq()
    if (this.meta.get('format') === FORMAT) {
      model.restore(this.storedState(), [...this.live.getKeys({})].map((orderId) => this.orders.get(orderId)!))
    } else if (seq > 0) {
      // Format 1: every record, loaded once to build the lists, then written in the new form.
      model.loadRecords([...this.orders.getRange({})].map((entry) => entry.value),
        [...this.trades.getRange({})].map((entry) => entry.value),
        [...this.ledger.getRange({})].map((entry) => entry.value))
    }
    model.seq = seq
    if (this.meta.get('format') !== FORMAT) {
      this.save(model)
      void this.meta.put('format', FORMAT) // with the save's transaction: migrated whole or not at all
    }
    return seq
  }

  private storedState(): ModelState {
    const wallets: [string, WalletState][] = []
    const tokenStats: [string, TokenStats][] = []
    const recentTrades: [string, TradeRecord[]][] = []
    for (const { key, value } of this.state.getRange({})) {
      const id = key.slice(1)
      if (key[0] === 'w') wallets.push([id, value as WalletState])
      else if (key[0] === 't') tokenStats.push([id, value as TokenStats])
      else if (key[0] === 'r') recentTrades.push([id, value as TradeRecord[]])
    }
    const totals = (this.meta.get('totals') as Totals | undefined) ?? { orders: 0, trades: 0, traders: 0 }
    return { wallets, tokenStats, recentTrades, totals }
  }

  order(orderId: string): OrderRecord | undefined {
    if (!isStorableKey(orderId)) return undefined
    const pending = this.pendingOrders.get(orderId)?.order ?? this.orderCache.get(orderId)
    if (pending !== undefined) return pending
    const stored = this.orders.get(orderId)
    if (stored !== undefined) this.orderCache.set(orderId, stored)
    return stored
  }

  trade(tradeId: string): TradeRecord | undefined {
    if (!isStorableKey(tradeId)) return undefined
    const pending = this.pendingTrades.get(tradeId) ?? this.tradeCache.get(tradeId)
    if (pending !== undefined) return pending
    const stored = this.trades.get(tradeId)
    if (stored !== undefined) this.tradeCache.set(tradeId, stored)
    return stored
  }

  putOrder(order: OrderRecord): void {
    this.pendingOrders.set(order.orderId, { batch: this.batch, order })
    this.batch.orders.add(order.orderId)
    this.orderCache.delete(order.orderId)
  }

  putTrade(trade: TradeRecord): void {
    this.pendingTrades.set(trade.tradeId, trade)
    this.batch.trades.push(trade)
  }

  append<L extends ListName>(list: L, key: string, item: ListItems[L]): void {
    const index = this.count(list, key)
    const itemKey: ItemKey = [list, key, index]
    this.pendingItems.set(pendingKeyOf(list, key, index), item)
    this.batch.items.push([itemKey, item])
    this.counts.set(`${list}/${key}`, index + 1)
  }

  count(list: ListName, key: string): number {
    if (!isStorableKey(key)) return 0
    const name = `${list}/${key}`
    let count = this.counts.get(name)
    if (count === undefined) {
      // The last stored index, found from the end: nothing of this list is pending (its count would be known).
      const keys = [...this.lists.getKeys({ start: [list, key, Number.MAX_SAFE_INTEGER], end: [list, key, -1],
        reverse: true, limit: 1 })]
      const last = keys[0]
      count = last === undefined ? 0 : last[2] + 1
      this.counts.set(name, count)
    }
    return count
  }

  range<L extends ListName>(list: L, key: string, from: number, to: number): ListItems[L][] {
    const start = Math.max(0, from)
    const end = Math.min(to, this.count(list, key))
    if (end <= start) return []
    const items: ListItems[L][] = []
    // The pending items are the newest: the stored ones come first, read as one range.
    for (const { value } of this.lists.getRange({ start: [list, key, start], end: [list, key, end] })) {
      items.push(value as ListItems[L])
    }
    for (let index = start + items.length; index < end; index++) {
      const item = this.pendingItems.get(pendingKeyOf(list, key, index))
      if (item === undefined) break
      items.push(item as ListItems[L])
    }
    return items
  }

  /**
   * Saves within READ_STORE_SAVE_INTERVAL_MS, together with whatever else comes meanwhile (at
   * once when READ_STORE_SAVE_RECORDS_MAX records wait). The fan-out calls it after each batch of
   * outcomes: reads do not wait for it, and close() makes a save still due.
   */
  saveSoon(model: ReadModel): void {
    const { orders, trades, items } = this.batch
    if (orders.size + trades.length + items.length >= READ_STORE_SAVE_RECORDS_MAX) {
      this.save(model)
      return
    }
    if (this.scheduled !== null) return
    // Kept referenced: a process waiting only for its projection to be durable must not exit first.
    const timer = setTimeout(() => this.save(model), READ_STORE_SAVE_INTERVAL_MS)
    this.scheduled = { timer, model }
  }

  /**
   * Writes the batch since the last save with the model's kept state and seq, as one
   * transaction; once it is committed its records are let go from memory.
   */
  save(model: ReadModel): void {
    if (this.scheduled !== null) clearTimeout(this.scheduled.timer)
    this.scheduled = null
    const batch = this.batch
    this.batch = newBatch()
    for (const orderId of batch.orders) {
      const order = this.pendingOrders.get(orderId)!.order
      void this.orders.put(orderId, order)
      void (order.status === 'LIVE' ? this.live.put(orderId, true) : this.live.remove(orderId))
      // A migrated store's orders come with no command time: their creation stands for their end.
      if (order.status !== 'LIVE' && order.sizeMatchedMicros === 0) {
        void this.ended.put([model.timeMs > 0 ? model.timeMs : order.createdMs, orderId], true)
      }
    }
    this.prune(model.timeMs)
    for (const trade of batch.trades) void this.trades.put(trade.tradeId, trade)
    for (const [itemKey, item] of batch.items) void this.lists.put(itemKey, item)
    const state = model.drainState()
    for (const [address, wallet] of state.wallets) void this.state.put('w' + address, wallet)
    for (const [tokenId, stats] of state.tokenStats) void this.state.put('t' + tokenId, stats)
    for (const [marketId, trades] of state.recentTrades) void this.state.put('r' + marketId, trades)
    void this.meta.put('totals', state.totals)
    const seq = model.seq
    // The puts of one turn are one transaction: once it is committed, all are visible to reads.
    this.committed = this.meta.put('seq', seq).then(() => this.release(batch))
    void this.committed.then(() => this.root.flushed).then(() => {
      this.durableSeq = Math.max(this.durableSeq, seq)
      this.onDurable(seq)
    })
  }

  /**
   * Removes the unfilled orders that ended more than the retention before `nowMs`, oldest first,
   * READ_PRUNE_PER_SAVE_MAX at most (in the save's transaction). Their ids stay in their maker's
   * list, which readers skip; no trade or ledger record refers to them.
   */
  private prune(nowMs: number): void {
    if (this.unfilledRetentionMs === 0 || nowMs === 0) return
    const end: EndedKey = [nowMs - this.unfilledRetentionMs, '']
    for (const key of this.ended.getKeys({ end, limit: READ_PRUNE_PER_SAVE_MAX })) {
      void this.orders.remove(key[1])
      void this.ended.remove(key)
      this.orderCache.delete(key[1])
    }
  }

  /** Resolves once every save so far is committed and let go from memory (tests). */
  async settled(): Promise<void> {
    await this.committed
  }

  /** Records, list items and orders held in memory until their batch is committed (tests, gauges). */
  get pendingCount(): number {
    return this.pendingOrders.size + this.pendingTrades.size + this.pendingItems.size
  }

  /** A committed batch's records, now read from disk: let go, unless a later batch wrote them again. */
  private release(batch: Batch): void {
    for (const orderId of batch.orders) {
      if (this.pendingOrders.get(orderId)?.batch === batch) this.pendingOrders.delete(orderId)
    }
    for (const trade of batch.trades) this.pendingTrades.delete(trade.tradeId)
    for (const [[list, key, index]] of batch.items) this.pendingItems.delete(pendingKeyOf(list, key, index))
  }

  async close(): Promise<void> {
    if (this.scheduled !== null) this.save(this.scheduled.model)
    await this.committed
    await this.root.flushed
    await this.root.close()
  }
}

function pendingKeyOf(list: ListName, key: string, index: number): string {
  return `${list}/${key}/${index}`
}

/**
 * Whether a key from a request could be a stored one: ids and addresses are at most ID_LENGTH_MAX
 * characters (the engine refuses longer ones), and LMDB throws on a key past about 2 KB instead
 * of finding nothing, which a request's id must never turn into an internal error.
 */
function isStorableKey(key: string): boolean {
  return key.length <= ID_LENGTH_MAX
}
