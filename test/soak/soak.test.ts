/**
 * The soak run's short form in the suite (issue 14): `scripts/soak.ts` for 2 minutes (SOAK_MINUTES
 * for longer; SOAK_SEED to replay a seed's choices) against a real server process with kill -9
 * restarts, and each of its verdicts asserted here: acknowledged orders and cancels kept, state
 * hash equal to an independent replay of the journal, no 5xx, WebSocket frames well formed, own
 * memory under its ceiling in every incarnation.
 *
 * Memory flat is reported as a todo here, not asserted: a fresh server fills its bounded caches for
 * some 150 s under this load (own memory 300 -> 540 MB, then flat), and the soak judges the second
 * half of an incarnation of 4 minutes at least, which a 2-minute run with kills has not. It is
 * asserted by `npm run soak -- --minutes 8 --quiet-minutes 5` (docs/operations.md, "Memory"), and
 * for 1 M commands through one server by test/soak/growth.test.ts.
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { ensureBuilt, freshCompiled } from '../support/compiled.js'

const MINUTES = Number(process.env.SOAK_MINUTES ?? 2)
const SEED = process.env.SOAK_SEED ?? String(Math.floor(Math.random() * 2 ** 31))

interface Summary {
  readonly seed: number
  readonly ok: boolean
  readonly orders_acknowledged: number
  readonly checks: readonly { name: string; ok: boolean; detail: string }[]
}

/** The built soak script: it runs the built server (dist/src/main.js) as its own process. */
function soakScript(): string {
  ensureBuilt()
  const compiled = freshCompiled('scripts/soak.js', ['src', 'scripts', 'bench'])
  if (compiled === null) throw new Error('dist/scripts/soak.js is missing after the build')
  return compiled
}

function runSoak(): Promise<{ code: number | null; summary: Summary }> {
  const child = spawn(process.execPath, [soakScript(), '--minutes', String(MINUTES), '--seed', SEED, '--json'],
    { stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  // Bounded: the run plus the setup, the last restart and the replay, with room for a slow machine.
  const timer = setTimeout(() => child.kill('SIGKILL'), (MINUTES * 60 + 150) * 1000)
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      clearTimeout(timer)
      const last = stdout.trim().split('\n').at(-1) ?? ''
      try {
        resolve({ code, summary: JSON.parse(last) as Summary })
      } catch {
        reject(new Error(`the soak printed no summary (exit ${code}): ${stdout.slice(-2_000)}`))
      }
    })
  })
}

t.test(`soak: ${MINUTES} min of mixed load with kill -9 restarts (seed ${SEED})`, async (t) => {
  t.comment(`seed ${SEED}: SOAK_SEED=${SEED} replays this run's choices`)
  const { code, summary } = await runSoak()
  t.ok(summary.orders_acknowledged > 1_000, `the workload really traded (${summary.orders_acknowledged} orders)`)
  for (const check of summary.checks) {
    if (check.name === 'memory flat') {
      // Not judged in 2 minutes: the longest incarnation is still filling its caches (see above).
      t.ok(check.ok, `${check.name}: ${check.detail}`,
        { todo: 'judged by npm run soak -- --minutes 8 --quiet-minutes 5, not by a 2-minute run' })
    } else {
      t.ok(check.ok, `${check.name}: ${check.detail}`)
    }
  }
  t.equal(code, summary.ok ? 0 : 1, 'the exit code says whether every check held')
})
