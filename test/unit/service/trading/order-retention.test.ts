/**
 * Which signed orders settlement keeps (src/service/trading/order-retention.ts), on a real settlement
 * store in a temporary directory: an order is forgotten once it has ended (filled, cancelled,
 * refused) and every trade it is in is final, and not a moment before: a trade still to settle
 * keeps both its orders, across a restart too, and a duplicate of a resting order refused does not
 * end the resting one.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { SettlementStore, type SettlementRecord } from '../../../../src/chain/settlement-store.js'
import type { EngineEvent } from '../../../../src/engine/event.js'
import { OrderRetention } from '../../../../src/service/trading/order-retention.js'

const STRUCT = { version: 1 } as never

function ended(orderId: string, status: 'MATCHED' | 'CANCELED' = 'CANCELED'): EngineEvent {
  return { type: 'orderUpdate', orderId, maker: '0xa', status, sizeMatchedMicros: 0, remainingMicros: 0,
    reason: status === 'CANCELED' ? 'owner' : null } as EngineEvent
}

function trade(tradeId: string, takerOrderId: string, makerOrderId: string): SettlementRecord {
  return { tradeId, chainTradeId: `0x${tradeId}`, seq: 1, takerOrderId, makerOrderId, sizeMicros: 1,
    takerCollateralMicros: 1, makerCollateralMicros: 0, feeMicros: 0, status: 'MATCHED', transactionHash: null,
    blockNumber: null, reason: null, attempts: 0, updatedMs: 0 }
}

t.test('an order is forgotten once it ended and its trades are final; a restart keeps what is still needed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'predex-retention-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let store = SettlementStore.open(dir)
  for (const id of ['lone', 'refused', 'taker', 'maker', 'other']) {
    await store.keepOrder(id, { struct: STRUCT, signature: '0x', negRisk: false })
  }
  let retention = new OrderRetention(store)
  const kept = (id: string) => store.order(id) !== undefined
  await retention.eventsApplied([ended('lone'),
    { type: 'orderRejected', orderId: 'refused', maker: '0xa', code: 'X', message: 'no' } as unknown as EngineEvent])
  t.notOk(kept('lone'), 'cancelled with no trade: forgotten at once')
  t.notOk(kept('refused'), 'refused by the engine: forgotten at once')

  const first = trade('t1', 'taker', 'maker')
  await store.putTrade(first)
  retention.tradeRecorded(first)
  await retention.eventsApplied([ended('taker', 'MATCHED'), { ...ended('maker'), status: 'LIVE' } as EngineEvent,
    { type: 'orderRejected', orderId: 'maker', maker: '0xa', code: 'INVALID_ORDER_DUPLICATED', message: 'dup' } as EngineEvent])
  t.ok(kept('taker'), 'filled, its trade not final: kept')
  t.ok(kept('maker'), 'the same signed order sent again and refused as a duplicate: the resting one is kept')

  await store.close()
  store = SettlementStore.open(dir) // a restart: the open trade and the mark are in the store
  retention = new OrderRetention(store)
  await store.putTrade({ ...first, status: 'CONFIRMED' })
  await retention.tradeFinal(first)
  t.notOk(kept('taker'), 'its trade final: forgotten')
  t.ok(kept('maker'), 'still resting: kept, whatever its trades')
  await retention.eventsApplied([ended('maker')])
  t.notOk(kept('maker'), 'ended, no trade open: forgotten')
  t.equal(await retention.sweep((id) => id === 'other'), 1, 'the sweep forgets what the read model says ended')
  t.notOk(kept('other'))
  await store.close()
})
