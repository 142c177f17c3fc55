/**
 * A grpc-js server for the benchmark clients' tests (test/unit/bench): the caller registers its
 * handlers (raw bytes in and out), this binds it on a free loopback port, opens the client, and
 * closes both when the test ends.
 */
import type { Test } from 'tap'
import { Server, ServerCredentials } from '@grpc/grpc-js'

/** The handlers' serializer and deserializer: messages stay bytes. */
export const identity = (bytes: Buffer): Buffer => bytes

export async function servedClient<C extends { close(): void }>(t: Test, server: Server,
  open: (port: number) => Promise<C>): Promise<C> {
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0',
    ServerCredentials.createInsecure(), (error, bound) => (error === null ? resolve(bound) : reject(error))))
  const client = await open(port)
  t.teardown(() => {
    client.close()
    server.forceShutdown()
  })
  return client
}
