// Packs the SDK (src/client) as `@predex/client`, a package another project installs and imports
// with types, without the server's dependencies (lmdb, uWebSockets.js, piscina...).
//
//   node scripts/pack-sdk.mjs [--out DIR] [--json]      (npm run pack:sdk)
//
// The TypeScript compiler, given the two entry points (src/client/index.ts, src/client/grpc/index.ts)
// and the repository's own compiler options, finds their module closure itself, type-only imports
// included (the shapes), and emits exactly those modules with declarations into a staging folder.
// So the package is built from the same sources with the same options as dist/, needs no
// `declaration` in the server's build (which would slow every build for one consumer), and cannot
// miss a file a .d.ts needs. A module outside ALLOWED (server code: engine, host, journal, REST
// routes...) fails the pack, named with what imported it. Dependencies are the bare imports of the
// emitted files, at the root package.json's versions. Prints the tarball's path (or, with --json,
// the path, the packed files and the dependencies). Default output folder: dist/sdk.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ENTRIES = ['src/client/index.ts', 'src/client/grpc/index.ts']
const PACKAGE_NAME = '@predex/client'

// What the SDK may carry: its own code, the shapes it shares with the server, the signing code,
// the generated protobuf schemas, and four leaf modules of constants (the bounds the gRPC client
// keeps and the error catalogue it names codes from; engine/limits and engine/codes are plain
// tables the engine exports, with no state and no I/O), and two leaf helpers of stdx (assertions,
// and the LRU map the L2 signature keeps its decoded secrets in).
const ALLOWED = [
  /^src\/client\//, /^src\/api\/shapes\//, /^src\/crypto\//, /^src\/gen\//,
  /^src\/(limits|errors)\.ts$/, /^src\/engine\/(limits|codes)\.ts$/, /^src\/auth\/failure\.ts$/,
  /^src\/stdx\/(assert|lru)\.ts$/,
]

function argument(name) {
  const index = process.argv.indexOf(name)
  return index === -1 ? undefined : process.argv[index + 1]
}

function compilerOptions(outDir) {
  const configPath = join(ROOT, 'tsconfig.json')
  const read = ts.readConfigFile(configPath, ts.sys.readFile)
  if (read.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'))
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, undefined, configPath)
  return {
    ...parsed.options, noEmit: false, declaration: true, declarationMap: false, sourceMap: false,
    rootDir: join(ROOT, 'src'), outDir, incremental: false, tsBuildInfoFile: undefined,
  }
}

function report(diagnostics) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' }
  return ts.formatDiagnostics(diagnostics, host)
}

/** Which repository file imported `fileName` first (for the refusal message). */
function importerOf(program, fileName) {
  for (const source of program.getSourceFiles()) {
    for (const { text } of source.imports ?? []) {
      const resolved = ts.resolveModuleName(text, source.fileName, program.getCompilerOptions(), ts.sys)
      if (resolved.resolvedModule?.resolvedFileName === fileName) return relative(ROOT, source.fileName)
    }
  }
  return '?'
}

/** Emits the closure of ENTRIES into `outDir`; returns the repository files it holds. */
function emitClosure(outDir) {
  const rootNames = ENTRIES.map((entry) => join(ROOT, entry))
  const program = ts.createProgram({ rootNames, options: compilerOptions(outDir) })
  const closure = program.getSourceFiles().filter((f) => !f.isDeclarationFile).map((f) => f.fileName)
  const allowed = (f) => ALLOWED.some((pattern) => pattern.test(relative(ROOT, f).split(sep).join('/')))
  const refused = closure.filter((f) => !allowed(f))
  if (refused.length > 0) {
    const lines = refused.map((f) => `  ${relative(ROOT, f)} (imported by ${importerOf(program, f)})`)
    throw new Error(`the SDK would carry modules that are not the SDK's:\n${lines.join('\n')}`)
  }
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics]
  if (diagnostics.length > 0) throw new Error(`the SDK does not compile:\n${report(diagnostics)}`)
  return closure.map((f) => relative(ROOT, f))
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
}

/** The packages the emitted code and declarations import (`node:` built-ins aside), by name. */
function importedPackages(dir) {
  const names = new Set()
  const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'".][^'"]*)['"]/g
  for (const file of filesUnder(dir)) {
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      const text = match[1]
      if (text.startsWith('node:')) continue
      const parts = text.split('/')
      names.add(text.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0])
    }
  }
  return [...names].sort()
}

function manifest(root, dependencyNames) {
  const missing = dependencyNames.filter((name) => root.dependencies?.[name] === undefined)
  if (missing.length > 0) throw new Error(`the SDK imports packages the root does not depend on: ${missing.join(', ')}`)
  const entry = (path) => ({ types: `./dist/${path}.d.ts`, import: `./dist/${path}.js` })
  return {
    name: PACKAGE_NAME, version: root.version,
    description: 'The Predex SDK: a typed REST client for every native endpoint, the gRPC client, wallet and signing',
    // Not the root's engines: only the server is held to Node 20 (its uWS binary); the SDK loads no uWS.
    type: 'module', engines: { node: '>=20' },
    main: './dist/client/index.js', types: './dist/client/index.d.ts',
    exports: { '.': entry('client/index'), './grpc': entry('client/grpc/index'), './package.json': './package.json' },
    files: ['dist', 'README.md'],
    dependencies: Object.fromEntries(dependencyNames.map((name) => [name, root.dependencies[name]])),
    // The declarations name Node's types (node:crypto, Buffer): a TypeScript user needs @types/node.
    peerDependencies: { '@types/node': '>=20' }, peerDependenciesMeta: { '@types/node': { optional: true } },
  }
}

const README = `# @predex/client

The Predex SDK, packed from the Predex repository (\`npm run pack:sdk\`).

\`\`\`ts
import { PredexClient, Wallet } from '@predex/client'
import { PredexGrpcClient } from '@predex/client/grpc'
\`\`\`

\`PredexClient\` has one typed method per native REST endpoint; see docs/rest.md ("The SDK") and
docs/grpc.md ("The SDK") in the repository.
`

function npmPack(stage, outDir) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const packed = spawnSync(npm, ['pack', '--json', '--pack-destination', outDir], { cwd: stage, encoding: 'utf8' })
  if (packed.status !== 0) throw new Error(`npm pack failed (${packed.status}):\n${packed.stderr}`)
  const [result] = JSON.parse(packed.stdout)
  return { tarball: join(outDir, result.filename), files: result.files.map((f) => f.path).sort() }
}

export function packSdk(outDir = join(ROOT, 'dist', 'sdk')) {
  const stage = join(outDir, 'package')
  rmSync(stage, { recursive: true, force: true })
  mkdirSync(stage, { recursive: true })
  const closure = emitClosure(join(stage, 'dist'))
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const dependencies = importedPackages(join(stage, 'dist'))
  writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest(root, dependencies), null, 2) + '\n')
  writeFileSync(join(stage, 'README.md'), README)
  return { ...npmPack(stage, outDir), closure, dependencies }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = argument('--out')
  const packed = packSdk(out === undefined ? undefined : resolve(out))
  process.stdout.write(process.argv.includes('--json') ? JSON.stringify(packed) + '\n' : packed.tarball + '\n')
}
