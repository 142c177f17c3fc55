/**
 * A network partition of the primary (issue 34, point 5): the primary reaches NATS through a TCP
 * proxy the test cuts (test/support/tcp-proxy.ts: connections stay open, bytes wait, as when a
 * cable is cut), the standby reaches it directly. Under a steady flow of writes to each node:
 * the cut-off primary acknowledges nothing once the standby has taken the lapsed lease; the
 * standby takes over and takes writes; when the partition heals, the old primary's waiting
 * append and lease renewal are refused, it is deposed and names the new primary to writers, and
 * exactly one node is primary. Every write either node acknowledged is on the new primary, whose
 * state hash is the stream's. Bounded: every start and wait has a deadline.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { Engine } from '../../src/engine/engine.js'
import { stateHashOf } from '../../src/engine/snapshot.js'
import { StreamFollower } from '../../src/replication/stream-follower.js'
import { ensureBuilt } from '../support/compiled.js'
import { startNats } from '../support/nats.js'
import { startPredex, type PredexProcess } from '../support/predex-process.js'
import { startTcpProxy } from '../support/tcp-proxy.js'

/** The bound on a takeover after the primary is lost. */
const TAKEOVER_MS_MAX = 3_000
/** How long the healed primary may take to learn it was deposed (a lease renewal, 500 ms, or its append). */
const DEPOSED_MS_MAX = 10_000
const ADMIN_KEY = 'partition-test-admin-key-0123456789'
const WRITE_TIMEOUT_MS = 1_000

interface Answer { status: number; body: any }

const json = async (base: string, path: string, init?: RequestInit): Promise<Answer> => {
  const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(WRITE_TIMEOUT_MS * 5) })
  return { status: response.status, body: await response.json() }
}
const address = (n: number): string => '0x' + n.toString(16).padStart(40, '0')
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** One faucet write, given up (not acknowledged) after WRITE_TIMEOUT_MS. */
async function write(base: string, n: number): Promise<Answer | null> {
  try {
    const response = await fetch(`${base}/faucet`, { method: 'POST', body: JSON.stringify({ address: address(n) }),
      signal: AbortSignal.timeout(WRITE_TIMEOUT_MS) })
    return { status: response.status, body: await response.json() }
  } catch {
    return null
  }
}

/** Writes to `node` one at a time until stopped, numbering from `first`: what it acknowledged, and when. */
class Flow {
  readonly acknowledged: { n: number; atMs: number }[] = []
  readonly refusals = new Map<string, number>()
  private stopped = false
  private readonly running: Promise<void>

  constructor(node: PredexProcess, first: number) {
    this.running = (async () => {
      for (let n = first; !this.stopped; n++) {
        const answer = await write(node.base, n)
        if (answer?.status === 200) this.acknowledged.push({ n, atMs: Date.now() })
        else {
          const why = answer === null ? 'no answer' : `${answer.status} ${answer.body?.code ?? ''}`
          this.refusals.set(why, (this.refusals.get(why) ?? 0) + 1)
          await sleep(50)
        }
      }
    })()
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.running
  }
}

async function roleOf(node: PredexProcess): Promise<string | null> {
  return (await json(node.base, '/health').catch(() => null))?.body.role ?? null
}

async function waitForRole(node: PredexProcess, role: string, waitMs: number): Promise<number> {
  const started = Date.now()
  while (Date.now() - started < waitMs) {
    if (await roleOf(node) === role) return Date.now() - started
    await sleep(20)
  }
  return Number.POSITIVE_INFINITY
}

ensureBuilt()
const nats = await startNats(t)
const proxy = await startTcpProxy(t, nats.url)
const nodeArgs = ['--no-demo', '--rate-limits', 'false', '--faucet-cooldown', '0', '--admin-key', ADMIN_KEY,
  '--master-key', randomBytes(32).toString('hex'), '--nats-replicas', '1']
const primary = await startPredex(t, [...nodeArgs, '--nats-servers', proxy.url])
const standby = await startPredex(t, [...nodeArgs, '--nats-servers', nats.url, '--role', 'standby'])

