/**
 * Settlement stopping (src/service/testnet/settlement.ts) while a confirmation from the chain
 * mirror is still being written: stop() waits for it, so the confirmation is recorded whole (the
 * trade CONFIRMED and its ended orders forgotten) and nothing reads the store once it closes. A
 * read after lmdb-js's close() began arms a timer that throws out of the event loop: the chain
 * tests saw a server die in teardown of "Attempt to reset an invalid read txn".
 *
 * No node is needed: the trade is recorded from a published outcome, and the confirmation is
 * handed over as the chain mirror would; the clients point at a port where nothing listens and
 * are never called (no resume, and the step timer is a minute away).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { SettlementStore } from '../../../../src/chain/settlement-store.js'
import { localClientsOf } from '../../../../src/chain/local-chain.js'
import { SILENT_LOG } from '../../../../src/log.js'
import { chainTradeIdOf, Settlement } from '../../../../src/service/testnet/settlement.js'
import { eventually } from '../../../support/eventually.js'
import { LOCAL_CHAIN_ID } from '../../../support/local-chain.js'
import { filled, outcomeOf, tradeOf } from '../../../support/settlement-stage.js'

const STEP_MS = 60_000
const STRUCT = { version: 1 } as never

t.test('a confirmation under way when settlement stops is recorded whole before the store closes', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-settlement-stop-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const clients = localClientsOf('http://127.0.0.1:9', LOCAL_CHAIN_ID, STEP_MS)
  const settlement = Settlement.open(clients, dataDir, () => Date.now(), SILENT_LOG)
  t.teardown(() => settlement.stop())
  for (const orderId of ['taker', 'maker']) {
    await settlement.keepOrder(orderId, STRUCT, '0x', false)
  }
  settlement.publish([outcomeOf(1, [tradeOf('t1', 'taker', 'maker'), filled('taker'), filled('maker')])])
  await eventually(() => settlement.store.isMarkedEnded('maker'), 10_000, 'the filled orders marked ended')

  const store = settlement.store
  let closing = false
  const readsAfterClose: string[] = []
  const close = store.close.bind(store)
  store.close = () => {
    closing = true
    return close()
  }
  for (const name of ['trade', 'order', 'isMarkedEnded', 'tradeOfChainId'] as const) {
    const read = store[name].bind(store) as (key: string) => unknown
    ;(store as unknown as Record<string, (key: string) => unknown>)[name] = (key) => {
      if (closing) readsAfterClose.push(`${name}(${key})`)
      return read(key)
    }
  }

  settlement.confirmed([{ tradeId: chainTradeIdOf('t1'), transactionHash: `0x${'ab'.repeat(32)}`, blockNumber: 7 }])
  await settlement.stop()
  t.same(readsAfterClose, [], 'no read reaches the store once its close began')

  const reopened = SettlementStore.open(dataDir)
  t.teardown(() => reopened.close())
  t.equal(reopened.trade('t1')?.status, 'CONFIRMED', 'the confirmation is recorded')
  t.equal(reopened.order('taker'), undefined, 'the taker, filled and its trade final, is forgotten')
  t.equal(reopened.order('maker'), undefined, 'and so is the maker')
})

t.test('a confirmation that comes after stop began is left for the next start', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-settlement-stop-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const settlement = Settlement.open(localClientsOf('http://127.0.0.1:9', LOCAL_CHAIN_ID, STEP_MS), dataDir,
    () => Date.now(), SILENT_LOG)
  await settlement.keepOrder('taker', STRUCT, '0x', false)
  await settlement.keepOrder('maker', STRUCT, '0x', false)
  settlement.publish([outcomeOf(1, [tradeOf('t1', 'taker', 'maker')])])
  await eventually(() => settlement.store.trade('t1') !== undefined, 10_000, 'the trade recorded')
  const stopped = settlement.stop()
  settlement.confirmed([{ tradeId: chainTradeIdOf('t1'), transactionHash: `0x${'ab'.repeat(32)}`, blockNumber: 7 }])
  await stopped

  const reopened = SettlementStore.open(dataDir)
  t.teardown(() => reopened.close())
  t.equal(reopened.trade('t1')?.status, 'MATCHED', 'unchanged: a restart rechecks it on chain (recheck)')
})
