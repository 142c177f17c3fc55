/**
 * What settlement (src/service/testnet/settlement.ts) tells its followers (the user channel, the
 * gRPC user stream): each status change in order, with the status it changed to. A CI run of
 * test/chain/settlement.test.ts saw MATCHED, CONFIRMED on the user channel and MATCHED,
 * CONFIRMED, CONFIRMED on the gRPC stream: the faces read the trade's status when they rendered an
 * update, by which time its MINED had become CONFIRMED; and when the chain mirror saw the block
 * confirmed before the receipt came back, MINED was never recorded at all.
 *
 * No node is needed: the trade is recorded from a published outcome and the confirmation handed
 * over as the chain mirror would; the clients point at a port where nothing listens and are never
 * called (no resume, and the step timer is a minute away).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { localClientsOf } from '../../../../src/chain/local-chain.js'
import { SILENT_LOG } from '../../../../src/log.js'
import { chainTradeIdOf, Settlement } from '../../../../src/service/testnet/settlement.js'
import { eventually } from '../../../support/eventually.js'
import { LOCAL_CHAIN_ID } from '../../../support/local-chain.js'
import { outcomeOf, tradeOf } from '../../../support/settlement-stage.js'

const STEP_MS = 60_000
const HASH: `0x${string}` = `0x${'ab'.repeat(32)}`

t.test('a trade confirmed before its receipt came back is told MINED, then CONFIRMED, each with its own status',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'predex-settlement-changes-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const settlement = Settlement.open(localClientsOf('http://127.0.0.1:9', LOCAL_CHAIN_ID, STEP_MS), dataDir,
      () => Date.now(), SILENT_LOG)
    t.teardown(() => settlement.stop())
    settlement.publish([outcomeOf(1, [tradeOf('t1', 'taker', 'maker')])])
    await eventually(() => settlement.store.trade('t1') !== undefined, 10_000, 'the trade recorded')

    const told: { given: string | undefined; now: string }[] = []
    settlement.onChange((tradeId, given) => told.push({ given: given?.status,
      now: settlement.of(tradeId, 0).status }))
    await settlement.confirmed([{ tradeId: chainTradeIdOf('t1'), transactionHash: HASH, blockNumber: 7 }])

    t.same(told.map((change) => change.given), ['MINED', 'CONFIRMED'], 'each change, in order, with its status')
    t.same(told.map((change) => change.now), ['MINED', 'CONFIRMED'], 'recorded before it is told')
    t.match(settlement.of('t1', 0), { status: 'CONFIRMED', transactionHash: HASH, blockNumber: 7 })
  })
