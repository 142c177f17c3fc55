/**
 * An order-entry session for the gRPC benchmark, written against the proto (order_entry.proto)
 * on the benchmark's lean client (grpc-wire.ts): requests go out as soon as they are made
 * (pipelined, many in flight, as a market maker sends them) and each answer settles the oldest
 * request, since the server answers in request order; an answer whose request id is not that
 * request's stops the run (the ordering guarantee is part of what is measured).
 *
 * A timed phase sends requests rendered before it (`renderAction`), as REST's generator does:
 * only the request id is written as each goes (a SessionRequest's fields may come in any order,
 * and a message is the concatenation of its fields, so the id's field goes before the rendered
 * action's). Every answer is decoded whole.
 */
import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf'
import { CancelOnDisconnect, OrderEntryService, SessionRequestSchema, SessionResponseSchema, type SessionResponse }
  from '../src/gen/predex/v1/order_entry_pb.js'
import { fullMethodName } from '../src/client/grpc/transport.js'
import { l2Headers, PREFIX_BYTES, type WireChannel, type WireDuplex, type WireStatus } from './grpc-wire.js'
import type { Trader } from './predex-server.js'

/** What a request does: the `action` oneof of a SessionRequest. */
export type SessionAction = NonNullable<MessageInitShape<typeof SessionRequestSchema>['action']>

/** A SessionRequest's action, encoded (a SessionRequest without its request id). */
export type RenderedAction = Uint8Array

const SESSION_PATH = fullMethodName(OrderEntryService.method.session)
/** SessionRequest.request_id: field 1, length-delimited. */
const REQUEST_ID_TAG = (1 << 3) | 2

/** Renders an action before a phase: what `sendRendered` sends. */
export function renderAction(action: SessionAction): RenderedAction {
  return toBinary(SessionRequestSchema, create(SessionRequestSchema, { action }))
}

interface Pending {
  readonly requestId: string
  readonly resolve: (response: SessionResponse) => void
  readonly reject: (error: Error) => void
}

export class BenchSession {
  private readonly pending: Pending[] = []
  private nextId = 0
  private failure: Error | null = null
  private readonly ended: Promise<void>
  private endedNow: () => void = () => undefined
  private readonly call: WireDuplex
  /** The most requests the server lets a session have unanswered (its SessionOpened). */
  inFlightMax = 0

  private constructor(readonly trader: Trader, channel: WireChannel) {
    this.ended = new Promise((resolve) => { this.endedNow = resolve })
    this.call = channel.duplex(SESSION_PATH, l2Headers(trader, SESSION_PATH, new Uint8Array(0)),
      (message) => this.answer(fromBinary(SessionResponseSchema, message)), (status) => this.closed(status))
  }

  /** Opens `trader`'s session (no cancel on disconnect: the benchmark closes cleanly). */
  static async open(channel: WireChannel, trader: Trader): Promise<BenchSession> {
    const session = new BenchSession(trader, channel)
    const opened = await session.send({ case: 'open',
      value: { cancelOnDisconnect: CancelOnDisconnect.UNSPECIFIED } })
    if (opened.result.case !== 'opened') throw new Error(`session not opened: ${JSON.stringify(opened.result)}`)
    session.inFlightMax = opened.result.value.inFlightMax
    return session
  }

  /** Sends a request built now (outside the timed phases). */
  send(action: SessionAction): Promise<SessionResponse> {
    return this.sendRendered(renderAction(action))
  }

  /** Sends a request rendered before (renderAction), with the session's next request id. */
  sendRendered(action: RenderedAction): Promise<SessionResponse> {
    if (this.failure !== null) return Promise.reject(this.failure)
    const requestId = String(this.nextId++)
    return new Promise((resolve, reject) => {
      this.pending.push({ requestId, resolve, reject })
      this.call.writeFramed(framedWithRequestId(requestId, action))
    })
  }

  /** A clean close: answered `closed`, then the server ends the stream. */
  async close(): Promise<void> {
    if (this.failure === null) await this.send({ case: 'close', value: {} }).catch(() => undefined)
    this.call.end()
    await this.ended
  }

  private answer(response: SessionResponse): void {
    const pending = this.pending.shift()
    if (pending === undefined || pending.requestId !== response.requestId) {
      this.fail(new Error(`answer ${response.requestId} out of order (expected ${pending?.requestId ?? 'none'})`))
      this.call.cancel()
      return
    }
    pending.resolve(response)
  }

  private closed(status: WireStatus): void {
    this.fail(new Error(status.grpcStatus === 0 ? 'the session ended'
      : `the session ended: gRPC status ${status.grpcStatus} ${status.code} ${status.message}`))
    this.endedNow()
  }

  private fail(error: Error): void {
    this.failure ??= error
    for (const pending of this.pending.splice(0)) pending.reject(error)
  }
}

/**
 * The request in its gRPC frame: the request id's field (an ASCII decimal, so its length fits the
 * one-byte varint), then the rendered action.
 */
function framedWithRequestId(requestId: string, action: RenderedAction): Buffer {
  const messageBytes = 2 + requestId.length + action.length
  const frame = Buffer.allocUnsafe(PREFIX_BYTES + messageBytes)
  frame[0] = 0
  frame.writeUInt32BE(messageBytes, 1)
  frame[PREFIX_BYTES] = REQUEST_ID_TAG
  frame[PREFIX_BYTES + 1] = requestId.length
  frame.write(requestId, PREFIX_BYTES + 2, 'latin1')
  frame.set(action, PREFIX_BYTES + 2 + requestId.length)
  return frame
}

/** An answer's outcome for the statuses of a figure: the order's status, or the refusal's code. */
export function outcomeOf(response: SessionResponse): string {
  const result = response.result
  switch (result.case) {
    case 'order': return result.value.error?.code ?? result.value.status
    case 'canceled': return result.value.canceled.length > 0 ? 'canceled' : 'not canceled'
    case 'amended': return 'amended'
    case 'quoted': {
      const levels = result.value.levels
      const count = (outcome: string): number => levels.filter((level) => level.outcome.case === outcome).length
      const refused = levels.filter((level) => level.outcome.case === 'placement' &&
        level.outcome.value.result.case === 'refused').length
      return `kept ${count('kept')} new ${count('placement') - refused} refused ${refused}`
    }
    case 'error': return result.value.code
    default: return result.case ?? 'empty'
  }
}
