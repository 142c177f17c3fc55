/**
 * The benchmark's lean gRPC client (bench/grpc-wire.ts) against a grpc-js server: what it sends is
 * what the server reads, what it reads is what the server sent, messages whole however big, and
 * a refusal's status and catalogue code as the server set them.
 */
import t, { type Test } from 'tap'
import { Metadata, Server, ServerCredentials, status, type sendUnaryData, type ServerDuplexStream,
  type ServerUnaryCall } from '@grpc/grpc-js'
import { WireChannel } from '../../../bench/grpc-wire.js'

const identity = (bytes: Buffer): Buffer => bytes

async function startServer(): Promise<{ server: Server; port: number }> {
  const server = new Server()
  server.register('/test.Echo/Unary', (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
    if (call.request.toString() === 'refuse') {
      const metadata = new Metadata()
      metadata.set('predex-code', 'INVALID_ORDER_NOT_ENOUGH_BALANCE')
      callback({ code: status.INVALID_ARGUMENT, details: 'not enough balance', metadata })
      return
    }
    const signature = String(call.metadata.get('exchange-signature')[0] ?? '')
    callback(null, Buffer.concat([Buffer.from(`${signature}|`), call.request]))
  }, identity, identity, 'unary')
  server.register('/test.Echo/Both', (call: ServerDuplexStream<Buffer, Buffer>) => {
    call.on('data', (message: Buffer) => call.write(Buffer.concat([Buffer.from('re:'), message])))
    call.on('end', () => call.end())
  }, identity, identity, 'bidi')
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0',
    ServerCredentials.createInsecure(), (error, bound) => (error === null ? resolve(bound) : reject(error))))
  return { server, port }
}

/** The test server and a channel to it, both closed when the test ends. */
async function connected(t: Test): Promise<WireChannel> {
  const { server, port } = await startServer()
  const channel = await WireChannel.open(`127.0.0.1:${port}`)
  t.teardown(() => {
    channel.close()
    server.forceShutdown()
  })
  return channel
}

t.test('unary: the request and its headers reach the server, the answer and the status come back', async (t) => {
  const channel = await connected(t)
  const big = Buffer.alloc(100_000, 7)
  const answer = await channel.unary('/test.Echo/Unary', { 'exchange-signature': 'sig' }, big)
  t.equal(answer.status.grpcStatus, status.OK)
  t.same(answer.answer, Buffer.concat([Buffer.from('sig|'), big]), 'a message past one DATA frame, whole')
  const refused = await channel.unary('/test.Echo/Unary', {}, Buffer.from('refuse'))
  t.equal(refused.answer, null)
  t.same(refused.status, { grpcStatus: status.INVALID_ARGUMENT, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE',
    message: 'not enough balance' })
})

t.test('duplex: answers in order, each whole, then the status after a half-close', async (t) => {
  const channel = await connected(t)
  const answers: string[] = []
  const ended = new Promise<number>((resolve) => {
    const call = channel.duplex('/test.Echo/Both', {}, (message) => answers.push(message.toString()),
      (end) => resolve(end.grpcStatus))
    for (let i = 0; i < 200; i++) call.write(Buffer.from(`m${i}`.padEnd(i * 50, '.')))
    call.end()
  })
  t.equal(await ended, status.OK)
  t.same(answers, Array.from({ length: 200 }, (_, i) => `re:${`m${i}`.padEnd(i * 50, '.')}`))
})
