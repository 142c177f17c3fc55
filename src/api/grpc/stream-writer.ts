/**
 * The writing end of one server stream, with a bounded backlog. grpc-js's stream buffers every
 * message it is given; a client that does not read would make that buffer grow without end. So
 * messages go to grpc-js only while its buffer is below its mark (`write` returns true), the rest
 * wait here, and past `backlogMax` waiting messages the stream is ended with SLOW_CONSUMER
 * (RESOURCE_EXHAUSTED): the backlog is dropped at once, the client gets the status after the few
 * messages already handed to grpc-js. Writing never blocks the caller, so one slow client never
 * holds up the others.
 *
 * Every way a stream ends (this end, the server's `fail`, the client cancelling or going away)
 * runs `onEnd` exactly once: it gives back the stream's slot and drops its subscription.
 */
import type { ServerDuplexStream, ServerWritableStream } from '@grpc/grpc-js'
import { ApiCode, PredexError } from '../../errors.js'
import { statusOf } from './status.js'

const COMPACT_AFTER_MESSAGES = 1_024

/** What the server writes to: a server stream, or the answers of a bidirectional one (order entry). */
export type WritableCall<M> = ServerWritableStream<Buffer, M> | ServerDuplexStream<Buffer, M>

export class StreamWriter<M> {
  private backlog: M[] = []
  /** Index of the first message of `backlog` not yet written (shifting a long array costs). */
  private head = 0
  /** grpc-js's buffer is at its mark: wait for 'drain'. */
  private waiting = false
  private ended = false
  /** `end` was asked while messages waited here: the stream ends OK once they are handed to grpc-js. */
  private endWhenFlushed = false
  private readonly onDrain = (): void => this.flush()
  private readonly onGone = (): void => this.finish()

  constructor(
    private readonly call: WritableCall<M>,
    private readonly backlogMax: number,
    private readonly onEnd: () => void,
  ) {
    call.on('drain', this.onDrain)
    call.on('cancelled', this.onGone)
    // After the status is sent grpc-js ends the stream; a failed write also lands here.
    call.on('close', this.onGone)
  }

  get isEnded(): boolean {
    return this.ended
  }

  /** Messages waiting for the client (not yet handed to grpc-js). */
  get backlogLength(): number {
    return this.backlog.length - this.head
  }

  write(message: M): void {
    if (this.ended || this.endWhenFlushed) return
    if (!this.waiting && this.backlogLength === 0) {
      this.waiting = !this.call.write(message)
      return
    }
    this.backlog.push(message)
    if (this.backlogLength > this.backlogMax) {
      this.fail(new PredexError(ApiCode.SLOW_CONSUMER, `the client read too slowly: more than ${this.backlogMax} ` +
        'messages were waiting for it; subscribe again', { backlogMax: this.backlogMax }))
    }
  }

  /** Ends the stream with `error`'s status, dropping what has not been handed to grpc-js. */
  fail(error: PredexError): void {
    if (this.ended) return
    this.finish()
    // grpc-js turns an 'error' into the call's status, sent once its buffer is written.
    this.call.emit('error', statusOf(error))
  }

  /** Ends the stream OK after every message written so far (grpc-js sends the status after them). */
  end(): void {
    if (this.ended || this.endWhenFlushed) return
    this.endWhenFlushed = true
    if (this.backlogLength === 0) this.endNow()
  }

  private endNow(): void {
    this.finish()
    this.call.end()
  }

  private flush(): void {
    this.waiting = false
    while (!this.ended && !this.waiting && this.backlogLength > 0) {
      const message = this.backlog[this.head]!
      this.head++
      this.waiting = !this.call.write(message)
    }
    // Drop the written part once it is most of the array: amortised O(1) per message.
    if (this.backlogLength === 0) {
      this.backlog = []
      this.head = 0
    } else if (this.head >= COMPACT_AFTER_MESSAGES && this.head * 2 >= this.backlog.length) {
      this.backlog = this.backlog.slice(this.head)
      this.head = 0
    }
    if (this.endWhenFlushed && !this.ended && this.backlogLength === 0) this.endNow()
  }

  private finish(): void {
    if (this.ended) return
    this.ended = true
    this.backlog = []
    this.head = 0
    this.call.off('drain', this.onDrain)
    this.call.off('cancelled', this.onGone)
    this.call.off('close', this.onGone)
    this.onEnd()
  }
}
