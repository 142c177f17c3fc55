/**
 * Bounded growth (issue 14): a whole server in one process (engine worker, journal, read model,
 * read store, fan-out) takes 1 000 000 commands of a steady stream whose live state stays the same
 * size (bench/growth.ts: mints into trades, rests and cancels), and its own memory (RssAnon: every
 * thread's heap and native allocations) must be flat after warm-up. Judged by the level of a
 * quarter of the run, its median sample, from the third quarter to the last (250 000 commands
 * apart; ANON_LATE_RISE_MB_MAX says why not from the second): samples follow a full collection in every thread (main, engine worker, journal thread,
 * snapshot replica), yet V8's pool of committed free pages
 * moves each by 20-50 MB either way, and a slope fitted to them read -11 to 78 bytes per command
 * over nine runs of the same flat server. (The least sample of a quarter was tried first: a single
 * low sample in the second quarter made a flat run read 17 MB, near the bound.) The
 * whole resident set is not judged: it also counts the LMDB files' pages mapped in, the kernel's
 * page cache.
 *
 * The data directory is made with --ended-orders-retained 20 000, a bound the run passes after
 * some 27 000 commands: with the default (4 M ended ids, about 130 bytes each) the engine's
 * memory of ended orders would still be growing at 1 M commands, by design. --durability async:
 * the subject is memory, and without an fsync per batch the run takes about 4 minutes, not 15.
 * Before the read model moved to disk this run grew by about 2.2 KB per command.
 *
 *   GROWTH_COMMANDS=<n> npx tap test/soak/growth.test.ts
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { ensureBuilt, freshCompiled } from '../support/compiled.js'

const COMMANDS = Number(process.env.GROWTH_COMMANDS ?? 1_000_000)
/** The run's own bound: about 5 000 commands a second here; a slow machine gets four times that. */
const RUN_MS_MAX = (COMMANDS / 1_250 + 60) * 1000
// tap's 300 s per file would end the run first: it took 212-249 s in quiet fresh-clone runs and
// passed 300 s in one beside other work, failing a run the test's own bound allows.
t.setTimeout(RUN_MS_MAX + 60_000)
/**
 * Own memory's median, last quarter over the third (250 000 commands apart): 64 bytes per command.
 * It was the last quarter over the second (500 000 commands, 24 MB: 48 bytes per command), and a
 * fresh server's fill sometimes lasts into the second quarter: over 18 fresh-clone CI runs of
 * 2026-11-29 that rise read -9 to 36 MB, three of them past 24. In the last (2026-11-29 13:22,
 * samples of 25 000 commands) own memory went 231 -> 360 MB over the first quarter, 360 -> 395 in
 * the second, then stayed at 387-411 (the last quarter over the third: 4 MB; a slope over the second
 * half: 2 bytes per command). What a fresh server filled for so long was its isolates' young generations
 * growing (YOUNG_GENERATION_FIXED, below); the rise over the second quarter is still reported.
 */
const ANON_LATE_RISE_MB_MAX = 16
/** The V8 heaps' live objects' median (both threads), likewise: 16 bytes per command. */
const HEAPS_USED_MEDIAN_RISE_MB_MAX = 8
/**
 * Own memory at the end (the last quarter's median) above the first sample after warm-up (bench/growth.ts,
 * WARM_UP_COMMANDS: the first snapshots and retention pass have run). Judged from the first sample, after
 * 50 000 commands, it failed a flat run once the snapshot replica came (issue 29): its first snapshot raised
 * own memory by 60-90 MB once (256 -> 345 MB), and a single last sample moved 50 MB either way.
 */
const GROWTH_MB_MAX = 64
/**
 * Every isolate's young generation at its full size from the start (16 MB a semi-space, V8's default
 * maximum here: `node -p "v8.getHeapStatistics().heap_size_limit"` reads the same with and without
 * the flag), V8 flags every worker isolate takes too. Without it each of the five isolates (main,
 * engine worker, journal thread, replica, signature worker) grows its new space from 1 MB as its
 * allocation goes on, over more commands the busier the machine: the fill that "lasts into the second quarter"
 * above. Its committed pages are bounded by V8's configuration, not by history, yet they failed a
 * fresh-clone CI run (2026-11-30: own memory 269 MB after warm-up, 347 in the last quarter, bound
 * 64). Three runs here, the same stream: unfixed, own memory rose 21 MB from warm-up (225 000
 * commands) to the last quarter and 131 from the first sample; fixed, 3 MB and 52 (the rest of the
 * fill is over by 100 000 commands); MALLOC_ARENA_MAX=2 changed little (17 and 116).
 */
