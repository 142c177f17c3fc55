/**
 * bench/cpu-time.ts reads CPU time from /proc: what a phase spent on the server's threads, its main
 * thread and the load generator, per request. Run here on this process as its own "server".
 */
import t from 'tap'
import { CpuMeter, perRequest } from '../../../bench/cpu-time.js'

/** Spins until this process has spent `ms` more CPU time by its own count (process.cpuUsage). */
function spin(ms: number): number {
  const start = process.cpuUsage()
  let sink = 0
  while (process.cpuUsage(start).user / 1000 < ms) sink += Math.sqrt(sink + 1)
  return sink
}

t.test('a phase that spends 300 ms of CPU on this thread reads about that much from /proc', {
  skip: process.platform === 'linux' ? false : '/proc is Linux only',
}, async (t) => {
  const meter = new CpuMeter(process.pid)
  const { result, cpu } = await meter.phase(async () => {
    return spin(300) > 0 ? 'done' : 'not run'
  })
  t.equal(result, 'done', 'the work\'s result comes back')
  // /proc counts 10 ms ticks: allow two ticks each way, and whatever else the process ran meanwhile.
  t.ok(cpu.serverMs !== null && cpu.serverMs >= 280, `the process: ${cpu.serverMs} ms`)
  t.ok(cpu.serverMainMs !== null && cpu.serverMainMs >= 280 && cpu.serverMainMs <= cpu.serverMs!,
    `its main thread: ${cpu.serverMainMs} ms, within the process's`)
  t.ok(cpu.generatorMs >= 300, `process.cpuUsage's own count: ${cpu.generatorMs} ms`)
})

t.test('per request: the phase\'s CPU over its requests, and the cores\' busy share', async (t) => {
  const cpu = { seconds: 2, serverMs: 2_000, serverMainMs: 500, generatorMs: 1_000 }
  t.same(perRequest(cpu, 1_000, 2), { server_ms: 2, server_main_ms: 0.5, generator_ms: 1, machine_busy_pct: 75 })
  t.same(perRequest({ ...cpu, serverMs: null, serverMainMs: null }, 1_000, 2),
    { server_ms: null, server_main_ms: null, generator_ms: 1, machine_busy_pct: null }, 'no /proc: no server figures')
  t.same(perRequest(undefined, 10, 2), { server_ms: null, server_main_ms: null, generator_ms: 0,
    machine_busy_pct: null }, 'a phase not metered')
  t.equal(perRequest(cpu, 0, 2).server_ms, null, 'no requests: no figure per request')
})
