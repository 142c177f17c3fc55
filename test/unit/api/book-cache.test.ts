/**
 * The book cache (src/api/book-cache.ts) formats a book's content once per version and stamps it
 * once per millisecond: whatever the sequence of changes and clock steps, what it answers is,
 * character for character, the JSON of format.ts bookSummary at the same millisecond (own and
 * unified books, both tokens), and its hash is the SHA-1 of that JSON with `hash` empty. Fed
 * seeded random events; set BOOK_CACHE_SEED to replay a run (the seed is printed).
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { cachedBook } from '../../../src/api/book-cache.js'
import { bookSummary } from '../../../src/api/format.js'
import { ReadModel } from '../../../src/read/read-model.js'
import type { ServiceContext } from '../../../src/service/context.js'
import { BookEvents, bookMarket } from '../../support/book-events.js'
import { seedOf } from '../../support/seed.js'

const seed = seedOf('BOOK_CACHE_SEED')
t.comment(`BOOK_CACHE_SEED=${seed}`)

t.test('a cached book is the summary at the same millisecond, through changes and clock steps', async (t) => {
  const generator = new BookEvents(seed)
  const read = new ReadModel()
  read.apply(1, [{ type: 'marketCreated', market: bookMarket }], 1)
  let nowMs = 1_700_000_000_000
  const context = { read, nowMs: () => nowMs } as unknown as ServiceContext
  let mismatches = 0
  let hits = 0
  for (let seq = 2; seq < 1_500; seq++) {
    // A command now and then; the clock moves by 0, 1 or a few milliseconds between reads.
    if (seq % 3 !== 0) read.apply(seq, generator.command(read.markets.get(bookMarket.marketId)!.tickSizeMicros), nowMs)
    nowMs += [0, 0, 1, 7][seq % 4]!
    for (const tokenId of [bookMarket.yesTokenId, bookMarket.noTokenId]) {
      for (const unified of [false, true]) {
        const sent = cachedBook(context, tokenId, unified)
        if (sent === cachedBook(context, tokenId, unified)) hits++
        const expected = bookSummary(read, unified ? read.unifiedBook(tokenId)! : read.book(tokenId)!, nowMs)
        const hashed = createHash('sha1').update(JSON.stringify({ ...expected, hash: '' })).digest('hex')
        if (sent.json !== JSON.stringify(expected) || JSON.stringify(sent.summary) !== sent.json ||
          expected.hash !== hashed) {
          mismatches++
          if (mismatches === 1) t.same(JSON.parse(sent.json), expected, `first mismatch at seq ${seq} (seed ${seed})`)
        }
      }
    }
  }
  t.equal(mismatches, 0, 'no read where the cache differs from the summary')
  t.ok(hits > 0, 'a second read at the same millisecond reuses the answer')
})
