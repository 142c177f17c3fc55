// Reads the TAP stream that `npm test -- --reporter=tap` printed and writes the closing line
// CI reads, `N passed, N failed`, counting the tests of each test file (the subtests and
// assertions directly inside a file). A file that failed without a failing test inside it (a
// crash, a timeout) counts as one failed test.
//
// Before that line it names each failure (file > subtest > assertion) with the start of its
// diagnostic: CI keeps only the end of a run's output, and a failure in the main suite is
// printed long before the load tests' output that ends it. A failure is named where it
// happened, not again for each enclosing subtest that failed because of it.
import { readFileSync } from 'node:fs'

const FAILURES_SHOWN_MAX = 8
const DIAGNOSTIC_LINES_MAX = 6
// Where a failure is (the name says it) and how tap ran the file: not what went wrong.
const DIAGNOSTIC_KEYS_HIDDEN = /^(at|stack|source|stdio|cwd|externalID|command|args):/

const lines = readFileSync(process.argv[2], 'utf8').split('\n')
let passed = 0
let failed = 0
let fileFailures = 0
const names = [] // names[d]: the subtest opened at depth d (names[0] is the file)
const failedWithin = [] // failedWithin[d]: a failure was seen at depth d since its subtest opened
const failures = []

lines.forEach((line, index) => {
  const point = /^((?: {4})*)(not )?ok \d+ - (.*?)(?: # (TODO|SKIP|time=).*)?$/i.exec(line)
  const subtest = /^((?: {4})*)# Subtest: (.*)$/.exec(line)
  if (subtest) {
    const depth = subtest[1].length / 4
    names[depth] = subtest[2]
    failedWithin[depth + 1] = false
  }
  if (!point) return
  const depth = point[1].length / 4
  const deferred = /^(TODO|SKIP)$/i.test(point[4] ?? '') // tap counts these apart: neither passed nor failed
  const failing = point[2] !== undefined && !deferred
  if (failing) {
    if (!failedWithin[depth + 1]) failures.push(describe(names.slice(0, depth), point[3], index, point[1]))
    for (let d = 0; d <= depth; d++) failedWithin[d] = true
  }
  failedWithin[depth + 1] = false
  if (depth === 1 && !deferred) {
    if (failing) fileFailures++
    if (failing) failed++
    else passed++
  } else if (depth === 0) {
    if (failing && fileFailures === 0) failed++
    fileFailures = 0
  }
})

/** One failure: where it is, and the first lines of what its YAML diagnostic says went wrong. */
function describe(path, name, index, indent) {
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

if (failures.length > 0) {
  console.log(`\nFailures (${failures.length}):`)
  for (const failure of failures.slice(0, FAILURES_SHOWN_MAX)) console.log(failure)
  if (failures.length > FAILURES_SHOWN_MAX) console.log(`... and ${failures.length - FAILURES_SHOWN_MAX} more`)
}
console.log(`${passed} passed, ${failed} failed`)
