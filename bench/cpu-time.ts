/**
 * CPU time actually spent, read from /proc (Linux), for the per-request CPU table of bench:rest
 * and bench:grpc. A CPU profile cannot give it: V8 samples a thread by wall time, so on 2 shared
 * cores a thread that waits for a core counts as busy (the main thread read 85 % busy in a profile
 * while /proc gave it 55 % of a core), and threads that V8 and libuv run for the process (the
 * optimising compiler, the concurrent marker, lmdb's and libuv's workers) are not in any profile.
 */
import { readFileSync } from 'node:fs'

/**
 * /proc reports utime and stime in USER_HZ ticks, fixed at 100 on Linux for every architecture
 * Node runs on (the kernel converts from its own HZ): a 10 ms resolution, 0.3 % of a 3 s phase.
 */
const MS_PER_TICK = 10

/** utime + stime of /proc/<path>/stat in ms, or null where there is no such file (not Linux, or gone). */
function statCpuMs(path: string): number | null {
  let stat: string
  try {
    stat = readFileSync(`/proc/${path}/stat`, 'latin1')
  } catch {
    return null
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK
}

/** What the server and this process (the load generator) had spent, at one moment. */
interface CpuReading {
  readonly serverMs: number | null
  readonly serverMainMs: number | null
  readonly generatorMs: number
  readonly atMs: number
}

/** CPU spent during one phase, in ms; the server's fields are null where /proc cannot tell. */
export interface PhaseCpu {
  readonly seconds: number
  /** Every thread of the server process: its main thread, engine worker, journal, pool, V8's and libuv's. */
  readonly serverMs: number | null
  /** The server's main thread alone (HTTP, gRPC, the hand-offs, the read side). */
  readonly serverMainMs: number | null
  /** This process: the load generator (its HMACs and HTTP/gRPC clients). */
  readonly generatorMs: number
}

/** Reads CPU time before and after a phase: `phase(work)` gives the work's result and what it cost. */
export class CpuMeter {
  constructor(private readonly serverPid: number) {}

  async phase<T>(work: () => Promise<T>): Promise<{ result: T; cpu: PhaseCpu }> {
    const before = this.read()
    const result = await work()
    const after = this.read()
    return { result, cpu: {
      seconds: (after.atMs - before.atMs) / 1000,
      serverMs: difference(after.serverMs, before.serverMs),
      serverMainMs: difference(after.serverMainMs, before.serverMainMs),
      generatorMs: after.generatorMs - before.generatorMs,
    } }
  }

  private read(): CpuReading {
    const own = process.cpuUsage()
    return {
      serverMs: statCpuMs(String(this.serverPid)),
      serverMainMs: statCpuMs(`${this.serverPid}/task/${this.serverPid}`),
      generatorMs: (own.user + own.system) / 1000,
      atMs: performance.now(),
    }
  }
}

function difference(after: number | null, before: number | null): number | null {
  return after === null || before === null ? null : after - before
}

/** Per request, in ms, and the machine's share, for a report's row and its JSON. */
export interface CpuPerRequest {
  readonly server_ms: number | null
  readonly server_main_ms: number | null
  readonly generator_ms: number
  /** (server + generator) over the phase's seconds times the cores, in %: how close to the machine's wall. */
  readonly machine_busy_pct: number | null
}

/** `cpu` undefined (the phase was not metered): every figure null. */
export function perRequest(cpu: PhaseCpu | undefined, requests: number, cores: number): CpuPerRequest {
  if (cpu === undefined) return { server_ms: null, server_main_ms: null, generator_ms: 0, machine_busy_pct: null }
  const per = (ms: number | null): number | null => ms === null || requests === 0 ? null : round3(ms / requests)
  const busy = cpu.serverMs === null || cpu.seconds <= 0 ? null
    : Math.round((cpu.serverMs + cpu.generatorMs) / (cpu.seconds * 1000 * cores) * 100)
  return { server_ms: per(cpu.serverMs), server_main_ms: per(cpu.serverMainMs),
    generator_ms: per(cpu.generatorMs) ?? 0, machine_busy_pct: busy }
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000

/** A Markdown row: the figure, then its CPU per request and the machine's busy share. */
export function cpuRow(label: string, cpu: CpuPerRequest): string {
  const ms = (value: number | null): string => value === null ? 'n/a' : value.toFixed(3)
  return `| ${label} | ${ms(cpu.server_ms)} | ${ms(cpu.server_main_ms)} | ${ms(cpu.generator_ms)} | ` +
    `${cpu.machine_busy_pct === null ? 'n/a' : `${cpu.machine_busy_pct} %`} |`
}

export const CPU_TABLE_HEAD = [
  '| figure | server CPU ms per request (all threads) | of it the main thread | load generator | ' +
    'both cores busy |',
  '| --- | --- | --- | --- | --- |',
]
