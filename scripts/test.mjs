// npm test: the suite four files at a time (package.json's tap.jobs: part of a file's time is
// waiting on servers, loopback and timers), and beside it the chain tests (test/chain/), three at
// a time: they wait on blocks and the ledger's confirmations, each using about a quarter of a
// core (all of them six at a time: 108 s, 140 % of a core), so in the suite's own slots they held
// a slot idle most of the time (the suite took 787 s with them, on a fresh clone). Then the load
// tests with the machine to themselves:
// the soak and the growth test side by side (neither judges latency: the soak judges what was
// kept and what the replay says, the growth test the server's memory after full collections),
// and beside them the mixed abuse test (two minutes of attacks; it judges its own server's memory
// after quiet, and its honest client's answers by a loose bound, 90% within 2 s). Measured side by
// side: its slowest answer 1.1 s (0.5 s alone), the soak's orders 4 262 (floor 1 000; 7 087 beside
// the growth test alone), the growth test 216 s (195 s); the three in 220 s, where the abuse test
// after the overload test would add some 130 s. Then the overload test alone, whose probe's p99 a
// neighbouring test's CPU would be measured with.
//
// What it prints: a line per test file as it ends (on a terminal, one line rewritten in place
// and only the files that failed kept), then each failure named with what went wrong, the time
// of each part, and last `N passed, N failed` over the whole run (scripts/tap-summary.mjs). The
// full TAP of the run is kept in .tap/npm-test.tap; `npm test -- --full` prints it as it comes.
//
// The tests run compiled, each file in a node process of its own (scripts/test-runner.mjs, not
// tap's runner, whose coverage hooks every process paid for): npm's pretest built dist/
// (scripts/build.mjs, tests included), and the files run from dist/test without the TypeScript
// loader, whose module hooks run on a thread of their own, a round trip for every module a
// process loads. The threads their servers start (the engine worker, the journal and snapshot
// threads, the verification pool) start from the build too (src/thread-start.ts,
// PREDEX_THREADS_FROM_BUILD). The jobs and the timeout of a file are package.json's tap config's,
// and the suite is what its include and exclude name. Files are named by their sources in what
// this prints (dist/test/x.test.js is test/x.test.ts); run one from its source with
// `npx tap test/x.test.ts`. `--only=<folders>` runs one kind (the test:* scripts).
import { spawn } from 'node:child_process'
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { closingLines, summarize } from './tap-summary.mjs'
import { runFiles } from './test-runner.mjs'

const TAP_CONFIG = JSON.parse(readFileSync('package.json', 'utf8')).tap
const LOAD_TESTS_SIDE_BY_SIDE = ['soak/soak', 'soak/growth', 'soak/mixed-abuse'].map(builtTest)
const LOAD_TESTS_ALONE = [builtTest('overload/overload')]
const CHAIN_TESTS = testsUnder('dist/test/chain')
/** The chain tests at once beside the suite: they wait on blocks, each using a quarter of a core (measured). */
const CHAIN_JOBS = 3
const LOG_PATH = '.tap/npm-test.tap'
/**
 * `--only=test/unit,src`: just the compiled test files under those folders, the suite's jobs at
 * a time (npm run test:unit and the other kinds); otherwise the whole run below.
 */
