/**
 * Settlement's backlog is bounded (SETTLEMENT_UNSETTLED_MAX): while as many trades as the bound
 * wait for settlement (not CONFIRMED nor FAILED), new orders are refused with 503
 * SETTLEMENT_BACKLOG, saying how many wait and when to retry; once one is final, orders pass
 * again. The count holds across a restart. Against a real anvil, with a bound of 2 and trades
 * the exchange refuses (FAILED, a final status); bounded: anvil is stopped by the test.
 */
import t from 'tap'
import { ApiCode, PredexError } from '../../src/errors.js'
import { SETTLEMENT_BACKLOG_RETRY_AFTER_SECONDS } from '../../src/limits.js'
import { eventually } from '../support/eventually.js'
import { SettlementStage } from '../support/settlement-stage.js'

const stage = await SettlementStage.start(t)

t.test('at the bound new orders are refused until a trade is final; the count survives a restart', async (t) => {
  const dataDir = stage.dataDir()
  // Its node does not answer: every trade waits, RETRYING.
  const first = stage.open(dataDir, { unsettledMax: 2, nodeDown: true })
  await stage.matched(first, 1, 'trade-b1')
  t.doesNotThrow(() => first.checkBacklog(), 'one waiting: below the bound')
  await stage.matched(first, 2, 'trade-b2')
  t.equal(first.unsettledCount(), 2)
  const refusal = (() => {
    try {
      first.checkBacklog()
      return null
    } catch (error) {
      return error
    }
  })()
  t.ok(refusal instanceof PredexError, 'two waiting: refused')
  t.match(refusal, { code: ApiCode.SETTLEMENT_BACKLOG,
    context: { unsettledTrades: 2, unsettledTradesMax: 2, retryAfterSeconds: SETTLEMENT_BACKLOG_RETRY_AFTER_SECONDS } })
  await first.stop()

  const second = stage.open(dataDir, { unsettledMax: 2 })
  t.equal(second.unsettledCount(), 2, 'counted again from the store at start')
  t.throws(() => second.checkBacklog(), { code: ApiCode.SETTLEMENT_BACKLOG })
  await second.resume(dataDir, 2, () => false, async () => ({ ok: true }))
  // The exchange refuses both (bob has no USDC on chain): FAILED is final, the backlog empties.
  await eventually(() => second.unsettledCount() === 0, 20_000, 'both trades final')
  t.equal(second.of('trade-b1', 0).status, 'FAILED')
  t.doesNotThrow(() => second.checkBacklog(), 'orders pass again')
})
