/**
 * `npm run cluster:local` (issue 34, points 4 and 5): three clustered nats-servers, a primary, a
 * standby and a replica on loopback, as the script prints them; then NATS faults under writes:
 * one nats-server killed, writes go on (a stream of three copies keeps its quorum); a second one
 * killed, writes are refused with 503 COMMAND_LOG_UNAVAILABLE while reads go on, on the primary
 * and on the replica; one brought back, writes resume (on whichever node holds the lease then).
 * Bounded: the cluster's start, every wait and the file itself have deadlines; everything is
 * stopped at the end (SIGTERM to the script, which stops what it started).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ensureBuilt, ROOT } from '../support/compiled.js'
import { portBlockBase } from '../support/port-block.js'

const WAIT_MS_MAX = 30_000
/** The ports cluster:local takes from its base: base .. base + 32. */
const CLUSTER_BLOCK_PORTS = 33

interface ClusterNode {
  readonly role: 'primary' | 'standby' | 'replica'
  readonly pid: number
  readonly http: string
  readonly grpc: string
}

interface Cluster {
  readonly nats: readonly string[]
  readonly nodes: readonly ClusterNode[]
  readonly natsPids: readonly number[]
}

/** Whether every port the script takes from `base` is free now. */
async function portsFree(base: number): Promise<boolean> {
  const ports = [0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32].map((offset) => base + offset)
  for (const port of ports) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer().once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
    })
    if (!free) return false
  }
  return true
}

/** A block of ports free now, below the kernel's ephemeral range (port-block.ts says why). */
async function freeBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = portBlockBase(Math.random(), CLUSTER_BLOCK_PORTS)
    if (await portsFree(base)) return base
  }
  throw new Error('no free range of ports for the cluster')
}

const json = async (base: string, path: string, init?: RequestInit): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(10_000) })
  return { status: response.status, body: await response.json() }
}

let next = 1
const faucet = (base: string): Promise<{ status: number; body: any }> =>
  json(base, '/faucet', { method: 'POST', body: JSON.stringify({ address: '0x' + (next++).toString(16).padStart(40, '0') }) })

async function eventually<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + WAIT_MS_MAX
  for (;;) {
    const value = await probe().catch(() => null)
    if (value !== null) return value
    if (Date.now() > deadline) {
      const logs = stderr.split('\n').filter((line) => !/route \(attempt|RATE_LIMITED/.test(line)).slice(-40).join('\n')
      throw new Error(`${what}: not within ${WAIT_MS_MAX} ms; the cluster's last lines:\n${logs}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

ensureBuilt()
const dataDir = mkdtempSync(join(tmpdir(), 'predex-cluster-'))
const script: ChildProcess = spawn(process.execPath, ['scripts/cluster-local.mjs', '--base-port', String(await freeBase()),
  '--data-dir', dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
  // The test writes as fast as it can from one address: the per-address budgets are not what it tests.
  env: { ...process.env, DEMO: 'false', RATE_LIMITS: 'false' } })
let stdout = ''
let stderr = ''
script.stdout!.setEncoding('utf8').on('data', (text: string) => { stdout += text })
script.stderr!.setEncoding('utf8').on('data', (text: string) => { stderr = (stderr + text).slice(-20_000) })
const scriptExited = new Promise((resolve) => script.once('exit', resolve))
const restarted: ChildProcess[] = []
t.teardown(async () => {
  for (const child of restarted) child.kill('SIGTERM')
  script.kill('SIGTERM')
  const killer = setTimeout(() => script.kill('SIGKILL'), 40_000)
  await scriptExited
  clearTimeout(killer)
  rmSync(dataDir, { recursive: true, force: true })
})

const cluster: Cluster = await eventually('the cluster\'s JSON line', async () => {
  if (script.exitCode !== null) throw new Error(`cluster:local exited:\n${stderr}`)
  const line = stdout.split('\n').find((l) => l.startsWith('{'))
  return line === undefined ? null : JSON.parse(line) as Cluster
}).catch((error: Error) => { throw new Error(`${error.message}\n${stderr}`) })
const node = (role: ClusterNode['role']): ClusterNode => cluster.nodes.find((n) => n.role === role)!

t.test('the script prints three nats-servers and the three nodes, each its own process', async (t) => {
  t.equal(cluster.nats.length, 3)
  t.same(cluster.nodes.map((n) => n.role), ['primary', 'standby', 'replica'])
  for (const n of cluster.nodes) {
    const health = (await json(n.http, '/health')).body
    t.equal(health.role, n.role, `${n.role} at ${n.http} says so`)
    const cmdline = readFileSync(`/proc/${n.pid}/cmdline`, 'utf8')
    t.match(cmdline, /scripts\/start\.mjs/, `${n.role}'s pid ${n.pid} is the node`)
  }
  t.equal((await faucet(node('primary').http)).status, 200, 'the primary takes writes')
})

t.test('NATS faults: one down, writes go on; two down, writes refused and reads go on; one back, writes resume',
  async (t) => {
    /** The node whose /health says it is the primary now. */
    const currentPrimary = async (): Promise<string> => {
      for (const n of cluster.nodes) {
        if ((await json(n.http, '/health').catch(() => null))?.body.role === 'primary') return n.http
      }
      return node('primary').http
    }
    const args = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '')
    const [first, second] = cluster.natsPids as [number, number]
    const secondArgs = args(second)

    process.kill(first, 'SIGKILL')
    // A nats-server's death moves the lease's stream leader; when that takes longer than the lease's
    // 2 s the standby may take over (a real failover): the writes go to whichever node is primary.
    const going = await eventually('a write with one nats-server down', async () => {
      const answer = await faucet(await currentPrimary())
      return answer.status === 200 ? answer : null
    })
    t.equal(going.status, 200, 'one nats-server down: writes go on')

    process.kill(second, 'SIGKILL')
    // The first write after the loss waits for its record (it is acknowledged once the quorum is
    // back); those after it are refused at once while the log has no quorum.
    const writer = await currentPrimary()
    const waiting = faucet(writer).catch(() => null)
    const refused = await eventually('a refusal with two nats-servers down', async () => {
      const answer = await faucet(writer)
      return answer.status === 503 ? answer : null
    })
    t.equal(refused.body.code, 'COMMAND_LOG_UNAVAILABLE', 'two down: writes refused (503 COMMAND_LOG_UNAVAILABLE)',
      { refusal: refused.body })
    t.equal((await json(writer, '/markets')).status, 200, 'reads go on at the primary')
    t.equal((await json(node('replica').http, '/markets')).status, 200, 'and at the replica')

    let lastHealth: unknown = null
    t.teardown(() => { if (t.passing() === false) t.comment(`health at the end: ${JSON.stringify(lastHealth)}\n${stderr}`) })
    const back = spawn(secondArgs[0]!, secondArgs.slice(1), { stdio: 'ignore' })
    restarted.push(back)
    const resumed = await eventually('writes after a nats-server came back', async () => {
      lastHealth = await Promise.all(cluster.nodes.map(async (n) => (await json(n.http, '/health')).body))
      for (const n of cluster.nodes) {
        const health = (await json(n.http, '/health')).body
        if (health.role !== 'primary') continue
        const answer = await faucet(n.http)
        if (answer.status === 200) return { at: n.role, answer }
      }
      return null
    })
    t.equal(resumed.answer.status, 200, `one back: writes resume (on the ${resumed.at})`)
    const held = await waiting
    t.ok(held === null || held.status === 200 || held.status === 503,
      `the write that waited through the loss was answered (${held?.status ?? 'timed out at the client'})`)
  })
