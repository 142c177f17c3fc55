/**
 * A trade whose settlement FAILED is moved back in the ledger (issue 35 point 3): settlement
 * journals the trade's reversal (the engine's `reverseTrade`, src/engine/trade-reversal.ts) once,
 * with the amounts of its `trade` event; again at the next step when the engine did not answer;
 * again after a restart while it is due; never once its `tradeReversed` event came back, even
 * when that event is all a crash left of it. Against a real anvil, where the exchange refuses a
 * trade whose buyer has no USDC; the engine stands behind a recording reverser. Bounded: anvil is
 * stopped by the test.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import type { Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { createChainMarket } from '../../src/chain/chain-markets.js'
import type { Trade } from '../../src/engine/event.js'
import { reversalOf } from '../../src/engine/trade-reversal.js'
import type { Outcome } from '../../src/host/messages.js'
import { signLimitOrder, type MarketTerms } from '../../src/client/orders.js'
import { Wallet } from '../../src/client/wallet.js'
import { SILENT_LOG } from '../../src/log.js'
import { Settlement, type Reverser } from '../../src/service/settlement.js'
import { eventually } from '../support/eventually.js'
import { fundAndApprove, startLocalChain, userWallet, LOCAL_CHAIN_ID } from '../support/local-chain.js'

const USDC = 1_000_000n
const TERMS: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: LOCAL_CHAIN_ID }

const chain = await startLocalChain(t)
const market = await createChainMarket(chain, `0x${randomBytes(32).toString('hex')}` as Hex)

/** A mint the exchange refuses: alice is funded and approved, bob has no USDC on chain. */
async function failingTrade(tradeId: string) {
  const [aliceKey, bobKey] = [generatePrivateKey(), generatePrivateKey()]
  await fundAndApprove(chain, userWallet(chain, aliceKey), 100n * USDC, 1)
  const [alice, bob] = [new Wallet(aliceKey), new Wallet(bobKey)]
  const yes = signLimitOrder(alice, TERMS, { tokenId: market.yesTokenId, side: 'BUY', price: '0.60', size: '10' })
  const no = signLimitOrder(bob, TERMS, { tokenId: market.noTokenId, side: 'BUY', price: '0.40', size: '10' })
  const trade: Trade = { type: 'trade', tradeId, marketId: 'm', matchType: 'mint', takerOrderId: no.orderId,
    takerAddress: bob.address.toLowerCase(), takerOwner: 'key-bob', tokenId: market.noTokenId, outcome: 'No',
    side: 'BUY', priceMicros: 400_000, sizeMicros: 10_000_000, feeMicros: 0, feeRateBps: 0,
    makerOrderId: yes.orderId, makerAddress: alice.address.toLowerCase(), makerOwner: 'key-alice',
    makerTokenId: market.yesTokenId, makerOutcome: 'Yes', makerSide: 'BUY', makerPriceMicros: 600_000, timeMs: 1 }
  return { trade, orders: [yes, no] }
}

function outcomeOf(seq: number, events: Outcome['events']): Outcome {
  return { requestId: 0, seq, timeMs: seq, recorded: true, result: { ok: true }, events }
}

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

interface Teardown {
  teardown(fn: () => unknown): void
}

async function open(t: Teardown, dataDir: string): Promise<Settlement> {
  const settlement = Settlement.open(chain, dataDir, () => Date.now(), SILENT_LOG)
  t.teardown(() => settlement.stop())
  return settlement
}

function dataDirOf(t: Teardown): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-reversal-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  return dataDir
}

async function matched(settlement: Settlement, seq: number, tradeId: string) {
  const { trade, orders } = await failingTrade(tradeId)
  for (const signed of orders) await settlement.keepOrder(signed.orderId, signed.order, signed.signature, false)
  settlement.publish([outcomeOf(seq, [trade])])
  await eventually(() => settlement.store.trade(tradeId) !== undefined, 10_000, 'the trade recorded')
  return trade
}

/** Steps (the settlement's timer steps too) until the trade's reversal is `state`. */
async function reversal(settlement: Settlement, tradeId: string, state: 'due' | 'done'): Promise<void> {
  await eventually(() => settlement.store.trade(tradeId)?.reversed === state, 20_000, `${tradeId} ${state}`)
}

t.test('a FAILED trade\'s reversal is journaled once, with its trade\'s amounts; again if the engine did not answer',
  async (t) => {
  const dataDir = dataDirOf(t)
  const settlement = await open(t, dataDir)
  const { asked, reverser } = recordingReverser(1)
  await settlement.resume(dataDir, 0, () => false, reverser)
  const trade = await matched(settlement, 1, 'trade-f1')
  await reversal(settlement, trade.tradeId, 'done')
  t.equal(settlement.of(trade.tradeId, 0).status, 'FAILED', 'the exchange refused it')
  t.match(settlement.store.trade(trade.tradeId)?.reason, /^ERC20InsufficientAllowance\(0x/, 'bob approved no USDC')
  await settlement.step()
  await settlement.step()
  t.strictSame(asked, [reversalOf(trade), reversalOf(trade)],
    'asked at once (the engine did not answer), again at a next step, then never again')
})

t.test('after a restart: a reversal still due is journaled; one whose event came back is not', async (t) => {
  const dataDir = dataDirOf(t)
  const first = await open(t, dataDir)
  await first.resume(dataDir, 0, () => false, recordingReverser(Number.MAX_SAFE_INTEGER).reverser)
  const due = await matched(first, 1, 'trade-due')
  const journaled = await matched(first, 2, 'trade-journaled')
  await reversal(first, due.tradeId, 'due')
  await reversal(first, journaled.tradeId, 'due')
  // The crash came after one reversal was journaled, before its answer was read: all that is left
  // of it is its event, which the journal's catch-up (or the live outcomes) brings back.
  first.publish([outcomeOf(3, [{ type: 'tradeReversed', tradeId: journaled.tradeId, marketId: 'm',
    takerAddress: journaled.takerAddress, makerAddress: journaled.makerAddress }])])
  await first.stop()

  const second = await open(t, dataDir)
  const { asked, reverser } = recordingReverser()
  await second.resume(dataDir, 3, () => false, reverser)
  await reversal(second, due.tradeId, 'done')
  await second.step()
  t.strictSame(asked, [reversalOf(due)], 'only the one still due, once')
  t.equal(second.store.trade(journaled.tradeId)?.reversed, 'done')
  t.strictSame(second.store.reversalsDue(), [])
})
