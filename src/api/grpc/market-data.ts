/** gRPC MarketDataService: to be filled in. */
import type { UntypedServiceImplementation } from '@grpc/grpc-js'
import type { GrpcFace } from './call.js'

export function marketDataService(_face: GrpcFace): UntypedServiceImplementation {
  return {}
}
