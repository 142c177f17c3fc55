// npm test: the suite three files at a time (package.json's tap.jobs: part of a file's time is
// waiting on servers, loopback and timers), then the load tests with the machine to themselves:
// the soak and the growth test side by side (neither judges latency: the soak judges what was
// kept and what the replay says, the growth test the server's memory after full collections),
// then the overload test alone, whose probe's p99 a neighbouring test's CPU would be measured with.
// Arguments (such as --reporter=tap) go to every run.
import { spawnSync } from 'node:child_process'

const LOAD_TESTS_SIDE_BY_SIDE = ['test/soak/soak.test.ts', 'test/soak/growth.test.ts']
const LOAD_TESTS_ALONE = ['test/overload/overload.test.ts']
const args = process.argv.slice(2)
const run = (extra) => spawnSync('npx', ['tap', ...args, ...extra], { stdio: 'inherit' }).status ?? 1
// tap's config (package.json) excludes the load tests from the parallel run; named, they run.
const suite = run([])
const sideBySide = run(['--jobs=2', ...LOAD_TESTS_SIDE_BY_SIDE])
const alone = run(['--jobs=1', ...LOAD_TESTS_ALONE])
process.exit([suite, sideBySide, alone].find((status) => status !== 0) ?? 0)
