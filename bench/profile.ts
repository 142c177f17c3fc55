/**
 * `npm run bench -- --profile <workload>`: where CPU profiles of a workload's server side go, and
 * how the suite asks for them. The in-process workloads (engine, host, sig: the host's engine
 * worker and the signature pool are threads of the bench process) run under node's own
 * `--cpu-prof`, which also writes a profile for each worker thread when it exits. REST and gRPC
 * run Predex as a child process (bench/predex-server.ts): the suite passes `--profile-dir` to the
 * workload, which starts that child with `--cpu-prof` into the folder.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const IN_PROCESS = new Set(['engine', 'host', 'sig'])

export interface ProfilePlan {
  readonly dir: string
  /** Node flags for the workload's own process. */
  readonly nodeFlags: readonly string[]
  /** Arguments for the workload script. */
  readonly scriptArgs: readonly string[]
}

/** bench/results/profiles/<date>-<workload>/ and the flags that fill it. */
export function profilePlan(workload: string, resultsDir: string, date: string): ProfilePlan {
  const dir = join(resultsDir, 'profiles', `${date}-${workload}`)
  return IN_PROCESS.has(workload)
    ? { dir, nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`], scriptArgs: [] }
    : { dir, nodeFlags: [], scriptArgs: ['--profile-dir', dir] }
}

/** The .cpuprofile files under `dir` (any depth) written since `sinceMs`, with their sizes, oldest first. */
export function profilesIn(dir: string, sinceMs = 0): { path: string; bytes: number }[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => ({ path: join(dir, name), stat: statSync(join(dir, name)) }))
    .map(({ path, stat }) => ({ path, bytes: stat.size, ms: stat.mtimeMs }))
    .filter(({ ms }) => ms >= sinceMs)
    .sort((a, b) => a.ms - b.ms)
    .map(({ path, bytes }) => ({ path, bytes }))
}
