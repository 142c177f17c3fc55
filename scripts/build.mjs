// The build, when it is stale: npm ci (prepare), npm start and npm test run this, so a start on
// a built checkout skips TypeScript's compiler (about 7 s of the 8-9 s a start took) while a start
// after an edit or a pull still runs what the sources say. Stale: dist/src/main.js is missing, or
// older than a .ts file under src, bench, scripts or test/crash, or than the TypeScript configuration.
// `npm run build` builds whatever the state.
//
//   node scripts/build.mjs      (exit status: the compiler's, or 0 when nothing was stale)
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SOURCE_DIRS = ['src', 'bench', 'scripts', 'test/crash'] // tsconfig.build.json's inputs
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json']
const BUILT = join('dist', 'src', 'main.js')

function newestInputMs(root) {
  let newest = Math.max(...CONFIG_FILES.map((name) => statSync(join(root, name)).mtimeMs))
  for (const dir of SOURCE_DIRS.filter((dir) => existsSync(join(root, dir)))) {
    for (const name of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (name.endsWith('.ts')) newest = Math.max(newest, statSync(join(root, dir, name)).mtimeMs)
    }
  }
  return newest
}

/** Why the build under `root` is stale, or null when dist/ is newer than every input. */
export function staleness(root = ROOT) {
  if (!existsSync(join(root, BUILT))) return 'dist/ is not built yet'
  return statSync(join(root, BUILT)).mtimeMs >= newestInputMs(root) ? null : 'a source is newer than dist/'
}

/** Builds when stale; returns the compiler's exit status (0 when nothing was stale). */
export function buildIfStale() {
  const why = staleness()
  if (why === null) return 0
  process.stderr.write(`build: ${why}; compiling (tsc -p tsconfig.build.json)\n`)
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  return spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' }).status ?? 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = buildIfStale()
