/**
 * gRPC StreamService: the book stream (public) and the user stream (drop copy, L2), as server
 * streams over the service layer's feeds (src/service/feeds/book-feed.ts, user-feed.ts). The feeds are
 * made and registered with the fan-out by app.ts when the server starts (the user feed numbers
 * and keeps every wallet's updates from then on, so a client can resume); this face only admits a
 * call, turns the feeds' records into messages and writes them through a bounded backlog
 * (stream-writer.ts). A tick size change has no message here (its update is not numbered).
 *
 * - BookStream: admitted like a public unary call, one slot of the client address's book streams
 *   (GRPC_BOOK_STREAMS_PER_ADDRESS_MAX); the tokens are checked (INVALID_ARGUMENT for none or
 *   more than BOOK_STREAM_TOKENS_MAX, NOT_FOUND for an unknown one) before anything is sent; then
 *   one snapshot per token, then the tokens' updates as the engine makes them durable.
 * - UserStream: L2 over the request bytes, checked once; one slot of the key's streams
 *   (GRPC_STREAMS_PER_KEY_MAX, shared with order-entry sessions); a snapshot (with a ResumeGap
 *   first when a resume could not be honoured) or the missed updates, then the live updates, and
 *   the changes of the key's order groups (not numbered: user-feed.ts). Revoking the key ends the
 *   stream (UNAUTHENTICATED, AUTH_UNKNOWN_KEY).
 * - A client that lets more than GRPC_STREAM_BACKLOG_MESSAGES_MAX messages wait is ended with
 *   SLOW_CONSUMER (RESOURCE_EXHAUSTED); `close()` ends every stream with NOT_READY (UNAVAILABLE).
 */
import { create } from '@bufbuild/protobuf'
import type { DescMethod } from '@bufbuild/protobuf'
import type { ServerWritableStream, UntypedServiceImplementation } from '@grpc/grpc-js'
import { ApiCode, PredexError } from '../../errors.js'
import { Side } from '../../gen/predex/v1/common_pb.js'
import {
  BookStreamResponseSchema, StreamService, UserStreamResponseSchema, type BookStreamResponse, type UserStreamResponse,
} from '../../gen/predex/v1/streams_pb.js'
import { GRPC_STREAM_BACKLOG_MESSAGES_MAX } from '../../limits.js'
import type { BookFeed, BookSnapshot, LevelsUpdate, TradePrint } from '../../service/feeds/book-feed.js'
import { orderAfter, type UserFeed, type UserSubscription, type UserUpdate } from '../../service/feeds/user-feed.js'
import { bookSummary } from '../format.js'
import { decimalOfMicros } from '../wire.js'
import { admit, decode, remoteAddressOf, type GrpcFace } from './call.js'
import { pathOf } from './definition.js'
import { bookMessage } from './market-messages.js'
import { orderGroupUpdateMessage, orderMessage, tradeMessage } from './messages.js'
import { asPredexError, statusOf } from './status.js'
import { StreamWriter } from './stream-writer.js'

const SIDES = { BUY: Side.BUY, SELL: Side.SELL } as const

type Call<M> = ServerWritableStream<Buffer, M>

export class Streams {
  private readonly books: BookFeed
  private readonly users: UserFeed
  private readonly writers = new Set<{ fail(error: PredexError): void }>()
  private closing = false
  // One update goes to every subscriber of its token or wallet in a row: it is turned into a message once.
  private lastBookUpdate: LevelsUpdate | TradePrint | null = null
  private lastBookMessage: BookStreamResponse | null = null
  private lastUserUpdate: UserUpdate | null = null
  private lastUserMessage: UserStreamResponse | null = null

  constructor(private readonly face: GrpcFace) {
    this.books = face.books
    this.users = face.users
  }

  implementation(): UntypedServiceImplementation {
    return {
      bookStream: (call: Call<BookStreamResponse>) => this.serve(call, StreamService.method.bookStream,
        () => this.bookStream(call)),
      userStream: (call: Call<UserStreamResponse>) => this.serve(call, StreamService.method.userStream,
        () => this.userStream(call)),
    }
  }

  /** Ends every stream (server shutdown). */
  close(): void {
    this.closing = true
    const error = new PredexError(ApiCode.NOT_READY, 'the server is shutting down')
    for (const writer of [...this.writers]) writer.fail(error)
  }

  /** Runs `start`; a refusal before the stream is open ends the call with its status (nothing else sent). */
  private serve<M>(call: Call<M>, method: DescMethod, start: () => void): void {
    try {
      if (this.closing) throw new PredexError(ApiCode.NOT_READY, 'the server is shutting down')
      start()
    } catch (error) {
      if (!(error instanceof PredexError)) {
        this.face.log.error('grpc: internal error', { method: pathOf(method), err: error })
      }
      call.emit('error', statusOf(asPredexError(error)))
    }
  }

  private bookStream(call: Call<BookStreamResponse>): void {
    const method = StreamService.method.bookStream
    admit(this.face, { metadata: call.metadata, peer: call.getPeer() }, method, call.request, 'none', null)
    const request = decode(method.input, call.request)
    const release = this.face.addressStreams.take(remoteAddressOf(call.getPeer()))
    let unsubscribe = (): void => undefined
    const writer = this.open(call, () => {
      release()
      unsubscribe()
    })
    this.starting(writer, method, () => {
      const subscription = this.books.subscribe(request.tokenIds,
        { update: (update) => {
          if (update.kind !== 'tick') writer.write(this.bookUpdateMessage(update))
        } })
      unsubscribe = subscription.unsubscribe
      for (const snapshot of subscription.snapshots) writer.write(this.snapshotMessage(snapshot))
    })
  }

