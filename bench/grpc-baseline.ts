/**
 * gRPC's floor for the gRPC benchmark, in its own process: grpc-js serving
 * `/predex.v1.TradingService/PlaceOrder` with one constant answer (a live placement), the request
 * read by no one. The load generator calls it exactly as it calls Predex (the SDK's transport: the
 * request built and encoded, its L2 headers signed, the answer decoded), so what is left between
 * the two is Predex's own work per call, as uWS's constant JSON is for REST. Prints `port <n>` once
 * listening on 127.0.0.1 (port chosen by the OS); stops on SIGTERM.
 *
 *   node dist/bench/grpc-baseline.js
 */
import { create, toBinary } from '@bufbuild/protobuf'
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js'
import { PlaceOrderResponseSchema, TradingService } from '../src/gen/predex/v1/trading_pb.js'

/** What Predex answers a resting order, about as many bytes. */
const ANSWER = Buffer.from(toBinary(PlaceOrderResponseSchema, create(PlaceOrderResponseSchema, {
  placement: { orderId: '0x' + 'ab'.repeat(32), status: 'live', makingAmount: '', takingAmount: '', fee: '0',
    engineSeq: 123_456n },
})))

const server = new Server()
const identity = (bytes: Buffer): Buffer => bytes
server.register(`/${TradingService.typeName}/${TradingService.method.placeOrder.name}`,
  (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, ANSWER),
  identity, identity, 'unary')
server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
  if (error !== null) throw error
  console.log(`port ${port}`)
})
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)))
