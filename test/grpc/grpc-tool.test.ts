/**
 * `npm run grpc` (scripts/grpc.ts), the fallback for grpcurl, as a child process against a real
 * server (the build when it is fresh, else the sources): `list` over reflection finds the address
 * in GRPC_PORT as the server does, `describe` shows a service's methods, `call` turns JSON into a
 * request and the answer into JSON, a misspelt method gets the close names, and an address with
 * nobody behind it fails naming that address.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { freshCompiled, ROOT } from '../support/compiled.js'
import { startServer } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())
const market = await server.createMarket()
const addr = `127.0.0.1:${server.predex.grpcPort}`

const compiled = freshCompiled('scripts/grpc.js', ['src', 'scripts'])
// Else the sources through the tests' loader (the child's working directory is the repository's).
const entry = compiled !== null ? [compiled]
  : ['--import', './scripts/ts-loader.mjs', join(ROOT, 'scripts/grpc.ts')]

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

function grpc(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...entry, ...args], { cwd: ROOT, timeout: 30_000,
      env: { ...process.env, GRPC_PORT: '', ...env } },
    (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? -1), stdout, stderr }))
  })
}

// All at once (each run costs a process start): four reflection streams, what the server allows a
// client address (GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX), and one run that reaches nobody.
const [listed, described, called, misspelt, unreachable] = await Promise.all([
  grpc(['list'], { GRPC_PORT: String(server.predex.grpcPort) }),
  grpc(['--addr', addr, 'describe', 'predex.v1.MarketDataService']),
  grpc(['--addr', addr, 'call', 'predex.v1.MarketDataService/ListMarkets', '{"page": {"limit": 10}}']),
  grpc(['--addr', addr, 'call', 'predex.v1.MarketDataService/ListMarket']),
  // Port 1 (tcpmux): nothing listens there, and only root could.
  grpc(['--addr', '127.0.0.1:1', 'list']),
])

t.test('list: the services, at 127.0.0.1:$GRPC_PORT without --addr', async (t) => {
  t.equal(listed.code, 0, listed.stderr)
  const names = listed.stdout.trim().split('\n')
  for (const name of ['predex.v1.MarketDataService', 'predex.v1.TradingService', 'grpc.health.v1.Health']) {
    t.ok(names.includes(name), `lists ${name}`)
  }
})

t.test('describe: a service with its methods and their types', async (t) => {
  t.equal(described.code, 0, described.stderr)
  t.match(described.stdout, 'predex.v1.MarketDataService is a service:')
  t.match(described.stdout,
    'rpc ListMarkets ( .predex.v1.ListMarketsRequest ) returns ( .predex.v1.ListMarketsResponse );')
})

t.test('call: a JSON request, the answer as JSON', async (t) => {
  t.equal(called.code, 0, called.stderr)
  const answer = JSON.parse(called.stdout)
  t.equal(answer.count, 1)
  t.equal(answer.data[0].conditionId, market.conditionId, 'the market the server has')
  t.equal(answer.data[0].yesTokenId, market.yesTokenId)
})

t.test('errors: a misspelt method gets the close ones; an unreachable address is named', async (t) => {
  t.equal(misspelt.code, 1)
  t.match(misspelt.stderr, 'predex.v1.MarketDataService has no method "ListMarket"; close: ListMarkets')
  t.equal(unreachable.code, 1)
  t.match(unreachable.stderr, 'cannot reach the gRPC server at 127.0.0.1:1')
  t.match(unreachable.stderr, 'GRPC_PORT', 'and says how to point it elsewhere')
})
