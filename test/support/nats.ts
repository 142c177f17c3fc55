/**
 * A NATS server with JetStream for a test (bench/nats-server.ts starts it: Debian's nats-server on
 * 127.0.0.1, a port it picks itself, its store in a temporary directory), stopped by the returned
 * `stop` or when the test ends. A missing nats-server fails the test that asks for one, with the
 * command that installs it (`.ci/run` installs it when missing): never a silent skip.
 */
import { startNatsServer, type NatsServer } from '../../bench/nats-server.js'

export { NATS_SERVER, type NatsServer } from '../../bench/nats-server.js'

/** `config`: lines of a nats-server configuration file (a test's own limits). */
export async function startNats(t: { teardown: (fn: () => Promise<void> | void) => void },
  config: readonly string[] = []): Promise<NatsServer> {
  const server = await startNatsServer(undefined, config)
  t.teardown(server.stop)
  return server
}
