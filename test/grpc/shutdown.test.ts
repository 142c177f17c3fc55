/**
 * The gRPC face's stop is bounded by GRPC_SHUTDOWN_GRACE_MS whatever its clients do. Found when
 * the live fuzz (test/fuzz/grpc-live.test.ts) hung in its teardown under load: one of its raw
 * connections never closed its side, and Node's HTTP/2 graceful close waits for the peer's close
 * with no time limit (the server socket sat in FIN-WAIT-2); grpc-js's forceShutdown cannot reach a
 * session whose graceful close has already begun, so the server's stop waited forever.
 */
import t from 'tap'
import { connect as connectTcp } from 'node:net'
import { GRPC_SHUTDOWN_GRACE_MS } from '../../src/limits.js'
import { startServer } from '../support/rest-harness.js'

/** The HTTP/2 client preface and an empty SETTINGS frame: all a client must send to open a connection. */
const PREFACE = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])])
const STOP_MS_MAX = GRPC_SHUTDOWN_GRACE_MS + 10_000

t.test('a client that never closes its connection does not hold the stop past the grace', async (t) => {
  const server = await startServer()
  const socket = connectTcp({ host: '127.0.0.1', port: server.predex.grpcPort })
  t.teardown(() => socket.destroy())
  socket.on('error', () => undefined)
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  socket.write(PREFACE)
  await new Promise((resolve) => socket.once('data', resolve)) // the server's SETTINGS: the connection is open
  socket.pause() // from now on it reads nothing and never closes its side, as a stuck or hostile client
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  const startedMs = Date.now()
  let timer: NodeJS.Timeout | undefined
  const outcome = await Promise.race([
    server.stop().then(() => 'stopped'),
    new Promise((resolve) => { timer = setTimeout(() => resolve('still stopping'), STOP_MS_MAX) }),
  ])
  clearTimeout(timer)
  t.equal(outcome, 'stopped', `the stop ends within ${STOP_MS_MAX} ms`)
  t.ok(Date.now() - startedMs < STOP_MS_MAX, `it took ${Date.now() - startedMs} ms`)
  socket.resume() // now it reads, so it sees the server's end of the connection
  await closed
  t.pass('the server closed the connection')
})
