/**
 * The market channel's book mirror (src/api/ws/book-mirror.ts) against the read model and the
 * REST summary (format.ts bookSummary): fed the same seeded random events (levels of both sides
 * of both tokens, trades of the token as taker's or maker's, tick size changes), the text the
 * mirror hashes after each command is, character for character, the JSON of the read model's
 * book summary at the same timestamp with `hash` empty, its hash the summary's, and its best
 * prices the read model's. Set MIRROR_SEED to replay a
 * run; the seed is printed.
 */
import t from 'tap'
import { BookMirror } from '../../../src/api/ws/book-mirror.js'
import { bookSummary } from '../../../src/api/format.js'
import type { EngineEvent, MarketRecord, Trade } from '../../../src/engine/event.js'
import { ReadModel } from '../../../src/read/read-model.js'

function mulberry32(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let x = s
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296
  }
}

const seed = process.env.MIRROR_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.MIRROR_SEED)
t.comment(`MIRROR_SEED=${seed}`)
const random = mulberry32(seed)
const below = (n: number): number => Math.floor(random() * n)

const market: MarketRecord = {
  marketId: 'm-1', conditionId: `0x${'ab'.repeat(32)}`, question: 'Mirror?', slug: 'mirror', description: '',
  yesTokenId: '111', noTokenId: '222', tickSizeMicros: 1_000, minOrderSizeMicros: 5_000_000, feeRateBps: 0,
  negRisk: true, endDateMs: 0, status: 'Active', createdMs: 1, winningOutcome: null, resolvedMs: 0,
}

function tradeOf(tokenId: string, makerTokenId: string, priceMicros: number, makerPriceMicros: number): Trade {
  return { type: 'trade', tradeId: `t-${below(1e9)}`, marketId: market.marketId, matchType: 'normal', takerOrderId: 'a',
    takerAddress: '0xa', takerOwner: 'k-a', tokenId, outcome: 'Yes', side: 'BUY', priceMicros, sizeMicros: 1_000_000,
    feeMicros: 0, feeRateBps: 0, makerOrderId: 'b', makerAddress: '0xb', makerOwner: 'k-b', makerTokenId,
    makerOutcome: 'No', makerSide: 'BUY', makerPriceMicros, timeMs: 1 }
}

/** One random command's events: mostly levels, sometimes a trade or a tick size change. */
function commandEvents(tickMicros: number): EngineEvent[] {
  const events: EngineEvent[] = []
  const count = 1 + below(4)
  for (let i = 0; i < count; i++) {
    const roll = random()
    const price = (1 + below(Math.floor(1_000_000 / tickMicros) - 1)) * tickMicros
    if (roll < 0.8) {
      const size = random() < 0.3 ? 0 : 1 + below(50_000_000)
      events.push({ type: 'bookLevel', marketId: market.marketId, tokenId: random() < 0.7 ? market.yesTokenId
        : market.noTokenId, side: random() < 0.5 ? 'BUY' : 'SELL', priceMicros: price, sizeMicros: size })
    } else if (roll < 0.95) {
      const [taker, maker] = random() < 0.5 ? [market.yesTokenId, market.noTokenId] : [market.noTokenId, market.yesTokenId]
      events.push(tradeOf(taker, random() < 0.5 ? taker : maker, price, 1_000_000 - price))
    } else {
      events.push({ type: 'marketUpdated', marketId: market.marketId, status: 'Active',
        tickSizeMicros: [1_000, 10_000][below(2)]!, feeRateBps: 0, winningOutcome: null, resolvedMs: 0 })
    }
  }
  return events
}

/** What the market channel does with a command's events for one followed token. */
function follow(mirror: BookMirror, tokenId: string, events: readonly EngineEvent[]): void {
  for (const event of events) {
    if (event.type === 'bookLevel' && event.tokenId === tokenId) mirror.level(event.side, event.priceMicros, event.sizeMicros)
    if (event.type === 'trade' && event.tokenId === tokenId) mirror.trade(event.priceMicros)
    if (event.type === 'trade' && event.makerTokenId === tokenId && event.tokenId !== tokenId) mirror.trade(event.makerPriceMicros)
    if (event.type === 'marketUpdated') mirror.tick(event.tickSizeMicros)
  }
}

t.test('after each command the mirror is the read model\'s book, summary and hash alike', async (t) => {
  const read = new ReadModel()
  read.apply(1, [{ type: 'marketCreated', market }], 1)
  // The channel starts a mirror when a token gains its first subscriber: here after some history.
  let seq = 2
  for (; seq < 50; seq++) read.apply(seq, commandEvents(1_000), seq)
  const lastTrade = (tokenId: string) => read.tokenStats.get(tokenId)?.lastTradePriceMicros ?? null
  const mirrors = [market.yesTokenId, market.noTokenId].map((tokenId) =>
    ({ tokenId, mirror: new BookMirror(read.markets.get(market.marketId)!, tokenId, read.book(tokenId)!, lastTrade(tokenId)) }))
  let mismatches = 0
  for (let end = seq + 2_000; seq < end; seq++) {
    const events = commandEvents(read.markets.get(market.marketId)!.tickSizeMicros)
    read.apply(seq, events, seq * 1000)
    for (const { tokenId, mirror } of mirrors) {
      follow(mirror, tokenId, events)
      const expected = bookSummary(read, read.book(tokenId)!, seq * 1000)
      const text = mirror.hashedText(seq * 1000)
      if (text !== JSON.stringify({ ...expected, hash: '' }) || mirror.hash(seq * 1000) !== expected.hash) {
        mismatches++
        if (mismatches === 1) t.same(JSON.parse(text), { ...expected, hash: '' }, `first mismatch at seq ${seq} (MIRROR_SEED=${seed})`)
      }
      const best = read.bestPrices(tokenId)
      if (mirror.best().bidMicros !== best.bidMicros || mirror.best().askMicros !== best.askMicros) mismatches++
    }
  }
  t.equal(mismatches, 0, 'no command where the mirror differs')
})

t.test('takeBestChange tells a move of the best bid or ask once, and not a change of a deeper level', async (t) => {
  const read = new ReadModel()
  read.apply(1, [{ type: 'marketCreated', market }], 1)
  const mirror = new BookMirror(market, market.yesTokenId, read.book(market.yesTokenId)!, null)
  t.equal(mirror.takeBestChange(), null, 'an empty book, unchanged')
  mirror.level('BUY', 400_000, 10_000_000)
  t.same(mirror.takeBestChange(), { bidMicros: 400_000, askMicros: null })
  t.equal(mirror.takeBestChange(), null, 'told once')
  mirror.level('BUY', 300_000, 10_000_000)
  mirror.level('BUY', 400_000, 5_000_000)
  t.equal(mirror.takeBestChange(), null, 'a deeper level and a size at the best price: no move')
  mirror.level('SELL', 700_000, 1_000_000)
  t.same(mirror.takeBestChange(), { bidMicros: 400_000, askMicros: 700_000 })
  mirror.level('BUY', 400_000, 0)
  t.same(mirror.takeBestChange(), { bidMicros: 300_000, askMicros: 700_000 }, 'the best bid gone: the next one')
})
