/**
 * Wallet histories for the portfolio tests, made by the real engine in process (fakeWorld): a
 * market, funded and approved wallets, and a wallet's history of trades (it buys Yes from a
 * counterparty that sells what it split) and ledger operations (splits, merges, credits), so
 * every kind of milestone but redemption occurs and positions change at most steps.
 */
import type { OrderInput, Side } from '../../src/engine/command.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { newMarketIds } from '../../src/service/market-data/market-ids.js'
import type { ReadStore } from '../../src/read/read-store.js'
import { fakeWorld, USDC, type FakeWorld } from '../unit/service/fake-context.js'

export { USDC }

export interface HistoryWorld extends FakeWorld {
  readonly market: MarketRecord
  /** Submits a command; throws if the engine refuses it. */
  run(command: Parameters<FakeWorld['context']['host']['submit']>[0]): Promise<void>
  /** Credits and approves `address` for `usdcMicros`. */
  fund(address: string, usdcMicros: number): Promise<void>
  /** Adds about `milestones` milestones to `address`'s history (a mix of trades and ledger operations). */
  grow(address: string, milestones: number): Promise<void>
}

let orders = 0

function order(maker: string, tokenId: string, side: Side, priceMicros: number, sharesMicros: number): OrderInput {
  const usdc = (priceMicros * sharesMicros) / USDC
  return {
    orderId: `0x${(++orders).toString(16).padStart(64, '0')}`, owner: `key-${maker}`, maker, signer: maker, tokenId,
    side, makerAmountMicros: side === 'BUY' ? usdc : sharesMicros, takerAmountMicros: side === 'BUY' ? sharesMicros : usdc,
    expirationSec: 0, feeRateBps: null, timeInForce: 'GTC', postOnly: false, clientOrderId: '',
  }
}

/** `store`: the read model keeps its history there, on disk, as in a server. */
export async function historyWorld(store?: ReadStore): Promise<HistoryWorld> {
  const world = fakeWorld(undefined, store)
  const run: HistoryWorld['run'] = async (command) => {
    const { result } = await world.context.host.submit(command)
    if (!result.ok) throw new Error(`engine refused ${command.kind}: ${JSON.stringify(result)}`)
  }
  const ids = newMarketIds()
  await run({ kind: 'createMarket', market: { ...ids, question: 'History?', slug: `history-${ids.marketId}`,
    description: 'a test market', tickSizeMicros: 10_000, minOrderSizeMicros: USDC, feeRateBps: 0, negRisk: false,
    endDateMs: 0, status: 'Active' } })
  const market = world.context.read.markets.get(ids.marketId)!
  const fund = async (address: string, usdcMicros: number): Promise<void> => {
    await run({ kind: 'credit', address, usdcMicros, gasMicros: 0 })
    await run({ kind: 'approve', address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
  }
  const counterparty = '0x' + 'c'.repeat(40)
  await fund(counterparty, 1_000_000_000 * USDC)
  await run({ kind: 'split', address: counterparty, marketId: market.marketId, amountMicros: 100_000_000 * USDC })
  const grow = async (address: string, milestones: number): Promise<void> => {
    for (let i = 0; i < milestones; i++) {
      switch (i % 4) {
        case 0: // a trade: the counterparty's ask rests, the wallet buys it
          await run({ kind: 'placeOrder', order: order(counterparty, market.yesTokenId, 'SELL', 400_000, 2 * USDC) })
          await run({ kind: 'placeOrder', order: order(address, market.yesTokenId, 'BUY', 400_000, 2 * USDC) })
          break
        case 1: await run({ kind: 'split', address, marketId: market.marketId, amountMicros: 3 * USDC }); break
        case 2: await run({ kind: 'merge', address, marketId: market.marketId, amountMicros: USDC }); break
        case 3: await run({ kind: 'credit', address, usdcMicros: 5 * USDC, gasMicros: 0 }); break
      }
    }
  }
  return { ...world, market, run, fund, grow }
}