  private userStream(call: Call<UserStreamResponse>): void {
    const method = StreamService.method.userStream
    const trader = admit(this.face, { metadata: call.metadata, peer: call.getPeer() }, method, call.request, 'l2',
      null)
    if (trader === null) throw new PredexError(ApiCode.INTERNAL, 'no trader after L2')
    const request = decode(method.input, call.request)
    const release = this.face.keyStreams.take(trader.apiKey)
    let unsubscribe = (): void => undefined
    const writer = this.open(call, () => {
      release()
      unsubscribe()
    })
    this.starting(writer, method, () => {
      const from = { fromSeq: Number(request.fromSeq), epoch: request.epoch }
      const subscription = this.users.subscribe(trader, from, {
        update: (update) => writer.write(this.userUpdateMessage(update)),
        end: (error) => writer.fail(error),
      })
      unsubscribe = subscription.unsubscribe
      for (const message of this.startMessages(subscription)) writer.write(message)
    })
  }

  /**
   * Subscribes and sends the start of an open stream; a refusal (an unknown token) ends it with
   * its status. No update can come before this returns: the feeds publish between batches.
   */
  private starting<M>(writer: StreamWriter<M>, method: DescMethod, start: () => void): void {
    try {
      start()
    } catch (error) {
      if (!(error instanceof PredexError)) {
        this.face.log.error('grpc: internal error', { method: pathOf(method), err: error })
      }
      writer.fail(asPredexError(error))
    }
  }

  private open<M>(call: Call<M>, onEnd: () => void): StreamWriter<M> {
    const writer: StreamWriter<M> = new StreamWriter<M>(call, GRPC_STREAM_BACKLOG_MESSAGES_MAX, () => {
      this.writers.delete(writer)
      onEnd()
    })
    this.writers.add(writer)
    return writer
  }

  private snapshotMessage(snapshot: BookSnapshot): BookStreamResponse {
    const summary = bookSummary(this.face.context.read, snapshot.book, this.face.context.nowMs())
    return create(BookStreamResponseSchema, { tokenId: snapshot.tokenId, seq: BigInt(snapshot.seq),
      engineSeq: BigInt(snapshot.engineSeq), update: { case: 'snapshot', value: bookMessage(summary) } })
  }

  private bookUpdateMessage(update: LevelsUpdate | TradePrint): BookStreamResponse {
    if (update === this.lastBookUpdate) return this.lastBookMessage!
    const numbers = { tokenId: update.tokenId, seq: BigInt(update.seq), engineSeq: BigInt(update.engineSeq) }
    const message = update.kind === 'levels'
      ? create(BookStreamResponseSchema, { ...numbers, update: { case: 'levels', value: {
        changes: update.changes.map((change) => ({ side: SIDES[change.side], price: decimalOfMicros(change.priceMicros),
          size: decimalOfMicros(change.sizeMicros) })) } } })
      : create(BookStreamResponseSchema, { ...numbers, update: { case: 'trade', value: {
        price: decimalOfMicros(update.priceMicros), size: decimalOfMicros(update.sizeMicros), side: SIDES[update.side],
        timeMs: BigInt(update.timeMs) } } })
    this.lastBookUpdate = update
    this.lastBookMessage = message
    return message
  }

  /** What a user stream starts with: a gap notice and a snapshot, or the missed updates. */
  private startMessages(subscription: UserSubscription): UserStreamResponse[] {
    const { start, epoch } = subscription
    if (start.kind === 'replay') return start.updates.map((update) => this.userUpdateMessage(update))
    if (start.kind === 'live') return [] // not asked by this face: a stream always gives a start point
    const numbers = { seq: BigInt(subscription.seq), epoch, engineSeq: BigInt(subscription.engineSeq) }
    const messages: UserStreamResponse[] = []
    if (start.gap !== null) {
      messages.push(create(UserStreamResponseSchema, { ...numbers, update: { case: 'gap',
        value: { oldestRetainedSeq: BigInt(start.gap.oldestRetainedSeq) } } }))
    }
    const orders = start.orders.map((order) => orderMessage(this.face.context, order))
    messages.push(create(UserStreamResponseSchema, { ...numbers, update: { case: 'snapshot', value: { orders } } }))
    return messages
  }

  private userUpdateMessage(update: UserUpdate): UserStreamResponse {
    if (update === this.lastUserUpdate) return this.lastUserMessage!
    const numbers = { seq: BigInt(update.seq), epoch: update.epoch, engineSeq: BigInt(update.engineSeq) }
    const context = this.face.context
    const message = update.kind === 'order'
      ? create(UserStreamResponseSchema, { ...numbers,
        update: { case: 'order', value: orderMessage(context, orderAfter(update)) } })
      : update.kind === 'trade'
        ? create(UserStreamResponseSchema, { ...numbers,
          update: { case: 'trade', value: tradeMessage(context, update.trade, update.address,
            update.settlement) } })
        : create(UserStreamResponseSchema, { ...numbers,
          update: { case: 'orderGroup', value: orderGroupUpdateMessage(update.change) } })
    this.lastUserUpdate = update
    this.lastUserMessage = message
    return message
  }
}
