/**
 * grpc-js's Server, with the listening socket ours: `bindAsync` listens with node:net (an
 * exclusive port, as Node 20 always binds) and hands each accepted connection to the connection
 * guard (connection-guard.ts) before grpc-js sees it, through grpc-js's public connection
 * injector (`createConnectionInjector`, the same HTTP/2 server and session handling as its own
 * listeners: keepalive, idle and age limits). grpc-js offers no hook on its own listeners'
 * connections. Stopping closes the listeners first, so no connection comes in while calls end.
 *
 * A forced stop also destroys every connection still open: Node's HTTP/2 graceful close ends
 * our side and then waits for the client to close its own, with no time limit, and grpc-js's
 * forceShutdown cannot reach a session whose graceful close has begun; so a client that never
 * closes (stuck, or hostile) would hold the server's stop forever (test/grpc/shutdown.test.ts).
 *
 * Each connection's header list is bounded (GRPC_METADATA_BYTES_MAX): HTTP/2 header values of 64
 * bytes or more stay in glibc's heap until V8 collects the strings that lend them, and what a
 * flood of them reaches the heap keeps.
 */
import type { ServerOptions as Http2ServerOptions } from 'node:http2'
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net'
import { Server, type ServerCredentials, type ServerOptions } from '@grpc/grpc-js'
import type { ConnectionGuard } from './connection-guard.js'

export class GuardedServer extends Server {
  private readonly listeners = new Set<NetServer>()
  /** Every admitted connection until it closes: what a forced stop destroys (at most GRPC_CONNECTIONS_MAX). */
  private readonly sockets = new Set<Socket>()

  /** `metadataBytesMax`: a call's header list, past which HTTP/2 resets the stream. */
  constructor(options: ServerOptions, private readonly guard: ConnectionGuard, metadataBytesMax: number) {
    super(options)
    this.boundHeaderList(metadataBytesMax)
  }

  /**
   * grpc-js 1.14.7 has no server option for the metadata's size, and its connection injector
   * builds the HTTP/2 server from the `commonServerOptions` its constructor filled, so the bound
   * goes there. Should an upgrade rename that field, the server refuses to start rather than run
   * without the bound (test/grpc/server.test.ts checks a call past it).
   */
  private boundHeaderList(metadataBytesMax: number): void {
    const common = (this as unknown as { commonServerOptions?: Http2ServerOptions }).commonServerOptions
    if (common === undefined) throw new Error('grpc-js moved its HTTP/2 options: no place for the metadata bound')
    common.settings = { ...common.settings, maxHeaderListSize: metadataBytesMax }
  }

  /** Listens on `port` ("host:port" or "[v6]:port"; port 0: a free one); calls back with the bound port. */
  override bindAsync(port: string, credentials: ServerCredentials,
    callback: (error: Error | null, port: number) => void): void {
    const address = /^\[?([^\]]*?)\]?:(\d+)$/.exec(port)
    if (address === null) return callback(new Error(`not a host and port: ${port}`), 0)
    const injector = this.createConnectionInjector(credentials)
    const listener = createServer((socket) => {
      if (!this.guard.admit(socket)) return
      this.sockets.add(socket)
      socket.once('close', () => this.sockets.delete(socket))
      injector.injectConnection(socket)
    })
    listener.once('error', (error) => {
      injector.destroy()
      callback(error, 0)
    })
    listener.listen({ host: address[1], port: Number(address[2]), exclusive: true }, () => {
      listener.removeAllListeners('error')
      listener.on('error', () => undefined) // accept errors (EMFILE...) are the kernel's; the listener goes on
      this.listeners.add(listener)
      callback(null, (listener.address() as AddressInfo).port)
    })
  }

  override tryShutdown(callback: (error?: Error) => void): void {
    this.closeListeners()
    super.tryShutdown(callback)
  }

  override forceShutdown(): void {
    this.closeListeners()
    super.forceShutdown()
    for (const socket of this.sockets) socket.destroy()
    this.sockets.clear()
  }

  private closeListeners(): void {
    for (const listener of this.listeners) listener.close()
    this.listeners.clear()
  }
}
