/**
 * The benchmark's raw-socket unary client (bench/grpc-raw-unary.ts) against a grpc-js server: the
 * request and its headers reach the handler as sent, answers come back whole however many DATA
 * frames carry them, a refused call ends with no answer, and requests beyond the server's
 * connection window wait for its WINDOW_UPDATE instead of being lost or refused.
 */
import t, { type Test } from 'tap'
import { Server, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js'
import { RawUnaryChannel } from '../../../bench/grpc-raw-unary.js'
import { identity, servedClient } from '../../support/grpc-test-server.js'

async function connected(t: Test): Promise<RawUnaryChannel> {
  const server = new Server()
  server.register('/test.Echo/Unary', (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
    const text = call.request.toString()
    if (text === 'refuse') {
      callback({ code: status.INVALID_ARGUMENT, details: 'refused' })
      return
    }
    if (text.startsWith('big:')) {
      callback(null, Buffer.alloc(Number(text.slice(4)), 7))
      return
    }
    const signature = String(call.metadata.get('exchange-signature')[0] ?? '')
    callback(null, Buffer.concat([Buffer.from(`${signature}|`), call.request]))
  }, identity, identity, 'unary')
  return servedClient(t, server, (port) => RawUnaryChannel.open('127.0.0.1', port))
}

t.test('the request and its headers reach the server; the answer comes back whole', async (t) => {
  const channel = await connected(t)
  const { answer } = await channel.unary('/test.Echo/Unary', { 'exchange-signature': 'sig-1' }, Buffer.from('hello'))
  t.equal(answer?.toString(), 'sig-1|hello')
  const big = await channel.unary('/test.Echo/Unary', {}, Buffer.from('big:100000'))
  t.same(big.answer, Buffer.alloc(100_000, 7), 'an answer of many DATA frames, whole')
})

t.test('a refused call ends with no answer, and the connection goes on', async (t) => {
  const channel = await connected(t)
  t.equal((await channel.unary('/test.Echo/Unary', {}, Buffer.from('refuse'))).answer, null)
  t.equal((await channel.unary('/test.Echo/Unary', {}, Buffer.from('after'))).answer?.toString(), '|after')
})

t.test('calls beyond the server\'s connection window wait for it, and every answer is its own call\'s', async (t) => {
  const channel = await connected(t)
  // 400 calls of 10 kB at once: 4 MB against an initial window of 64 KiB.
  const requests = Array.from({ length: 400 }, (_, i) => Buffer.from(`${i}:`.padEnd(10_000, 'x')))
  const answers = await Promise.all(requests.map((request, i) =>
    channel.unary('/test.Echo/Unary', { 'exchange-signature': `s${i}` }, request)))
  let wrong = 0
  answers.forEach(({ answer }, i) => {
    if (answer?.toString() !== `s${i}|${requests[i]!.toString()}`) wrong++
  })
  t.equal(wrong, 0, 'each call got its own answer')
})
