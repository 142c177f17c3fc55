/**
 * A client process for order-entry-disconnect.test.ts: it opens a session with cancel on
 * disconnect, places the orders it is given, prints `placed <order id>` for each and then
 * `ready`, and waits to be killed (SIGKILL: no close, no goodbye, the way a crash ends a client).
 *
 * argv: <target> <signer as JSON> <cancel on disconnect value> <order request, base64 protobuf>...
 */
import { fromBinary } from '@bufbuild/protobuf'
import { GrpcTransport, type GrpcSigner } from '../../src/client/grpc/transport.js'
import { OrderRequestSchema } from '../../src/gen/predex/v1/trading_pb.js'
import { TestSession } from './order-entry-support.js'

const [target, signerJson, scope, ...orders] = process.argv.slice(2)
const transport = new GrpcTransport(target!)
const session = new TestSession(transport, JSON.parse(signerJson!) as GrpcSigner)
const opened = await session.open(Number(scope))
if (opened.result.case !== 'opened') throw new Error(`open answered ${opened.result.case}`)
for (const order of orders) {
  const response = await session.ask({ case: 'place', value: fromBinary(OrderRequestSchema, Buffer.from(order, 'base64')) })
  if (response.result.case !== 'order' || response.result.value.status !== 'live') {
    throw new Error(`place answered ${JSON.stringify(response.result)}`)
  }
  process.stdout.write(`placed ${response.result.value.orderId}\n`)
}
process.stdout.write('ready\n')
// Keeps the process (and its session) alive until the test kills it.
setInterval(() => undefined, 60_000)
