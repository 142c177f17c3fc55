/**
 * Where the read model keeps what grows with history: orders that ended, trades, ledger records
 * and the per-address and per-token lists of them (issue 14, "bounded growth": the read model was
 * loaded whole and kept every record in memory). The read model itself keeps only what is bounded
 * by the live state (live orders, books, markets, each wallet's running balances).
 *
 * Two keepers: `MemoryHistory` (arrays and maps, for tests and tools that never restart) and the
 * read store (read-store.ts: LMDB, with what is not yet committed kept in memory until it is, and
 * a bounded cache). The simulation runs one model on each and compares every read.
 */
import type { LedgerRecord, OrderRecord, Tick, TradeRecord } from './read-model.js'
import type { Checkpoint, Step } from './portfolio.js'

/** Each list's items: appended in order, read by index, never changed. */
export interface ListItems {
  /** Maker address -> its order ids, in acceptance order. */
  readonly ordersByMaker: string
  /** Address -> the ids of its trades as taker or maker, in order. */
  readonly tradesByAddress: string
  readonly ledgerByAddress: LedgerRecord
  readonly redemptionsByAddress: LedgerRecord
  /** Token id -> its trades' prices in time order. */
  readonly ticksByToken: Tick
  /** Address -> its portfolio milestones as kept (portfolio.ts). */
  readonly steps: Step
  /** Address -> the positions after every PORTFOLIO_CHECKPOINT_EVERY-th milestone. */
  readonly checkpoints: Checkpoint
}

export type ListName = keyof ListItems

export const LIST_NAMES: readonly ListName[] = ['ordersByMaker', 'tradesByAddress', 'ledgerByAddress',
  'redemptionsByAddress', 'ticksByToken', 'steps', 'checkpoints']

export interface History {
  /** An order by id, in its latest state as last put; undefined if never put. */
  order(orderId: string): OrderRecord | undefined
  trade(tradeId: string): TradeRecord | undefined
  /** Records an order's state (new or changed): the object may be changed again and put again. */
  putOrder(order: OrderRecord): void
  putTrade(trade: TradeRecord): void
  append<L extends ListName>(list: L, key: string, item: ListItems[L]): void
  /** How many items the key's list holds. */
  count(list: ListName, key: string): number
  /** Items `from` (included) to `to` (excluded) of the key's list, in order; clipped to the list. */
  range<L extends ListName>(list: L, key: string, from: number, to: number): ListItems[L][]
}

/** Everything in memory: for tests and for tools whose process never restarts. */
export class MemoryHistory implements History {
  private readonly orders = new Map<string, OrderRecord>()
  private readonly trades = new Map<string, TradeRecord>()
  private readonly lists = new Map<string, unknown[]>()

  order(orderId: string): OrderRecord | undefined {
    return this.orders.get(orderId)
  }

  trade(tradeId: string): TradeRecord | undefined {
    return this.trades.get(tradeId)
  }

  putOrder(order: OrderRecord): void {
    this.orders.set(order.orderId, order)
  }

  putTrade(trade: TradeRecord): void {
    this.trades.set(trade.tradeId, trade)
  }

  append<L extends ListName>(list: L, key: string, item: ListItems[L]): void {
    const name = `${list}/${key}`
    let items = this.lists.get(name)
    if (items === undefined) this.lists.set(name, items = [])
    items.push(item)
  }

  count(list: ListName, key: string): number {
    return this.lists.get(`${list}/${key}`)?.length ?? 0
  }

  range<L extends ListName>(list: L, key: string, from: number, to: number): ListItems[L][] {
    return (this.lists.get(`${list}/${key}`) ?? []).slice(Math.max(0, from), Math.max(0, to)) as ListItems[L][]
  }
}

/** A list read in chunks: for walks over lists that may be long (ticks, a wallet's orders). */
export function* itemsOf<L extends ListName>(history: History, list: L, key: string, from = 0, chunk = 1_024):
  Generator<ListItems[L]> {
  const count = history.count(list, key)
  for (let start = Math.max(0, from); start < count; start += chunk) {
    yield* history.range(list, key, start, start + chunk)
  }
}

/** The item at `index`, or undefined beyond the list. */
export function itemAt<L extends ListName>(history: History, list: L, key: string, index: number):
  ListItems[L] | undefined {
  return history.range(list, key, index, index + 1)[0]
}
