/**
 * The user stream (drop copy) as an async iterator that survives dropped connections. Every
 * update carries the wallet's sequence number and its epoch (streams.proto); the iterator
 * remembers the last one it gave out and, when the call drops, opens a new one with `from_seq`
 * and `epoch` so that the server first replays what was missed: nothing is lost and nothing is
 * given twice (a repeated number is skipped). When the server can no longer resume (another
 * epoch after a restart, or older than its retention), it sends a `gap` and a fresh snapshot of
 * the open orders; both are yielded, and the caller re-reads what it must (trades, balances).
 * An `orderGroup` update (a change of one of the key's order groups) is not numbered: it carries
 * the current number, is yielded as it comes and leaves the cursor where it was; the server does
 * not replay it, so after a reconnect the caller re-reads its groups (listOrderGroups) if it must.
 *
 * A refusal (UNAUTHENTICATED, PERMISSION_DENIED, ...) ends the iterator with its GrpcCallError;
 * `break` cancels the call; closing the client ends the iteration cleanly.
 */
import type { UserStreamResponse } from '../../gen/predex/v1/streams_pb.js'
import { Backoff, isRetryable, sleep, type BackoffOptions } from './backoff.js'
import type { StreamQueue } from './stream-queue.js'
import type { GrpcCallError } from './transport.js'

/** Where a user stream stands: the last update given out (seq 0: none yet). */
export interface UserCursor {
  readonly epoch: string
  readonly seq: bigint
}

export interface UserStreamOptions extends BackoffOptions {
  /** Resume after this update (from an earlier stream); absent: start with a snapshot. */
  readonly from?: UserCursor
}

type CallEnd = { readonly kind: 'lost' } | { readonly kind: 'end'; readonly error: GrpcCallError | null }

export class UserStream implements AsyncIterable<UserStreamResponse> {
  /** Calls opened so far: 1, plus one per reconnect. */
  connections = 0
  private position: UserCursor
  private current: StreamQueue<UserStreamResponse> | null = null
  private iterated = false

  constructor(private readonly open: (from: UserCursor) => StreamQueue<UserStreamResponse>,
    private readonly signal: AbortSignal, private readonly options: UserStreamOptions = {}) {
    this.position = options.from ?? { epoch: '', seq: 0n }
  }

  /** The last update given out: pass it as `from` to resume in another stream (or process). */
  get cursor(): UserCursor {
    return this.position
  }

  [Symbol.asyncIterator](): AsyncIterator<UserStreamResponse> {
    if (this.iterated) throw new Error('a UserStream is iterated once; open another for a second reader')
    this.iterated = true
    return this.updates()
  }

  /** Drops the current call, as a network failure would; the iterator resumes on a new one. */
  reconnect(): void {
    this.current?.cancel()
  }

  private async *updates(): AsyncGenerator<UserStreamResponse, void, undefined> {
    const backoff = new Backoff(this.options)
    // The client's close wakes a read in progress: its call is cancelled, the loop sees the abort.
    const cancel = (): void => this.current?.cancel()
    this.signal.addEventListener('abort', cancel)
    try {
      while (!this.signal.aborted) {
        const queue = this.open(this.position)
        this.current = queue
        this.connections++
        const end = yield* this.read(queue, backoff)
        if (this.signal.aborted) return
        const error = end.kind === 'lost' ? null : end.error
        if (!isRetryable(error)) throw error
        const delayMs = backoff.after(error)
        if (delayMs === null) throw error ?? new Error(`user stream: updates lost in ${this.connections} calls`)
        await sleep(delayMs, this.signal)
      }
    } finally {
      this.signal.removeEventListener('abort', cancel)
      this.current?.cancel()
    }
  }

  /** The updates of one call, until it ends (or shows a lost update, which the server never should). */
  private async *read(queue: StreamQueue<UserStreamResponse>, backoff: Backoff):
    AsyncGenerator<UserStreamResponse, CallEnd, undefined> {
    for (;;) {
      const next = await queue.next()
      if (next.kind === 'end') return queue.cancelled ? { kind: 'lost' } : next
      const message = next.message
      const kind = message.update.case
      if (kind === 'gap') {
        yield message // the snapshot that follows sets the position
        continue
      }
      if (kind === 'orderGroup') {
        yield message // not numbered (it carries the current number): never replayed, and moves nothing
        continue
      }
      const sameEpoch = message.epoch === this.position.epoch
      if (kind !== 'snapshot' && sameEpoch && message.seq <= this.position.seq) continue // replayed twice
      if (kind !== 'snapshot' && sameEpoch && this.position.seq > 0n && message.seq !== this.position.seq + 1n) {
        queue.cancel()
        return { kind: 'lost' }
      }
      this.position = { epoch: message.epoch, seq: message.seq }
      backoff.reset()
      yield message
    }
  }
}
