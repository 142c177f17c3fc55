/**
 * npm test's closing lines (scripts/tap-summary.mjs): the count of each file's tests, TODO and
 * SKIP apart, and, because a terminal and CI keep only the end of a run's output, each failure
 * named where it happened with what its diagnostic says went wrong. On a made-up TAP stream in
 * the shape tap prints.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

const TAP = `TAP version 14
1..2
# Subtest: test/a.test.ts
    # Subtest: outer
        ok 1 - fine
        # Subtest: inner
            not ok 1 - one is two
              ---
              compare: ===
              at:
                fileName: test/a.test.ts
              diff: |
                -2
                +1
              ...
            1..1
        not ok 2 - inner # time=70.8ms
        not ok 3 - later # TODO not yet
        1..3
    not ok 1 - outer # time=99.9ms
    ok 2 - passes
    not ok 3 - to do # TODO not yet
    1..3
not ok 1 - test/a.test.ts # time=152.7ms
# Subtest: test/b.test.ts
    1..0
not ok 2 - test/b.test.ts # time=5533.0ms
  ---
  exitCode: 1
  signal: null
  cwd: /work
  ...
`

function summary(tap: string, dir: string): string[] {
  const path = join(dir, 'run.tap')
  writeFileSync(path, tap)
  return execFileSync(process.execPath, ['scripts/tap-summary.mjs', path], { encoding: 'utf8' }).trim().split('\n')
}

t.test('counts each file’s tests, a TODO as neither, a crashed file as one failure', async (t) => {
  const out = summary(TAP, t.testdir())
  t.equal(out.at(-1), '1 passed, 2 failed')
  t.equal(out.at(-2), '1 todo, 0 skipped (neither passed nor failed)')
})

t.test('a skipped test is counted apart, in a run of several parts', async (t) => {
  const part = (file: string, point: string): string =>
    `TAP version 14\n# Subtest: ${file}\n    ${point}\n    1..1\nok 1 - ${file}\n`
  const out = summary(part('test/d.test.ts', 'ok 1 - later # SKIP no chain here') + part('test/e.test.ts', 'ok 1 - fine'),
    t.testdir())
  t.same(out, ['0 todo, 1 skipped (neither passed nor failed)', '1 passed, 0 failed'])
})

t.test('names each failure once, where it happened, with what went wrong but not where', async (t) => {
  const out = summary(TAP, t.testdir()).join('\n')
  t.match(out, 'Failures (2):')
  t.match(out, '- test/a.test.ts > outer > inner > one is two\n    compare: ===\n    diff: |\n      -2\n      +1\n')
  t.notMatch(out, 'fileName', 'not where (the name says it)')
  t.notMatch(out, '> outer\n', 'not again for the subtests that failed because of it')
  t.match(out, '- test/b.test.ts\n    exitCode: 1\n    signal: null\n', 'a file that crashed, with how it ended')
  t.notMatch(out, 'cwd', 'but not how tap ran it')
  t.notMatch(out, 'TODO', 'a TODO is not a failure')
})

t.test('a green run names nothing', async (t) => {
  const out = summary('TAP version 14\n# Subtest: test/c.test.ts\n    ok 1 - fine\n    1..1\nok 1 - test/c.test.ts\n', t.testdir())
  t.same(out, ['1 passed, 0 failed'])
})
