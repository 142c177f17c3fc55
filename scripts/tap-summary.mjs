// The closing count of a tap run (`tap --reporter=tap`), `N passed, N failed`, counting the tests
// of each test file (the subtests and assertions directly inside a file). A file that failed
// without a failing test inside it (a crash, a timeout) counts as one failed test. TODO and SKIP
// points are counted apart: neither passed nor failed, as tap counts them.
//
// It also names each failure (file > subtest > assertion) with the start of its diagnostic: the
// end of a run is what a terminal and CI keep, and a failure in the main suite is printed long
// before the load tests' output. A failure is named where it happened, not again for each
// enclosing subtest that failed because of it.
//
// Used by scripts/test.mjs over the TAP of all its parts; as a command it reads a saved stream:
//   node scripts/tap-summary.mjs <file.tap>
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

const FAILURES_SHOWN_MAX = 8
const DIAGNOSTIC_LINES_MAX = 6
// Where a failure is (the name says it) and how tap ran the file: not what went wrong.
const DIAGNOSTIC_KEYS_HIDDEN = /^(at|stack|source|stdio|cwd|externalID|command|args):/
const POINT = /^((?: {4})*)(not )?ok \d+ - (.*?)(?: # (TODO|SKIP|time=)(.*))?$/i
const SUBTEST = /^((?: {4})*)# Subtest: (.*)$/

/** Counts and failures of a TAP stream's lines: { passed, failed, todo, skipped, failures: string[] }. */
export function summarize(lines) {
  const count = { passed: 0, failed: 0, todo: 0, skipped: 0 }
  let fileFailures = 0
  const names = [] // names[d]: the subtest opened at depth d (names[0] is the file)
  const failedWithin = [] // failedWithin[d]: a failure was seen at depth d since its subtest opened
  const failures = []
  lines.forEach((line, index) => {
    const subtest = SUBTEST.exec(line)
    if (subtest) {
      const depth = subtest[1].length / 4
      names[depth] = subtest[2]
      failedWithin[depth + 1] = false
    }
    const point = POINT.exec(line)
    if (!point) return
    const depth = point[1].length / 4
    const directive = (point[4] ?? '').toUpperCase()
    const deferred = directive === 'TODO' || directive === 'SKIP'
    const failing = point[2] !== undefined && !deferred
    if (failing) {
      if (!failedWithin[depth + 1]) failures.push(describe(lines, names.slice(0, depth), point[3], index, point[1]))
      for (let d = 0; d <= depth; d++) failedWithin[d] = true
    }
    failedWithin[depth + 1] = false
    if (depth === 1) {
      if (directive === 'TODO') count.todo++
      else if (directive === 'SKIP') count.skipped++
      else if (failing) {
        fileFailures++
        count.failed++
      } else count.passed++
    } else if (depth === 0) {
      if (failing && fileFailures === 0) count.failed++
      fileFailures = 0
    }
  })
  return { ...count, failures }
}

/** One failure: where it is, and the first lines of what its YAML diagnostic says went wrong. */
function describe(lines, path, name, index, indent) {
  const diagnostic = []
  let shown = true
  if (lines[index + 1]?.trim() === '---') {
    for (let i = index + 2; i < lines.length && lines[i].trim() !== '...'; i++) {
      const text = lines[i].slice(indent.length + 2)
      if (/^\S/.test(text)) shown = !DIAGNOSTIC_KEYS_HIDDEN.test(text)
      if (shown && diagnostic.length < DIAGNOSTIC_LINES_MAX) diagnostic.push(`    ${text}`)
    }
  }
  return [`- ${[...path, name].join(' > ')}`, ...diagnostic].join('\n')
}

/** The closing lines: each failure (the first few), the deferred counts, and `N passed, N failed` last. */
export function closingLines({ passed, failed, todo, skipped, failures }) {
  const out = []
  if (failures.length > 0) {
    out.push('', `Failures (${failures.length}):`)
    out.push(...failures.slice(0, FAILURES_SHOWN_MAX))
    if (failures.length > FAILURES_SHOWN_MAX) out.push(`... and ${failures.length - FAILURES_SHOWN_MAX} more`)
  }
  if (todo + skipped > 0) out.push(`${todo} todo, ${skipped} skipped (neither passed nor failed)`)
  out.push(`${passed} passed, ${failed} failed`)
  return out
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(closingLines(summarize(readFileSync(process.argv[2], 'utf8').split('\n'))).join('\n'))
}
