/**
 * `npm run bench`: the bench suite of ../shared/spec/benchmarks.md, one workload after another,
 * each in its own process (so none inherits another's heap or threads): the engine alone
 * (workload 1), the engine host (2 and 6), signature verification (3), REST end to end (4), gRPC end
 * to end (5).
 * Their progress streams through; their figures are collected into bench/results/summary.md and
 * summary.json, with every target of benchmarks.md marked met or NOT met. Each workload's own
 * report (bench/results/<workload>.md where it writes one) has its details.
 *
 * Flags: --quick (every workload's short form; minutes instead of a quarter of an hour),
 * --only engine,host,sig,rest,grpc.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus } from 'node:os'
import { BenchFlags } from './flags.js'

interface Workload {
  readonly name: string
  readonly script: string
  readonly title: string
  readonly nodeFlags: readonly string[]
}

const WORKLOADS: readonly Workload[] = [
  { name: 'engine', script: 'engine.js', title: 'Engine alone (workload 1)', nodeFlags: ['--expose-gc'] },
  { name: 'host', script: 'host.js', title: 'Engine host, journal, recovery (workloads 2 and 6)', nodeFlags: ['--expose-gc'] },
  { name: 'sig', script: 'signatures.js', title: 'Signature verification (workload 3)', nodeFlags: [] },
  { name: 'rest', script: 'rest.js', title: 'REST end to end (workload 4)', nodeFlags: [] },
  { name: 'grpc', script: 'grpc.js', title: 'gRPC end to end (workload 5)', nodeFlags: [] },
]

type Figures = Record<string, unknown>

interface Target {
  readonly text: string
  readonly workload: string
  readonly value: (f: Figures) => number
  readonly met: (value: number) => boolean
  readonly unit: string
}

const TARGETS: readonly Target[] = [
  { text: 'engine >= 5 x nodejs-order-book on the same stream', workload: 'engine', value: (f) => Number(f.ratio), met: (v) => v >= 5, unit: 'x' },
  { text: 'signature ceiling per core >= 3 x plain recovery (signer cache)', workload: 'sig', value: (f) => Number(f.cache_speedup), met: (v) => v >= 3, unit: 'x' },
  { text: 'REST signed-order intake >= 80 % of the pool ceiling', workload: 'rest', value: (f) => Number(f.intake_vs_pool), met: (v) => v >= 0.8, unit: 'of the ceiling' },
  { text: 'durable (sync) throughput >= 70 % of async', workload: 'host', value: (f) => Number(f.sync_to_async), met: (v) => v >= 0.7, unit: 'of async' },
  { text: 'ack p99 < 5 ms at half of the maximum load', workload: 'host', value: (f) => Number(f.ack_p99_ms), met: (v) => v < 5, unit: 'ms' },
  { text: 'GET /book >= 50 % of the uWS constant-JSON ceiling', workload: 'rest', value: (f) => Number(f.book_vs_uws), met: (v) => v >= 0.5, unit: 'of the ceiling' },
  { text: 'replay >= 500 k commands/s', workload: 'host', value: (f) => Number(f.replay_commands_per_s), met: (v) => v >= 500_000, unit: 'commands/s' },
  { text: 'gRPC order-entry stream intake >= REST POST /order intake (same run)', workload: 'grpc',
    value: (f) => Number(f.stream_vs_rest), met: (v) => v >= 1, unit: 'x' },
  { text: 'gRPC unary PlaceOrder >= 0.8 x REST POST /order (same run)', workload: 'grpc',
    value: (f) => Number(f.unary_vs_rest), met: (v) => v >= 0.8, unit: 'x' },
  { text: 'restart to ready < 2 s with a snapshot', workload: 'host', value: (f) => Number(f.restart_ms), met: (v) => v < 2_000, unit: 'ms' },
]

const log = (line: string): void => void process.stderr.write(line + '\n')

/** Runs one workload with --json; resolves with its last stdout line, parsed. */
function run(workload: Workload, quick: boolean): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const script = new URL(`./${workload.script}`, import.meta.url).pathname
    const child = spawn(process.execPath, [...workload.nodeFlags, script, '--json', ...(quick ? ['--quick'] : [])],
      { stdio: ['ignore', 'pipe', 'inherit'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    child.on('exit', (code) => {
      const last = stdout.trim().split('\n').pop() ?? ''
      if (code !== 0) return reject(new Error(`${workload.name} exited with ${code}`))
      try {
        resolve(JSON.parse(last) as Figures)
      } catch {
        reject(new Error(`${workload.name} printed no JSON line`))
      }
    })
  })
}

async function main(): Promise<void> {
  const flags = new BenchFlags()
  const quick = flags.quick
  const only = flags.list('--only')
  const chosen = WORKLOADS.filter((w) => only === null || only.includes(w.name))
  const started = Date.now()
  const figures: Record<string, Figures> = {}
  for (const [i, workload] of chosen.entries()) {
    log(`\n=== [${i + 1}/${chosen.length}] ${workload.title} ===`)
    const workloadStarted = Date.now()
    figures[workload.name] = await run(workload, quick)
    log(`=== ${workload.name} done in ${Math.round((Date.now() - workloadStarted) / 1000)} s ===`)
  }
  const machine = `${availableParallelism()} cores (${cpus()[0]?.model ?? ''}), Node ${process.version}`
  const rows = TARGETS.filter((target) => figures[target.workload] !== undefined).map((target) => {
    const value = target.value(figures[target.workload]!)
    return { target: target.text, value, unit: target.unit, met: target.met(value) }
  })
  const markdown = [
    '# Predex bench suite', '',
    `Command: \`npm run bench${quick ? ' -- --quick' : ''}\`; ${machine}; ${Math.round((Date.now() - started) / 1000)} s in all. ` +
      'Each workload reports medians over its own runs (see its report); the machine is shared, so compare ratios within a run.', '',
    '| target (benchmarks.md) | measured | |', '| --- | --- | --- |',
    ...rows.map((row) => `| ${row.target} | ${formatValue(row.value, row.unit)} | ${row.met ? 'met' : '**NOT met**'} |`),
    '', 'No charts yet: the figures are in the JSON.', '',
    ...chosen.map((w) => `- ${w.title}: \`${JSON.stringify(figures[w.name])}\``),
  ].join('\n')
  log('\n' + markdown)
  const results = new URL('../../bench/results/', import.meta.url)
  mkdirSync(results, { recursive: true })
  writeFileSync(new URL('summary.md', results), markdown + '\n')
  writeFileSync(new URL('summary.json', results), JSON.stringify({ machine, quick, figures, targets: rows }, null, 2) + '\n')
}

function formatValue(value: number, unit: string): string {
  if (unit.startsWith('of')) return `${Math.round(value * 100)} % ${unit}`
  return `${Number.isInteger(value) ? value : value.toFixed(2)} ${unit}`
}

await main()
