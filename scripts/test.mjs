// npm test: the suite two files at a time, then the load tests (soak, growth, overload) one at a
// time with the machine to themselves: they measure latency and memory, and a neighbouring test's
// CPU would be measured with them. Arguments (such as --reporter=tap) go to both runs.
import { spawnSync } from 'node:child_process'

const LOAD_TESTS = ['test/soak/soak.test.ts', 'test/soak/growth.test.ts', 'test/overload/overload.test.ts']
const args = process.argv.slice(2)
const run = (extra) => spawnSync('npx', ['tap', ...args, ...extra], { stdio: 'inherit' }).status ?? 1
// tap's config (package.json) excludes the load tests from the parallel run; named, they run.
const suite = run([])
const load = run(['--jobs=1', ...LOAD_TESTS])
process.exit(suite !== 0 ? suite : load)
