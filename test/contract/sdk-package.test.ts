/**
 * The SDK as another project gets it (issue 15): `npm run pack:sdk` packs `@predex/client`; an
 * empty project in a temporary directory installs the tarball with typescript and @types/node
 * (from the local npm cache when it has them), type-checks a script (test/support/sdk-consumer.ts.txt)
 * with strict tsc, its types resolved from the installed package and not from this repository, and
 * runs it against a live server: markets, a wallet's credentials, faucet and relay approve, an
 * order placed, read back and filled, cancel by market, candles, a user's endpoints, and the gRPC
 * client. The package must not carry server code or the server's dependencies.
 * Bounded: each step has its own deadline, and the file's is their sum and a margin.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startServer, type TestServer } from '../support/rest-harness.js'
import { ROOT } from '../support/compiled.js'

const PACK_MS_MAX = 90_000
const INSTALL_MS_MAX = 150_000
const TYPECHECK_MS_MAX = 90_000
const RUN_MS_MAX = 30_000
t.setTimeout(PACK_MS_MAX + INSTALL_MS_MAX + TYPECHECK_MS_MAX + RUN_MS_MAX + 60_000)

// What the server needs and an SDK user must not be made to install (@grpc/proto-loader is not
// here: @grpc/grpc-js itself depends on it).
const SERVER_ONLY_PACKAGES = ['lmdb', 'uWebSockets.js', 'piscina', 'pino', 'pino-pretty', 'prom-client',
  '@grpc/reflection', 'grpc-health-check']
// Server code by folder; the two leaf tables of src/engine the SDK shares are checked apart below.
const SERVER_FOLDERS =
  /^package\/dist\/(host|journal|service|read|runtime|chain|ring|codec|auth\/(?!failure\.)|api\/(rest|ws|grpc))/

interface Packed {
  readonly tarball: string
  readonly files: readonly string[]
  readonly dependencies: readonly string[]
}

interface Outcome {
  readonly stdout: string
  readonly ms: number
}

const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string; dependencies: Record<string, string>; devDependencies: Record<string, string>
}
const work = mkdtempSync(join(tmpdir(), 'predex.sdk-package-'))
const app = join(work, 'app')
let server: TestServer
let packed: Packed

/** Runs a command with a deadline; rejects with its output when it fails or overruns. */
function run(file: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<Outcome> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, timeout: timeoutMs, maxBuffer: 16 << 20, killSignal: 'SIGKILL',
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' } },
    (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${file} ${args.join(' ')}: ${error.message}\n${stdout}\n${stderr}`))
      else resolve({ stdout, ms: Date.now() - started })
    })
  })
}

t.before(async () => {
  server = await startServer()
})
t.teardown(async () => {
  await server?.stop()
  rmSync(work, { recursive: true, force: true })
})

t.test('npm run pack:sdk packs the SDK without server code or server dependencies', async (t) => {
  const outcome = await run(process.execPath, ['scripts/pack-sdk.mjs', '--out', join(work, 'pack'), '--json'], ROOT,
    PACK_MS_MAX)
  t.comment(`pack: ${outcome.ms} ms`)
  packed = JSON.parse(outcome.stdout) as Packed
  t.ok(existsSync(packed.tarball), `tarball at ${packed.tarball}`)
  const files = packed.files.map((f) => `package/${f}`)
  for (const entry of ['client/index', 'client/grpc/index']) {
    t.ok(files.includes(`package/dist/${entry}.js`), `${entry}.js packed`)
    t.ok(files.includes(`package/dist/${entry}.d.ts`), `${entry}.d.ts packed`)
  }
  t.same(files.filter((f) => SERVER_FOLDERS.test(f)), [], 'no server modules')
  t.same(files.filter((f) => f.startsWith('package/dist/engine/') && !/\/engine\/(limits|codes)\.(js|d\.ts)$/.test(f)),
    [], 'from src/engine only its two tables (bounds and error codes)')
  t.same([...packed.dependencies], ['@bufbuild/protobuf', '@grpc/grpc-js', '@noble/curves', '@noble/hashes'],
    'dependencies: what the SDK imports')
  t.same(packed.dependencies.filter((name) => SERVER_ONLY_PACKAGES.includes(name)), [], 'no server-only dependency')
  const manifest = JSON.parse(readFileSync(join(work, 'pack', 'package', 'package.json'), 'utf8'))
  t.match(manifest, { name: '@predex/client', version: root.version, type: 'module', exports: {
    '.': { types: './dist/client/index.d.ts', import: './dist/client/index.js' },
    './grpc': { types: './dist/client/grpc/index.d.ts', import: './dist/client/grpc/index.js' },
  } })
  for (const name of packed.dependencies) t.equal(manifest.dependencies[name], root.dependencies[name], name)
})

t.test('an empty project installs the tarball', async (t) => {
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sdk-consumer', version: '1.0.0', private: true,
    type: 'module' }))
  const outcome = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts',
    packed.tarball, `typescript@${root.devDependencies.typescript}`,
    `@types/node@${root.devDependencies['@types/node']}`], app, INSTALL_MS_MAX)
  t.comment(`install: ${outcome.ms} ms`)
  const installed = JSON.parse(readFileSync(join(app, 'node_modules', '@predex', 'client', 'package.json'), 'utf8'))
  t.equal(installed.version, root.version)
  for (const name of SERVER_ONLY_PACKAGES) t.notOk(existsSync(join(app, 'node_modules', name)), `${name} not installed`)
})

t.test('a script type-checks strictly against the installed package', async (t) => {
  copyFileSync(join(ROOT, 'test', 'support', 'sdk-consumer.ts.txt'), join(app, 'main.ts'))
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true,
    types: ['node'], outDir: 'out', skipLibCheck: false,
  }, files: ['main.ts'] }))
  const outcome = await run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.',
    '--listFiles'], app, TYPECHECK_MS_MAX)
  t.comment(`tsc: ${outcome.ms} ms`)
  const listed = outcome.stdout.split('\n')
  for (const entry of ['client/index.d.ts', 'client/grpc/index.d.ts']) {
    t.ok(listed.includes(join(app, 'node_modules', '@predex', 'client', 'dist', entry)), `${entry} from the package`)
  }
  t.same(listed.filter((file) => file.startsWith(ROOT)), [], 'nothing read from the repository')
})

t.test('the compiled script trades against a live server', async (t) => {
  const grpcTarget = `127.0.0.1:${server.predex.grpcPort}`
  const outcome = await run(process.execPath, [join(app, 'out', 'main.js'), server.base, grpcTarget,
    server.predex.adminKey], app, RUN_MS_MAX)
  t.comment(`script: ${outcome.ms} ms`)
  const printed = JSON.parse(outcome.stdout.trim().split('\n').at(-1)!)
  const market = server.predex.context.read.markets.get(printed.market.id)
  t.equal(market?.slug, 'packed-sdk', 'the market the admin created')
  t.match(printed, {
    market: { slug: 'packed-sdk', listed: true }, credit: '1000', derivedSameKey: true,
    bid: { placed: 'live', read: 'LIVE' }, fill: { status: 'matched', trades: 1 },
    candles: [{ close: '0.4', volume: '10' }], profile: { trades: 1, open: 0 }, userTrades: 1,
    restError: '404 MARKET_NOT_FOUND', grpc: { market: printed.market.id, error: 'MARKET_NOT_FOUND' },
  })
  t.same(printed.cancelled.ids, [printed.cancelled.resting], 'cancel by market took the resting order, only it')
  // 1000 from the faucet, 4 spent on 10 Yes at 0.40, nothing held once the resting bid was cancelled.
  t.equal(printed.availableUsdc, '996')
  t.equal(printed.grpc.usdc, '996', 'the same balance over gRPC')
})
