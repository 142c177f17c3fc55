/**
 * The book stream as an async iterator that keeps a local book per token. The server sends, per
 * token, a snapshot and then level changes and trades, each with the token's next sequence number
 * (streams.proto). The iterator checks every number: a jump means messages were lost, so it drops
 * the call and subscribes again, and the fresh snapshots replace the local books (the caller
 * sees `snapshot` updates with `resubscribed: true`). A call that fails retryably (the server
 * went away, shed a slow reader) is opened again after a bounded backoff; a refusal (an unknown
 * token, too many tokens) ends the iterator with its GrpcCallError.
 *
 * `for await (const update of stream)`: a `break` (the iterator's `return()`) cancels the call;
 * closing the client ends the iteration cleanly.
 */
import type { BookStreamResponse, LevelChange, TradePrint } from '../../gen/predex/v1/streams_pb.js'
import { Backoff, isRetryable, sleep, type BackoffOptions } from './backoff.js'
import { LocalBook } from './local-book.js'
import type { StreamQueue } from './stream-queue.js'
import type { GrpcCallError } from './transport.js'

export type BookUpdate =
  /** A token's book from a (re)subscription; `book` holds it. */
  | { readonly kind: 'snapshot'; readonly tokenId: string; readonly book: LocalBook; readonly resubscribed: boolean }
  /** Levels changed; `book` already holds them. */
  | { readonly kind: 'levels'; readonly tokenId: string; readonly changes: readonly LevelChange[];
      readonly book: LocalBook }
  /** A trade printed on the token. */
  | { readonly kind: 'trade'; readonly tokenId: string; readonly trade: TradePrint; readonly book: LocalBook }

export interface BookStreamOptions extends BackoffOptions {
  /**
   * For tests of gap handling: a message for which this answers true is dropped as if it had
   * been lost in transit, so the next one of its token shows a gap.
   */
  readonly lose?: (message: BookStreamResponse) => boolean
}

/** How one call ended: a gap seen (or a resubscribe asked for), or the call's end. */
type CallEnd = { readonly kind: 'gap' } | { readonly kind: 'end'; readonly error: GrpcCallError | null }

export class BookStream implements AsyncIterable<BookUpdate> {
  /** The local book of each token, kept current (the objects the updates carry). */
  readonly books: ReadonlyMap<string, LocalBook>
  /** Calls opened so far: 1, plus one per resubscribe or reconnect. */
  subscriptions = 0
  readonly tokenIds: readonly string[]
  private current: StreamQueue<BookStreamResponse> | null = null
  private iterated = false

  constructor(tokenIds: readonly string[], private readonly open: () => StreamQueue<BookStreamResponse>,
    private readonly signal: AbortSignal, private readonly options: BookStreamOptions = {}) {
    this.tokenIds = [...new Set(tokenIds)]
    this.books = new Map(this.tokenIds.map((tokenId) => [tokenId, new LocalBook(tokenId)]))
  }

  [Symbol.asyncIterator](): AsyncIterator<BookUpdate> {
    if (this.iterated) throw new Error('a BookStream is iterated once; open another for a second reader')
    this.iterated = true
    return this.updates()
  }

  /** Drops the current call and subscribes again: every token gets a fresh snapshot. */
  resubscribe(): void {
    this.current?.cancel()
  }

  private async *updates(): AsyncGenerator<BookUpdate, void, undefined> {
    const backoff = new Backoff(this.options)
    // The client's close wakes a read in progress: its call is cancelled, the loop sees the abort.
    const cancel = (): void => this.current?.cancel()
    this.signal.addEventListener('abort', cancel)
    try {
      while (!this.signal.aborted) {
        const queue = this.open()
        this.current = queue
        const end = yield* this.read(queue, this.subscriptions++ > 0, backoff)
        if (this.signal.aborted) return
        const error = end.kind === 'gap' ? null : end.error
        if (!isRetryable(error)) throw error
        const delayMs = backoff.after(error)
        if (delayMs === null) throw error ?? new Error(`book stream: still gaps after ${this.subscriptions} tries`)
        await sleep(delayMs, this.signal)
      }
    } finally {
      this.signal.removeEventListener('abort', cancel)
      this.current?.cancel()
    }
  }

  /** The updates of one call, until it ends or shows a gap. */
  private async *read(queue: StreamQueue<BookStreamResponse>, resubscribed: boolean, backoff: Backoff):
    AsyncGenerator<BookUpdate, CallEnd, undefined> {
    const snapshotted = new Set<string>()
    for (;;) {
      const next = await queue.next()
      if (next.kind === 'end') return queue.cancelled ? { kind: 'gap' } : next
      const message = next.message
      const book = this.books.get(message.tokenId)
      if (book === undefined || this.options.lose?.(message) === true) continue
      const { seq, engineSeq, update } = message
      if (update.case === 'snapshot') {
        book.reset(update.value, seq, engineSeq)
        snapshotted.add(message.tokenId)
        if (snapshotted.size === this.tokenIds.length) backoff.reset()
        yield { kind: 'snapshot', tokenId: book.tokenId, book, resubscribed }
        continue
      }
      if (snapshotted.has(book.tokenId) && seq <= book.seq) continue // already applied
      if (!snapshotted.has(book.tokenId) || seq !== book.seq + 1n) {
        queue.cancel()
        return { kind: 'gap' }
      }
      if (update.case === 'levels') {
        book.apply(update.value.changes, seq, engineSeq)
        yield { kind: 'levels', tokenId: book.tokenId, changes: update.value.changes, book }
      } else if (update.case === 'trade') {
        book.trade(update.value.price, seq, engineSeq)
        yield { kind: 'trade', tokenId: book.tokenId, trade: update.value, book }
      }
    }
  }
}
