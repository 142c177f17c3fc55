/**
 * A trade whose settlement FAILED is moved back in the ledger (issue 35 point 3): settlement
 * journals the trade's reversal (the engine's `reverseTrade`, src/engine/trade-reversal.ts) once,
 * with the amounts of its `trade` event; again at the next step when the engine did not answer;
 * again after a restart while it is due; never once its `tradeReversed` event came back, even
 * when that event is all a crash left of it. Against a real anvil, where the exchange refuses a
 * trade whose buyer has no USDC; the engine stands behind a recording reverser. Bounded: anvil is
 * stopped by the test.
 */
import t from 'tap'
import { reversalOf } from '../../src/engine/trade-reversal.js'
import type { Settlement, Reverser } from '../../src/service/testnet/settlement.js'
import { eventually } from '../support/eventually.js'
import { outcomeOf, SettlementStage } from '../support/settlement-stage.js'

const stage = await SettlementStage.start(t)

/** A reverser that records what it was asked, failing while `failing` is above 0. */
function recordingReverser(failing = 0) {
  const asked: Parameters<Reverser>[0][] = []
  let left = failing
  const reverser: Reverser = async (command) => {
    asked.push(command)
    if (left-- > 0) throw new Error('the engine did not answer')
    return { ok: true }
  }
  return { asked, reverser }
}

/** Steps (the settlement's timer steps too) until the trade's reversal is `state`. */
async function reversal(settlement: Settlement, tradeId: string, state: 'due' | 'done'): Promise<void> {
  await eventually(() => settlement.store.trade(tradeId)?.reversed === state, 20_000, `${tradeId} ${state}`)
}

t.test('a FAILED trade\'s reversal is journaled once, with its trade\'s amounts; again if the engine did not answer',
  async (t) => {
  const dataDir = stage.dataDir()
  const settlement = stage.open(dataDir)
  const { asked, reverser } = recordingReverser(1)
  await settlement.resume(dataDir, 0, () => false, reverser)
  const trade = await stage.matched(settlement, 1, 'trade-f1')
  await reversal(settlement, trade.tradeId, 'done')
  t.equal(settlement.of(trade.tradeId, 0).status, 'FAILED', 'the exchange refused it')
  t.match(settlement.store.trade(trade.tradeId)?.reason, /^ERC20InsufficientAllowance\(0x/, 'bob approved no USDC')
  await settlement.step()
  await settlement.step()
  t.strictSame(asked, [reversalOf(trade), reversalOf(trade)],
    'asked at once (the engine did not answer), again at a next step, then never again')
})

t.test('after a restart: a reversal still due is journaled; one whose event came back is not', async (t) => {
  const dataDir = stage.dataDir()
  const first = stage.open(dataDir)
  await first.resume(dataDir, 0, () => false, recordingReverser(Number.MAX_SAFE_INTEGER).reverser)
  const due = await stage.matched(first, 1, 'trade-due')
  const journaled = await stage.matched(first, 2, 'trade-journaled')
  await reversal(first, due.tradeId, 'due')
  await reversal(first, journaled.tradeId, 'due')
  // The crash came after one reversal was journaled, before its answer was read: all that is left
  // of it is its event, which the journal's catch-up (or the live outcomes) brings back.
  first.publish([outcomeOf(3, [{ type: 'tradeReversed', tradeId: journaled.tradeId, marketId: 'm',
    takerAddress: journaled.takerAddress, makerAddress: journaled.makerAddress }])])
  await first.stop()

  const second = stage.open(dataDir)
  const { asked, reverser } = recordingReverser()
  await second.resume(dataDir, 3, () => false, reverser)
  await reversal(second, due.tradeId, 'done')
  await second.step()
  t.strictSame(asked, [reversalOf(due)], 'only the one still due, once')
  t.equal(second.store.trade(journaled.tradeId)?.reversed, 'done')
  t.strictSame(second.store.reversalsDue(), [])
})
