/**
 * Where a thread of ours starts (the engine worker, the signature pool's threads), and with which
 * flags. A module run from its TypeScript source starts its threads from sources too, with the
 * parent's flags: its module hooks are the loader that compiles them. A compiled module starts them
 * from the compiled file, and without the parent's module hooks (--import, --require, --loader,
 * from its command line and from NODE_OPTIONS): compiled code needs no loader, and every hook runs
 * again in every thread. Under tap (a TypeScript loader, a mock and a process-info hook) that made a
 * server's start take 5-8 s instead of 1, the most of a short contract test's time. Other flags
 * (--expose-gc, --enable-source-maps) still reach the threads.
 *
 * The test runner asks for more (PREDEX_THREADS_FROM_BUILD=1, set by scripts/test.mjs after it
 * built): a source module's threads start from the build too (dist/src, what tsc compiled from
 * the same sources), without the hooks. Under the TypeScript loader every thread paid the hooks'
 * round trips and the compiler for each of its modules again, about 0.6 s of CPU a thread, and a
 * server started in a test starts five or more: a test file that starts servers spent 36-65 % of
 * its CPU there (docs/status.md, "How long `npm test` takes"). Only a build newer than every source
 * under src/ is used; an older one (a source edited since) is passed over, with a warning, for the
 * sources, so that a thread never runs code older than the test that starts it.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The switch that lets a source module's threads start from the build (scripts/test.mjs sets it). */
export const THREADS_FROM_BUILD_ENV = 'PREDEX_THREADS_FROM_BUILD'

/** The flags that load code into a thread before its own: a value follows them, or is joined with '='. */
const HOOK_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader'])

/** A Worker's (or piscina's) execArgv and env: undefined leaves Node's defaults (the parent's). */
export interface ThreadOptions {
  readonly execArgv?: string[]
  readonly env?: NodeJS.ProcessEnv
}

export interface ThreadStart extends ThreadOptions {
  readonly url: URL
}

/**
 * The thread `name` (a file beside `moduleUrl`, without its extension): its .ts when `moduleUrl` is
 * a source, else its .js with the parent's hooks left out. A list of flags is given only when hooks
 * were left out of it: Node refuses some flags in a thread's own list that it takes from the parent
 * (V8's, such as --expose-gc, which reach every thread anyway).
 */
export function threadStart(name: string, moduleUrl: string): ThreadStart {
  const source = moduleUrl.endsWith('.ts')
  if (source && process.env[THREADS_FROM_BUILD_ENV] === '1') {
    const built = builtModuleOf(moduleUrl)
    if (built !== null) return threadStart(name, built)
  }
  const url = new URL(`./${name}.${source ? 'ts' : 'js'}`, moduleUrl)
  if (source) return { url }
  const nodeOptions = process.env['NODE_OPTIONS'] ?? ''
  // NODE_OPTIONS' flags are apart by spaces, and a value may be in double quotes (tap writes "--import=...").
  const optionsWithoutHooks = withoutHooks(nodeOptions.match(/(?:[^\s"]+|"[^"]*")+/g) ?? []).join(' ')
  const env = optionsWithoutHooks === nodeOptions.trim() ? undefined
    : { ...process.env, NODE_OPTIONS: optionsWithoutHooks }
  const flags = withoutHooks(process.execArgv)
  return { url, execArgv: flags.length === process.execArgv.length ? undefined : flags, env }
}

/**
 * Starts the thread `name` with `make` (new Worker, new Piscina), as threadStart says. Should Node
 * refuse the list of flags without hooks (hooks and a V8 flag together), the thread starts with the
 * parent's list after all, hooks included: slower to start, not wrong.
 */
export function startThread<T>(name: string, moduleUrl: string, make: (url: URL, options: ThreadOptions) => T): T {
  const { url, execArgv, env } = threadStart(name, moduleUrl)
  try {
    return make(url, { execArgv, env })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error
    return make(url, { env })
  }
}

/** `flags` without the module hooks and their values. */
export function withoutHooks(flags: readonly string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!
    const name = flag.replaceAll('"', '').split('=', 1)[0]!
    if (!HOOK_FLAGS.has(name)) kept.push(flag)
    else if (!flag.includes('=')) i++ // its value is the next element
  }
  return kept
}

/**
 * The compiled counterpart of a source module under src/ (`<root>/src/x/y.ts` ->
 * `<root>/dist/src/x/y.js`), when it exists and the build is fresh; else null.
 */
export function builtModuleOf(moduleUrl: string): string | null {
  const at = moduleUrl.lastIndexOf('/src/')
  if (at < 0 || !moduleUrl.endsWith('.ts')) return null
  const root = moduleUrl.slice(0, at)
  const built = `${root}/dist${moduleUrl.slice(at, -'.ts'.length)}.js`
  if (!existsSync(fileURLToPath(built)) || !isBuildFresh(root)) return null
  return built
}

/** Per root: whether its build is newer than every source under its src/ (looked at once a process). */
const freshBuilds = new Map<string, boolean>()

function isBuildFresh(root: string): boolean {
  let fresh = freshBuilds.get(root)
  if (fresh === undefined) {
    fresh = isNewerThanSources(fileURLToPath(`${root}/dist/src/main.js`), fileURLToPath(`${root}/src`))
    if (!fresh) {
      process.emitWarning(`${THREADS_FROM_BUILD_ENV}: the build in ${fileURLToPath(`${root}/dist`)} is older than a `
        + 'source under src/ (node scripts/build.mjs builds it): threads start from the sources')
    }
    freshBuilds.set(root, fresh)
  }
  return fresh
}

function isNewerThanSources(builtPath: string, sourceDir: string): boolean {
  if (!existsSync(builtPath)) return false
  const builtMs = statSync(builtPath).mtimeMs
  for (const name of readdirSync(sourceDir, { recursive: true, encoding: 'utf8' })) {
    if (name.endsWith('.ts') && statSync(`${sourceDir}/${name}`).mtimeMs > builtMs) return false
  }
  return true
}
