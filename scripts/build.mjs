// The build, when it is stale: npm ci (prepare), npm start and npm test run this, so a start on
// a built checkout skips TypeScript's compiler (about 7 s of the 8-9 s a start took) while a start
// after an edit or a pull still runs what the sources say. Stale: dist/src/main.js is missing, or
// older than a .ts file under src, bench, scripts or test, or than the TypeScript configuration.
// The web page (dist/web, scripts/build-web.mjs) has its own staleness: dist/web/index.html is
// missing, or older than a file under src/web or one of the modules the page imports (src/api/shapes,
// src/client). `npm run build` builds whatever the state.
// Every run also removes compiled files whose source is gone (moved or deleted): the compiler never
// does, and npm test runs every compiled test file there is, so a moved test would run twice, its
// old copy against old compiled modules.
//
//   node scripts/build.mjs      (exit status: the compiler's, or 0 when nothing was stale)
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SOURCE_DIRS = ['src', 'bench', 'scripts', 'test'] // tsconfig.build.json's inputs
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json']
const BUILT = join('dist', 'src', 'main.js')
const WEB_INPUT_DIRS = [join('src', 'web'), join('src', 'api', 'shapes'), join('src', 'client')]
const WEB_BUILT = join('dist', 'web', 'index.html')

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

/** Why the page under `root`/dist/web is stale, or null when it is newer than every file it is built from. */
export function webStaleness(root = ROOT) {
  if (!existsSync(join(root, WEB_BUILT))) return 'dist/web is not built yet'
  let newest = 0
  for (const dir of WEB_INPUT_DIRS.filter((dir) => existsSync(join(root, dir)))) {
    for (const name of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      const stat = statSync(join(root, dir, name))
      if (stat.isFile()) newest = Math.max(newest, stat.mtimeMs)
    }
  }
  return statSync(join(root, WEB_BUILT)).mtimeMs >= newest ? null : 'a source of the page is newer than dist/web'
}

/** The sources a compiled file under dist/ may come from (`dist/src/a.js` -> `src/a.ts`, `src/a.tsx`). */
function sourcesOf(builtPath) {
  const base = builtPath.replace(/\.js(\.map)?$/, '')
  return [`${base}.ts`, `${base}.tsx`]
}

/**
 * Removes the compiled files (.js and their .js.map) under dist/ of SOURCE_DIRS whose source is
 * gone; returns their paths, relative to `root`.
 */
export function pruneOrphans(root = ROOT) {
  const removed = []
  for (const dir of SOURCE_DIRS.filter((dir) => existsSync(join(root, 'dist', dir)))) {
    for (const name of readdirSync(join(root, 'dist', dir), { recursive: true, encoding: 'utf8' })) {
      if (!/\.js(\.map)?$/.test(name)) continue
      if (sourcesOf(join(dir, name)).some((source) => existsSync(join(root, source)))) continue
      rmSync(join(root, 'dist', dir, name))
      removed.push(join('dist', dir, name))
    }
  }
  return removed
}

/** Builds what is stale (the server, then the page); returns the first failing exit status, or 0. */
export function buildIfStale() {
  const orphans = pruneOrphans()
  if (orphans.length > 0) process.stderr.write(`build: removed ${orphans.length} compiled files whose source is gone\n`)
  const why = staleness()
  if (why !== null) {
    process.stderr.write(`build: ${why}; compiling (tsc -p tsconfig.build.json)\n`)
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    const status = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' }).status
    if (status !== 0) return status ?? 1
  }
  const webWhy = webStaleness()
  if (webWhy === null) return 0
  process.stderr.write(`build: ${webWhy}; building the page (scripts/build-web.mjs)\n`)
  return spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs')], { cwd: ROOT, stdio: 'inherit' }).status ?? 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = buildIfStale()
