/**
 * `npm run bench`: the bench suite of ../shared/spec/benchmarks.md, one workload after another,
 * each in its own process (so none inherits another's heap or threads): the engine alone
 * (workload 1), the engine host (2 and 6), signature verification (3), REST end to end (4), gRPC end
 * to end (5). The workloads' own lines stream through on stderr; between them the suite says which
 * workload runs, [i/n], for how long, and about how long the suite has left (bench/progress.ts).
 *
 * At the end it writes, under bench/results/:
 * - `<YYYY-MM-DD>-<hostname>.md`: the machine, the command, each target of issue 13 and
 *   benchmarks.md met or NOT met and by how much (bench/targets.ts), each workload's runs and
 *   figures (median, min and max where it prints them) and its charts (bench/suite-report.ts);
 * - `<same>.json`: every workload's whole last-line JSON, the machine, Node, command and duration;
 * - `<same>/`: the charts as SVG (bench/suite-charts.ts): each target against its threshold,
 *   latency histograms and throughput over time from the `series` workloads hand over
 *   (bench/series.ts);
 * - `summary.md` and `summary.json`: the same, for the latest run, at a fixed path.
 * A workload that fails is reported as failed and the others still run; the exit status is 1 then.
 *
 * Flags: --quick (every workload's short form: minutes instead of a quarter of an hour or more;
 * the report's workloads table says how long each took, bench/progress.ts keeps the expected times),
 * --only engine,host,sig,rest,grpc, --profile <workload> (that workload alone with CPU profiles of
 * its server side into bench/results/profiles/<date>-<workload>/, see bench/profile.ts; its figures
 * are slowed by the profiler, so no report is written).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, hostname, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BenchFlags } from './flags.js'
import { runJsonChild } from './json-child.js'
import { formatSeconds, SuiteProgress } from './progress.js'
import { profilePlan, profilesIn, type ProfilePlan } from './profile.js'
import { writeCharts } from './suite-charts.js'
import { suiteMarkdown, type Machine, type SuiteRun, type WorkloadRun } from './suite-report.js'
import { check, TARGETS, type Figures } from './targets.js'

interface Workload {
  readonly name: string
  readonly script: string
  readonly title: string
  readonly nodeFlags: readonly string[]
}

const WORKLOADS: readonly Workload[] = [
  { name: 'engine', script: 'engine.js', title: 'Engine alone (workload 1)', nodeFlags: ['--expose-gc'] },
  { name: 'host', script: 'host.js', title: 'Engine host, journal, recovery (workloads 2 and 6)',
    nodeFlags: ['--expose-gc'] },
  { name: 'sig', script: 'signatures.js', title: 'Signature verification (workload 3)', nodeFlags: [] },
  { name: 'rest', script: 'rest.js', title: 'REST end to end (workload 4)', nodeFlags: [] },
  { name: 'grpc', script: 'grpc.js', title: 'gRPC end to end (workload 5)', nodeFlags: [] },
]

const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url))
const log = (line: string): void => void process.stderr.write(line + '\n')

/** Runs one workload with --json; resolves with its last stdout line, parsed. */
function run(workload: Workload, quick: boolean, profile: ProfilePlan | null): Promise<Figures> {
  const script = fileURLToPath(new URL(`./${workload.script}`, import.meta.url))
  const args = [...workload.nodeFlags, ...(profile?.nodeFlags ?? []), script, '--json',
    ...(quick ? ['--quick'] : []), ...(profile?.scriptArgs ?? [])]
  return runJsonChild(args, workload.name) as Promise<Figures>
}

