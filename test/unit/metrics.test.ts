/**
 * The metrics' own tallies (src/metrics.ts) answer a scrape exactly as prom-client's Histogram
 * and Counter would have, given the same observations: the same bucket counts (a value on a bound
 * counts in that bucket), sums and counts, per label set; a call observed without a duration (a
 * stream) is counted and not timed. Seeded values; set METRICS_SEED to replay (printed).
 */
import t from 'tap'
import { Counter, Histogram, Registry } from 'prom-client'
import { Metrics } from '../../src/metrics.js'
import { Random } from '../../src/stdx/random.js'
import { seedOf } from '../support/seed.js'

const seed = seedOf('METRICS_SEED')
t.comment(`METRICS_SEED=${seed}`)
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

/** The lines of `text` that belong to series `prefix`, sorted (the two registries may order label sets apart). */
function linesOf(text: string, prefix: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(prefix)).sort()
}

t.test('HTTP and gRPC series match prom-client fed the same observations', async (t) => {
  const random = new Random(seed)
  const metrics = new Metrics()
  const oracle = new Registry()
  const labelNames = ['method', 'code']
  const calls = new Counter({ name: 'predex_grpc_calls_total', help: 'x', labelNames, registers: [oracle] })
  const durations = new Histogram({ name: 'predex_grpc_call_duration_seconds', help: 'x', labelNames,
    buckets: BUCKETS, registers: [oracle] })
  for (let i = 0; i < 5_000; i++) {
    const method = random.pick(['/a.A/Place', '/a.A/Cancel', '/a.A/Session'])
    const code = random.pick(['OK', 'UNAVAILABLE'])
    // Values on the bounds, between them, and beyond the last.
    const seconds = method === '/a.A/Session' ? null
      : random.chance(0.3) ? random.pick(BUCKETS) : random.int(0, 7_000_000) / 1_000_000
    metrics.observeGrpc(method, code, seconds)
    calls.inc({ method, code })
    if (seconds !== null) durations.observe({ method, code }, seconds)
  }
  const [ours, theirs] = [await metrics.text(), await oracle.metrics()]
  for (const prefix of ['predex_grpc_calls_total{', 'predex_grpc_call_duration_seconds_']) {
    const expected = linesOf(theirs, prefix)
    t.ok(expected.length > 0, `${prefix}: prom-client has series`)
    t.same(linesOf(ours, prefix), expected, `${prefix}: the same lines (METRICS_SEED=${seed})`)
  }
  t.notOk(ours.includes('predex_grpc_call_duration_seconds_count{method="/a.A/Session"'), 'a stream is not timed')
})

t.test('the engine acknowledgement histogram has its buckets before any observation, and counts after', async (t) => {
  const metrics = new Metrics()
  t.match(await metrics.text(), /^predex_engine_command_duration_seconds_count 0$/m)
  metrics.observeEngineAck(0.001)
  metrics.observeEngineAck(0.003)
  const text = await metrics.text()
  t.match(text, /^predex_engine_command_duration_seconds_bucket\{le="0\.001"\} 1$/m, 'a value on a bound is in it')
  t.match(text, /^predex_engine_command_duration_seconds_bucket\{le="0\.005"\} 2$/m)
  t.match(text, /^predex_engine_command_duration_seconds_count 2$/m)
  t.match(text, /^predex_engine_command_duration_seconds_sum 0\.004$/m)
})
