/**
 * Where our threads start (src/thread-start.ts): from sources with the parent's flags (its
 * hooks compile them), from compiled files without the parent's module hooks, whose other flags
 * still reach them. This file runs under tap, whose hooks are in both execArgv and NODE_OPTIONS.
 */
import t from 'tap'
import { startThread, threadStart, withoutHooks, type ThreadOptions } from '../../src/thread-start.js'

t.test('the module hooks and their values are left out, in both spellings; other flags are kept', async (t) => {
  t.same(withoutHooks(['--import=file:///a.mjs', '--expose-gc', '--import', './b.mjs', '-r', 'dotenv/config',
    '--require=c', '--loader', 'ts-node/esm', '--experimental-loader=d', '--enable-source-maps', '--max-old-space-size=512']),
  ['--expose-gc', '--enable-source-maps', '--max-old-space-size=512'])
  t.same(withoutHooks(['"--import=file:///a b.mjs"', '--expose-gc']), ['--expose-gc'], 'quoted, as in NODE_OPTIONS')
  t.same(withoutHooks([]), [])
})

t.test('a source module: its thread from the .ts beside it, with the parent flags (Node defaults)', async (t) => {
  const start = threadStart('engine-worker', 'file:///app/src/host/engine-host.ts')
  t.same(start, { url: new URL('file:///app/src/host/engine-worker.ts') })
})

t.test('a compiled module: its thread from the .js beside it, without the hooks tap runs this file with', async (t) => {
  t.ok(process.execArgv.some((flag) => flag.startsWith('--import')), 'tap runs this file with --import hooks')
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
  const tried: ThreadOptions[] = []
  const started = startThread('engine-worker', 'file:///app/dist/src/host/engine-host.js', (url, options) => {
    tried.push(options)
    if (options.execArgv !== undefined) {
      throw Object.assign(new Error('Initiated Worker with invalid execArgv flags'), { code: 'ERR_WORKER_INVALID_EXEC_ARGV' })
    }
    return url.href
  })
  t.equal(started, 'file:///app/dist/src/host/engine-worker.js')
  t.equal(tried.length, 2, 'tried with the list without hooks first (tap runs this file with hooks)')
  t.equal(tried[1]!.execArgv, undefined, "then with the parent's")
  t.same(tried[1]!.env, tried[0]!.env, "NODE_OPTIONS' hooks still left out")
  t.throws(() => startThread('x', 'file:///a/b.js', () => { throw new Error('other') }), /other/,
    'any other error is thrown')
})
