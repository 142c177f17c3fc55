/**
 * The committed contract artifacts (src/chain/artifacts) are what their sources compile to
 * (issue 35 point 2): solc-js compiles src/chain/contracts again here, with the script's fixed
 * settings, and every artifact must equal the result byte for byte; the Conditional Tokens
 * artifact must equal Gnosis' published build. An edited source with stale artifacts fails here.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { ROOT } from '../../support/compiled.js'

// A plain ES module script without types, found from the repository's root (this file also runs
// from the build, dist/test, where no copy of it is).
const { compileSources, conditionalTokensArtifact } = await import(
  pathToFileURL(join(ROOT, 'scripts', 'compile-contracts.mjs')).href) as {
  compileSources: () => unknown; conditionalTokensArtifact: () => unknown }

const ARTIFACTS_DIR = join(ROOT, 'src/chain/artifacts')

interface Artifact {
  readonly contractName: string
  readonly bytecode: string
  readonly deployedBytecode: string
}

const committed = new Map<string, Artifact>(readdirSync(ARTIFACTS_DIR).filter((f) => f.endsWith('.json'))
  .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(ARTIFACTS_DIR, f), 'utf8')) as Artifact]))

t.test('each contract compiled from its source equals its committed artifact', async (t) => {
  const compiled = compileSources() as Record<string, Artifact>
  for (const name of ['TestUSDC', 'PredexExchange']) {
    const fresh = compiled[name]
    t.ok(fresh, `${name} is compiled from src/chain/contracts`)
    t.strictSame(committed.get(name), fresh, `${name}: run node scripts/compile-contracts.mjs after editing its source`)
  }
})

t.test('the Conditional Tokens artifact is Gnosis\' published build', async (t) => {
  t.strictSame(committed.get('ConditionalTokens'), conditionalTokensArtifact())
})

t.test('no artifact is left without a contract', async (t) => {
  const compiled = compileSources() as Record<string, Artifact>
  for (const name of committed.keys()) {
    t.ok(name === 'ConditionalTokens' || compiled[name] !== undefined, `${name}.json has a source`)
  }
})
