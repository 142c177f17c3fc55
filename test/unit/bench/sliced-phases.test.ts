/**
 * A phase run in slices, in turns with another (bench:grpc's REST and unary placements: both
 * then meet the same disk), is reported as one: its answers, statuses and seconds added up
 * (http-load.ts mergedLoad), and its CPU time summed thread by thread (cpu-time.ts addCpu).
 */
import t from 'tap'
import { mergedLoad, resultOf } from '../../../bench/http-load.js'
import { addCpu } from '../../../bench/cpu-time.js'

t.test('slices of a load read as one load over their seconds', async (t) => {
  const first = resultOf([1, 2, 3], { 200: 3 }, 1)
  const second = resultOf([10, 4], { 200: 1, 429: 1 }, 0.5)
  const merged = mergedLoad([first, second])
  t.equal(merged.requests, 5)
  t.equal(merged.seconds, 1.5)
  t.equal(merged.perSecond, 5 / 1.5)
  t.same(merged.statuses, { 200: 4, 429: 1 })
  t.same([...merged.latenciesMs], [1, 2, 3, 4, 10], 'every latency, sorted')
  t.equal(merged.latencyMs.max, 10)
})

t.test('CPU of slices adds up by thread; a figure one slice lacks stays unknown', async (t) => {
  const a = { seconds: 1, serverMs: 800, threadsMs: { main: 300, engine: 100 }, generatorMs: 50 }
  const b = { seconds: 2, serverMs: 900, threadsMs: { main: 400, verify: 200 }, generatorMs: 70 }
  t.same(addCpu(a, b), { seconds: 3, serverMs: 1_700, threadsMs: { main: 700, engine: 100, verify: 200 },
    generatorMs: 120 })
  t.same(addCpu(a, { ...b, serverMs: null, threadsMs: null }), { seconds: 3, serverMs: null, threadsMs: null,
    generatorMs: 120 })
})
