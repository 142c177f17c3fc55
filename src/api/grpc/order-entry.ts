/**
 * gRPC OrderEntryService: one order-entry session per call (session-stream.ts), and their end
 * when the server stops. A call is authenticated once, when it opens (L2 over the full method
 * name and no request bytes), and takes one of its API key's stream slots
 * (GRPC_STREAMS_PER_KEY_MAX, shared with user streams); a refusal ends it at once with the
 * catalogue's status (UNAUTHENTICATED, RESOURCE_EXHAUSTED TOO_MANY_STREAMS...). A session whose
 * key is revoked ends at once (the service's KeyRevocations tells it).
 */
import type { UntypedServiceImplementation } from '@grpc/grpc-js'
import { PredexError, ServiceCode } from '../../errors.js'
import { OrderEntryService } from '../../gen/predex/v1/order_entry_pb.js'
import type { GrpcFace } from './call.js'
import { SessionStream, type SessionCall } from './session-stream.js'
import { asPredexError, statusOf } from './status.js'

export class OrderEntry {
  private readonly sessions = new Set<SessionStream>()
  private closing = false

  constructor(private readonly face: GrpcFace) {}

  implementation(): UntypedServiceImplementation {
    return { [OrderEntryService.method.session.localName]: (call: SessionCall) => this.open(call) }
  }

  /**
   * Ends every session (server shutdown, before the engine stops): those with cancel on
   * disconnect cancel their orders first (nobody can manage them while the server is down);
   * each then ends with UNAVAILABLE.
   */
  async close(): Promise<void> {
    this.closing = true
    await Promise.all([...this.sessions].map((session) => session.shutdown()))
  }

  private open(call: SessionCall): void {
    if (this.closing) {
      call.emit('error', statusOf(new PredexError(ServiceCode.ENGINE_UNAVAILABLE, 'the server is stopping')))
      return
    }
    try {
      let unwatch = (): void => undefined
      const session: SessionStream = SessionStream.open(this.face, call, () => {
        unwatch()
        this.sessions.delete(session)
      })
      this.sessions.add(session)
      unwatch = this.face.revocations.watch(session.apiKey, () => void session.revoked())
    } catch (error) {
      if (!(error instanceof PredexError)) this.face.log.error('order entry: internal error', { err: error })
      call.emit('error', statusOf(asPredexError(error)))
    }
  }
}
