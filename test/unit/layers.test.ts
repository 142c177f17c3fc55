/**
 * The layers (docs/layers.md): faces translate, services hold the use cases, the engine's
 * rulebook holds each rule once. A face (src/api/**) may use the services, the catalogue, the
 * limits, the auth gate and the engine's rulebook and codes (the edge pre-checks with the same
 * functions the engine runs); it may name the engine's and the host's data types, but it never
 * calls the engine, the host or the journal. A service never imports a face. The web page
 * (src/web, built for the browser) takes from the server's code only types (the API's shapes)
 * and the SDK's exact order arithmetic, which are pure: nothing that needs Node or the server.
 * And no module of src loads itself through others: no value cycle, which makes what a module
 * holds at load time depend on which of the ring was imported first.
 */
import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { ROOT } from '../support/compiled.js'

const SRC = `${ROOT}src/`

/** Modules of the engine a face may import values from: the rulebook and the codes. */
const ENGINE_MODULES_FOR_FACES = ['engine/rules.ts', 'engine/codes.ts']
/** Modules outside src/web the page may import values from: pure arithmetic, no Node. */
const MODULES_FOR_THE_PAGE = ['client/order-amounts.ts', 'client/decimal.ts']

interface Import {
  readonly target: string
  readonly typeOnly: boolean
  readonly line: number
}

/** The relative imports of a source file, resolved to paths under src/ ('engine/rules.ts'). */
function importsOf(path: string, source: string): Import[] {
  const imports: Import[] = []
  const pattern = /^(import|export)\s+(type\s+)?[^'"]*?from\s+['"](\.[^'"]+)['"]/gm
  for (const match of source.matchAll(pattern)) {
    const resolved = resolve(dirname(path), match[3]!).replace(/\.js$/, '.ts').replace(/\.ts$/,
      (ts) => existsSync(resolve(dirname(path), match[3]!).replace(/\.js$/, '.tsx')) ? '.tsx' : ts)
    const line = source.slice(0, match.index).split('\n').length
    imports.push({ target: relative(SRC, resolved), typeOnly: match[2] !== undefined, line })
  }
  return imports
}

