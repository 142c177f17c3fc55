/**
 * Books as sent, per token and kind, reused while nothing in them changed (the read model's
 * versions of the token, and of the other token for the unified book) within one millisecond:
 * the summary carries a millisecond timestamp and a hash over it, so that is as long as an answer
 * stays exact. Under load most reads of a book find it ready; at most two entries per token. Both
 * faces read it: REST sends the JSON text, gRPC converts the summary (the same hash).
 */
import type { ReadModel } from '../read/read-model.js'
import type { ServiceContext } from '../service/context.js'
import * as marketData from '../service/market-data.js'
import { bookSummary } from './format.js'
import type { OrderBookSummary } from './shapes/book.js'

export interface SentBook {
  readonly summary: OrderBookSummary
  /** The summary's JSON, as REST sends it. */
  readonly json: string
}

const bookCaches = new WeakMap<ReadModel, Map<string, { key: string; book: SentBook }>>()

/** The book of a known token (its own, or `unified` with the other token's implied liquidity), now. */
export function cachedBook(context: ServiceContext, tokenId: string, unified: boolean): SentBook {
  const read = context.read
  const nowMs = context.nowMs()
  const key = `${nowMs} ${marketData.bookVersionOf(context, tokenId, unified)}`
  let cache = bookCaches.get(read)
  if (cache === undefined) {
    cache = new Map()
    bookCaches.set(read, cache)
  }
  const id = unified ? `u${tokenId}` : tokenId
  const hit = cache.get(id)
  if (hit?.key === key) return hit.book
  const summary = bookSummary(read, marketData.bookOf(context, tokenId, unified).book, nowMs)
  const book = { summary, json: JSON.stringify(summary) }
  cache.set(id, { key, book })
  return book
}
