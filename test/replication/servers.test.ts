/**
 * A primary and a read replica as `npm start` runs them (issue 34): the primary replicates its
 * command log to a real nats-server; the replica (--role replica) follows it into its own data
 * directory and serves the same markets and books; a write sent to the replica is refused with
 * 503 NOT_PRIMARY naming the primary, with Retry-After; /health tells the roles and the replica's
 * lag. The replica's WebSocket market channel and gRPC book stream carry an order placed on the
 * primary; an API key made on the primary reads its account on the replica; a gRPC write there is
 * UNAVAILABLE with NOT_PRIMARY naming the primary. Bounded: each server's start and each wait has
 * a deadline.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { status } from '@grpc/grpc-js'
import { PredexGrpcClient } from '../../src/client/grpc/predex-grpc-client.js'
import { PredexClient } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { ensureBuilt } from '../support/compiled.js'
import { USDC } from '../support/driver.js'
import { WsClient } from '../support/ws-client.js'
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
// One master key for both, as a deployment must have it: API secrets derive from it.
const masterKey = randomBytes(32).toString('hex')
const primary = await startPredex(t, ['--nats-servers', nats.url, '--nats-replicas', '1', '--master-key', masterKey])
const replica = await startPredex(t, ['--nats-servers', nats.url, '--role', 'replica', '--primary-url', primary.base,
  '--master-key', masterKey])

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
  // A load balancer's check for where writes go: /ready?role=primary.
  t.equal((await json(primary.base, '/ready?role=primary')).status, 200, '/ready?role=primary: 200 on the primary')
  const notPrimary = await json(replica.base, '/ready?role=primary')
  t.equal(notPrimary.status, 503, 'and 503 on the replica')
  t.match(notPrimary.body, { code: 'NOT_PRIMARY', primary: primary.base }, 'naming the primary')
  t.equal((await json(replica.base, '/ready')).status, 200, 'which is ready for reads')
  t.equal((await json(replica.base, '/ready?role=standby')).status, 400, 'primary is the only role asked for')
  const accepted = await json(primary.base, '/faucet', { method: 'POST',
    body: JSON.stringify({ address: '0x' + '1'.repeat(40) }) })
  t.equal(accepted.status, 200, 'the primary takes it')
  const { replica: r } = await level()
  t.ok(r.seq >= accepted.body.block_number, `the replica applied the credit (block ${accepted.body.block_number}, `
    + `the replica at seq ${r.seq})`)
  const status = (await json(replica.base, `/wallet-status?address=${'0x' + '1'.repeat(40)}`)).body
  t.equal(status.usdc_balance, '1000', 'the faucet\'s credit made on the primary reads on the replica')
})

t.test('the replica\'s faces: its WebSocket market channel and gRPC book stream carry an order placed on the ' +
  'primary; a key made on the primary reads the account there; a gRPC write is UNAVAILABLE NOT_PRIMARY', async (t) => {
  const token = (await json(primary.base, '/markets')).body.data[0].yes_token_id as string
  const ws = await WsClient.open(`${replica.base.replace('http', 'ws')}/ws/market`)
  t.teardown(() => ws.socket.close())
  ws.send({ type: 'market', assets_ids: [token] })
  const [snapshot] = await ws.json()
  t.match(snapshot, { event_type: 'book', asset_id: token }, 'the WebSocket channel: the book first')
  const wallet = Wallet.random()
  const trader = new PredexClient({ baseUrl: primary.base, wallet })
  const credentials = await trader.createApiKey()
  await trader.faucet()
  await trader.approve(1_000 * USDC)
  const grpc = new PredexGrpcClient({ target: replica.grpc, signer: { credentials, address: wallet.address.toLowerCase() } })
  t.teardown(() => grpc.close())
  const stream = grpc.bookStream([token])[Symbol.asyncIterator]()
  t.match((await stream.next()).value, { kind: 'snapshot', tokenId: token }, 'the gRPC book stream: a snapshot first')

  // A level no demo quote takes: the lowest tick, a size of its own.
  const placed = await trader.placeLimitOrder({ tokenId: token, side: 'BUY', price: '0.01', size: '7.13', postOnly: true })
  t.equal(placed.status, 'live', 'an order rests on the primary')
  const isOurs = (change: { side?: unknown; price: string; size: string }): boolean =>
    change.price === '0.01' && change.size === '7.13'
  const deadline = Date.now() + LEVEL_MS_MAX
  let seenWs = false
  while (!seenWs && Date.now() < deadline) {
    const frame = JSON.parse(await ws.next(Math.max(0, deadline - Date.now())))
    seenWs = (Array.isArray(frame) ? frame : [frame]).some((message) => message.event_type === 'price_change' &&
      message.price_changes.some(isOurs))
  }
  t.ok(seenWs, 'the replica\'s WebSocket channel sends its level')
  let seenGrpc = false
  while (!seenGrpc && Date.now() < deadline) {
    const update = (await stream.next()).value
    seenGrpc = update?.kind === 'levels' && update.changes.some(isOurs)
  }
  t.ok(seenGrpc, 'the replica\'s gRPC book stream sends its level')
  await stream.return?.()

  const replicaClient = new PredexClient({ baseUrl: replica.base, wallet, credentials })
  const open = await replicaClient.allOpenOrders({ market: undefined })
  t.same(open.map((order) => order.id), [placed.orderID], 'the key made on the primary reads its orders on the replica')
  const refused = await grpc.cancelAll().then(() => null, (error: unknown) => error)
  t.match(refused, { grpcCode: status.UNAVAILABLE, code: 'NOT_PRIMARY', context: { role: 'replica', primary: primary.base } },
    'a gRPC write to the replica: UNAVAILABLE, NOT_PRIMARY, naming the primary')
})

t.test('a follower whose master key is not the primary\'s is refused at start, saying why', async (t) => {
  await t.rejects(startPredex(t, ['--nats-servers', nats.url, '--role', 'replica', '--primary-url', primary.base,
    '--master-key', randomBytes(32).toString('hex')]), /master key is not the primary's .*same PREDEX_MASTER_KEY/s)
})
