/** Liveness and readiness of the exchange, for every face. */
import { ApiCode, PredexError } from '../errors.js'
import type { ServiceContext } from './context.js'

export interface Health {
  readonly version: string
  /** The engine's sequence number as the read model has it (the last durable command). */
  readonly seq: number
  /** Commands submitted and not yet answered: they are acknowledged only once journaled. */
  readonly journalLag: number
  readonly uptimeSec: number
  readonly pendingRequests: number
  readonly ringBytesUsed: number
  readonly ringBytes: number
}

export function healthOf(context: ServiceContext): Health {
  const load = context.host.load
  return { version: context.version, seq: context.read.seq, journalLag: load.pendingRequests,
    uptimeSec: Math.floor((context.nowMs() - context.startedMs) / 1000), ...load }
}

/** The last durable seq while the engine takes commands; NOT_READY (with the reason) when it does not. */
export function readySeq(context: ServiceContext): number {
  const reason = context.host.unavailableReason
  if (reason !== null) throw new PredexError(ApiCode.NOT_READY, `not ready: ${reason}`)
  return context.read.seq
}
