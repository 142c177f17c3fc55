/**
 * The runtime check of `npm start` (src/runtime.ts): Node 20 on Linux x64 runs; another Node
 * (no uWS binary, or one without the underscore-header patch) or another platform (unpatched
 * binary) is refused with a sentence that names what it is and what Predex needs.
 */
import t from 'tap'
import { currentRuntime, runtimeProblem, type Runtime } from '../../src/runtime.js'

const NODE_20_LINUX: Runtime = { nodeVersion: 'v20.19.0', moduleAbi: '115', platform: 'linux', arch: 'x64' }

t.test('Node 20 on Linux x64 runs', async (t) => {
  t.equal(runtimeProblem(NODE_20_LINUX), null)
})

t.test('another Node is refused, named', async (t) => {
  for (const [nodeVersion, moduleAbi] of [['v22.12.0', '127'], ['v24.1.0', '137'], ['v18.20.0', '108']] as const) {
    const problem = runtimeProblem({ ...NODE_20_LINUX, nodeVersion, moduleAbi })
    t.match(problem, new RegExp(`Node\\.js 20 only, and this is Node\\.js ${nodeVersion.replaceAll('.', '\\.')}`))
  }
})

t.test('another platform is refused, named', async (t) => {
  t.match(runtimeProblem({ ...NODE_20_LINUX, platform: 'darwin', arch: 'arm64' }), /Linux x64 only, and this is darwin arm64/)
  t.match(runtimeProblem({ ...NODE_20_LINUX, arch: 'arm64' }), /this is linux arm64/)
})

t.test('this machine is one Predex runs on (the suite runs here)', async (t) => {
  t.equal(runtimeProblem(currentRuntime()), null, JSON.stringify(currentRuntime()))
})