const ONLY = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length).split(',') ?? null
// tap's config (package.json) excludes the load and chain tests from the suite; named, they run.
// The parts of a step run at the same time; the steps one after another.
const STEPS = ONLY !== null ? [[{ name: ONLY.join(', '), files: ONLY.flatMap(existingTestsUnder), jobs: TAP_CONFIG.jobs }]] : [
  [{ name: 'suite', files: suiteFiles(), jobs: TAP_CONFIG.jobs },
    { name: 'chain tests beside it', files: CHAIN_TESTS, jobs: CHAIN_JOBS }],
  [{ name: 'load tests side by side', files: LOAD_TESTS_SIDE_BY_SIDE, jobs: LOAD_TESTS_SIDE_BY_SIDE.length }],
  [{ name: 'overload test alone', files: LOAD_TESTS_ALONE, jobs: 1 }],
]
// A file's own line: `ok 12 - test/x.test.ts # time=1234.5ms` (its tests are indented under it).
const FILE_POINT = /^(not )?ok \d+ - (\S+)(?: # (?:time=([\d.]+)ms|(.*)))?$/

// TAP: a file prints TAP (no reporter); TAP_TIMEOUT: tap's own timeout of a test, in seconds.
const CHILD_ENV = { ...process.env, PREDEX_THREADS_FROM_BUILD: '1', TAP: '1', TAP_TIMEOUT: String(TAP_CONFIG.timeout) }
const full = process.argv.includes('--full')
const terminal = process.stdout.isTTY === true && !full
mkdirSync('.tap', { recursive: true })
const log = createWriteStream(LOG_PATH)
const ran = []

// tap builds its test class for the configured plugins on first use; two runs at once on a fresh
// clone raced on that build (one failed: ENOENT in .tshy-build), so it is built first, alone.
await buildTap()
let total = 0
for (const step of STEPS) {
  const stepStartedMs = Date.now()
  ran.push(...await Promise.all(step.map(async (part) => {
    const startedMs = Date.now()
    const lines = []
    const status = await runPart(part, lines)
    return { name: part.name, seconds: (Date.now() - startedMs) / 1000, status, counts: summarize(lines) }
  })))
  total += (Date.now() - stepStartedMs) / 1000
}
clearStatus()
await new Promise((resolve) => log.end(resolve))
const counts = ran.map(countsOf).reduce(sum)
console.log(`\n${ran.map((p) => `${p.name} ${p.seconds.toFixed(0)} s`).join(', ')}; ${total.toFixed(0)} s in all`)
console.log(`Full TAP output: ${LOG_PATH}`)
for (const line of closingLines(counts)) console.log(line)
process.exit(counts.failed > 0 ? 1 : 0)

/**
 * A part's counts, where a part that failed without a failing test (no file to run) is one
 * failure, named: a run that did not happen is not a pass.
 */
function countsOf({ name, status, counts }) {
  if (status === 0 || counts.failed > 0) return counts
  const failure = `- ${name}: ended with status ${status} without a failing test (no test file? its output: ${LOG_PATH})`
  return { ...counts, failed: 1, failures: [...counts.failures, failure] }
}

function sum(a, b) {
  const total = { failures: [...a.failures, ...b.failures] }
  for (const key of ['passed', 'failed', 'todo', 'skipped']) total[key] = a[key] + b[key]
  return total
}

/** `tap build`, its output to the log; exits when it fails, naming it (nothing could run). */
async function buildTap() {
  const child = spawn('npx', ['tap', 'build'], { stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout.on('data', (chunk) => log.write(chunk))
  child.stderr.on('data', (chunk) => log.write(chunk))
  const status = await new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))))
  if (status === 0) return
  console.log(`tap build failed with status ${status} (its output: ${LOG_PATH}): no test ran`)
  await new Promise((resolve) => log.end(resolve))
  process.exit(1)
}

/** Runs one part's files, keeping their TAP and reporting each file as it ends; resolves 0 when all passed. */
async function runPart({ name, files, jobs }, lines) {
  const filesDone = { count: 0 }
  if (files.length === 0) return 1
  const onStderr = (chunk) => {
    log.write(chunk)
    if (full) process.stderr.write(chunk)
  }
  const failed = await runFiles({ files, jobs, timeoutMs: TAP_CONFIG.timeout * 1000, env: CHILD_ENV, nameOf: sourceName,
    onLine: (line) => onLine(line, lines, name, filesDone), onStderr })
  return failed === 0 ? 0 : 1
}

function onLine(line, lines, partName, filesDone) {
  log.write(`${line}\n`)
  lines.push(line)
  if (full) return void console.log(line)
  const point = FILE_POINT.exec(line)
  if (!point) return
  filesDone.count++
  const failing = point[1] !== undefined
  const seconds = point[3] === undefined ? '' : `${(Number(point[3]) / 1000).toFixed(1)} s`
  const text = `${failing ? 'FAIL' : 'ok  '} ${seconds.padStart(8)}  ${point[2]}${point[4] ? ` # ${point[4]}` : ''}`
  if (!terminal) return void console.log(text)
  clearStatus()
  if (failing) console.log(text)
  process.stdout.write(`${partName}: ${filesDone.count} files done, last ${point[2]}`.slice(0, process.stdout.columns - 1))
}

function clearStatus() {
  if (terminal) process.stdout.write('\r\x1b[2K')
}

/** The compiled test file of `name` (its path under test/, without `.test.ts`). */
function builtTest(name) {
  return `dist/test/${name}.test.js`
}

/** A compiled test file's source (dist/test/x.test.js -> test/x.test.ts). */
function sourceName(file) {
  return file.replace(/^dist\//, '').replace(/\.js$/, '.ts')
}

/** The compiled test files under the build of `dir` (a folder of the repository), or none. */
function existingTestsUnder(dir) {
  const built = join('dist', dir.replace(/\/+$/, ''))
  return existsSync(built) ? testsUnder(built) : []
}

/** The compiled test files under `dir`, sorted. */
function testsUnder(dir) {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.test.js'))
    .map((name) => join(dir, name)).sort()
}

/**
 * The suite: the compiled test files that tap's config includes (test/ and src/ folders, compiled
 * under dist/) less those its excludes name by folder (`test/soak/**`: the load and chain tests).
 */
function suiteFiles() {
  const roots = TAP_CONFIG.include.map((pattern) => pattern.split('/')[0])
  const excluded = TAP_CONFIG.exclude.filter((pattern) => /^(test|src)\/.*\/\*\*$/.test(pattern))
    .map((pattern) => `dist/${pattern.slice(0, -'/**'.length)}/`)
  return [...new Set(roots)].flatMap(existingTestsUnder).filter((file) => !excluded.some((dir) => file.startsWith(dir)))
}
