/**
 * One server interceptor that sees every call (every service, reflection and health included)
 * start and end, and tells its observers (the metrics, the connection guard's reset budget).
 *
 * A call ends when its HTTP/2 stream closes: with the status the server sent, or CANCELLED when
 * the client reset the stream (RST_STREAM with an error code) or went away before a status was
 * sent. grpc-js hands an interceptor every status a handler sends, also one the client never
 * waited for: a reset from Node's client arrives as an empty half-close followed by the
 * RST_STREAM, and grpc-js's unary handler answers the half-close with "no request message"
 * (UNIMPLEMENTED) just before the reset lands; such calls were counted UNIMPLEMENTED (issue 27).
 * So the code is decided when the stream closes, by its `rstCode`. grpc-js 1.14 gives the only
 * interceptor its base call, which keeps the stream in `stream`; without one (another grpc-js),
 * the status sent or the cancellation decides, as before. The stream's session is also how an
 * observer closes a call's connection: Node's HTTP/2 owns the socket once the session is made,
 * and destroying the socket itself does not close it.
 */
import { constants as http2, type Http2Stream } from 'node:http2'
import { Duplex } from 'node:stream'
import { ResponderBuilder, ServerInterceptingCall, ServerListenerBuilder, status as Status,
  type ServerInterceptingCallInterface, type ServerInterceptor } from '@grpc/grpc-js'

/** How a call ended. */
export interface CallEnd {
  /** The full method path ("/pkg.Service/Method"). */
  readonly path: string
  readonly streaming: boolean
  /** The status code the client saw (CANCELLED when it went first). */
  readonly code: number
  /** From the call's start to its end. */
  readonly seconds: number
  /** The client's address and port (undefined when grpc-js could not read them). */
  readonly remoteAddress: string | undefined
  readonly remotePort: number | undefined
  /** Closes the connection the call came on (nothing when grpc-js did not show it). */
  readonly closeConnection: () => void
}

export interface CallObserver {
  started(path: string, streaming: boolean): void
  ended(end: CallEnd): void
}

export function callEnds(observers: readonly CallObserver[]): ServerInterceptor {
  return (method, call) => {
    const streaming = method.requestStream || method.responseStream
    const started = performance.now()
    const { remoteAddress, remotePort } = call.getConnectionInfo()
    let ended = false
    let sent: number | null = null
    const stream = streamOf(call)
    // Taken now: a closed stream has no session any more.
    const session = stream?.session
    const closeConnection = (): void => void session?.destroy()
    const end = (code: number): void => {
      if (ended) return
      ended = true
      const callEnd = { path: method.path, streaming, code, seconds: (performance.now() - started) / 1000,
        remoteAddress, remotePort, closeConnection }
      for (const observer of observers) observer.ended(callEnd)
    }
    for (const observer of observers) observer.started(method.path, streaming)
    if (stream !== null) {
      stream.once('close', () => end(stream.rstCode !== http2.NGHTTP2_NO_ERROR ? Status.CANCELLED
        : sent ?? Status.CANCELLED))
    }
    const responder = new ResponderBuilder()
      .withStart((next) => next(new ServerListenerBuilder().withOnCancel(() => {
        if (stream === null) end(Status.CANCELLED)
      }).build()))
      .withSendStatus((status, next) => {
        sent ??= status.code
        if (stream === null) end(status.code)
        next(status)
      })
      .build()
    return new ServerInterceptingCall(call, responder)
  }
}

/** The call's HTTP/2 stream, when grpc-js's base call shows it (it keeps it in `stream`). */
function streamOf(call: ServerInterceptingCallInterface): Http2Stream | null {
  const stream: unknown = Reflect.get(call, 'stream')
  return stream instanceof Duplex && 'rstCode' in stream && 'session' in stream ? stream as Http2Stream : null
}
