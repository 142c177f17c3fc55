/**
 * After a restart, settlement asks the exchange about each trade it had not seen CONFIRMED (issue
 * 35 point 4): a trade the exchange settled in a block the chain mirror has already passed (so
 * the mirror will not report it again) is CONFIRMED from the exchange's own log, with its
 * transaction; a trade the exchange never settled is sent again. The signed orders kept are
 * forgotten once they ended and their trades are final, not before. Against a real anvil, with the
 * settlement store of a stopped server as it would be found. Bounded: anvil is stopped by the test.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import type { Address, Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { createChainMarket, waitForSuccess } from '../../src/chain/chain-markets.js'
import { exchangeOrderOf, settlerOf } from '../../src/chain/exchange-orders.js'
import { SettlementStore, type SettlementRecord } from '../../src/chain/settlement-store.js'
import { signLimitOrder, type MarketTerms } from '../../src/client/orders.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { SILENT_LOG } from '../../src/log.js'
import { chainTradeIdOf, Settlement } from '../../src/service/testnet/settlement.js'
import { fundAndApprove, startLocalChain, userWallet, LOCAL_CHAIN_ID } from '../support/local-chain.js'

const USDC = 1_000_000n
const TERMS: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: LOCAL_CHAIN_ID }

const chain = await startLocalChain(t)
const market = await createChainMarket(chain, `0x${randomBytes(32).toString('hex')}` as Hex)

async function party(): Promise<Wallet> {
  const key = generatePrivateKey()
  await fundAndApprove(chain, userWallet(chain, key), 100n * USDC, 1)
  return new Wallet(key)
}

t.test('a trade settled in a block already passed is CONFIRMED from the exchange\'s log; one never settled is sent', async (t) => {
  const [alice, bob] = [await party(), await party()]
  const aliceYes = signLimitOrder(alice, TERMS, { tokenId: market.yesTokenId, side: 'BUY', price: '0.60', size: '10' })
  const bobNo = signLimitOrder(bob, TERMS, { tokenId: market.noTokenId, side: 'BUY', price: '0.40', size: '10' })
  const aliceMore = signLimitOrder(alice, TERMS, { tokenId: market.yesTokenId, side: 'BUY', price: '0.50', size: '5' })
  const bobMore = signLimitOrder(bob, TERMS, { tokenId: market.noTokenId, side: 'BUY', price: '0.50', size: '5' })
  // The first trade was settled before the "crash" (its CONFIRMED never written); the second never sent.
  const settledHash = await chain.operator.writeContract({ address: settlerOf(chain.contracts),
    abi: artifactOf('PredexExchange').abi, functionName: 'settle', args: [[{
      a: exchangeOrderOf(bobNo.order, bobNo.signature, false), b: exchangeOrderOf(aliceYes.order, aliceYes.signature, false),
      fill: { tradeId: chainTradeIdOf('trade-1'), size: 10n * USDC, collateralA: 4n * USDC, collateralB: 6n * USDC,
        feeA: 0n } }]] })
  await waitForSuccess(chain, [settledHash])
  for (let i = 0; i < 3; i++) await chain.test.mine({ blocks: 1 }) // past the confirmations

  const dataDir = mkdtempSync(join(tmpdir(), 'predex-settlement-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const store = SettlementStore.open(dataDir)
  // Two more kept orders, of no trade: one ended (cancelled) while nothing forgot it, one still resting.
  const cancelled = signLimitOrder(alice, TERMS, { tokenId: market.yesTokenId, side: 'BUY', price: '0.10', size: '5' })
  const resting = signLimitOrder(bob, TERMS, { tokenId: market.noTokenId, side: 'BUY', price: '0.10', size: '5' })
  for (const signed of [aliceYes, bobNo, aliceMore, bobMore, cancelled, resting]) {
    await store.keepOrder(signed.orderId, { struct: signed.order, signature: signed.signature, negRisk: false })
  }
  const base = { seq: 7, sizeMicros: 0, takerCollateralMicros: 0, makerCollateralMicros: 0, feeMicros: 0,
    transactionHash: null, blockNumber: null, reason: null, attempts: 1, updatedMs: 0 }
  const minedBeforeCrash: SettlementRecord = { ...base, tradeId: 'trade-1', chainTradeId: chainTradeIdOf('trade-1'),
    takerOrderId: bobNo.orderId, makerOrderId: aliceYes.orderId, sizeMicros: 10_000_000, takerCollateralMicros: 4_000_000,
    makerCollateralMicros: 6_000_000, status: 'MINED' }
  const neverSent: SettlementRecord = { ...base, tradeId: 'trade-2', chainTradeId: chainTradeIdOf('trade-2'),
    takerOrderId: bobMore.orderId, makerOrderId: aliceMore.orderId, sizeMicros: 5_000_000, takerCollateralMicros: 2_500_000,
    makerCollateralMicros: 2_500_000, status: 'MATCHED', attempts: 0 }
  await store.putTrade(minedBeforeCrash)
  await store.putTrade(neverSent)
  await store.setLastSeq(7)
  await store.close()

  const settlement = Settlement.open(chain, dataDir, () => Date.now(), SILENT_LOG)
  t.teardown(() => settlement.stop())
  await settlement.resume(dataDir, 7, (orderId) => orderId !== resting.orderId, // the read model's word
    () => Promise.reject(new Error('no trade failed: nothing to move back')))
  const first = settlement.of('trade-1', 0)
  t.equal(first.status, 'CONFIRMED', 'confirmed from the exchange\'s log')
  t.equal(first.transactionHash, settledHash, 'with the transaction that settled it')
  const second = settlement.of('trade-2', 0)
  t.ok(second.status === 'MINED' || second.status === 'CONFIRMED', `the unsent trade was sent (${second.status})`)
  t.equal(await chain.client.readContract({ address: settlerOf(chain.contracts) as Address,
    abi: artifactOf('PredexExchange').abi, functionName: 'settled', args: [chainTradeIdOf('trade-2')] }), true)
  // Kept orders: those that ended with every trade final are forgotten; the others stay as long as they may settle.
  const kept = (signed: { orderId: string }) => settlement.store.order(signed.orderId) !== undefined
  t.notOk(kept(cancelled), 'an ended order of no trade: forgotten at start')
  t.ok(kept(resting), 'a resting order: kept (it may still trade)')
  t.notOk(kept(aliceYes) || kept(bobNo), 'ended, their one trade CONFIRMED: forgotten')
  t.equal(kept(aliceMore) && kept(bobMore), second.status !== 'CONFIRMED',
    'ended, their trade not final yet: kept until it is')
})
