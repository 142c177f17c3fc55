/**
 * The gRPC face's /metrics, an observer of every call's start and end (call-end.ts: every service,
 * reflection and health included), so no handler counts for itself. Unary calls are timed from
 * their start to their status; streams are counted while open. The method label is the full
 * method path, one per method the server registered: bounded. The code label is the status the
 * client saw: a call the client reset is CANCELLED, whatever grpc-js's handler then tried to send.
 */
import { status as Status } from '@grpc/grpc-js'
import type { Metrics } from '../../metrics.js'
import type { CallObserver } from './call-end.js'

/** Status names by number (`status[2]` is 'UNKNOWN'): labels read as the gRPC spec names them. */
const CODE_NAMES: ReadonlyMap<number, string> = new Map(Object.entries(Status)
  .filter((entry): entry is [string, number] => typeof entry[1] === 'number')
  .map(([name, code]) => [code, name]))

export function callMeter(metrics: Metrics): CallObserver {
  return {
    started(path, streaming) {
      if (streaming) metrics.grpcStreamOpened(path)
    },
    ended({ path, streaming, code, seconds }) {
      const name = CODE_NAMES.get(code) ?? 'UNKNOWN'
      if (streaming) {
        metrics.grpcStreamClosed(path)
        metrics.observeGrpc(path, name, null)
      } else {
        metrics.observeGrpc(path, name, seconds)
      }
    },
  }
}
