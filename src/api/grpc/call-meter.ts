/**
 * The gRPC face's /metrics: one server interceptor sees every call (every service, reflection
 * and health included) start and end, so no handler counts for itself. A call ends with the
 * status the server sends or, when the client goes first, with its cancellation (CANCELLED).
 * Unary calls are timed from their start to their status; streams are counted while open. The
 * method label is the full method path, one per method the server registered: bounded.
 */
import { ResponderBuilder, ServerInterceptingCall, ServerListenerBuilder, status as Status,
  type ServerInterceptor } from '@grpc/grpc-js'
import type { Metrics } from '../../metrics.js'

/** Status names by number (`status[2]` is 'UNKNOWN'): labels read as the gRPC spec names them. */
const CODE_NAMES: ReadonlyMap<number, string> = new Map(Object.entries(Status)
  .filter((entry): entry is [string, number] => typeof entry[1] === 'number')
  .map(([name, code]) => [code, name]))

export function callMeter(metrics: Metrics): ServerInterceptor {
  return (method, call) => {
    const streaming = method.requestStream || method.responseStream
    const started = performance.now()
    let ended = false
    const end = (code: number): void => {
      if (ended) return
      ended = true
      const name = CODE_NAMES.get(code) ?? 'UNKNOWN'
      if (streaming) {
        metrics.grpcStreamClosed(method.path)
        metrics.observeGrpc(method.path, name, null)
      } else {
        metrics.observeGrpc(method.path, name, (performance.now() - started) / 1000)
      }
    }
    if (streaming) metrics.grpcStreamOpened(method.path)
    const responder = new ResponderBuilder()
      .withStart((next) => next(new ServerListenerBuilder().withOnCancel(() => end(Status.CANCELLED)).build()))
      .withSendStatus((status, next) => {
        end(status.code)
        next(status)
      })
      .build()
    return new ServerInterceptingCall(call, responder)
  }
}
