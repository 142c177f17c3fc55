/**
 * `npm run bench:host`: workloads 2 and 6 of ../shared/spec/benchmarks.md. The stream of
 * workload 1 (40 % of orders on the No token) goes through the whole host: encoded into the
 * command ring, applied on the engine worker, journaled to LMDB in one transaction per batch,
 * and acknowledged only after the flush (`sync`) or right after the commit (`async`). Compared,
 * in the same run, with the engine alone on the same stream. Then recovery: replay speed from
 * the journal alone, and restart-to-ready with and without a snapshot.
 *
 * Flags: --quick (200 k commands, 3 runs), --json (last line is a JSON object), --runs N,
 * --commands N, --seed N. Data goes to a temporary directory that is removed afterwards.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir, cpus } from 'node:os'
import { join } from 'node:path'
import { Engine } from '../src/engine/engine.js'
import type { Command, UnstampedCommand } from '../src/engine/command.js'
import { EngineHost } from '../src/host/engine-host.js'
import { PredexError } from '../src/errors.js'
import type { Durability } from '../src/journal/journal.js'
import { generateStream } from './engine-stream.js'
import { engineCommands, setupCommands } from './engine-adapters.js'
import { percentile, summarize, type Summary } from './stats.js'
import { BenchFlags } from './flags.js'

interface Options {
  readonly quick: boolean
  readonly json: boolean
  readonly runs: number
  readonly commands: number
  readonly seed: number
}

const WINDOW = 4_096
const log = (line: string): void => void process.stderr.write(line + '\n')

function parseOptions(argv: readonly string[]): Options {
  const flags = new BenchFlags(argv)
  return { quick: flags.quick, json: flags.json, runs: flags.integer('--runs', flags.quick ? 3 : 5),
    commands: flags.integer('--commands', flags.quick ? 200_000 : 1_000_000), seed: flags.integer('--seed', 42) }
}

function unstamped(command: Command): UnstampedCommand {
  const { seq: _seq, timeMs: _timeMs, ...rest } = command
  return rest as UnstampedCommand
}

function engineAlone(setup: readonly Command[], commands: readonly Command[]): number {
  const engine = new Engine()
  for (const command of setup) engine.apply(command)
  const start = performance.now()
  for (const command of commands) engine.apply(command)
  return commands.length / ((performance.now() - start) / 1000)
}

/** Submits everything with at most WINDOW in flight; returns commands/s and ack latencies (ms). */
async function closedLoop(host: EngineHost, commands: readonly UnstampedCommand[]): Promise<{ rate: number; latencies: Float64Array }> {
  const latencies = new Float64Array(commands.length)
  const start = performance.now()
  let next = 0
  let done = 0
  await new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      while (next < commands.length && next - done < WINDOW) {
        const index = next++
        const sent = performance.now()
        host.submit(commands[index]!).then(() => {
          latencies[index] = performance.now() - sent
          if (++done === commands.length) resolve()
          else pump()
        }, reject)
      }
    }
    pump()
  })
  return { rate: commands.length / ((performance.now() - start) / 1000), latencies }
}

/**
 * Open loop at a fixed rate for `seconds`: command k is due at start + k / rate, and its latency
 * counts from when it was due, so a stall delays every later command (no coordinated omission).
 */
async function openLoop(host: EngineHost, commands: readonly UnstampedCommand[], rate: number, seconds: number): Promise<Float64Array> {
  const count = Math.min(commands.length, Math.floor(rate * seconds))
  const latencies = new Float64Array(count)
  const start = performance.now()
  let next = 0
  let done = 0
  await new Promise<void>((resolve, reject) => {
    const tick = (): void => {
      const now = performance.now()
      while (next < count && start + (next * 1000) / rate <= now) {
        const index = next++
        const due = start + (index * 1000) / rate
        host.submit(commands[index]!).then(() => {
          latencies[index] = performance.now() - due
          if (++done === count) resolve()
        }, (error: unknown) => reject(error instanceof PredexError ? new Error(`${error.code} at ${rate}/s`) : error))
      }
      if (next < count) setImmediate(tick)
    }
    tick()
  })
  return latencies
}

function directoryBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0)
}

