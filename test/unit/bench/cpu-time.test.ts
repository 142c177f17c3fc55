/**
 * bench/cpu-time.ts: what a phase spent, from /proc for the server process, from the server's
 * /metrics by thread, and this process's own (the load generator), per request. Run here with
 * this process as the "server" and a /metrics that answers what the test sets.
 */
import t, { type Test } from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CPU_TABLE_HEAD, CpuMeter, cpuRow, perRequest, reachablePerSecond } from '../../../bench/cpu-time.js'

/** Spins until this process has spent `ms` more CPU time by its own count (process.cpuUsage). */
function spin(ms: number): number {
  const start = process.cpuUsage()
  let sink = 0
  while (process.cpuUsage(start).user / 1000 < ms) sink += Math.sqrt(sink + 1)
  return sink
}

/** A /metrics whose predex_thread_cpu_seconds_total the test sets; stopped at the test's end. */
async function fakeMetrics(t: Test): Promise<{ url: string; set(threads: Record<string, number>): void }> {
  let body = ''
  const server = createServer((_request, response) => response.end(body))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`,
    set(threads) {
      body = '# TYPE predex_thread_cpu_seconds_total counter\n' + Object.entries(threads)
        .map(([thread, seconds]) => `predex_thread_cpu_seconds_total{thread="${thread}"} ${seconds}`).join('\n') + '\n'
    },
  }
}

t.test('a phase: the process\'s CPU from /proc, the threads\' from /metrics, the generator\'s own', {
  skip: process.platform === 'linux' ? false : '/proc is Linux only',
}, async (t) => {
  const metrics = await fakeMetrics(t)
  metrics.set({ main: 1, engine: 2, other: 0.5 })
  const meter = new CpuMeter(process.pid, metrics.url)
  const { result, cpu } = await meter.phase(async () => {
    const done = spin(300) > 0 ? 'done' : 'not run'
    metrics.set({ main: 1.25, engine: 2.5, other: 0.5 })
    return done
  })
  t.equal(result, 'done', 'the work\'s result comes back')
  // /proc counts 10 ms ticks: allow two, and whatever else the process ran meanwhile.
  t.ok(cpu.serverMs !== null && cpu.serverMs >= 280, `the process: ${cpu.serverMs} ms`)
  t.ok(cpu.generatorMs >= 300, `process.cpuUsage's own count: ${cpu.generatorMs} ms`)
  t.same(cpu.threadsMs, { main: 250, engine: 500, other: 0 }, 'each thread\'s growth, in ms')
})

t.test('no /metrics answer: no figures by thread, the rest still measured', async (t) => {
  const meter = new CpuMeter(process.pid, 'http://127.0.0.1:1/metrics')
  const { cpu } = await meter.phase(async () => spin(20))
  t.equal(cpu.threadsMs, null)
  t.ok(cpu.generatorMs >= 20)
})

t.test('per request: the phase\'s CPU over its requests, and the cores\' busy share', async (t) => {
  const cpu = { seconds: 2, serverMs: 2_000, threadsMs: { main: 500, verify: 1_000, other: 500 }, generatorMs: 1_000 }
  const per = perRequest(cpu, 1_000, 2)
  t.same(per, { server_ms: 2, threads_ms: { main: 0.5, verify: 1, other: 0.5 }, generator_ms: 1, machine_busy_pct: 75 })
  t.same(perRequest({ ...cpu, serverMs: null, threadsMs: null }, 1_000, 2),
    { server_ms: null, threads_ms: null, generator_ms: 1, machine_busy_pct: null }, 'no /proc: no server figures')
  t.same(perRequest(undefined, 10, 2), { server_ms: null, threads_ms: null, generator_ms: 0, machine_busy_pct: null },
    'a phase not metered')
  t.equal(perRequest(cpu, 0, 2).server_ms, null, 'no requests: no figure per request')
  const row = cpuRow('POST /order', per)
  t.equal(row, '| POST /order | 2.000 | 0.500 | 1.000 | 0.000 | 0.000 | 0.000 | 0.500 | 1.000 | 75 % |',
    'a role with no thread reads 0, in the head\'s order')
  t.equal(row.split('|').length, CPU_TABLE_HEAD[0]!.split('|').length, 'as many cells as the head')
})

t.test('reachable: the cores over what the named threads and the load generator cost a request', async (t) => {
  const cpu = { server_ms: 1.2, threads_ms: { main: 0.45, verify: 0.15, other: 0.4 }, generator_ms: 0.25,
    machine_busy_pct: 88 }
  // 0.15 ms of verification and 0.25 of the generator: 2 cores serve at most 2 000 / 0.4 = 5 000 a second.
  t.equal(Math.round(reachablePerSecond(cpu, ['verify'], 2)!), 5_000)
  t.equal(Math.round(reachablePerSecond(cpu, [], 2)!), 8_000, 'the generator alone')
  t.equal(Math.round(reachablePerSecond(cpu, ['verify', 'main'], 1)!), 1_176, 'one core over 0.85 ms')
  t.equal(reachablePerSecond({ ...cpu, threads_ms: null }, ['verify'], 2), null, 'no figures by thread: no bound')
})
