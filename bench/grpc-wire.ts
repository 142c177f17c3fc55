/**
 * A lean gRPC client for the benchmark's order-entry sessions, on node:http2: to grpc-js's client
 * what REST's generator (http-load.ts: raw sockets, requests pre-rendered as bytes) is to an HTTP
 * client. Messages go out framed as given and come back framed and whole; the caller decodes
 * them. (Unary calls have their own, on raw sockets: grpc-raw-unary.ts.)
 *
 * Why the benchmark has its own: the load shares the server's 2 cores, and grpc-js's client spent
 * 0.32-0.37 ms of CPU per unary call (bench:grpc's CPU table, 2026-12-01) against 0.06 ms per
 * request for REST's generator, so the unary figure measured the client about as much as the
 * server, and REST's figure beside it did not. The server sees the same bytes either way: the
 * same HTTP/2 frames, headers and gRPC messages, each call signed (L2) over its own bytes.
 *
 * gRPC over HTTP/2 (grpc/doc/PROTOCOL-HTTP2.md): a POST with content-type application/grpc and
 * `te: trailers`; each message a 5-byte prefix (compressed flag 0, big-endian length) and the
 * bytes; the status in the trailers, or in the headers of a trailers-only answer.
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders }
  from 'node:http2'
import { l2Signature } from '../src/crypto/hmac.js'
import type { GrpcSigner } from '../src/client/grpc/transport.js'

/** A message's prefix: compressed flag, then its length (big-endian, 4 bytes). */
export const PREFIX_BYTES = 5

/** How a call ended: the gRPC status code and, for a refusal, the catalogue code Predex sent in `predex-code`. */
export interface WireStatus {
  readonly grpcStatus: number
  readonly code: string
  readonly message: string
}

/** The L2 headers of one call: the HMAC over timestamp + the full method name + the request's bytes (api.md). */
export function l2Headers(signer: GrpcSigner, path: string, requestBytes: Uint8Array,
  timestampSec: number = Math.floor(Date.now() / 1000)): Record<string, string> {
  const { credentials, address } = signer
  return {
    'exchange-address': address,
    'exchange-signature': l2Signature(credentials.secret, String(timestampSec), '', path, requestBytes),
    'exchange-timestamp': String(timestampSec),
    'exchange-api-key': credentials.apiKey,
    'exchange-passphrase': credentials.passphrase,
  }
}

/** One message in its gRPC frame. */
export function framed(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(PREFIX_BYTES + message.length)
  frame[0] = 0
  frame.writeUInt32BE(message.length, 1)
  frame.set(message, PREFIX_BYTES)
  return frame
}

/** Cuts a stream of DATA chunks into whole messages, however the chunks split them. */
class MessageReader {
  private pending: Buffer | null = null

  constructor(private readonly onMessage: (message: Buffer) => void) {}

  push(chunk: Buffer): void {
    let bytes = this.pending === null ? chunk : Buffer.concat([this.pending, chunk])
    this.pending = null
    while (bytes.length >= PREFIX_BYTES) {
      if (bytes[0] !== 0) throw new Error('a compressed gRPC message: the benchmark asks for none')
      const end = PREFIX_BYTES + bytes.readUInt32BE(1)
      if (bytes.length < end) break
      this.onMessage(bytes.subarray(PREFIX_BYTES, end))
      bytes = bytes.subarray(end)
    }
    if (bytes.length > 0) this.pending = Buffer.from(bytes)
  }
}

function statusOf(headers: IncomingHttpHeaders): WireStatus | null {
  const status = headers['grpc-status']
  if (status === undefined) return null
  const text = (name: string): string => {
    const value = headers[name]
    return Array.isArray(value) ? value.join(',') : value ?? ''
  }
  return { grpcStatus: Number(text('grpc-status')), code: text('predex-code'), message: decodeURIComponent(text('grpc-message')) }
}

/** A bidirectional call: messages written as they come, each answer handed over whole, then the status. */
export class WireDuplex {
  private status: WireStatus | null = null

  constructor(private readonly stream: ClientHttp2Stream, onMessage: (message: Buffer) => void,
    onEnd: (status: WireStatus) => void) {
    const reader = new MessageReader(onMessage)
    stream.on('response', (headers) => { this.status ??= statusOf(headers) })
    stream.on('trailers', (headers) => { this.status ??= statusOf(headers) })
    stream.on('data', (chunk: Buffer) => reader.push(chunk))
    stream.on('error', (error: Error) => {
      this.status ??= { grpcStatus: -1, code: '', message: error.message }
    })
    stream.on('close', () => onEnd(this.status ?? { grpcStatus: -1, code: '',
      message: `the stream closed without a status (HTTP/2 code ${stream.rstCode ?? 'none'})` }))
  }

  /** Sends one message (its bytes, unframed). */
  write(message: Uint8Array): void {
    this.stream.write(framed(message))
  }

  /** Sends one message already in its frame (`PREFIX_BYTES` of prefix, then the message). */
  writeFramed(frame: Buffer): void {
    this.stream.write(frame)
  }

  /** Half-closes: no more requests. */
  end(): void {
    this.stream.end()
  }

  /** Cancels the call (RST_STREAM CANCEL). */
  cancel(): void {
    this.stream.close(constants.NGHTTP2_CANCEL)
  }
}

/** One HTTP/2 connection to a gRPC server. */
export class WireChannel {
  private constructor(private readonly session: ClientHttp2Session) {}

  /** Connects to `authority` ("127.0.0.1:9090"), insecure (loopback). */
  static open(authority: string): Promise<WireChannel> {
    const session = connect(`http://${authority}`)
    return new Promise((resolve, reject) => {
      session.once('connect', () => {
        session.off('error', reject)
        // An error after the connection is every open call's: each one's stream reports it.
        session.on('error', () => undefined)
        resolve(new WireChannel(session))
      })
      session.once('error', reject)
    })
  }

  /** A bidirectional call. */
  duplex(path: string, headers: Readonly<Record<string, string>>, onMessage: (message: Buffer) => void,
    onEnd: (status: WireStatus) => void): WireDuplex {
    return new WireDuplex(this.request(path, headers), onMessage, onEnd)
  }

  close(): void {
    this.session.close()
  }

  private request(path: string, headers: Readonly<Record<string, string>>): ClientHttp2Stream {
    return this.session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc',
      te: 'trailers', ...headers })
  }
}