function sortedMs(values: Float64Array): Float64Array {
  return Float64Array.from(values).sort()
}

async function hostRun(durability: Durability, setup: readonly UnstampedCommand[], commands: readonly UnstampedCommand[],
  snapshotEvery: number): Promise<{ rate: number; latencies: Float64Array; dir: string; host: EngineHost }> {
  const dir = mkdtempSync(join(tmpdir(), 'predex-bench-host-'))
  const host = await EngineHost.start({ dataDir: dir, durability, snapshotEveryCommands: snapshotEvery })
  for (const command of setup) await host.submit(command)
  const { rate, latencies } = await closedLoop(host, commands)
  return { rate, latencies, dir, host }
}

async function restart(dir: string): Promise<{ ms: number; replayed: number; recoveryMs: number; snapshotSeq: number }> {
  const started = performance.now()
  const host = await EngineHost.start({ dataDir: dir, snapshotEveryCommands: Number.MAX_SAFE_INTEGER })
  const ms = performance.now() - started
  const { replayed, recoveryMs, snapshotSeq } = host.recovered
  await host.stop()
  return { ms, replayed, recoveryMs, snapshotSeq }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  log(`generating ${options.commands.toLocaleString('en')} commands (seed ${options.seed})`)
  const stream = generateStream({ seed: options.seed, commands: options.commands, iocSizeMax: 400, tradersPerSide: 50 })
  const setupStamped = setupCommands(100)
  const stamped = engineCommands(stream, setupStamped.length + 1, 0.4, options.seed)
  const setup = setupStamped.map(unstamped)
  const commands = stamped.map(unstamped)

  const engineRates: number[] = []
  const syncRates: number[] = []
  const asyncRates: number[] = []
  let syncLatencies: Float64Array = new Float64Array(0)
  let bytesPerCommand = 0
  let journalDir = ''
  for (let run = 1; run <= options.runs; run++) {
    engineRates.push(engineAlone(setupStamped, stamped))
    const sync = await hostRun('sync', setup, commands, Number.MAX_SAFE_INTEGER)
    syncRates.push(sync.rate)
    syncLatencies = sync.latencies
    await sync.host.stop()
    bytesPerCommand = directoryBytes(sync.dir) / (setup.length + commands.length)
    if (journalDir !== '') rmSync(journalDir, { recursive: true, force: true })
    journalDir = sync.dir
    const async = await hostRun('async', setup, commands, Number.MAX_SAFE_INTEGER)
    asyncRates.push(async.rate)
    await async.host.stop()
    rmSync(async.dir, { recursive: true, force: true })
    log(`run ${run}/${options.runs}: engine ${k(engineRates.at(-1)!)}, host sync ${k(sync.rate)}, async ${k(async.rate)} commands/s`)
  }
  const engine = summarize(engineRates)
  const sync = summarize(syncRates)
  const asyncSummary = summarize(asyncRates)

  // Ack latency at half of the measured durable maximum, open loop, on a fresh directory.
  const halfRate = Math.floor(sync.median / 2)
  const halfDir = mkdtempSync(join(tmpdir(), 'predex-bench-half-'))
  const halfHost = await EngineHost.start({ dataDir: halfDir, durability: 'sync' })
  for (const command of setup) await halfHost.submit(command)
  const half = sortedMs(await openLoop(halfHost, commands, halfRate, options.quick ? 3 : 10))
  await halfHost.stop()
  rmSync(halfDir, { recursive: true, force: true })
  log(`ack latency at ${k(halfRate)}/s (half of durable max), open loop: p50 ${percentile(half, 0.5).toFixed(2)} ms, ` +
    `p99 ${percentile(half, 0.99).toFixed(2)} ms, p99.9 ${percentile(half, 0.999).toFixed(2)} ms`)

  // Recovery: replay the journal alone, then again from a snapshot near its end.
  const noSnapshot = await restart(journalDir)
  const replayRate = noSnapshot.replayed / (noSnapshot.recoveryMs / 1000)
  log(`restart without a snapshot: ${noSnapshot.ms.toFixed(0)} ms to ready, replayed ${noSnapshot.replayed} at ${k(replayRate)}/s`)
  const withSnapshotDir = mkdtempSync(join(tmpdir(), 'predex-bench-snap-'))
  const snapHost = await EngineHost.start({ dataDir: withSnapshotDir, snapshotEveryCommands: Math.floor(commands.length * 0.9) })
  for (const command of setup) await snapHost.submit(command)
  await closedLoop(snapHost, commands)
  await snapHost.stop()
  const withSnapshot = await restart(withSnapshotDir)
  log(`restart with a snapshot at seq ${withSnapshot.snapshotSeq}: ${withSnapshot.ms.toFixed(0)} ms to ready, replayed ${withSnapshot.replayed}`)
  rmSync(withSnapshotDir, { recursive: true, force: true })
  rmSync(journalDir, { recursive: true, force: true })

  const syncSorted = sortedMs(syncLatencies)
  const report = {
    engine_commands_per_s: Math.round(engine.median),
    sync_commands_per_s: Math.round(sync.median),
    async_commands_per_s: Math.round(asyncSummary.median),
    sync_to_engine: round(sync.median / engine.median),
    async_to_engine: round(asyncSummary.median / engine.median),
    sync_to_async: round(sync.median / asyncSummary.median),
    ack_p50_ms: round(percentile(half, 0.5)),
    ack_p99_ms: round(percentile(half, 0.99)),
    ack_p999_ms: round(percentile(half, 0.999)),
    ack_rate_per_s: halfRate,
    ack_p99_ms_at_max_load: round(percentile(syncSorted, 0.99)),
    journal_bytes_per_command: Math.round(bytesPerCommand),
    replay_commands_per_s: Math.round(replayRate),
    restart_ms: Math.round(withSnapshot.ms),
    restart_no_snapshot_ms: Math.round(noSnapshot.ms),
    commands: commands.length,
    runs: options.runs,
  }
  log('\n' + markdown(options, report, engine, sync, asyncSummary))
  if (options.json) console.log(JSON.stringify(report))
}

