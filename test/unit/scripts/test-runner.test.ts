/**
 * npm test's runner (scripts/test-runner.mjs): each file in a process of its own, its TAP nested
 * under a point of its own as tap's runner nests it (scripts/tap-summary.mjs then counts the
 * file's tests), a file failing when its process exits non-zero or runs past the timeout.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { ROOT } from '../../support/compiled.js'

interface RunOptions {
  files: string[]
  jobs: number
  timeoutMs: number
  env: NodeJS.ProcessEnv
  nameOf: (file: string) => string
  onLine: (line: string) => void
  onStderr: (chunk: Buffer) => void
}
type Summary = { passed: number; failed: number; failures: string[] }
const { runFiles } = await import(pathToFileURL(join(ROOT, 'scripts', 'test-runner.mjs')).href) as {
  runFiles: (options: RunOptions) => Promise<number> }
const { summarize } = await import(pathToFileURL(join(ROOT, 'scripts', 'tap-summary.mjs')).href) as {
  summarize: (lines: string[]) => Summary }

const FILES = {
  'passes.mjs': "console.log('TAP version 14\\nok 1 - one\\nok 2 - two\\n1..2')",
  'fails.mjs': "console.log('TAP version 14\\nok 1 - one\\nnot ok 2 - two\\n1..2'); process.exitCode = 1",
  'crashes.mjs': "console.log('TAP version 14\\nok 1 - one'); console.error('boom'); process.exit(3)",
  'hangs.mjs': "console.log('TAP version 14'); setInterval(() => {}, 1000)",
}

async function run(dir: string, names: string[], timeoutMs = 20_000): Promise<{ failed: number; lines: string[]; stderr: string }> {
  const lines: string[] = []
  let stderr = ''
  const failed = await runFiles({ files: names.map((name) => join(dir, name)), jobs: 2, timeoutMs, env: process.env,
    nameOf: (file) => file.slice(dir.length + 1), onLine: (line) => lines.push(line),
    onStderr: (chunk) => void (stderr += chunk.toString()) })
  return { failed, lines, stderr }
}

t.test("each file's TAP nested under its own point; the tap summary counts each file's tests", async (t) => {
  const dir = t.testdir(FILES)
  const { failed, lines, stderr } = await run(dir, ['passes.mjs', 'fails.mjs', 'crashes.mjs'])
  t.equal(failed, 2, 'the file that failed a test and the one that crashed')
  t.ok(lines.includes('# Subtest: passes.mjs') && lines.includes('    ok 2 - two'), 'nested four spaces under its subtest')
  t.ok(lines.some((line) => /^ok \d - passes\.mjs # time=[\d.]+ms$/.test(line)), 'a passing file: ok with its time')
  t.ok(lines.some((line) => /^not ok \d - crashes\.mjs /.test(line)), 'a crash fails its file')
  t.ok(lines.includes('  reason: exited with 3'), 'and says how it ended')
  t.equal(lines.at(-1), '1..3', 'the plan closes the run')
  t.match(stderr, /boom/, 'stderr goes to the caller')
  const summary = summarize(lines)
  t.same([summary.passed, summary.failed], [4, 2], 'passed: 2 + 1 + 1 (the crashed file\'s first); failed: a test, a crash')
})

t.test('a file past the timeout is stopped and fails, named as timed out', async (t) => {
  const dir = t.testdir(FILES)
  const started = Date.now()
  const { failed, lines } = await run(dir, ['hangs.mjs'], 500)
  t.equal(failed, 1)
  t.ok(lines.some((line) => /^ {2}reason: timed out after \d+ ms$/.test(line)), 'timed out')
  t.ok(Date.now() - started < 10_000, 'stopped, not waited for')
})