function localDate(date: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`
}

function machineOf(loadAverageStart: number): Machine {
  return { hostname: hostname(), cores: availableParallelism(), cpu: cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version, platform: `${process.platform} ${process.arch}`, memoryBytes: totalmem(),
    loadAverageStart, loadAverageEnd: loadavg()[0]! }
}

async function runAll(chosen: readonly Workload[], quick: boolean, profile: ProfilePlan | null):
  Promise<WorkloadRun[]> {
  const progress = new SuiteProgress(chosen.map((w) => w.name), quick, log)
  const runs: WorkloadRun[] = []
  for (const [i, workload] of chosen.entries()) {
    progress.start(i, workload.title)
    let figures: Figures = {}
    let error: string | null = null
    try {
      figures = await run(workload, quick, profile)
    } catch (caught) {
      error = (caught as Error).message
      log(`${workload.name} failed: ${error}`)
    }
    const seconds = progress.finish(error === null)
    runs.push({ name: workload.name, title: workload.title, seconds, figures, error })
  }
  return runs
}

function writeReport(run: SuiteRun): string {
  const base = `${run.date}-${run.machine.hostname}`
  const charts = writeCharts(run, join(RESULTS_DIR, base), base)
  const markdown = suiteMarkdown(run, `${base}.json`, charts)
  const json = JSON.stringify({ ...run, targets: run.targets.map(({ target, ...rest }) =>
    ({ label: target.label, workload: target.workload, source: target.source, ...rest })) }, null, 2) + '\n'
  writeFileSync(join(RESULTS_DIR, `${base}.md`), markdown)
  writeFileSync(join(RESULTS_DIR, `${base}.json`), json)
  // Beside the dated report, so the same relative links work from it.
  writeFileSync(join(RESULTS_DIR, 'summary.md'), markdown)
  writeFileSync(join(RESULTS_DIR, 'summary.json'), json)
  return join(RESULTS_DIR, `${base}.md`)
}

function reportProfiles(plan: ProfilePlan, sinceMs: number): void {
  // Only this run's: a second run on the same day writes into the same folder.
  const files = profilesIn(plan.dir, sinceMs)
  if (files.length === 0) {
    log(`\nNo CPU profile under ${plan.dir}: the workload did not write one (does it honour --profile-dir yet?).`)
    return
  }
  log(`\n${files.length} CPU profile(s) in ${plan.dir} (open in Chrome DevTools, Performance, or speedscope):`)
  for (const file of files) log(`  ${file.path} (${Math.round(file.bytes / 1024)} KiB)`)
  log('One file per thread (CPU.<date>.<time>.<pid>.<thread>.<n>: thread 0 is the main thread, the others workers); ' +
    `where the time went, as tables: node scripts/profile-summary.mjs ${plan.dir}`)
}

async function main(): Promise<void> {
  const flags = new BenchFlags()
  const started = new Date()
  const loadAverageStart = loadavg()[0]!
  const only = flags.list('--only')
  const profiled = flags.list('--profile')?.[0] ?? null
  const names = profiled !== null ? [profiled] : only
  const chosen = WORKLOADS.filter((w) => names === null || names.includes(w.name))
  const unknown = (names ?? []).filter((name) => !WORKLOADS.some((w) => w.name === name))
  if (unknown.length > 0 || chosen.length === 0) {
    const known = WORKLOADS.map((w) => w.name).join(', ')
    throw new Error(`unknown workload ${unknown.join(', ')}: the workloads are ${known}`)
  }
  const profile = profiled === null ? null : profilePlan(profiled, RESULTS_DIR, localDate(started))
  if (profile !== null) mkdirSync(profile.dir, { recursive: true })
  const workloads = await runAll(chosen, flags.quick, profile)
  const durationSeconds = (Date.now() - started.getTime()) / 1000
  if (profile !== null) {
    log(`\nfigures (slowed by the profiler): ${JSON.stringify({ ...workloads[0]!.figures, series: undefined })}`)
    reportProfiles(profile, started.getTime())
  } else {
    const figures = Object.fromEntries(workloads.filter((w) => w.error === null).map((w) => [w.name, w.figures]))
    const suiteRun: SuiteRun = { date: localDate(started), startedAt: started.toISOString(),
      command: `npm run bench${process.argv.length > 2 ? ' -- ' + process.argv.slice(2).join(' ') : ''}`,
      quick: flags.quick, durationSeconds, machine: machineOf(loadAverageStart), workloads,
      targets: TARGETS.map((target) => check(target, figures)) }
    const path = writeReport(suiteRun)
    printTargets(suiteRun)
    const base = path.replace(/\.md$/, '')
    log(`\nReport: ${path} (charts in ${base}/, raw figures in ${base}.json); ` +
      `${formatSeconds(durationSeconds)} in all.`)
  }
  if (workloads.some((w) => w.error !== null)) process.exitCode = 1
}

function printTargets(run: SuiteRun): void {
  log('\n# Targets')
  for (const c of run.targets) {
    log(`${c.verdict.padEnd(12)} ${c.target.label}: ${c.measuredText} (target ${c.thresholdText})` +
      (c.marginText === '' ? '' : `, ${c.marginText}`))
  }
}

await main()
