/** gRPC TradingService: to be filled in (each method translates to src/service/trading.ts). */
import type { UntypedServiceImplementation } from '@grpc/grpc-js'
import type { GrpcFace } from './call.js'

export function tradingService(_face: GrpcFace): UntypedServiceImplementation {
  return {}
}
