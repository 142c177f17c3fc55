/**
 * Books as sent, per token and kind. A book's content (levels, sizes, last trade) is formatted
 * once per version of the book (the read model's versions of the token, and of the other token
 * for the unified book); only the millisecond timestamp and the hash over it are made again, once
 * per millisecond, since the summary carries both. Under load most reads of a book find it
 * ready, and a change of the timestamp alone costs one SHA-1 of the text. At most two entries per
 * token. Both faces read it: REST sends the JSON text, gRPC converts the summary (the same hash).
 */
import type { ReadModel } from '../read/read-model.js'
import type { ServiceContext } from '../service/context.js'
import * as marketData from '../service/market-data/market-data.js'
import { bookContent, stampedBook, type BookContent, type StampedBook } from './format.js'

interface CachedBook {
  readonly version: number
  readonly content: BookContent
  stampedMs: number
  stamped: StampedBook
}

const bookCaches = new WeakMap<ReadModel, Map<string, CachedBook>>()

/** The book of a known token (its own, or `unified` with the other token's implied liquidity), now. */
export function cachedBook(context: ServiceContext, tokenId: string, unified: boolean): StampedBook {
  const read = context.read
  const nowMs = context.nowMs()
  const version = marketData.bookVersionOf(context, tokenId, unified)
  let cache = bookCaches.get(read)
  if (cache === undefined) {
    cache = new Map()
    bookCaches.set(read, cache)
  }
  const id = unified ? `u${tokenId}` : tokenId
  let cached = cache.get(id)
  if (cached === undefined || cached.version !== version) {
    const content = bookContent(read, marketData.bookOf(context, tokenId, unified).book)
    cached = { version, content, stampedMs: nowMs, stamped: stampedBook(content, nowMs) }
    cache.set(id, cached)
  } else if (cached.stampedMs !== nowMs) {
    cached.stampedMs = nowMs
    cached.stamped = stampedBook(cached.content, nowMs)
  }
  return cached.stamped
}
