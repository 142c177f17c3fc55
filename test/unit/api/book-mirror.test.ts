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
import type { EngineEvent } from '../../../src/engine/event.js'
import { ReadModel } from '../../../src/read/read-model.js'
import { BookEvents, bookMarket } from '../../support/book-events.js'
import { seedOf } from '../../support/seed.js'

const seed = seedOf('MIRROR_SEED')
t.comment(`MIRROR_SEED=${seed}`)
const generator = new BookEvents(seed)
const market = bookMarket

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
  for (; seq < 50; seq++) read.apply(seq, generator.command(1_000), seq)
  const lastTrade = (tokenId: string) => read.tokenStats.get(tokenId)?.lastTradePriceMicros ?? null
  const mirrors = [market.yesTokenId, market.noTokenId].map((tokenId) =>
    ({ tokenId, mirror: new BookMirror(read.markets.get(market.marketId)!, tokenId, read.book(tokenId)!, lastTrade(tokenId)) }))
  let mismatches = 0
  for (let end = seq + 2_000; seq < end; seq++) {
    const events = generator.command(read.markets.get(market.marketId)!.tickSizeMicros)
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
