/**
 * Seeded random engine events on one binary market's books, for tests that compare a formatted
 * book with the read model's (book-mirror.test.ts, book-cache.test.ts): mostly levels of both
 * sides of both tokens, sometimes a trade (as the token's taker or maker), now and then a tick
 * size change. The same seed gives the same events.
 */
import type { EngineEvent, MarketRecord, Trade } from '../../src/engine/event.js'
import { Random } from '../../src/stdx/random.js'

export const bookMarket: MarketRecord = {
  marketId: 'm-1', conditionId: `0x${'ab'.repeat(32)}`, question: 'Mirror?', slug: 'mirror', description: '',
  yesTokenId: '111', noTokenId: '222', tickSizeMicros: 1_000, minOrderSizeMicros: 5_000_000, feeRateBps: 0,
  negRisk: true, endDateMs: 0, status: 'Active', createdMs: 1, winningOutcome: null, resolvedMs: 0,
}

export class BookEvents {
  private readonly random: Random

  constructor(seed: number) {
    this.random = new Random(seed)
  }

  /** One random command's events: mostly levels, sometimes a trade or a tick size change. */
  command(tickMicros: number): EngineEvent[] {
    const { random } = this
    const market = bookMarket
    const events: EngineEvent[] = []
    const count = random.int(1, 4)
    for (let i = 0; i < count; i++) {
      const roll = random.int(0, 99)
      const price = random.int(1, Math.floor(1_000_000 / tickMicros) - 1) * tickMicros
      if (roll < 80) {
        const size = random.chance(0.3) ? 0 : random.int(1, 50_000_000)
        events.push({ type: 'bookLevel', marketId: market.marketId, tokenId: random.chance(0.7) ? market.yesTokenId
          : market.noTokenId, side: random.chance(0.5) ? 'BUY' : 'SELL', priceMicros: price, sizeMicros: size })
      } else if (roll < 95) {
        const [taker, maker] = random.chance(0.5) ? [market.yesTokenId, market.noTokenId]
          : [market.noTokenId, market.yesTokenId]
        events.push(this.trade(taker, random.chance(0.5) ? taker : maker, price, 1_000_000 - price))
      } else {
        events.push({ type: 'marketUpdated', marketId: market.marketId, status: 'Active',
          tickSizeMicros: random.pick([1_000, 10_000]), feeRateBps: 0, winningOutcome: null, resolvedMs: 0 })
      }
    }
    return events
  }

  private trade(tokenId: string, makerTokenId: string, priceMicros: number, makerPriceMicros: number): Trade {
    return { type: 'trade', tradeId: `t-${this.random.int(0, 1e9)}`, marketId: bookMarket.marketId,
      matchType: 'normal', takerOrderId: 'a', takerAddress: '0xa', takerOwner: 'k-a', tokenId, outcome: 'Yes',
      side: 'BUY', priceMicros, sizeMicros: 1_000_000, feeMicros: 0, feeRateBps: 0, makerOrderId: 'b',
      makerAddress: '0xb', makerOwner: 'k-b', makerTokenId, makerOutcome: 'No', makerSide: 'BUY', makerPriceMicros,
      timeMs: 1 }
  }
}
