/**
 * Bounds on the gRPC port's connections (issue 27, finding 8), against a real server: past
 * GRPC_CONNECTIONS_PER_ADDRESS_MAX a new connection from the address is closed at once, before
 * HTTP/2 starts, while other clients are still served; a client that resets calls past
 * GRPC_RESET_RULE has its connection closed; one that connects past GRPC_CONNECT_RULE is refused.
 * The total bound (GRPC_CONNECTIONS_MAX, over several addresses) is the abuse test's
 * (test/grpc/abuse.test.ts). Each test draws on 127.0.0.1's budgets: the connect budget's is last.
 *
 * A connection the server keeps gets its HTTP/2 SETTINGS at once; one it refuses is closed
 * without a byte.
 */
import t from 'tap'
import { connect as connectTcp, type Socket } from 'node:net'
import { connect as connectHttp2, constants as http2 } from 'node:http2'
import { GRPC_CONNECT_RULE, GRPC_CONNECTIONS_PER_ADDRESS_MAX, GRPC_RESET_RULE } from '../../src/limits.js'
import { startServer } from '../support/rest-harness.js'
import { TestClock } from '../support/clock.js'

// The port's budgets read the server's monotonic clock, which moves only when the test advances
// it: what the connect budget refuses does not depend on how fast the machine connects (750
// connections took 3.7 s in a CI run, refilling 185 of the 500, and too few were refused).
const server = await startServer({ clock: new TestClock() })
t.teardown(() => server.stop())
const port = server.predex.grpcPort

interface Outcome {
  readonly socket: Socket
  /** 'kept': the server's first bytes came; 'closed': the server closed it without a byte. */
  readonly outcome: Promise<'kept' | 'closed'>
}

function open(): Outcome {
  const socket = connectTcp({ host: '127.0.0.1', port })
  socket.on('error', () => undefined)
  const outcome = new Promise<'kept' | 'closed'>((resolve) => {
    socket.once('data', () => resolve('kept'))
    socket.once('close', () => resolve('closed'))
  })
  return { socket, outcome }
}

async function healthServed(): Promise<boolean> {
  const session = connectHttp2(`http://127.0.0.1:${port}`)
  session.on('error', () => undefined)
  try {
    const stream = session.request({ ':method': 'POST', ':path': '/grpc.health.v1.Health/Check',
      'content-type': 'application/grpc', te: 'trailers' })
    stream.on('error', () => undefined)
    stream.end(Buffer.from([0, 0, 0, 0, 0]))
    const trailers = await new Promise<Record<string, unknown>>((resolve) => {
      stream.on('trailers', resolve)
      stream.on('close', () => resolve({}))
    })
    return trailers['grpc-status'] === '0'
  } finally {
    session.destroy()
  }
}

t.test(`at most ${GRPC_CONNECTIONS_PER_ADDRESS_MAX} connections per address`, async (t) => {
  const extra = 40
  const connections = Array.from({ length: GRPC_CONNECTIONS_PER_ADDRESS_MAX + extra }, open)
  t.teardown(() => connections.forEach((c) => c.socket.destroy()))
  const outcomes = await Promise.all(connections.map((c) => c.outcome))
  const kept = outcomes.filter((o) => o === 'kept').length
  t.equal(kept, GRPC_CONNECTIONS_PER_ADDRESS_MAX, `${kept} kept, ${outcomes.length - kept} closed at once`)
  for (const c of connections) c.socket.destroy()
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.ok(await healthServed(), 'once they are gone, a new client is served')
})

t.test('a client that resets calls past its budget has its connection closed', async (t) => {
  const path = '/predex.v1.MarketDataService/ListMarkets'
  // nghttp2 closes a connection past about 1 000 resets itself: the budget is met over several
  // connections at once, faster than it refills.
  const perConnection = 500
  const connections = Math.ceil((GRPC_RESET_RULE.burst * 2.5) / perConnection)
  const resetOn = async (): Promise<boolean> => {
    const session = connectHttp2(`http://127.0.0.1:${port}`)
    session.on('error', () => undefined)
    let closed = false
    session.on('close', () => (closed = true))
    const ended: Promise<void>[] = []
    for (let i = 0; i < perConnection && !closed; i++) {
      const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc',
        te: 'trailers' })
      stream.on('error', () => undefined)
      ended.push(new Promise((resolve) => stream.on('close', resolve)))
      stream.close(http2.NGHTTP2_CANCEL)
    }
    await Promise.all(ended)
    // The server has read every reset once it answers a ping sent after them (or it closed the connection).
    if (!closed) {
      await new Promise<void>((resolve) => {
        session.once('close', resolve)
        session.ping(() => resolve())
      })
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
    session.destroy()
    return closed
  }
  const closed = (await Promise.all(Array.from({ length: connections }, resetOn))).filter((c) => c).length
  t.ok(closed >= 1, `${closed} of ${connections} connections closed by the server after ` +
    `${connections * perConnection} resets at once`)
  t.ok(await healthServed(), 'a new connection is served')
})

t.test('connections past the connect budget are refused', async (t) => {
  let refused = 0
  const attempts = GRPC_CONNECT_RULE.burst * 1.5
  for (let i = 0; i < attempts; i++) {
    const connection = open()
    if (await connection.outcome === 'closed') refused++
    connection.socket.destroy()
  }
  t.ok(refused >= GRPC_CONNECT_RULE.burst * 0.3, `${refused} of ${attempts} refused`)
})
