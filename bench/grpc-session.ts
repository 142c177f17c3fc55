/**
 * An order-entry session for the gRPC benchmark, written against the proto (order_entry.proto)
 * with the SDK's transport only: requests go out as soon as they are made (pipelined, many in
 * flight, as a market maker sends them) and each answer settles the oldest request, since the
 * server answers in request order; an answer whose request id is not that request's stops the
 * run (the ordering guarantee is part of what is measured).
 */
import { create, type MessageInitShape } from '@bufbuild/protobuf'
import type { ClientDuplexStream } from '@grpc/grpc-js'
import type { GrpcTransport } from '../src/client/grpc/transport.js'
import { CancelOnDisconnect, OrderEntryService, SessionRequestSchema, type SessionRequest, type SessionResponse }
  from '../src/gen/predex/v1/order_entry_pb.js'
import type { Trader } from './predex-server.js'

/** What a request does: the `action` oneof of a SessionRequest. */
export type SessionAction = NonNullable<MessageInitShape<typeof SessionRequestSchema>['action']>

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
  /** The most requests the server lets a session have unanswered (its SessionOpened). */
  inFlightMax = 0

  private constructor(readonly trader: Trader,
    private readonly call: ClientDuplexStream<SessionRequest, SessionResponse>) {
    call.on('data', (response: SessionResponse) => this.answer(response))
    this.ended = new Promise((resolve) => {
      call.on('error', (error: Error) => { this.fail(error); resolve() })
      call.on('end', () => { this.fail(new Error('the session ended')); resolve() })
    })
  }

  /** Opens `trader`'s session (no cancel on disconnect: the benchmark closes cleanly). */
  static async open(transport: GrpcTransport, trader: Trader): Promise<BenchSession> {
    const call = transport.duplex(OrderEntryService.method.session,
      { credentials: trader.credentials, address: trader.address })
    const session = new BenchSession(trader, call)
    const opened = await session.send({ case: 'open',
      value: { cancelOnDisconnect: CancelOnDisconnect.UNSPECIFIED } })
    if (opened.result.case !== 'opened') throw new Error(`session not opened: ${JSON.stringify(opened.result)}`)
    session.inFlightMax = opened.result.value.inFlightMax
    return session
  }

  send(action: SessionAction): Promise<SessionResponse> {
    if (this.failure !== null) return Promise.reject(this.failure)
    const requestId = String(this.nextId++)
    return new Promise((resolve, reject) => {
      this.pending.push({ requestId, resolve, reject })
      this.call.write(create(SessionRequestSchema, { requestId, action }))
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

  private fail(error: Error): void {
    this.failure ??= error
    for (const pending of this.pending.splice(0)) pending.reject(error)
  }
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
