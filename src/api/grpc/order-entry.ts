/** gRPC OrderEntryService (the order-entry session): to be filled in. */
import type { UntypedServiceImplementation } from '@grpc/grpc-js'
import type { GrpcFace } from './call.js'

export class OrderEntry {
  constructor(private readonly face: GrpcFace) {}

  implementation(): UntypedServiceImplementation {
    void this.face
    return {}
  }

  /** Ends every session (server shutdown). */
  async close(): Promise<void> {}
}
