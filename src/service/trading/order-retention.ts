/**
 * Which signed orders settlement still keeps (src/chain/settlement-store.ts): an order's signature
 * is needed while the order can still trade and until every trade it is in is final (CONFIRMED or
 * FAILED: the exchange settles only against what its makers signed). Then it is forgotten, so the
 * store holds the orders that can still trade or settle, not every order ever placed: most orders
 * end unfilled, and the store grew by one signed order for each before.
 *
 * The trades of each order that are not final are counted in memory (rebuilt from the store's
 * unsettled trades at start; bounded by them). An order that ends with trades still unsettled is
 * marked in the store and forgotten with its last one. At start, a sweep forgets the kept orders
 * the read model knows ended and that have no unsettled trade (those that ended while nothing
 * forgot them: before this existed, or in a crash between the end and its forgetting).
 */
import type { SettlementRecord, SettlementStore } from '../../chain/settlement-store.js'
import { Code } from '../../engine/codes.js'
import type { EngineEvent } from '../../engine/event.js'

export class OrderRetention {
  /** Order id -> its trades not final yet. */
  private readonly openTrades = new Map<string, number>()

  constructor(private readonly store: SettlementStore) {
    for (const record of store.unsettled()) this.tradeRecorded(record)
  }

  /** A new trade, not final: both its orders are needed until it is. */
  tradeRecorded(record: SettlementRecord): void {
    for (const orderId of [record.takerOrderId, record.makerOrderId]) {
      this.openTrades.set(orderId, (this.openTrades.get(orderId) ?? 0) + 1)
    }
  }

  /** A trade became final (once): its orders are forgotten if they ended and this was their last open trade. */
  async tradeFinal(record: SettlementRecord): Promise<void> {
    for (const orderId of [record.takerOrderId, record.makerOrderId]) {
      const left = (this.openTrades.get(orderId) ?? 1) - 1
      if (left > 0) {
        this.openTrades.set(orderId, left)
        continue
      }
      this.openTrades.delete(orderId)
      if (this.store.isMarkedEnded(orderId)) await this.store.forgetOrder(orderId)
    }
  }

  /**
   * The orders the events end (filled, cancelled, refused): forgotten now, or marked until their
   * trades are final. A placement refused as a duplicate names an order that exists (its id is the
   * signed order's digest): that one is not ended by it.
   */
  async eventsApplied(events: readonly EngineEvent[]): Promise<void> {
    for (const event of events) {
      const ended = (event.type === 'orderUpdate' && event.status !== 'LIVE') ||
        (event.type === 'orderRejected' && event.code !== Code.INVALID_ORDER_DUPLICATED)
      if (ended) await this.orderEnded(event.orderId)
    }
  }

  /** Forgets the kept orders that `hasEnded` says ended and that have no trade still to settle. */
  async sweep(hasEnded: (orderId: string) => boolean): Promise<number> {
    let forgotten = 0
    for (const orderId of this.store.keptOrderIds()) {
      if (!hasEnded(orderId)) continue
      await this.orderEnded(orderId)
      if (this.store.order(orderId) === undefined) forgotten++
    }
    return forgotten
  }

  private async orderEnded(orderId: string): Promise<void> {
    if ((this.openTrades.get(orderId) ?? 0) > 0) await this.store.markEnded(orderId)
    else if (this.store.order(orderId) !== undefined) await this.store.forgetOrder(orderId)
  }
}
