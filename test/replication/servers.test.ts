/**
 * A primary and a read replica as `npm start` runs them (issue 34): the primary replicates its
 * command log to a real nats-server; the replica (--role replica) follows it into its own data
 * directory and serves the same markets and books; a write sent to the replica is refused with
 * 503 NOT_PRIMARY naming the primary, with Retry-After; /health tells the roles and the replica's
 * lag. Bounded: each server's start and each wait has a deadline.
 */
import t from 'tap'
import { ensureBuilt } from '../compiled.js'
import { startNats } from '../support/nats.js'
import { startPredex } from '../support/predex-process.js'

const LEVEL_MS_MAX = 15_000

const json = async (base: string, path: string, init?: RequestInit): Promise<{ status: number; headers: Headers;
  body: any }> => {
  const response = await fetch(`${base}${path}`, init)
  return { status: response.status, headers: response.headers, body: await response.json() }
}

ensureBuilt()
const nats = await startNats(t)
const primary = await startPredex(t, ['--nats-servers', nats.url, '--nats-replicas', '1'])
const replica = await startPredex(t, ['--nats-servers', nats.url, '--role', 'replica', '--primary-url', primary.base])

/** Both nodes' /health once the replica has applied everything the primary had at the start of the wait. */
async function level(): Promise<{ primary: any; replica: any }> {
  const deadline = Date.now() + LEVEL_MS_MAX
  const target = (await json(primary.base, '/health')).body.seq
  for (;;) {
    const replicaHealth = (await json(replica.base, '/health')).body
    if (replicaHealth.seq >= target || Date.now() > deadline) {
      return { primary: (await json(primary.base, '/health')).body, replica: replicaHealth }
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

t.test('the replica serves the primary\'s markets and books', async (t) => {
  const { primary: primaryHealth, replica: replicaHealth } = await level()
  t.equal(primaryHealth.role, 'primary')
  t.equal(primaryHealth.replicaLag, null)
  t.equal(replicaHealth.role, 'replica')
  t.ok(replicaHealth.seq > 0, `the replica applied the primary's commands (seq ${replicaHealth.seq})`)
  t.match(replicaHealth.replicaLag, { seqsBehind: Number, recordsPending: Number, msBehind: Number })
  const metrics = async (base: string): Promise<string> => (await fetch(`${base}/metrics`)).text()
  t.match(await metrics(replica.base), /^predex_node_primary 0$/m, '/metrics: the replica is not the primary')
  t.match(await metrics(replica.base), /^predex_replica_lag_commands \d+$/m, 'and says its lag')
  t.match(await metrics(primary.base), /^predex_node_primary 1$/m, 'the primary is')
  const markets = (await json(replica.base, '/markets')).body.data
  const primaryMarkets = (await json(primary.base, '/markets')).body.data
  t.same(markets.map((m: any) => m.slug).sort(), primaryMarkets.map((m: any) => m.slug).sort(),
    'the same markets (the primary\'s demo)')
  t.ok(markets.length >= 3, `${markets.length} markets`)
  // The demo moves the books now and then: compare at a moment when both nodes stand at the same seq.
  const token = primaryMarkets[0].yes_token_id
  const deadline = Date.now() + LEVEL_MS_MAX
  for (;;) {
    const [seqA, bookA, seqB, bookB] = [(await json(primary.base, '/health')).body.seq,
      (await json(primary.base, `/book?token_id=${token}`)).body, (await json(replica.base, '/health')).body.seq,
      (await json(replica.base, `/book?token_id=${token}`)).body]
    const seqA2 = (await json(primary.base, '/health')).body.seq
    if (seqA === seqA2 && seqA === seqB) {
      t.same(bookB.bids, bookA.bids, `the same bids at seq ${seqA}`)
      t.same(bookB.asks, bookA.asks, 'the same asks')
      break
    }
    if (Date.now() > deadline) {
      t.fail(`never level: primary ${seqA}..${seqA2}, replica ${seqB}`)
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
})

t.test('a write sent to the replica is refused: 503 NOT_PRIMARY, naming the primary', async (t) => {
  const refused = await json(replica.base, '/faucet', { method: 'POST',
    body: JSON.stringify({ address: '0x' + '1'.repeat(40) }) })
  t.equal(refused.status, 503)
  t.match(refused.body, { code: 'NOT_PRIMARY', role: 'replica', primary: primary.base })
  t.ok(refused.headers.get('retry-after') !== null, 'with Retry-After')
  const accepted = await json(primary.base, '/faucet', { method: 'POST',
    body: JSON.stringify({ address: '0x' + '1'.repeat(40) }) })
  t.equal(accepted.status, 200, 'the primary takes it')
  const { replica: r } = await level()
  t.ok(r.seq >= accepted.body.block_number, `the replica applied the credit (block ${accepted.body.block_number}, `
    + `the replica at seq ${r.seq})`)
  const status = (await json(replica.base, `/wallet-status?address=${'0x' + '1'.repeat(40)}`)).body
  t.equal(status.usdc_balance, '1000', 'the faucet\'s credit made on the primary reads on the replica')
})
