/**
 * Settlement (src/service/testnet/settlement.ts) on a real anvil without a server: trades published to it
 * as the engine's outcomes would be, made so that the exchange refuses them (a mint whose buyer
 * has no USDC on chain). For tests of settlement's own bookkeeping: reversals, the backlog bound.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { createChainMarket } from '../../src/chain/chain-markets.js'
import { localClientsOf } from '../../src/chain/local-chain.js'
import type { EngineEvent, Trade } from '../../src/engine/event.js'
import type { Outcome } from '../../src/host/messages.js'
import { signLimitOrder, type MarketTerms } from '../../src/client/orders.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { SILENT_LOG } from '../../src/log.js'
import { Settlement } from '../../src/service/testnet/settlement.js'
import { eventually } from './eventually.js'
import { fundAndApprove, startLocalChain, userWallet, LOCAL_CHAIN_ID, type LocalChainForTest } from './local-chain.js'

const USDC = 1_000_000n
/** Port 9 (discard): nothing listens there on a test machine, so a connection is refused at once. */
const DEAD_PORT = 9
const TERMS: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: LOCAL_CHAIN_ID }

export interface Teardown {
  teardown(fn: () => unknown): void
}

export function outcomeOf(seq: number, events: Outcome['events']): Outcome {
  return { requestId: 0, seq, timeMs: seq, recorded: true, result: { ok: true }, events }
}

/** A mint of 10 (No at 0.40 taking Yes at 0.60) between `takerOrderId` and `makerOrderId`, for tests without a node. */
export function tradeOf(tradeId: string, takerOrderId: string, makerOrderId: string): Trade {
  return { type: 'trade', tradeId, marketId: 'm', matchType: 'mint', takerOrderId, takerAddress: '0xb',
    takerOwner: 'key-b', tokenId: '2', outcome: 'No', side: 'BUY', priceMicros: 400_000, sizeMicros: 10_000_000,
    feeMicros: 0, feeRateBps: 0, makerOrderId, makerAddress: '0xa', makerOwner: 'key-a', makerTokenId: '1',
    makerOutcome: 'Yes', makerSide: 'BUY', makerPriceMicros: 600_000, timeMs: 1 }
}

/** `orderId` filled whole (an order's end, after its trade). */
export function filled(orderId: string): EngineEvent {
  return { type: 'orderUpdate', orderId, maker: '0xa', status: 'MATCHED', sizeMatchedMicros: 10_000_000,
    remainingMicros: 0, reason: null } as EngineEvent
}

export class SettlementStage {
  private constructor(private readonly t: Teardown, readonly chain: LocalChainForTest,
    private readonly market: { yesTokenId: string; noTokenId: string }) {}

  /** Anvil (stopped by the test's teardown) and one market on it. */
  static async start(t: Teardown): Promise<SettlementStage> {
    const chain = await startLocalChain(t)
    const market = await createChainMarket(chain, `0x${randomBytes(32).toString('hex')}` as Hex)
    return new SettlementStage(t, chain, market)
  }

  /** A data directory of its own, removed at the end of the test. */
  dataDir(): string {
    const dataDir = mkdtempSync(join(tmpdir(), 'predex-settlement-'))
    this.t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    return dataDir
  }

  /**
   * Settlement over `dataDir`, stopped at the end of the test (stopping twice is harmless); with
   * `nodeDown`, its node is a loopback port where nothing listens, so every call fails.
   */
  open(dataDir: string, options: { unsettledMax?: number; nodeDown?: boolean } = {}): Settlement {
    const clients = options.nodeDown === true
      ? localClientsOf(`http://127.0.0.1:${DEAD_PORT}`, LOCAL_CHAIN_ID, this.chain.blockMs) : this.chain
    const settlement = Settlement.open(clients, dataDir, () => Date.now(), SILENT_LOG, options.unsettledMax)
    this.t.teardown(() => settlement.stop())
    return settlement
  }

  /** A mint the exchange refuses: alice is funded and approved, bob has no USDC on chain. */
  async failingTrade(tradeId: string) {
    const [aliceKey, bobKey] = [generatePrivateKey(), generatePrivateKey()]
    await fundAndApprove(this.chain, userWallet(this.chain, aliceKey), 100n * USDC, 1)
    const [alice, bob] = [new Wallet(aliceKey), new Wallet(bobKey)]
    const { yesTokenId, noTokenId } = this.market
    const yes = signLimitOrder(alice, TERMS, { tokenId: yesTokenId, side: 'BUY', price: '0.60', size: '10' })
    const no = signLimitOrder(bob, TERMS, { tokenId: noTokenId, side: 'BUY', price: '0.40', size: '10' })
    const trade: Trade = { type: 'trade', tradeId, marketId: 'm', matchType: 'mint', takerOrderId: no.orderId,
      takerAddress: bob.address.toLowerCase(), takerOwner: 'key-bob', tokenId: noTokenId, outcome: 'No',
      side: 'BUY', priceMicros: 400_000, sizeMicros: 10_000_000, feeMicros: 0, feeRateBps: 0,
      makerOrderId: yes.orderId, makerAddress: alice.address.toLowerCase(), makerOwner: 'key-alice',
      makerTokenId: yesTokenId, makerOutcome: 'Yes', makerSide: 'BUY', makerPriceMicros: 600_000, timeMs: 1 }
    return { trade, orders: [yes, no] }
  }

  /** A failing trade, its orders kept and its outcome published at `seq`; once settlement has recorded it. */
  async matched(settlement: Settlement, seq: number, tradeId: string): Promise<Trade> {
    const { trade, orders } = await this.failingTrade(tradeId)
    for (const signed of orders) await settlement.keepOrder(signed.orderId, signed.order, signed.signature, false)
    settlement.publish([outcomeOf(seq, [trade])])
    await eventually(() => settlement.store.trade(tradeId) !== undefined, 10_000, 'the trade recorded')
    return trade
  }
}
