/**
 * Each of a server's ports is its alone: another listener on either of them, a grpc-js server
 * with its defaults or a uWS app with its own, is refused, so no second exchange can be handed
 * part of their connections. This held already before issue 27 with these builds (uWS 20.30 and
 * Node's net set no SO_REUSEPORT unless asked; the test passes on the older code too): it stays
 * as a guard, since the REST face now asks uWS for an exclusive port explicitly
 * (LIBUS_LISTEN_EXCLUSIVE_PORT) and the gRPC face listens through its own node:net listener.
 */
import t from 'tap'
import { Server, ServerCredentials } from '@grpc/grpc-js'
import uWS from 'uWebSockets.js'
import { startServer } from '../support/rest-harness.js'

t.test('another listener is refused on the REST and on the gRPC port', async (t) => {
  const server = await startServer()
  t.teardown(() => server.stop())
  const grpcPort = server.predex.grpcPort
  const sharing = new Server()
  t.teardown(() => sharing.forceShutdown())
  const grpcError = await new Promise<Error | null>((resolve) =>
    sharing.bindAsync(`127.0.0.1:${grpcPort}`, ServerCredentials.createInsecure(), (error) => resolve(error)))
  t.ok(grpcError !== null, `a grpc-js server cannot bind the gRPC port ${grpcPort}`)

  const restPort = server.predex.port
  const app = uWS.App()
  const socket = await new Promise<unknown>((resolve) => app.listen('127.0.0.1', restPort, resolve))
  if (socket !== false) uWS.us_listen_socket_close(socket as uWS.us_listen_socket)
  t.equal(socket, false, `a uWS app cannot listen on the REST port ${restPort}`)
  const markets = await (await fetch(`${server.base}/markets`)).json() as { data: unknown[] }
  t.ok(Array.isArray(markets.data), 'the server still answers on its port')
})
