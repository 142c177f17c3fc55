/**
 * The benchmark's lean gRPC client for sessions (bench/grpc-wire.ts) against a grpc-js server:
 * what it sends is what the server reads, what it reads is what the server sent, messages whole
 * however big, and a refusal's status and catalogue code as the server set them.
 */
import t, { type Test } from 'tap'
import { Metadata, Server, status, type ServerDuplexStream } from '@grpc/grpc-js'
import { WireChannel, type WireStatus } from '../../../bench/grpc-wire.js'
import { identity, servedClient } from '../../support/grpc-test-server.js'

/** The test server and a channel to it, both closed when the test ends. */
function connected(t: Test): Promise<WireChannel> {
  const server = new Server()
  server.register('/test.Echo/Refuse', (call: ServerDuplexStream<Buffer, Buffer>) => {
    const metadata = new Metadata()
    metadata.set('predex-code', 'INVALID_ORDER_NOT_ENOUGH_BALANCE')
    call.emit('error', { code: status.INVALID_ARGUMENT, details: 'not enough balance', metadata })
  }, identity, identity, 'bidi')
  server.register('/test.Echo/Signed', (call: ServerDuplexStream<Buffer, Buffer>) => {
    const signature = String(call.metadata.get('exchange-signature')[0] ?? '')
    call.on('data', (message: Buffer) => call.write(Buffer.concat([Buffer.from(`${signature}|`), message])))
    call.on('end', () => call.end())
  }, identity, identity, 'bidi')
  server.register('/test.Echo/Both', (call: ServerDuplexStream<Buffer, Buffer>) => {
    call.on('data', (message: Buffer) => call.write(Buffer.concat([Buffer.from('re:'), message])))
    call.on('end', () => call.end())
  }, identity, identity, 'bidi')
  return servedClient(t, server, (port) => WireChannel.open(`127.0.0.1:${port}`))
}

t.test('duplex: headers reach the server, a message past one DATA frame comes back whole', async (t) => {
  const channel = await connected(t)
  const big = Buffer.alloc(100_000, 7)
  const answers: Buffer[] = []
  const ended = new Promise<number>((resolve) => {
    const call = channel.duplex('/test.Echo/Signed', { 'exchange-signature': 'sig' }, (message) => answers.push(message),
      (end) => resolve(end.grpcStatus))
    call.write(big)
    call.end()
  })
  t.equal(await ended, status.OK)
  t.same(answers, [Buffer.concat([Buffer.from('sig|'), big])])
})

t.test('duplex: a refusal\'s status and catalogue code come back as the server set them', async (t) => {
  const channel = await connected(t)
  const ended = new Promise<WireStatus>((resolve) => {
    const call = channel.duplex('/test.Echo/Refuse', {}, () => undefined, resolve)
    call.end()
  })
  t.same(await ended, { grpcStatus: status.INVALID_ARGUMENT, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE',
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
