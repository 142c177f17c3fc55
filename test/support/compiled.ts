/**
 * The compiled build, when it is up to date: `npm test` builds first, and a TypeScript start
 * costs seconds of transpiling in every process and worker thread (the engine worker, the
 * verification pool). Tests that start whole servers or child processes use the build when no
 * source is newer than it, and the sources otherwise (a developer running one file after an edit).
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { packageRoot } from '../../src/package-root.js'

/**
 * The repository's root, with a trailing slash (src/package-root.ts: the nearest folder above
 * holding Predex's package.json). A test runs from its source (test/) or, under npm test, from
 * the build (dist/test/), so paths into the repository start here, never from its own location.
 */
export const ROOT = `${packageRoot(import.meta.url).dir}/`

/**
 * The path of the module `name` (without extension) beside `moduleUrl`, in the same form as that
 * module: its .js when the caller runs compiled (the build holds both), else its .ts, which this
 * process's flags (the TypeScript loader) run in a child.
 */
export function siblingModule(name: string, moduleUrl: string): string {
  return fileURLToPath(new URL(`./${name}.${moduleUrl.endsWith('.js') ? 'js' : 'ts'}`, moduleUrl))
}

/** The path of `dist/<compiled>` if it is newer than every .ts file under `sourceDirs`, else null. */
export function freshCompiled(compiled: string, sourceDirs: readonly string[]): string | null {
  const path = join(ROOT, 'dist', compiled)
  if (!existsSync(path)) return null
  return statSync(path).mtimeMs >= newestSourceMs(sourceDirs) ? path : null
}

function newestSourceMs(sourceDirs: readonly string[]): number {
  let newest = 0
  for (const dir of sourceDirs) {
    for (const name of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
      if (name.endsWith('.ts')) newest = Math.max(newest, statSync(join(ROOT, dir, name)).mtimeMs)
    }
  }
  return newest
}

/**
 * Builds dist/ when it is stale, by the one rule npm start and npm test use (scripts/build.mjs: a
 * source or the TypeScript configuration newer than dist/): for tests that run the built server
 * as its own process.
 */
export function ensureBuilt(): void {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' })
  if (build.status !== 0) throw new Error('the build (npm run build) failed')
}
