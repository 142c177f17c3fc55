/** gRPC AccountService: to be filled in. */
import type { UntypedServiceImplementation } from '@grpc/grpc-js'
import type { GrpcFace } from './call.js'

export function accountService(_face: GrpcFace): UntypedServiceImplementation {
  return {}
}