function round(value: number): number {
  return Number(value.toFixed(3))
}

function k(rate: number): string {
  return `${Math.round(rate / 1000).toLocaleString('en')} k`
}

function markdown(options: Options, r: Record<string, number>, engine: Summary, sync: Summary, asyncSummary: Summary): string {
  const range = (s: Summary): string => `${k(s.median)} (${k(s.min)}-${k(s.max)})`
  return [
    '# Engine host benchmark (workloads 2 and 6)', '',
    `Command: \`npm run bench:host${options.quick ? ' -- --quick' : ''}\`; ${cpus().length} cores, Node ${process.version}; ` +
    `${options.runs} runs, ${options.commands.toLocaleString('en')} commands, seed ${options.seed}.`, '',
    '| path | commands/s median (min-max) | ratio to engine alone |', '| --- | --- | --- |',
    `| engine alone (no I/O) | ${range(engine)} | 1 |`,
    `| host, durability sync (ack after flush) | ${range(sync)} | ${r.sync_to_engine} |`,
    `| host, durability async (ack before the flush) | ${range(asyncSummary)} | ${r.async_to_engine} |`, '',
    `Sync / async: ${r.sync_to_async} (target >= 0.7: ${r.sync_to_async! >= 0.7 ? 'met' : 'NOT met'}). ` +
    `Ack latency at ${r.ack_rate_per_s} commands/s (half the durable maximum, open loop): p50 ${r.ack_p50_ms} ms, ` +
    `p99 ${r.ack_p99_ms} ms (target < 5 ms: ${r.ack_p99_ms! < 5 ? 'met' : 'NOT met'}), p99.9 ${r.ack_p999_ms} ms. ` +
    `Journal: ${r.journal_bytes_per_command} bytes per command.`, '',
    `Replay from the journal alone: ${r.replay_commands_per_s} commands/s (target >= 500 k: ` +
    `${r.replay_commands_per_s! >= 500_000 ? 'met' : 'NOT met'}). Restart to ready: ${r.restart_ms} ms with a snapshot ` +
    `(target < 2 s: ${r.restart_ms! < 2000 ? 'met' : 'NOT met'}), ${r.restart_no_snapshot_ms} ms without.`,
  ].join('\n') + '\n'
}

await main()
