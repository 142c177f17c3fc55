// npm test's runner of compiled test files (scripts/test.mjs): each file in a node process of its
// own, `jobs` at a time, its TAP nested under a point of its own as tap's runner nests it, so that
// scripts/tap-summary.mjs reads the whole run the same way:
//
//   # Subtest: test/x.test.ts
//       <the file's TAP, indented four spaces>
//   ok 12 - test/x.test.ts # time=1234.5ms
//
// Why not tap's runner: it starts every test process with @tapjs/processinfo's module hooks (for
// coverage, which the suite turns off), and on Node 20 those hooks run on a thread of their own, a
// round trip for every module the process loads. In fresh-clone runs of npm test, the suite's
// part (221 compiled files, three at a time on 2 cores, the chain tests beside it) took 578 s under
// tap's runner and 451 s here (docs/status.md, "How long `npm test` takes"). The test files are
// tap's still: `import t from 'tap'` prints TAP when a file runs alone, as here.
//
// A file passes when its process exits 0. One that runs longer than `timeoutMs` is stopped
// (SIGTERM, then SIGKILL 5 s later) and fails, named as timed out; its stderr goes to `onStderr`.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { performance } from 'node:perf_hooks'
import { clearTimeout, setTimeout } from 'node:timers'

const KILL_AFTER_TERM_MS = 5_000

/**
 * Runs `files` (paths of compiled test files), `jobs` at a time; each line of the nested TAP goes
 * to `onLine` as it comes (a file's lines together, when it ends). Resolves the number of files
 * that failed.
 */
export async function runFiles({ files, jobs, timeoutMs, env, nameOf, onLine, onStderr }) {
  let next = 0
  let failed = 0
  let points = 0
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]
      const run = await runFile(file, timeoutMs, env, onStderr)
      const name = nameOf(file)
      onLine(`# Subtest: ${name}`)
      for (const line of run.lines) onLine(line === '' ? '' : `    ${line}`)
      const ok = run.status === 0
      if (!ok) failed++
      const time = `# time=${run.ms.toFixed(1)}ms`
      onLine(`${ok ? 'ok' : 'not ok'} ${++points} - ${name} ${time}`)
      if (!ok) for (const line of diagnostic(file, run)) onLine(line)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker))
  onLine(`1..${points}`)
  return failed
}

/** One file's run: its stdout lines, exit status (1 for a signal), whether it timed out, its time. */
function runFile(file, timeoutMs, env, onStderr) {
  const startedMs = performance.now()
  const child = spawn(process.execPath, ['--enable-source-maps', file], { stdio: ['ignore', 'pipe', 'pipe'], env })
  const lines = []
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line))
  child.stderr.on('data', (chunk) => onStderr(chunk))
  let timedOut = false
  let kill = null
  const timer = setTimeout(() => {
    timedOut = true
    child.kill('SIGTERM')
    kill = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_TERM_MS)
  }, timeoutMs)
  return new Promise((resolve) => child.on('close', (code, signal) => {
    clearTimeout(timer)
    if (kill !== null) clearTimeout(kill)
    const status = timedOut ? 1 : code ?? (signal ? 1 : 0)
    resolve({ lines, status, code, signal, timedOut, ms: performance.now() - startedMs })
  }))
}

/** The YAML block under a failed file's point: how its process ended (tap-summary shows its start). */
function diagnostic(file, run) {
  const why = run.timedOut ? `timed out after ${run.ms.toFixed(0)} ms` : `exited with ${run.code ?? run.signal}`
  return ['  ---', `  reason: ${why}`, `  file: ${file}`, '  ...']
}
