/**
 * gRPC's floor for the gRPC benchmark, in its own process: grpc-js serving
 * `/predex.v1.TradingService/PlaceOrder` with one constant answer (a live placement), the request
 * read by no one, and `/predex.v1.OrderEntryService/Session` answering each request at once with
 * a constant of its kind (opened, closed, or an order's live ack), only its request id read. The
 * load generator calls it exactly as it calls Predex (the same client: the request's bytes, its
 * L2 headers signed, the answer decoded), so what is left between the two is Predex's own work per
 * call or message, as uWS's constant JSON is for REST. Prints `port <n>` once listening on
 * 127.0.0.1 (port chosen by the OS); stops on SIGTERM.
 *
 *   node dist/bench/grpc-baseline.js
 */
import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf'
import { Server, ServerCredentials, type sendUnaryData, type ServerDuplexStream, type ServerUnaryCall }
  from '@grpc/grpc-js'
import { OrderEntryService, SessionResponseSchema } from '../src/gen/predex/v1/order_entry_pb.js'
import { PlaceOrderResponseSchema, TradingService } from '../src/gen/predex/v1/trading_pb.js'

/** What Predex answers a resting order, about as many bytes. */
const ANSWER = Buffer.from(toBinary(PlaceOrderResponseSchema, create(PlaceOrderResponseSchema, {
  placement: { orderId: '0x' + 'ab'.repeat(32), status: 'live', makingAmount: '', takingAmount: '', fee: '0',
    engineSeq: 123_456n },
})))

type SessionResult = MessageInitShape<typeof SessionResponseSchema>['result']

/** A session answer without its request id (a message is its fields, so the id's field is put in front). */
function sessionAnswer(result: SessionResult): Buffer {
  return Buffer.from(toBinary(SessionResponseSchema, create(SessionResponseSchema, { engineSeq: 123_456n, result })))
}

/** What the session answers, by the action's field number in SessionRequest (open 2, close 11; any other an order). */
const OPENED = sessionAnswer({ case: 'opened', value: { inFlightMax: 256 } })
const CLOSED = sessionAnswer({ case: 'closed', value: {} })
const ORDER_ACK = sessionAnswer({ case: 'order', value: { orderId: '0x' + 'ab'.repeat(32), status: 'live', fee: '0' } })
const ACTION_OPEN = 2
const ACTION_CLOSE = 11

/** A session request's request id field's length (field 1, which the benchmark's client writes first) and its action. */
function partsOf(request: Buffer): { readonly idBytes: number; readonly action: number } {
  const idBytes = request[0] === 0x0a ? 2 + request[1]! : 0
  return { idBytes, action: (request[idBytes] ?? 0) >> 3 }
}

/** Answers each request with its request id and the constant of its action's kind; ends the stream after a close. */
function session(call: ServerDuplexStream<Buffer, Buffer>): void {
  call.on('data', (request: Buffer) => {
    const { idBytes, action } = partsOf(request)
    const constant = action === ACTION_OPEN ? OPENED : action === ACTION_CLOSE ? CLOSED : ORDER_ACK
    call.write(Buffer.concat([request.subarray(0, idBytes), constant]))
    if (action === ACTION_CLOSE) call.end()
  })
  call.on('end', () => call.end())
}

const server = new Server()
const identity = (bytes: Buffer): Buffer => bytes
server.register(`/${TradingService.typeName}/${TradingService.method.placeOrder.name}`,
  (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, ANSWER),
  identity, identity, 'unary')
server.register(`/${OrderEntryService.typeName}/${OrderEntryService.method.session.name}`, session, identity, identity,
  'bidi')
server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
  if (error !== null) throw error
  console.log(`port ${port}`)
})
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)))