t.test('a partitioned primary: the standby takes over, one writer throughout, nothing acknowledged lost',
  async (t) => {
    t.equal(await roleOf(primary), 'primary')
    t.equal(await roleOf(standby), 'standby')
    const before = new Flow(primary, 1)
    await sleep(1_000)
    proxy.partition()
    const partitionedAtMs = Date.now()
    const tookOverMs = await waitForRole(standby, 'primary', TAKEOVER_MS_MAX * 3)
    const tookOverAtMs = partitionedAtMs + tookOverMs
    t.ok(tookOverMs <= TAKEOVER_MS_MAX, `the standby took over ${tookOverMs} ms after the partition ` +
      `(at most ${TAKEOVER_MS_MAX})`)
    const after = new Flow(standby, 1_000_000)
    await sleep(1_500)
    // It cannot tell a partition from a slow NATS: its appends stall and it refuses writes
    // (COMMAND_LOG_UNAVAILABLE) until it hears the stream again.
    t.comment(`during the partition the old primary says role ${await roleOf(primary)}`)
    // What a load balancer reads: only the new primary is ready as one (the old cannot renew its lease).
    const ready = async (node: PredexProcess): Promise<number> =>
      (await fetch(`${node.base}/ready?role=primary`, { signal: AbortSignal.timeout(5_000) })).status
    t.same([await ready(primary), await ready(standby)], [503, 200],
      '/ready?role=primary: 503 on the cut-off primary, 200 on the new one')

    proxy.heal()
    const deposedMs = await waitForRole(primary, 'deposed', DEPOSED_MS_MAX)
    t.ok(deposedMs <= DEPOSED_MS_MAX, `once healed, the old primary was deposed within ${deposedMs} ms`)
    await Promise.all([before.stop(), after.stop()])
    t.comment(`old primary: ${before.acknowledged.length} acknowledged, refused ${JSON.stringify(
      Object.fromEntries(before.refusals))}; new primary: ${after.acknowledged.length} acknowledged`)

    t.ok(before.acknowledged.length > 10, `${before.acknowledged.length} writes acknowledged before the partition`)
    t.ok(after.acknowledged.length > 10, `${after.acknowledged.length} writes acknowledged by the new primary`)
    const overlapping = before.acknowledged.filter(({ atMs }) => atMs >= tookOverAtMs)
    t.same(overlapping, [], 'the old primary acknowledged nothing once the standby had taken over')
    // Deposed by its refused append, it names the new primary once a lease renewal has read who
    // holds the lease: the renewal sent during the partition may still wait for its answer.
    const refusal = async (): Promise<Answer> =>
      json(primary.base, '/faucet', { method: 'POST', body: JSON.stringify({ address: address(7) }) })
    let refused = await refusal()
    const namingStartedMs = Date.now()
    while (refused.body.primary !== standby.base && Date.now() - namingStartedMs < DEPOSED_MS_MAX) {
      await sleep(100)
      refused = await refusal()
    }
    t.equal(refused.status, 503, 'the old primary refuses writes')
    t.equal(refused.body.code, 'NOT_PRIMARY')
    t.equal(refused.body.primary, standby.base, `naming the new primary (${Date.now() - namingStartedMs} ms after ` +
      'its first refusal)')
    t.same([await roleOf(primary), await roleOf(standby)], ['deposed', 'primary'], 'exactly one primary')

    const missing: number[] = []
    for (const { n } of [...before.acknowledged, ...after.acknowledged]) {
      const status = (await json(standby.base, `/wallet-status?address=${address(n)}`)).body
      if (status.usdc_balance !== '1000') missing.push(n)
    }
    t.same(missing, [], 'every acknowledged write is on the new primary')
    const hash = (await json(standby.base, '/admin/state-hash', { headers: { 'EXCHANGE-ADMIN-KEY': ADMIN_KEY } })).body
    const follower = await StreamFollower.open([nats.url], 'PREDEX')
    const engine = new Engine({ hashSeed: 7 })
    await follower.catchUp(engine)
    await follower.close()
    t.same({ seq: engine.seq, hash: stateHashOf(engine) }, { seq: hash.seq, hash: hash.state_hash },
      'the stream replays to the new primary\'s seq and state hash')
  })