const YOUNG_GENERATION_FIXED = ['--min-semi-space-size=16', '--max-semi-space-size=16']

interface GrowthReport {
  readonly commands: number
  readonly trades: number
  readonly open_orders: number
  readonly anon_start_mb: number
  readonly anon_end_mb: number
  readonly anon_warm_mb: number
  readonly anon_last_quarter_mb: number
  readonly bytes_per_command: number
  readonly anon_median_rise_mb: number
  readonly anon_late_rise_mb: number
  readonly heaps_used_median_rise_mb: number
  readonly heaps_committed_late_rise_mb: number
  readonly external_late_rise_mb: number
  readonly rss_bytes_per_command: number
  readonly collected: boolean
  readonly threads_last_sample: readonly string[]
}

function runGrowth(): Promise<GrowthReport> {
  ensureBuilt()
  const script = freshCompiled('bench/growth.js', ['src', 'bench', 'scripts'])
  if (script === null) throw new Error('dist/bench/growth.js is missing after the build')
  const child = spawn(process.execPath, ['--expose-gc', ...YOUNG_GENERATION_FIXED, script, '--commands', String(COMMANDS),
    '--ended-orders-retained', '20000', '--durability', 'async', '--json'],
  // Without tap's NODE_OPTIONS (its process-info hook in every thread): the subject is the server's memory.
  { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4_000) })
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_MS_MAX)
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      clearTimeout(timer)
      try {
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as GrowthReport)
      } catch {
        reject(new Error(`bench/growth printed no report (exit ${code}): ${stderr}`))
      }
    })
  })
}

t.test(`${COMMANDS} commands: the server's own memory is flat after warm-up`, async (t) => {
  const report = await runGrowth()
  t.comment(JSON.stringify(report))
  t.equal(report.commands, COMMANDS)
  t.ok(report.trades >= COMMANDS / 5, `the stream really traded (${report.trades} trades)`)
  // Without a full collection in the engine worker too, its garbage made the slope jitter past the bound
  // (95 and 242 bytes per command in two suite runs, flat in others).
  t.ok(report.collected, 'every sample followed a full collection in every thread')
  // The replica (a second engine) is the largest heap besides the worker's: it must be in the figure.
  t.same(report.threads_last_sample, ['engine', 'journal', 'snapshot'], 'the last sample counts the engine\'s threads')
  t.equal(report.open_orders, 0, 'and cancelled what it rested: the live state stayed the same size')
  t.ok(report.anon_late_rise_mb <= ANON_LATE_RISE_MB_MAX, `own memory's median rose ${report.anon_late_rise_mb} `
    + `MB from the third quarter to the last (at most ${ANON_LATE_RISE_MB_MAX}; from the second: `
    + `${report.anon_median_rise_mb} MB; a slope fitted over the second half: ${report.bytes_per_command} bytes per `
    + `command, the whole resident set's, page cache included: ${report.rss_bytes_per_command}; of the rise, the V8 `
    + `heaps' pages in memory ${report.heaps_committed_late_rise_mb} MB and external memory `
    + `${report.external_late_rise_mb} MB, the rest native)`)
  t.ok(report.heaps_used_median_rise_mb <= HEAPS_USED_MEDIAN_RISE_MB_MAX, `the V8 heaps' live objects' median rose `
    + `${report.heaps_used_median_rise_mb} MB likewise (at most ${HEAPS_USED_MEDIAN_RISE_MB_MAX})`)
  t.ok(report.anon_last_quarter_mb - report.anon_warm_mb <= GROWTH_MB_MAX, `own memory ${report.anon_warm_mb} MB `
    + `after warm-up, ${report.anon_last_quarter_mb} MB in the last quarter (its median; at most ${GROWTH_MB_MAX} MB `
    + `more; ${report.anon_start_mb} MB at the first sample, ${report.anon_end_mb} MB at the last)`)
})
