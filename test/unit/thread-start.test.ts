/**
 * Where our threads start (src/thread-start.ts): from sources with the parent's flags (its
 * hooks compile them), from compiled files without the parent's module hooks, whose other flags
 * still reach them. This file runs under tap, whose hooks are in both execArgv and NODE_OPTIONS.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import {
  builtModuleOf, startThread, THREADS_FROM_BUILD_ENV, threadStart, withoutHooks, type ThreadOptions,
} from '../../src/thread-start.js'

/** Runs `body` with the build switch set to `value` (undefined: unset), then puts it back. */
function withSwitch<T>(value: string | undefined, body: () => T): T {
  const before = process.env[THREADS_FROM_BUILD_ENV]
  if (value === undefined) delete process.env[THREADS_FROM_BUILD_ENV]
  else process.env[THREADS_FROM_BUILD_ENV] = value
  try {
    return body()
  } finally {
    if (before === undefined) delete process.env[THREADS_FROM_BUILD_ENV]
    else process.env[THREADS_FROM_BUILD_ENV] = before
  }
}

/**
 * A checkout in a temporary folder: src/host/engine-host.ts and, unless `built` is false, its build
 * dist/src/host/engine-host.js and dist/src/main.js, the build `buildAgeMs` older than the sources
 * when negative (a source edited since), newer when positive.
 */