/** What a file of `layer` may not import, as readable violations. */
export function violationsOf(file: string, source: string): string[] {
  const layer = file.split('/')[0]
  const violations: string[] = []
  for (const { target, typeOnly, line } of importsOf(join(SRC, file), source)) {
    const where = `${file}:${line} imports ${target}`
    if (layer === 'api') {
      if (target.startsWith('journal/')) violations.push(`${where}: a face never touches the journal`)
      else if (!typeOnly && target.startsWith('host/')) violations.push(`${where}: a face reaches the engine through the services`)
      else if (!typeOnly && target.startsWith('engine/') && !ENGINE_MODULES_FOR_FACES.includes(target)) {
        violations.push(`${where}: a face may use only the engine's rulebook and codes`)
      }
    }
    if (layer === 'service' && target.startsWith('api/')) violations.push(`${where}: a service never imports a face`)
    if (layer === 'web' && !target.startsWith('web/')) {
      const allowed = typeOnly ? target.startsWith('api/shapes/') : MODULES_FOR_THE_PAGE.includes(target)
      if (!allowed) violations.push(`${where}: the page takes only the API's shapes (types) and the SDK's arithmetic`)
    }
  }
  return violations
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(SRC, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') || name.endsWith('.tsx')).map((name) => join(dir, name))
}

t.test('the checker catches each kind of crossing', (t) => {
  t.same(violationsOf('api/rest/routes/x.ts', "import { Engine } from '../../../engine/engine.js'").length, 1, 'a face calling the engine')
  t.same(violationsOf('api/rest/routes/x.ts', "import { Journal } from '../../../journal/journal.js'").length, 1, 'a face on the journal')
  t.same(violationsOf('api/rest/routes/x.ts', "import type { Journal } from '../../../journal/journal.js'").length, 1,
    'even for a type')
  t.same(violationsOf('api/ws/x.ts', "import { EngineHost } from '../../host/engine-host.js'").length, 1, 'a face on the host')
  t.same(violationsOf('service/x.ts', "import { parseJsonBody } from '../api/wire.js'").length, 1, 'a service importing a face')
  t.same(violationsOf('api/rest/routes/x.ts', [
    "import type { MarketRecord } from '../../../engine/event.js'",
    "import { isTimeInForce } from '../../../engine/rules.js'",
    "import { Code } from '../../../engine/codes.js'",
    "import * as trading from '../../../service/trading.js'",
  ].join('\n')), [], 'data types, the rulebook, the codes and the services are fine')
  t.end()
})

t.test('faces translate and services hold the use cases', (t) => {
  const files = [...sourcesUnder('api'), ...sourcesUnder('service')]
  t.ok(files.length > 20, `read ${files.length} files of src/api and src/service`)
  const violations = files.flatMap((file) => violationsOf(file, readFileSync(join(SRC, file), 'utf8')))
  t.same(violations, [], 'no face calls the engine, the host or the journal; no service imports a face')
  t.end()
})

/**
 * The floors of src, lowest first (docs/layers.md): a module may import from its own floor and
 * those below, never from one above, types included (a type names what the floor above decides).
 * The modules at the top of src are cross-cutting (the catalogue, the limits, the log: floor 1),
 * except the metrics (they read the host's figures) and the composition root (config, app, main).
 */
const FLOORS: readonly (readonly string[])[] = [
  ['stdx', 'gen'],
  ['engine', 'crypto'],
  ['codec', 'ring', 'journal', 'host', 'replication', 'chain'],
  ['read', 'auth'],
  ['service'],
  ['api'],
  ['client', 'demo', 'web'],
]
const TOP_FLOORS: Readonly<Record<string, number>> = { 'metrics.ts': 3, 'config.ts': FLOORS.length,
  'app.ts': FLOORS.length, 'main.ts': FLOORS.length }

/** The floor of a module of src ('engine/rules.ts', 'limits.ts'). */
export function floorOf(file: string): number {
  const slash = file.indexOf('/')
  if (slash < 0) return TOP_FLOORS[file] ?? 1
  const floor = FLOORS.findIndex((folders) => folders.includes(file.slice(0, slash)))
  if (floor < 0) throw new Error(`${file}: its folder has no floor in layers.test.ts FLOORS (add it)`)
  return floor
}

/** The imports of `file` that climb to a higher floor, as readable violations. */
export function upwardImportsOf(file: string, source: string): string[] {
  return importsOf(join(SRC, file), source).filter(({ target }) => floorOf(target) > floorOf(file))
    .map(({ target, line }) => `${file}:${line} imports ${target}, a floor above (${floorOf(target)} > ${floorOf(file)})`)
}

t.test('no module imports from a floor above its own (issue 32)', (t) => {
  t.same(upwardImportsOf('api/rest/x.ts', "import { Wallet } from '../../client/wallet.js'").length, 1, 'a face on the SDK')
  t.same(upwardImportsOf('chain/x.ts', "import type { Config } from '../config.js'").length, 1, 'a type of the root')
  t.same(upwardImportsOf('service/x.ts', "import { ReadModel } from '../read/read-model.js'").length, 0, 'one below')
  t.same(upwardImportsOf('host/x.ts', "import { Journal } from '../journal/journal.js'").length, 0, 'the same floor')
  t.throws(() => floorOf('attic/x.ts'), /no floor/, 'a new folder must be given its floor')
  const files = sourcesUnder('.')
  const upward = files.flatMap((file) => upwardImportsOf(file, readFileSync(join(SRC, file), 'utf8')))
  t.same(upward, [], `no upward import among ${files.length} files`)
  t.end()
})

t.test('the page imports only the API\'s types and the SDK\'s pure arithmetic', (t) => {
  t.same(violationsOf('web/x.ts', "import { PredexClient } from '../client/predex-client.js'").length, 1, 'the SDK client')
  t.same(violationsOf('web/x.ts', "import { CATALOGUE } from '../errors.js'").length, 1, 'a server module')
  t.same(violationsOf('web/x.ts', "import { VERSION } from '../api/shapes/x.js'").length, 1, 'a shape as a value')
  t.same(violationsOf('web/x.ts', [
    "import type { NativeMarket } from '../api/shapes/market.js'",
    "import { limitOrderAmounts } from '../client/order-amounts.js'",
    "import { MarketFeed } from './market-feed.js'",
  ].join('\n')), [], 'shapes as types, the arithmetic and its own modules')
  const files = sourcesUnder('web')
  t.ok(files.length > 5, `read ${files.length} files of src/web`)
  t.same(files.flatMap((file) => violationsOf(file, readFileSync(join(SRC, file), 'utf8'))), [])
  t.end()
})

/**
 * The cycles among `files` through their value imports (`import type` does not load a module), each
 * as its modules in order, found by a depth-first walk from every file.
 */
export function valueCyclesOf(files: ReadonlyMap<string, string>): string[][] {
  const edges = new Map([...files].map(([file, source]) => [file,
    importsOf(join(SRC, file), source).filter((i) => !i.typeOnly && files.has(i.target)).map((i) => i.target)]))
  const cycles: string[][] = []
  const done = new Set<string>()
  const path: string[] = []
  const visit = (file: string): void => {
    const at = path.indexOf(file)
    if (at >= 0) return void cycles.push(path.slice(at))
    if (done.has(file)) return
    path.push(file)
    for (const next of edges.get(file) ?? []) visit(next)
    path.pop()
    done.add(file)
  }
  for (const file of files.keys()) visit(file)
  return cycles
}

t.test('no two modules of src load each other, directly or around a ring (issue 32)', (t) => {
  t.same(valueCyclesOf(new Map([['engine/a.ts', "import { b } from './b.js'"], ['engine/b.ts', "import { a } from './a.js'"]])),
    [['engine/a.ts', 'engine/b.ts']], 'a cycle of two is found')
  t.same(valueCyclesOf(new Map([['a.ts', "import { b } from './b.js'"], ['b.ts', "export { c } from './c.js'"],
    ['c.ts', "import { a } from './a.js'"]])), [['a.ts', 'b.ts', 'c.ts']], 'a ring of three, a re-export in it')
  t.same(valueCyclesOf(new Map([['a.ts', "import { b } from './b.js'"], ['b.ts', "import type { A } from './a.js'"]])), [],
    'a type-only import loads nothing')
  const files = new Map(sourcesUnder('.').map((file) => [file, readFileSync(join(SRC, file), 'utf8')]))
  t.ok(files.size > 200, `read ${files.size} files of src`)
  t.same(valueCyclesOf(files), [], 'no value cycle')
  t.end()
})
