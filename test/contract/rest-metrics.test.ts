/**
 * GET /metrics over loopback: REST's own (Prometheus text, its content type, series labelled by
 * HTTP route and status), so it stays out of the face-neutral cases (test/contract/cases/
 * health-markets.ts). Shapes are asserted line by line, with the series api.md lists.
 */
import t from 'tap'
import { get, l2, send, startServer } from '../rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())

// Seven markets and two status changes: the engine sequence counts at least these commands.
const markets = [await server.createMarket(), await server.createMarket(), await server.createMarket(),
  await server.createMarket({ status: 'Upcoming' }), await server.createMarket({ status: 'Upcoming' }),
  await server.createMarket(), await server.createMarket()]
await server.command({ kind: 'setMarketStatus', marketId: markets[5]!.marketId, status: 'Resolving' })
await server.command({ kind: 'resolveMarket', marketId: markets[6]!.marketId, outcome: 'No' })
const commandsMin = markets.length + 2

t.test('GET /metrics: Prometheus text format with the series api.md lists', async (t) => {
  // Requests on several routes, a 404 among them: the series to check.
  await get(server, '/health')
  await get(server, '/ready')
  await get(server, '/markets')
  await get(server, '/markets/nope')
  const trader = await server.trader()
  t.equal((await l2(server, trader, 'DELETE', '/cancel-all')).status, 200, 'a command through the API')
  const metrics = await send(server, 'GET', '/metrics', '', {})
  t.equal(metrics.status, 200)
  t.match(metrics.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const text = metrics.body as string
  t.equal(typeof text, 'string')
  t.ok(text.endsWith('\n'), 'ends with a newline')
  const types = new Map<string, string>()
  const samples: { name: string; labels: Record<string, string>; value: number }[] = []
  for (const line of text.split('\n').slice(0, -1)) {
    if (line.startsWith('# HELP ')) {
      t.match(line, /^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* \S/, 'HELP line')
      continue
    }
    if (line.startsWith('# TYPE ')) {
      const match = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line)
      t.ok(match, `TYPE line: ${line}`)
      if (match) types.set(match[1]!, match[2]!)
      continue
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? (-?[0-9.e+]+|\+Inf|NaN)$/
      .exec(line)
    t.ok(match, `sample line: ${line}`)
    if (!match) continue
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)]
      .map((m) => [m[1]!, m[2]!]))
    samples.push({ name: match[1]!, labels, value: Number(match[3]) })
  }
  const family = (name: string): string | undefined => types.get(name) ?? types.get(name.replace(/_(bucket|sum|count)$/, ''))
  for (const sample of samples) t.ok(family(sample.name) !== undefined, `${sample.name} has a TYPE`)

  // Request rates by route and status.
  t.equal(types.get('predex_http_requests_total'), 'counter')
  const listed = samples.find((s) => s.name === 'predex_http_requests_total' && s.labels.route === 'GET /markets' && s.labels.status === '200')
  t.ok(listed !== undefined && listed.value >= 1, 'GET /markets counted')
  const notFound = samples.find((s) => s.name === 'predex_http_requests_total' && s.labels.status === '404')
  t.ok(notFound !== undefined && notFound.value >= 1, 'the 404 counted')
  // Latencies: a histogram whose buckets grow and end at the count.
  t.equal(types.get('predex_http_request_duration_ms'), 'histogram')
  const buckets = samples.filter((s) => s.name === 'predex_http_request_duration_ms_bucket' && s.labels.route === 'GET /markets')
  t.ok(buckets.length >= 2)
  for (let i = 1; i < buckets.length; i++) t.ok(buckets[i]!.value >= buckets[i - 1]!.value, 'cumulative buckets')
  t.equal(buckets.at(-1)!.labels.le, '+Inf')
  const count = samples.find((s) => s.name === 'predex_http_request_duration_ms_count' && s.labels.route === 'GET /markets')
  t.equal(buckets.at(-1)!.value, count?.value)
  // Engine queue depth, commands, journal commit latency, signature pool queue.
  const seq = samples.find((s) => s.name === 'predex_engine_seq')
  t.ok(seq !== undefined && seq.value >= commandsMin, 'engine sequence')
  t.equal(types.get('predex_engine_commands_total'), 'counter', 'commands as a counter (commands/s = rate)')
  t.ok(samples.some((s) => s.name === 'predex_engine_pending_requests'), 'engine queue depth')
  t.equal(types.get('predex_journal_commit_latency_ms'), 'histogram', 'journal commit latency')
  const commits = samples.find((s) => s.name === 'predex_journal_commit_latency_ms_count')
  t.ok(commits !== undefined && commits.value >= 1, 'the cancel-all was observed')
  const commands = samples.find((s) => s.name === 'predex_engine_commands_total')
  t.equal(commands?.value, server.predex.context.read.seq, 'commands applied: the engine sequence')
  t.ok(samples.some((s) => s.name === 'predex_signature_queue'), 'signature pool queue')
})
