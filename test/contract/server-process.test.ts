/**
 * The server as a user runs it (`npm start` = node scripts/start.mjs: the build when stale, then
 * dist/src/main.js in the same process; the sources when a test runs after an edit): a child process on a new
 * data directory, port chosen by the OS. It checks the first-start promise of the README (demo
 * markets with a real two-sided book, admin key printed once), `--help` and a bad flag, and the
 * graceful stop: on SIGTERM in-flight requests are answered, every acknowledged faucet credit is
 * there after a restart, and the process exits 0 by itself. Bounded: each wait has a deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Wallet } from '../../src/crypto/wallet.js'
import { loadNativeRecoverer } from '../../src/crypto/native-recovery.js'
import { freshCompiled, ROOT } from '../support/compiled.js'

const MAIN = freshCompiled('src/main.js', ['src'])
const COMMAND = MAIN !== null ? [`${ROOT}scripts/start.mjs`]
  : [...process.execArgv, `${ROOT}src/main.ts`]
const START_MS_MAX = 60_000

interface Running {
  readonly child: ChildProcess
  readonly base: string
  readonly output: () => string
  readonly exited: Promise<number | null>
}

function run(args: readonly string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...COMMAND, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, output: () => output, exited }
}

async function start(dataDir: string): Promise<Running> {
  const started = run(['--data-dir', dataDir, '--port', '0', '--grpc-port', '0', '--sig-workers', '1'])
  const deadline = Date.now() + START_MS_MAX
  for (;;) {
    const match = /REST listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(started.output())
    if (match !== null) return { ...started, base: match[1]! }
    if (started.child.exitCode !== null || Date.now() > deadline) {
      started.child.kill('SIGKILL')
      throw new Error(`the server did not start:\n${started.output()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function stop(running: Running, t: Test): Promise<number | null> {
  running.child.kill('SIGTERM')
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 20_000)
  const code = await running.exited
  clearTimeout(timer)
  t.match(running.output(), /"signal":"SIGTERM","msg":"SIGTERM: stopping/)
  t.match(running.output(), /stopped cleanly/)
  return code
}

const json = async (url: string, init?: RequestInit): Promise<any> => (await fetch(url, init)).json()

t.test('--help prints every flag and exits 0; a bad flag exits 2 naming it', async (t) => {
  const help = run(['--help'])
  t.equal(await help.exited, 0)
  t.notMatch(help.output(), /^build:/m, 'a built checkout starts without compiling')
  for (const flag of ['--data-dir', '--port', '--admin-key', '--faucet-cooldown', '--rate-limits', '--no-demo']) t.match(help.output(), flag)
  const bad = run(['--port', 'eighty'])
  t.equal(await bad.exited, 2)
  t.match(bad.output(), /--port: expected an integer, got "eighty"/)
})

t.test('first start: demo markets with a two-sided book, admin key made and never logged, JSON log lines; SIGTERM drains and exits 0', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex.process-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await start(dataDir)
  const adminKey = readFileSync(join(dataDir, 'admin-key'), 'utf8').trim()
  t.match(first.output(), `"file":"${dataDir}/admin-key","msg":"admin API key generated (not shown: read it from the file)"`,
    'where the generated admin key is, is logged')
  t.notMatch(first.output(), adminKey, 'the admin key itself is not')
  // auto by default: libsecp256k1 where its binding loads (as here, normally), noble with a warning where not.
  const native = loadNativeRecoverer()
  t.match(first.output(), typeof native === 'string'
    ? '"backend":"noble","fallbackReason"'
    : '"backend":"native","chosen":"auto","msg":"signature backend"',
  `the signature backend is logged (auto by default: ${typeof native === 'string' ? 'noble, native did not load' : 'native'})`)
  // Standard output is a pipe, not a terminal: one JSON object per line, each with a level and a time.
  const lines = first.output().split('\n').filter((line) => line !== '')
  const parsed = lines.map((line) => { try { return JSON.parse(line) as Record<string, unknown> } catch { return null } })
  t.same(lines.filter((_, i) => parsed[i] === null), [], 'every line is JSON')
  t.ok(parsed.every((line) => typeof line?.level === 'number' && typeof line.time === 'string' &&
    typeof line.msg === 'string'), 'with level, time and message')
  const markets = await json(`${first.base}/markets`)
  t.equal(markets.data.length, 3, 'three demo markets')
  const book = await json(`${first.base}/book?token_id=${markets.data[0].yes_token_id}`)
  t.ok(book.bids.length > 0 && book.asks.length > 0, 'the demo book has bids and asks')

  // Five credits answered before the stop, twenty more in flight when SIGTERM arrives: each one
  // answered 200 must be there after the restart.
  const faucet = async (address: string): Promise<number> =>
    (await fetch(`${first.base}/faucet`, { method: 'POST', body: JSON.stringify({ address }) })).status
  const before = Array.from({ length: 5 }, () => Wallet.random().address.toLowerCase())
  t.same(await Promise.all(before.map(faucet)), [200, 200, 200, 200, 200])
  const addresses = Array.from({ length: 20 }, () => Wallet.random().address.toLowerCase())
  const answers = addresses.map((address) => fetch(`${first.base}/faucet`, { method: 'POST', body: JSON.stringify({ address }) })
    .then(async (response) => ({ address, status: response.status, body: await response.json() as any }))
    .catch(() => ({ address, status: 0, body: null })))
  await new Promise((resolve) => setTimeout(resolve, 5))
  const code = await stop(first, t)
  t.equal(code, 0, 'exits 0 by itself')
  const settled = await Promise.all(answers)
  const credited = [...before.map((address) => ({ address })), ...settled.filter((a) => a.status === 200)]
  t.comment(`${credited.length - before.length} of the ${addresses.length} in-flight credits were answered before the stop`)
  t.ok(settled.every((a) => a.status === 200 || a.status === 0 || a.status === 503), 'each request answered, refused (503), or never accepted')

  const second = await start(dataDir)
  t.notMatch(second.output(), /admin API key generated/, 'the admin key is made once')
  t.equal((await json(`${second.base}/markets`)).data.length, 3, 'no second demo set')
  for (const { address } of credited) {
    const status = await json(`${second.base}/wallet-status?address=${address}`)
    t.equal(status.usdc_balance, '1000', `acknowledged credit of ${address} survived the stop`)
  }
  // The read model's records too (stored in their own LMDB, or projected again from the journal).
  const history = await json(`${second.base}/users/${before[0]}/portfolio-history`)
  t.same(history.milestones.map((m: any) => [m.kind, m.usdc_balance]), [['deposit', '1000']], 'the history survived the restart')
  const events = await json(`${second.base}/users/${before[0]}/events`)
  t.equal(events.data[0]?.action, 'credit')

  // A second server on the same data directory would corrupt the journal (docs/host.md): refused.
  const intruder = run(['--data-dir', dataDir, '--port', '0', '--grpc-port', '0', '--sig-workers', '1'])
  t.equal(await intruder.exited, 1, 'a second server on the directory exits 1')
  t.match(intruder.output(), `in use by process ${second.child.pid}`, 'naming the process that has it')
  t.equal((await json(`${second.base}/markets`)).data.length, 3, 'the running server is untouched')

  // Another server on either of its ports, with a data directory of its own: refused before that
  // directory's journal is made, naming the port (both faces listen without SO_REUSEPORT, so the
  // kernel would otherwise split new connections between two exchanges).
  const grpcPort = Number(/gRPC listening on 127\.0\.0\.1:(\d+)/.exec(second.output())![1])
  const restPort = Number(new URL(second.base).port)
  for (const [flags, face, port] of [[['--port', String(restPort), '--grpc-port', '0'], 'REST and WebSocket', restPort],
    [['--port', '0', '--grpc-port', String(grpcPort)], 'gRPC', grpcPort]] as const) {
    const otherDir = dir(t)
    const other = run(['--data-dir', otherDir, ...flags, '--sig-workers', '1'])
    t.equal(await other.exited, 1, `a second server on the ${face} port exits 1`)
    t.match(other.output(), `port ${port} on 127.0.0.1 (${face}) is in use`, 'naming the port')
    t.notOk(existsSync(join(otherDir, 'data.mdb')), 'before its own journal is made')
  }
  t.equal((await json(`${second.base}/markets`)).data.length, 3, 'the running server still answers')
  t.equal(await stop(second, t), 0)
})

t.test('a start that fails part way (its gRPC port taken meanwhile) closes what it opened and exits 1', async (t) => {
  const dataDir = dir(t)
  const grpcPort = await freePort()
  const starting = run(['--data-dir', dataDir, '--port', '0', '--grpc-port', String(grpcPort), '--sig-workers', '1'])
  // The port is free when the start checks it; it is taken once the start opens its journal.
  const deadline = Date.now() + START_MS_MAX
  while (!existsSync(join(dataDir, 'predex.lock')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1))
  const squatter = createServer()
  await new Promise<void>((resolve) => squatter.listen(grpcPort, '127.0.0.1', resolve))
  t.teardown(() => squatter.close())
  const timer = setTimeout(() => starting.child.kill('SIGKILL'), START_MS_MAX)
  t.equal(await starting.exited, 1, 'the start exits 1 by itself')
  clearTimeout(timer)
  t.match(starting.output(), /failed to start/, 'saying it failed')
  t.match(starting.output(), `port ${grpcPort}`, 'naming the port')
  t.notMatch(starting.output(), /REST listening on/, 'it never said it was serving')
  const restarted = await start(dataDir)
  t.equal((await json(`${restarted.base}/markets`)).data.length, 3, 'its data directory starts cleanly afterwards')
  t.equal(await stop(restarted, t), 0)
})

function dir(t: Test): string {
  const path = mkdtempSync(join(tmpdir(), 'predex.process-'))
  t.teardown(() => rmSync(path, { recursive: true, force: true }))
  return path
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}
