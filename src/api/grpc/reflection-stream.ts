/**
 * One reflection stream (grpc.reflection ServerReflectionInfo): each request is answered in
 * order through a bounded writer (stream-writer.ts), after three checks, each ending the stream
 * with its status when it fails:
 *
 * - its size: at most GRPC_REFLECTION_REQUEST_BYTES_MAX (BODY_TOO_LARGE, RESOURCE_EXHAUSTED): an
 *   answer echoes its request, so the request's size is the answer's;
 * - the client address's request budget, GRPC_REFLECTION_RULE (RATE_LIMITED, RESOURCE_EXHAUSTED,
 *   with the wait);
 * - that it is a ServerReflectionRequest (BAD_REQUEST, INVALID_ARGUMENT).
 *
 * More than GRPC_REFLECTION_BACKLOG_ANSWERS_MAX answers waiting for a client that does not read:
 * SLOW_CONSUMER (RESOURCE_EXHAUSTED). Once ended, the stream reads nothing more; a half-close ends
 * it OK after the answers so far.
 */
import type { ServerDuplexStream } from '@grpc/grpc-js'
import type { ServerReflectionRequest }
  from '@grpc/reflection/build/src/generated/grpc/reflection/v1/ServerReflectionRequest.js'
import type { ServerReflectionResponse }
  from '@grpc/reflection/build/src/generated/grpc/reflection/v1/ServerReflectionResponse.js'
import { ApiCode, PredexError } from '../../errors.js'
import { GRPC_REFLECTION_BACKLOG_ANSWERS_MAX, GRPC_REFLECTION_REQUEST_BYTES_MAX, GRPC_REFLECTION_RULE }
  from '../../limits.js'
import { asPredexError } from './status.js'
import { StreamWriter } from './stream-writer.js'

/** A client address's budget of reflection requests. */
export interface ReflectionBudget {
  /** Takes one request of `address`: null when allowed, else the seconds to wait. */
  take(address: string): number | null
}

export interface ReflectionStreamOptions {
  readonly address: string
  readonly budget: ReflectionBudget
  /** The request's bytes as the message; throws when they are not one. */
  readonly decode: (bytes: Buffer) => ServerReflectionRequest
  readonly answer: (request: ServerReflectionRequest) => ServerReflectionResponse
}

export class ReflectionStream {
  private readonly writer: StreamWriter<ServerReflectionResponse>
  private readonly onData = (bytes: Buffer): void => this.read(bytes)
  private readonly onHalfClose = (): void => this.writer.end()

  constructor(private readonly call: ServerDuplexStream<Buffer, ServerReflectionResponse>,
    private readonly options: ReflectionStreamOptions) {
    this.writer = new StreamWriter(call, GRPC_REFLECTION_BACKLOG_ANSWERS_MAX, () => this.stopReading())
    call.on('data', this.onData)
    call.on('end', this.onHalfClose)
  }

  /** Ends the stream with `error`'s status (the server stops). */
  fail(error: PredexError): void {
    this.writer.fail(error)
  }

  private read(bytes: Buffer): void {
    if (this.writer.isEnded) return
    try {
      this.writer.write(this.answerOf(bytes))
    } catch (error) {
      this.writer.fail(asPredexError(error))
    }
  }

  private answerOf(bytes: Buffer): ServerReflectionResponse {
    if (bytes.length > GRPC_REFLECTION_REQUEST_BYTES_MAX) {
      throw new PredexError(ApiCode.BODY_TOO_LARGE,
        `a reflection request is at most ${GRPC_REFLECTION_REQUEST_BYTES_MAX} bytes`,
        { bytesMax: GRPC_REFLECTION_REQUEST_BYTES_MAX })
    }
    const waitSeconds = this.options.budget.take(this.options.address)
    if (waitSeconds !== null) {
      throw new PredexError(ApiCode.RATE_LIMITED, 'too many reflection requests from this address', {
        retryAfterSeconds: waitSeconds, limit: GRPC_REFLECTION_RULE.burst,
        windowSeconds: GRPC_REFLECTION_RULE.burstWindowMs / 1000 })
    }
    return this.options.answer(this.decode(bytes))
  }

  private decode(bytes: Buffer): ServerReflectionRequest {
    try {
      return this.options.decode(bytes)
    } catch (error) {
      throw new PredexError(ApiCode.BAD_REQUEST,
        'the request is not a valid grpc.reflection ServerReflectionRequest: ' +
        (error instanceof Error ? error.message : String(error)))
    }
  }

  private stopReading(): void {
    this.call.off('data', this.onData)
    this.call.off('end', this.onHalfClose)
  }
}
