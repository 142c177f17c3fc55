/**
 * The gRPC transport of the SDK: a grpc-js channel to Predex, unary calls and streams on the
 * generated schemas (src/gen), and L2 authentication in metadata. The HMAC covers timestamp + the
 * full method name + the request bytes (api.md): the transport serializes a request once, signs
 * those bytes and sends exactly them. A failed call rejects with a `GrpcCallError` that carries
 * the catalogue code (the `predex-code` trailer) and its context (google.rpc.ErrorInfo).
 */
import { create, fromBinary, toBinary, type DescMessage, type DescMethod, type MessageInitShape, type MessageShape }
  from '@bufbuild/protobuf'
import { anyUnpack } from '@bufbuild/protobuf/wkt'
import {
  Client, credentials as channelCredentials, Metadata, type CallOptions, type ChannelOptions, type ClientDuplexStream,
  type ClientReadableStream, type ServiceError,
} from '@grpc/grpc-js'
import { l2Signature } from '../../crypto/hmac.js'
import { ErrorInfoSchema, RetryInfoSchema } from '../../gen/google/rpc/error_details_pb.js'
import { StatusSchema } from '../../gen/google/rpc/status_pb.js'
import type { ApiCredentials } from '../../api/shapes/credential.js'

/** An API key and the wallet it belongs to: what signs a call. */
export interface GrpcSigner {
  readonly credentials: ApiCredentials
  /** The key's wallet address. */
  readonly address: string
}

/** "/predex.v1.TradingService/PlaceOrder". */
export function fullMethodName(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`
}

/** The L2 metadata of one call (EXCHANGE-* names, lower case as gRPC requires). */
export function l2Metadata(signer: GrpcSigner, method: DescMethod, requestBytes: Uint8Array,
  timestampSec: number = Math.floor(Date.now() / 1000)): Metadata {
  const metadata = new Metadata()
  const { credentials, address } = signer
  metadata.set('exchange-address', address)
  metadata.set('exchange-signature',
    l2Signature(credentials.secret, String(timestampSec), '', fullMethodName(method), requestBytes))
  metadata.set('exchange-timestamp', String(timestampSec))
  metadata.set('exchange-api-key', credentials.apiKey)
  metadata.set('exchange-passphrase', credentials.passphrase)
  return metadata
}

/** A failed call: the gRPC status, and the catalogue's code, context and retry delay when the server sent them. */
export class GrpcCallError extends Error {
  override readonly name = 'GrpcCallError'
  constructor(
    /** The gRPC status code (grpc-js `status`). */
    readonly grpcCode: number,
    message: string,
    /** The catalogue code ("INVALID_ORDER_NOT_ENOUGH_BALANCE"), "" if the server sent none. */
    readonly code: string,
    /** The error's context fields, decoded from JSON. */
    readonly context: Readonly<Record<string, unknown>>,
    readonly retryAfterMs: number | null,
    /** The call's trailers (a spent budget's `x-ratelimit-*` among them), when it had any. */
    readonly trailers: Metadata | null = null,
  ) {
    super(message)
  }

  /** The REST error body of the same error: `{error, code, ...context}`. */
  body(): Record<string, unknown> {
    return { error: this.message, code: this.code, ...this.context }
  }
}

/**
 * The catalogue error inside a grpc-js ServiceError (or a plain one for transport failures); a
 * stream's final StatusObject (its 'status' event) has the same fields and reads the same way.
 */
export function callErrorOf(error: Pick<ServiceError, 'code' | 'details' | 'metadata'>): GrpcCallError {
  const code = String(error.metadata?.get('predex-code')[0] ?? '')
  const context: Record<string, unknown> = {}
  let retryAfterMs: number | null = null
  const details = error.metadata?.get('grpc-status-details-bin')[0]
  if (details instanceof Buffer) {
    for (const detail of fromBinary(StatusSchema, details).details) {
      const info = anyUnpack(detail, ErrorInfoSchema)
      if (info !== undefined) for (const [key, value] of Object.entries(info.metadata)) context[key] = JSON.parse(value)
      const retry = anyUnpack(detail, RetryInfoSchema)
      if (retry?.retryDelay !== undefined) {
        retryAfterMs = Number(retry.retryDelay.seconds) * 1000 + Math.floor(retry.retryDelay.nanos / 1e6)
      }
    }
  }
  return new GrpcCallError(error.code, error.details, code, context, retryAfterMs, error.metadata ?? null)
}

/** A channel to one Predex gRPC address ("127.0.0.1:9090"). */
export class GrpcTransport {
  readonly client: Client

  constructor(target: string, options: ChannelOptions = {}) {
    this.client = new Client(target, channelCredentials.createInsecure(), options)
  }

  close(): void {
    this.client.close()
  }

  /** A unary call; `signer`: L2 (null for a public method). */
  async unary<I extends DescMessage, O extends DescMessage>(method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>, signer: GrpcSigner | null, options: CallOptions = {}): Promise<MessageShape<O>> {
    return (await this.unaryWithTrailers(method, request, signer, options)).answer
  }

  /**
   * A unary call and its trailers: among them the method's budget, `x-ratelimit-limit`,
   * `x-ratelimit-remaining` and `x-ratelimit-reset` (docs/grpc.md, "Rate limits").
   */
  unaryWithTrailers<I extends DescMessage, O extends DescMessage>(method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>, signer: GrpcSigner | null, options: CallOptions = {}):
    Promise<{ readonly answer: MessageShape<O>; readonly trailers: Metadata }> {
    const bytes = toBinary(method.input, create(method.input, request))
    const metadata = signer === null ? new Metadata() : l2Metadata(signer, method, bytes)
    return new Promise((resolve, reject) => {
      let answered: MessageShape<O> | null = null
      const call = this.client.makeUnaryRequest(fullMethodName(method), (b: Uint8Array) => Buffer.from(b),
        (b: Buffer) => fromBinary(method.output, b), bytes, metadata, options, (error, answer) => {
          if (error) reject(callErrorOf(error))
          else answered = answer!
        })
      // The status (with the trailers) comes after the answer's callback.
      call.on('status', (status) => {
        if (answered !== null) resolve({ answer: answered, trailers: status.metadata })
      })
    })
  }

  /** A server stream (signed over the request's bytes when `signer` is given). */
  serverStream<I extends DescMessage, O extends DescMessage>(method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>, signer: GrpcSigner | null, options: CallOptions = {}):
    ClientReadableStream<MessageShape<O>> {
    const bytes = toBinary(method.input, create(method.input, request))
    const metadata = signer === null ? new Metadata() : l2Metadata(signer, method, bytes)
    return this.client.makeServerStreamRequest(fullMethodName(method), (b: Uint8Array) => Buffer.from(b),
      (b: Buffer) => fromBinary(method.output, b), bytes, metadata, options)
  }

  /** A bidirectional stream, signed at open over no request bytes. */
  duplex<I extends DescMessage, O extends DescMessage>(method: DescMethod & { input: I; output: O },
    signer: GrpcSigner, options: CallOptions = {}): ClientDuplexStream<MessageShape<I>, MessageShape<O>> {
    const metadata = l2Metadata(signer, method, new Uint8Array(0))
    return this.client.makeBidiStreamRequest(fullMethodName(method),
      (m: MessageShape<I>) => Buffer.from(toBinary(method.input, m)), (b: Buffer) => fromBinary(method.output, b),
      metadata, options)
  }
}
