/**
 * The read side of a grpc-js stream as a queue the SDK awaits: `next()` answers the next message,
 * or the end with the call's status. Three grpc-js details it hides:
 * - the final status ('status' event) can arrive while messages are still buffered in the
 *   Readable; the end is answered only after the last message ('end' event), so no message is lost;
 * - a stream that ends with an error emits 'error' as well; it is listened to (an unhandled
 *   'error' would crash the process) and read from the status instead;
 * - a caller that stops reading: past `messagesMax` buffered messages the socket is paused, so
 *   HTTP/2 flow control pushes back to the server (whose backlog bound then decides).
 */
import { status as GrpcStatus, type ClientReadableStream, type StatusObject } from '@grpc/grpc-js'
import { GRPC_SDK_STREAM_BUFFER_MESSAGES_MAX } from '../../limits.js'
import { callErrorOf, GrpcCallError } from './transport.js'

export type StreamNext<T> =
  | { readonly kind: 'message'; readonly message: T }
  /** `error`: null when the server ended the call with OK. */
  | { readonly kind: 'end'; readonly error: GrpcCallError | null }

export class StreamQueue<T> {
  private readonly messages: T[] = []
  private status: StatusObject | null = null
  private readEnd = false
  private ended: StreamNext<T> | null = null
  private waiter: ((next: StreamNext<T>) => void) | null = null
  private paused = false
  /** True once `cancel()` was called: the end that follows is the caller's own doing. */
  cancelled = false

  constructor(readonly call: ClientReadableStream<T>,
    private readonly messagesMax: number = GRPC_SDK_STREAM_BUFFER_MESSAGES_MAX) {
    call.on('data', (message: T) => this.push(message))
    call.on('end', () => {
      this.readEnd = true
      this.settle()
    })
    call.on('status', (status: StatusObject) => {
      this.status = status
      this.settle()
    })
    call.on('error', () => undefined) // the same end, read from the 'status' event
  }

  /** The next message, or the end. After the end, every call answers the same end. */
  next(): Promise<StreamNext<T>> {
    const message = this.messages.shift()
    if (message !== undefined) {
      if (this.paused && this.messages.length <= this.messagesMax / 2) {
        this.paused = false
        this.call.resume()
      }
      return Promise.resolve({ kind: 'message', message })
    }
    if (this.ended !== null) return Promise.resolve(this.ended)
    if (this.waiter !== null) throw new Error('StreamQueue.next: one reader at a time')
    return new Promise((resolve) => { this.waiter = resolve })
  }

  /** Cancels the call; a waiting `next()` answers the end (CANCELLED) at once, buffered messages are dropped. */
  cancel(): void {
    if (this.ended !== null) return
    this.cancelled = true
    this.messages.length = 0
    this.finish({ kind: 'end',
      error: new GrpcCallError(GrpcStatus.CANCELLED, 'Cancelled by the client', '', {}, null) })
    this.call.cancel()
  }

  private push(message: T): void {
    if (this.ended !== null) return
    const waiter = this.waiter
    if (waiter !== null) {
      this.waiter = null
      waiter({ kind: 'message', message })
      return
    }
    this.messages.push(message)
    if (!this.paused && this.messages.length >= this.messagesMax) {
      this.paused = true
      this.call.pause()
    }
  }

  /** The end is known when the status came and the Readable gave its last message. */
  private settle(): void {
    const status = this.status
    if (status === null || !this.readEnd || this.ended !== null) return
    this.finish({ kind: 'end', error: status.code === GrpcStatus.OK ? null : callErrorOf(status) })
  }

  private finish(end: StreamNext<T>): void {
    this.ended = end
    const waiter = this.waiter
    if (waiter !== null && this.messages.length === 0) {
      this.waiter = null
      waiter(end)
    }
  }
}

