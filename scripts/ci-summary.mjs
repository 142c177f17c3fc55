// Reads the TAP stream that `npm test -- --reporter=tap` printed and writes the closing line
// CI reads, `N passed, N failed`, counting the tests of each test file (the subtests and
// assertions directly inside a file). A file that failed without a failing test inside it (a
// crash, a timeout) counts as one failed test.
import { readFileSync } from 'node:fs'

const lines = readFileSync(process.argv[2], 'utf8').split('\n')
let passed = 0
let failed = 0
let fileFailures = 0
for (const line of lines) {
  const inner = /^ {4}(not )?ok \d+/.exec(line)
  if (inner) {
    if (inner[1]) {
      failed++
      fileFailures++
    } else {
      passed++
    }
    continue
  }
  const file = /^(not )?ok \d+ - /.exec(line)
  if (file) {
    if (file[1] && fileFailures === 0) failed++
    fileFailures = 0
  }
}
console.log(`${passed} passed, ${failed} failed`)
