/** gRPC StreamService (book and user streams): to be filled in. */
import type { UntypedServiceImplementation } from '@grpc/grpc-js'
import type { GrpcFace } from './call.js'

export class Streams {
  constructor(private readonly face: GrpcFace) {}

  implementation(): UntypedServiceImplementation {
    void this.face
    return {}
  }

  /** Ends every stream (server shutdown). */
  close(): void {}
}
