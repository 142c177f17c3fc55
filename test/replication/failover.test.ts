/**
 * Failover (issue 34, point 2) with `npm start` nodes on a real nats-server: a primary under a
 * steady flow of writes is killed with SIGKILL; the standby takes the lapsed lease and the writes
 * within 3 s; every write the primary acknowledged is there; the new primary's state hash equals
 * the stream's, replayed by an independent follower; and it takes new writes. A second primary
 * started while the lease is held is refused. Bounded: every start and wait has a deadline.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { Engine } from '../../src/engine/engine.js'
import { stateHashOf } from '../../src/engine/snapshot.js'
import { StreamFollower } from '../../src/replication/stream-follower.js'
import { ensureBuilt, ROOT } from '../support/compiled.js'
import { startNats } from '../support/nats.js'
import { startPredex } from '../support/predex-process.js'

const START_MS_MAX = 60_000
/** The bound on a takeover after the primary dies. */
const TAKEOVER_MS_MAX = 3_000
const ADMIN_KEY = 'failover-test-admin-key-0123456789'
const FLOW_MS = 1_500

const json = async (base: string, path: string, init?: RequestInit): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${base}${path}`, init)
  return { status: response.status, body: await response.json() }
}

const address = (n: number): string => '0x' + n.toString(16).padStart(40, '0')
const faucet = (base: string, n: number): Promise<{ status: number; body: any }> =>
  json(base, '/faucet', { method: 'POST', body: JSON.stringify({ address: address(n) }) })

ensureBuilt()
const nats = await startNats(t)
const common = ['--nats-servers', nats.url, '--nats-replicas', '1']
/** Both nodes alike: no demo, no rate limits (the flow writes as fast as it can), a known admin key. */
const nodeArgs = ['--no-demo', '--rate-limits', 'false', '--faucet-cooldown', '0', '--admin-key', ADMIN_KEY,
  '--master-key', randomBytes(32).toString('hex'), ...common]
const primary = await startPredex(t, nodeArgs)
const standby = await startPredex(t, [...nodeArgs, '--role', 'standby'])

t.test('a second primary is refused while the lease is held', async (t) => {
  const secondDir = mkdtempSync(join(tmpdir(), 'predex-2nd-'))
  t.teardown(() => rmSync(secondDir, { recursive: true, force: true }))
  const second = spawn(process.execPath, ['scripts/start.mjs', '--data-dir', secondDir,
    '--port', '0', '--grpc-port', '0', '--no-demo', ...common], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  second.stdout!.setEncoding('utf8').on('data', (text: string) => { output += text })
  second.stderr!.setEncoding('utf8').on('data', (text: string) => { output += text })
  const killer = setTimeout(() => second.kill('SIGKILL'), START_MS_MAX)
  const code = await new Promise((resolve) => second.once('exit', resolve))
  clearTimeout(killer)
  t.not(code, 0, 'it exits')
  t.match(output, /another node holds the primary's lease .*--role standby/, 'saying who holds the lease and what to do')
})

t.test('kill -9 of the primary under a flow of writes: the standby takes over, nothing acknowledged is lost',
  async (t) => {
    t.equal((await json(standby.base, '/health')).body.role, 'standby', 'the standby follows at first')
    const refused = await faucet(standby.base, 999_999)
    t.equal(refused.status, 503, 'and refuses writes')
    t.equal(refused.body.primary, primary.base, 'naming the primary it read from the lease')

    // A steady flow: one write at a time, each acknowledgement recorded.
    const acknowledged: number[] = []
    let stopFlow = false
    const flow = (async () => {
      for (let n = 1; !stopFlow; n++) {
        const answer = await faucet(primary.base, n).catch(() => null)
        if (answer?.status === 200) acknowledged.push(n)
      }
    })()
    await new Promise((resolve) => setTimeout(resolve, FLOW_MS))
    primary.child.kill('SIGKILL')
    const killedMs = Date.now()
    await primary.exited
    stopFlow = true
    await flow
    t.ok(acknowledged.length > 10, `${acknowledged.length} writes acknowledged before the kill`)

    let tookOverMs = Number.POSITIVE_INFINITY
    while (Date.now() - killedMs < TAKEOVER_MS_MAX * 3) {
      const health = (await json(standby.base, '/health')).body
      if (health.role === 'primary') {
        tookOverMs = Date.now() - killedMs
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    t.ok(tookOverMs <= TAKEOVER_MS_MAX, `the standby took over ${tookOverMs} ms after the kill (at most ${TAKEOVER_MS_MAX})`)

    const missing: number[] = []
    for (const n of acknowledged) {
      const status = (await json(standby.base, `/wallet-status?address=${address(n)}`)).body
      if (status.usdc_balance !== '1000') missing.push(n)
    }
    t.same(missing, [], `all ${acknowledged.length} acknowledged writes are on the new primary`)

    const after = await faucet(standby.base, 1_000_001)
    t.equal(after.status, 200, 'the new primary takes writes')
    const hash = (await json(standby.base, '/admin/state-hash', { headers: { 'EXCHANGE-ADMIN-KEY': ADMIN_KEY } })).body
    const follower = await StreamFollower.open([nats.url], 'PREDEX')
    const engine = new Engine({ hashSeed: 7 })
    await follower.catchUp(engine)
    await follower.close()
    t.equal(engine.seq, hash.seq, `the stream ends at the new primary's seq ${hash.seq}`)
    t.equal(stateHashOf(engine), hash.state_hash, 'and replays to its state hash')

    // The old primary, restarted on its own data directory as a standby: it rejoins and follows.
    const rejoined = await startPredex(t, [...nodeArgs, '--role', 'standby'], primary.dataDir)
    const deadline = Date.now() + 15_000
    let health = (await json(rejoined.base, '/health')).body
    while (health.seq < hash.seq && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      health = (await json(rejoined.base, '/health')).body
    }
    t.equal(health.role, 'standby', 'the old primary rejoins as a standby')
    const rejoinedHash = (await json(rejoined.base, '/admin/state-hash',
      { headers: { 'EXCHANGE-ADMIN-KEY': ADMIN_KEY } })).body
    t.same({ seq: rejoinedHash.seq, hash: rejoinedHash.state_hash }, { seq: hash.seq, hash: hash.state_hash },
      'and follows to the new primary\'s seq and state hash')
    // It reads the lease every 250 ms: within a few polls it names the new primary to writers.
    let named: unknown = null
    for (let tries = 0; tries < 40 && named !== standby.base; tries++) {
      named = (await faucet(rejoined.base, 1_000_002)).body.primary
      if (named !== standby.base) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    t.equal(named, standby.base, 'naming the new primary to writers')
  })
