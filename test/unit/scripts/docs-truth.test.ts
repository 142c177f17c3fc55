/**
 * The docs stay true: every path, npm script, server flag and REST route that README.md, docs/*.md
 * and the other Markdown guides mention exists, and the README's layout map has a line for every
 * folder of src/ (the rules: test/support/docs-check.ts). First the checker is shown to catch
 * each kind of mistake in a small document built to hold one of each (with near misses that must
 * pass); then the real documents are checked, and every finding is printed as `file:line: token`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { allRoutes } from '../../../src/api/rest/routes.js'
import { SERVER_FLAGS } from '../../../src/config.js'
import { checkDocs, findingText, type DocFile, type RepoFacts } from '../../support/docs-check.js'
import { ROOT } from '../../support/compiled.js'


/**
 * Flags of programs other than the server that the docs show: node's, tap's and curl's. The
 * benches' and scripts' own flags are read from their sources (`otherToolFlags`).
 */
const EXTERNAL_FLAGS = [
  '--expose-gc', '--import', '--loader', '--require', '--cpu-prof', '--cpu-prof-dir', // node
  '--trace-gc', '--trace-opt', '--trace-deopt', '--single-threaded-gc', '--no-concurrent-recompilation', // V8, through node
  '--perf-basic-prof', // V8, through node: symbols for Linux perf
  '--max-inlined-bytecode-size', '--max-inlined-bytecode-size-cumulative',
  '--no-lazy-feedback-allocation', '--interrupt-budget', // V8, through node: tried on replay's first pass
  '--timeout', '--jobs', // tap
  '--data', '--max-time', // curl
  '--ignore-scripts', '--omit', // npm
  '--noEmit', // tsc
]

/** Folders whose Markdown is documentation (examples/ and bench/results/ once they have a guide). */
function documents(): DocFile[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)
  const guides = ['README.md', 'examples/README.md', 'bench/results/README.md'].filter((path) => existsSync(join(ROOT, path)))
  return [...guides, ...docs].map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }))
}

/** Files under `folder` (relative to the root) whose name ends in one of `endings`, recursively. */
function filesUnder(folder: string, endings: readonly string[]): string[] {
  const path = join(ROOT, folder)
  if (!existsSync(path)) return []
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => endings.some((ending) => name.endsWith(ending)))
    .map((name) => join(folder, name))
}

/**
 * Every `--flag` written in the benches, scripts and examples, in code or in their usage text: the
 * flags those programs read. Looser than parsing each one's arguments, but a flag no program here
 * names at all (a typo, a renamed server flag) is still caught.
 */
function otherToolFlags(): Set<string> {
  const sources = ['bench', 'scripts', 'examples'].flatMap((folder) => filesUnder(folder, ['.ts', '.mjs', '.js']))
  const flags = new Set(EXTERNAL_FLAGS)
  for (const source of sources) {
    for (const match of readFileSync(join(ROOT, source), 'utf8').matchAll(/(?<![\w-])(--[a-zA-Z][a-zA-Z0-9-]*)/g)) flags.add(match[1]!)
  }
  return flags
}

/** Folders of src/, but not inside generated code (a folder named gen is mapped as one). */
function srcFolders(folder = 'src'): string[] {
  const children = readdirSync(join(ROOT, folder)).map((name) => `${folder}/${name}`)
    .filter((path) => statSync(join(ROOT, path)).isDirectory())
  const inside = children.filter((path) => !path.endsWith('/gen')).flatMap((path) => srcFolders(path))
  return [...children, ...inside].sort()
}

/** Whether a route pattern (`/users/:address`) matches a path from the docs (`/users/$A`). */
function routeMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/')
  const have = path.replace(/\/$/, '').split('/')
  if (pattern === '/') return path === '/'
  return want.length === have.length && want.every((part, index) =>
    part.startsWith(':') ? have[index] !== '' : part === have[index] || have[index]!.startsWith('$'))
}

function hasRoute(method: string, path: string): boolean {
  const compat = path === '/compat' || path.startsWith('/compat/')
  const routePath = compat ? path.slice('/compat'.length) || '/' : path
  return allRoutes.some((route) => route.method === method && (route.surface ?? 'both') !== (compat ? 'native' : 'compat')
    && routeMatches(route.path, routePath))
}

function repoFacts(): RepoFacts {
  const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>
  return { exists: (path) => existsSync(join(ROOT, path)), scripts: new Set(Object.keys(scripts)),
    serverFlags: new Set(SERVER_FLAGS), otherFlags: otherToolFlags(), hasRoute, srcFolders: srcFolders() }
}

const facts = repoFacts()

t.test('the checker reports each kind of untruth, with its line, and lets true mentions pass', async (t) => {
  const broken: DocFile = { path: 'README.md', text: [
    'See `src/engine/rules.ts`, [the host](docs/host.md), src/service/trading/{quotes,order-groups}.ts and `test/simulation/seed-*.test.ts`.',
    'Placeholders are no paths: `bench/results/<date>-<host>.md`, `data/admin-key`, `dist/src/main.js`.',
    'Gone: `src/engine/oldbook.ts` and [old](docs/nothing.md).', // line 3
    '`npm run test:unit`, `test:sim` and `npm run bench -- --quick`; gone: `npm run nope`, `test:nope`.', // line 4
    '`npm start -- --no-demo --log-level debug`; `npm run soak -- --minutes 8`; `node --expose-gc x.js`.',
    '`npm start -- --sig-nicety 0`, and in prose `--frobnicate`.', // line 6
    'curl -s localhost:8080/health; curl -s -X POST localhost:8080/faucet -d "{}"; curl -s "localhost:8080/users/$A/activity"',
    'Open `http://localhost:8080/docs`; compat: `http://127.0.0.1:8080/compat/ok`.',
    'curl -s localhost:8080/nowhere; curl -s -X DELETE localhost:8080/health; curl -s localhost:8080/compat/health', // 9
    '## Layout',
    '```',
    'src/engine/   the engine',
    '```',
  ].join('\n') }
  const fake: RepoFacts = { ...facts, srcFolders: ['src/engine', 'src/ring'] }
  const found = checkDocs([broken], fake).map(findingText)
  t.same(found, [
    'README.md:3: src/engine/oldbook.ts: no such path',
    'README.md:3: docs/nothing.md: no such path',
    'README.md:4: npm run nope: no such script in package.json',
    'README.md:4: npm run test:nope: no such script in package.json',
    'README.md:6: --sig-nicety: not a flag of the server (src/config.ts)',
    'README.md:6: --frobnicate: no program here takes this flag',
    'README.md:9: GET /nowhere: no such REST route',
    'README.md:9: DELETE /health: no such REST route',
    'README.md:9: GET /compat/health: no such REST route',
    'README.md:10: src/ring/: not in the layout map',
  ])
})

t.test('a README without a layout map is reported', async (t) => {
  const found = checkDocs([{ path: 'README.md', text: '# Predex\n' }], facts).map(findingText)
  t.same(found, ['README.md:1: ## Layout: no layout map'])
})

t.test('README.md, docs/*.md and the guides mention only what exists', async (t) => {
  const docs = documents()
  t.ok(docs.some((doc) => doc.path === 'README.md'), 'the README is among the documents checked')
  t.ok(facts.srcFolders.includes('src/api/rest/routes'), 'src/ folders are found, nested ones included')
  const found = checkDocs(docs, facts).map(findingText)
  t.same(found, [], `untrue mentions:\n${found.join('\n')}`)
})
