// npm test: the suite three files at a time (package.json's tap.jobs: part of a file's time is
// waiting on servers, loopback and timers), then the load tests with the machine to themselves:
// the soak and the growth test side by side (neither judges latency: the soak judges what was
// kept and what the replay says, the growth test the server's memory after full collections),
// and beside them the mixed abuse test (two minutes of attacks; it judges its own server's memory
// after quiet, and its honest client's answers by a loose bound, 90% within 2 s). Measured side by
// side: its slowest answer 1.1 s (0.5 s alone), the soak's orders 4 262 (floor 1 000; 7 087 beside
// the growth test alone), the growth test 216 s (195 s); the three in 220 s, where the abuse test
// after the overload test would add some 130 s. Then the overload test alone, whose probe's p99 a
// neighbouring test's CPU would be measured with.
// Arguments (such as --reporter=tap) go to every run.
import { spawnSync } from 'node:child_process'

const LOAD_TESTS_SIDE_BY_SIDE = ['test/soak/soak.test.ts', 'test/soak/growth.test.ts', 'test/soak/mixed-abuse.test.ts']
const LOAD_TESTS_ALONE = ['test/overload/overload.test.ts']
const args = process.argv.slice(2)
const run = (extra) => spawnSync('npx', ['tap', ...args, ...extra], { stdio: 'inherit' }).status ?? 1
// tap's config (package.json) excludes the load tests from the parallel run; named, they run.
const suite = run([])
const sideBySide = run([`--jobs=${LOAD_TESTS_SIDE_BY_SIDE.length}`, ...LOAD_TESTS_SIDE_BY_SIDE])
const alone = run(['--jobs=1', ...LOAD_TESTS_ALONE])
process.exit([suite, sideBySide, alone].find((status) => status !== 0) ?? 0)