function checkout(t: Test, built: boolean, buildAgeMs: number): string {
  const root = mkdtempSync(join(tmpdir(), 'thread-start-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(join(root, 'src', 'host'), { recursive: true })
  writeFileSync(join(root, 'src', 'host', 'engine-host.ts'), '')
  const sourceSeconds = Date.now() / 1000 - 3600
  utimesSync(join(root, 'src', 'host', 'engine-host.ts'), sourceSeconds, sourceSeconds)
  if (built) {
    mkdirSync(join(root, 'dist', 'src', 'host'), { recursive: true })
    for (const path of [['dist', 'src', 'main.js'], ['dist', 'src', 'host', 'engine-host.js']]) {
      writeFileSync(join(root, ...path), '')
      const builtSeconds = sourceSeconds + buildAgeMs / 1000
      utimesSync(join(root, ...path), builtSeconds, builtSeconds)
    }
  }
  return pathToFileURL(root).href
}

t.test('the module hooks and their values are left out, in both spellings; other flags are kept', async (t) => {
  t.same(withoutHooks(['--import=file:///a.mjs', '--expose-gc', '--import', './b.mjs', '-r', 'dotenv/config',
    '--require=c', '--loader', 'ts-node/esm', '--experimental-loader=d', '--enable-source-maps', '--max-old-space-size=512']),
  ['--expose-gc', '--enable-source-maps', '--max-old-space-size=512'])
  t.same(withoutHooks(['"--import=file:///a b.mjs"', '--expose-gc']), ['--expose-gc'], 'quoted, as in NODE_OPTIONS')
  t.same(withoutHooks([]), [])
})

t.test('a source module: its thread from the .ts beside it, with the parent flags (Node defaults)', async (t) => {
  const start = withSwitch(undefined, () => threadStart('engine-worker', 'file:///app/src/host/engine-host.ts'))
  t.same(start, { url: new URL('file:///app/src/host/engine-worker.ts') })
})

t.test("with the test runner's switch, a source module's thread starts from a fresh build, without the hooks",
  async (t) => {
    const root = checkout(t, true, 60_000)
    const start = withSwitch('1', () => threadStart('engine-worker', `${root}/src/host/engine-host.ts`))
    t.equal(start.url.href, `${root}/dist/src/host/engine-worker.js`)
    t.notOk((start.execArgv ?? []).some((flag) => flag.startsWith('--import')), 'no module hooks in its flags')
    t.equal(withSwitch(undefined, () => threadStart('engine-worker', `${root}/src/host/engine-host.ts`)).url.href,
      `${root}/src/host/engine-worker.ts`, 'without the switch, from the sources')
    t.equal(withSwitch('0', () => threadStart('engine-worker', `${root}/src/host/engine-host.ts`)).url.href,
      `${root}/src/host/engine-worker.ts`, 'only 1 turns it on')
  })

t.test('a build older than a source, or none, is passed over: the thread starts from the sources', async (t) => {
  const stale = checkout(t, true, -60_000)
  const warnings: string[] = []
  const onWarning = (warning: Error): void => void warnings.push(warning.message)
  process.on('warning', onWarning)
  t.teardown(() => process.off('warning', onWarning))
  t.equal(builtModuleOf(`${stale}/src/host/engine-host.ts`), null, 'a source edited after the build')
  const start = withSwitch('1', () => threadStart('engine-worker', `${stale}/src/host/engine-host.ts`))
  t.same(start, { url: new URL(`${stale}/src/host/engine-worker.ts`) })
  await new Promise((resolve) => setImmediate(resolve))
  t.match(warnings.join('\n'), /older than a source under src\//, 'said once, as a process warning')
  const none = checkout(t, false, 0)
  t.equal(builtModuleOf(`${none}/src/host/engine-host.ts`), null, 'no build')
  t.equal(builtModuleOf('file:///app/lib/engine-host.ts'), null, 'a module outside a src/ folder')
  t.equal(builtModuleOf(`${checkout(t, true, 60_000)}/src/host/engine-host.ts`)?.endsWith('/dist/src/host/engine-host.js'),
    true, 'a fresh build: its counterpart')
})

t.test('a compiled module: its thread from the .js beside it, without the parent\'s hooks', async (t) => {
  // Hooks in the parent's flags whichever way this file runs (tap's runner adds its own; npm test's, none).
  const execArgv = process.execArgv
  t.teardown(() => void (process.execArgv = execArgv))
  process.execArgv = [...execArgv, '--import=file:///hooks.mjs']
  const start = threadStart('verify-worker', 'file:///app/dist/src/crypto/verifier-pool.js')
  t.equal(start.url.href, 'file:///app/dist/src/crypto/verifier-pool.js'.replace('verifier-pool', 'verify-worker'))
  t.same(start.execArgv, withoutHooks(process.execArgv))
  t.notOk(start.execArgv!.some((flag) => flag.startsWith('--import')), 'none in its flags')
  const nodeOptions = process.env['NODE_OPTIONS'] ?? ''
  if (/--import|--require|--loader/.test(nodeOptions)) {
    t.notMatch(start.env?.['NODE_OPTIONS'], /--import|--require|--loader/, 'none in its NODE_OPTIONS')
    t.equal(start.env?.['PATH'], process.env['PATH'], 'the rest of its environment is the parent\'s')
  } else {
    t.equal(start.env, undefined, 'no NODE_OPTIONS hook to leave out: the parent\'s environment')
  }
})

t.test("without hooks to leave out, a compiled module's thread takes the parent's flags (Node refuses V8's in a list)",
  async (t) => {
    const [execArgv, nodeOptions] = [process.execArgv, process.env['NODE_OPTIONS']]
    t.teardown(() => {
      process.execArgv = execArgv
      process.env['NODE_OPTIONS'] = nodeOptions
    })
    process.execArgv = ['--expose-gc', '--enable-source-maps']
    process.env['NODE_OPTIONS'] = '--max-old-space-size=512'
    const start = threadStart('engine-worker', 'file:///app/dist/src/host/engine-host.js')
    t.same([start.execArgv, start.env], [undefined, undefined])
  })

t.test('a list Node refuses: the thread starts with the parent\'s flags after all', async (t) => {
  const execArgv = process.execArgv
  t.teardown(() => void (process.execArgv = execArgv))
  process.execArgv = [...execArgv, '--import=file:///hooks.mjs']
  const tried: ThreadOptions[] = []
  const started = startThread('engine-worker', 'file:///app/dist/src/host/engine-host.js', (url, options) => {
    tried.push(options)
    if (options.execArgv !== undefined) {
      throw Object.assign(new Error('Initiated Worker with invalid execArgv flags'), { code: 'ERR_WORKER_INVALID_EXEC_ARGV' })
    }
    return url.href
  })
  t.equal(started, 'file:///app/dist/src/host/engine-worker.js')
  t.equal(tried.length, 2, 'tried with the list without hooks first (this process has hooks)')
  t.equal(tried[1]!.execArgv, undefined, "then with the parent's")
  t.same(tried[1]!.env, tried[0]!.env, "NODE_OPTIONS' hooks still left out")
  t.throws(() => startThread('x', 'file:///a/b.js', () => { throw new Error('other') }), /other/,
    'any other error is thrown')
})
