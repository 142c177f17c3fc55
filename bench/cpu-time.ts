/**
 * CPU time actually spent, for the per-request CPU table of bench:rest and bench:grpc: the server
 * process's from /proc (Linux), the same by thread from its /metrics (src/thread-cpu.ts), and the
 * load generator's (this process). All figures are ms of CPU (one core busy for 1 ms is 1).
 *
 * A CPU profile cannot give it: V8 samples a thread by wall time, so on 2 shared cores a thread
 * that waits for a core counts as busy (the main thread read 85 % busy in a profile while /proc
 * gave it 55 % of a core), and the threads V8 and libuv run for the process (the optimising
 * compiler, the concurrent marker, libuv's pool with lmdb's writes) are in no profile.
 */
import { processCpuSeconds, statCpuSeconds } from '../src/thread-cpu.js'

/** utime + stime of a process in ms, or null (not Linux, or it has ended). */
function processCpuMs(pid: number): number | null {
  const seconds = statCpuSeconds(`/proc/${pid}/stat`)
  return seconds === null ? null : seconds * 1000
}

/** The server's threads as /metrics names them (predex_thread_cpu_seconds_total), in the table's order. */
export const THREAD_ROLES = ['main', 'verify', 'engine', 'journal', 'snapshot', 'other'] as const
export type BenchThread = typeof THREAD_ROLES[number]

/** What the server and this process (the load generator) had spent, at one moment. */
interface CpuReading {
  readonly serverMs: number | null
  /** By the server's thread roles (its /metrics), or null where it could not be read. */
  readonly threadsMs: Readonly<Record<string, number>> | null
  readonly generatorMs: number
  readonly atMs: number
}

/** CPU spent during one phase, in ms; the server's fields are null where they cannot be read. */
export interface PhaseCpu {
  readonly seconds: number
  /** Every thread of the server process (/proc/<pid>/stat). */
  readonly serverMs: number | null
  /** The same by thread (the server's predex_thread_cpu_seconds_total): main, verify, engine, ... */
  readonly threadsMs: Readonly<Record<string, number>> | null
  /** This process: the load generator (its HMACs and HTTP/gRPC clients). */
  readonly generatorMs: number
}

/**
 * Reads CPU time before and after a phase: `phase(work)` gives the work's result and what it cost.
 * `metricsUrl`: the server's /metrics, for its CPU by thread (its render is cached for 100 ms:
 * METRICS_RENDER_INTERVAL_MS, far shorter than a phase).
 */
export class CpuMeter {
  constructor(private readonly serverPid: number, private readonly metricsUrl: string | null = null) {}

  async phase<T>(work: () => Promise<T>): Promise<{ result: T; cpu: PhaseCpu }> {
    const before = await this.read()
    const result = await work()
    const after = await this.read()
    return { result, cpu: {
      seconds: (after.atMs - before.atMs) / 1000,
      serverMs: difference(after.serverMs, before.serverMs),
      threadsMs: after.threadsMs === null || before.threadsMs === null ? null : Object.fromEntries(
        Object.entries(after.threadsMs).map(([role, ms]) => [role, ms - (before.threadsMs![role] ?? 0)])),
      generatorMs: after.generatorMs - before.generatorMs,
    } }
  }

  private async read(): Promise<CpuReading> {
    const threadsMs = this.metricsUrl === null ? null : await threadsMsOf(this.metricsUrl)
    return {
      serverMs: processCpuMs(this.serverPid),
      threadsMs,
      generatorMs: processCpuSeconds() * 1000,
      atMs: performance.now(),
    }
  }
}

/** predex_thread_cpu_seconds_total by thread, in ms; null if the scrape fails twice or has none. */
async function threadsMsOf(metricsUrl: string): Promise<Record<string, number> | null> {
  const text = await scrape(metricsUrl) ?? await scrape(metricsUrl)
  if (text === null) return null
  const byThread: Record<string, number> = {}
  for (const match of text.matchAll(/^predex_thread_cpu_seconds_total\{thread="([a-z]+)"\} ([0-9.e+-]+)$/gm)) {
    byThread[match[1]!] = Number(match[2]) * 1000
  }
  return Object.keys(byThread).length === 0 ? null : byThread
}

/**
 * The text of one scrape, or null. Once, during the gRPC bench, a scrape failed on its first try
 * (a kept-alive connection the server had closed, most likely): the caller tries again.
 */
async function scrape(metricsUrl: string): Promise<string | null> {
  try {
    return await (await fetch(metricsUrl)).text()
  } catch (error) {
    process.stderr.write(`cpu-time: ${metricsUrl}: ${String((error as { cause?: unknown }).cause ?? error)}\n`)
    return null
  }
}

function difference(after: number | null, before: number | null): number | null {
  return after === null || before === null ? null : after - before
}

/** Two phases' CPU as one (the slices of a phase run in turns with another's: PhaseClock.time). */
export function addCpu(a: PhaseCpu, b: PhaseCpu): PhaseCpu {
  const sum = (x: number | null, y: number | null): number | null => x === null || y === null ? null : x + y
  return {
    seconds: a.seconds + b.seconds,
    serverMs: sum(a.serverMs, b.serverMs),
    threadsMs: a.threadsMs === null || b.threadsMs === null ? null : Object.fromEntries(
      [...new Set([...Object.keys(a.threadsMs), ...Object.keys(b.threadsMs)])]
        .map((role) => [role, (a.threadsMs![role] ?? 0) + (b.threadsMs![role] ?? 0)])),
    generatorMs: a.generatorMs + b.generatorMs,
  }
}

/** Per request, in ms, and the machine's share, for a report's row and its JSON. */
export interface CpuPerRequest {
  readonly server_ms: number | null
  /** The server's CPU per request by thread (THREAD_ROLES), or null. */
  readonly threads_ms: Readonly<Record<string, number>> | null
  readonly generator_ms: number
  /** (server + generator) over the phase's seconds times the cores, in %: how close to the machine's wall. */
  readonly machine_busy_pct: number | null
}

/** `cpu` undefined (the phase was not metered): every figure null. */
export function perRequest(cpu: PhaseCpu | undefined, requests: number, cores: number): CpuPerRequest {
  if (cpu === undefined) return { server_ms: null, threads_ms: null, generator_ms: 0, machine_busy_pct: null }
  const per = (ms: number | null): number | null => ms === null || requests === 0 ? null : round3(ms / requests)
  const busy = cpu.serverMs === null || cpu.seconds <= 0 ? null
    : Math.round((cpu.serverMs + cpu.generatorMs) / (cpu.seconds * 1000 * cores) * 100)
  const threads = cpu.threadsMs === null || requests === 0 ? null
    : Object.fromEntries(Object.entries(cpu.threadsMs).map(([role, ms]) => [role, round3(ms / requests)]))
  return { server_ms: per(cpu.serverMs), threads_ms: threads, generator_ms: per(cpu.generatorMs) ?? 0,
    machine_busy_pct: busy }
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000

/**
 * The most requests a second the machine could serve if each cost only the named server threads'
 * CPU (`threads`, e.g. verification) and the load generator's, every core busy: a bound no server
 * change can pass while the load generator shares the cores. Null when the figures are missing.
 */
export function reachablePerSecond(cpu: CpuPerRequest, threads: readonly BenchThread[], cores: number): number | null {
  if (cpu.threads_ms === null) return null
  const ms = threads.reduce((sum, role) => sum + (cpu.threads_ms![role] ?? 0), cpu.generator_ms)
  return ms > 0 ? cores * 1000 / ms : null
}

/** A Markdown row: the figure, its CPU per request by thread, the load generator's, the machine's busy share. */
export function cpuRow(label: string, cpu: CpuPerRequest): string {
  const ms = (value: number | null | undefined): string => value === null || value === undefined ? 'n/a'
    : value.toFixed(3)
  const threads = THREAD_ROLES.map((role) => ms(cpu.threads_ms === null ? null : cpu.threads_ms[role] ?? 0))
  return `| ${label} | ${ms(cpu.server_ms)} | ${threads.join(' | ')} | ${ms(cpu.generator_ms)} | ` +
    `${cpu.machine_busy_pct === null ? 'n/a' : `${cpu.machine_busy_pct} %`} |`
}

export const CPU_TABLE_HEAD = [
  `| figure | server, all threads | ${THREAD_ROLES.join(' | ')} | load generator | both cores busy |`,
  `| --- | --- | ${THREAD_ROLES.map(() => '---').join(' | ')} | --- | --- |`,
]
