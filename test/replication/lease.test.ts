/**
 * The primary's lease (src/replication/lease.ts, lease-keeper.ts) on a real nats-server: one
 * holder at a time; a renewal keeps it; a holder whose lease another node took learns it at its
 * next renewal, with the new holder's address, and its host then refuses writes with NOT_PRIMARY
 * naming that address (role `deposed`); a clean release lets another node take it at once.
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import { Kvm } from '@nats-io/kv'
import { jetstreamManager } from '@nats-io/jetstream'
import { EngineHost } from '../../src/host/engine-host.js'
import { Lease } from '../../src/replication/lease.js'
import { LeaseKeeper } from '../../src/replication/lease-keeper.js'
import { HighAvailability } from '../../src/replication/high-availability.js'
import { MasterKey } from '../../src/crypto/master-key.js'
import { OpenedParts } from '../../src/opened-parts.js'
import { SILENT_LOG } from '../../src/log.js'
import { LEASE_RENEW_MS, LEASE_TTL_MS } from '../../src/limits.js'
import { startNats } from '../support/nats.js'
import { startTcpProxy } from '../support/tcp-proxy.js'

const nats = await startNats(t)
const connection = await connect({ servers: [nats.url] })
t.teardown(() => connection.close())

t.test('one holder; a renewal keeps it; a release frees it at once', async (t) => {
  const a = await Lease.open(connection, 'L1', 1)
  const b = await Lease.open(connection, 'L1', 1)
  t.ok(await a.acquire({ node: 'a', url: 'http://a', masterKeyId: 'k' }), 'a takes the free lease')
  t.notOk(await b.acquire({ node: 'b', url: 'http://b', masterKeyId: 'k' }), 'b cannot while a holds it')
  t.ok(await a.renew({ node: 'a', url: 'http://a2', masterKeyId: 'k' }), 'a renews it')
  t.same(await b.holder(), { node: 'a', url: 'http://a2', masterKeyId: 'k' }, 'b reads who holds it and where')
  await a.release()
  t.equal(await b.holder(), null, 'released')
  t.ok(await b.acquire({ node: 'b', url: 'http://b', masterKeyId: 'k' }), 'b takes it at once')
  const jsm = await jetstreamManager(connection)
  t.equal((await jsm.streams.info('KV_L1_LEASE')).config.allow_direct, false,
    'its reads go to the leader: a replica behind it (a nats-server just back) could say it is missing')
})

t.test('a holder whose lease was taken learns it at its next renewal; its host refuses writes naming the new one',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'predex-lease-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const host = await EngineHost.start({ dataDir, hashSeed: 1 })
    t.teardown(() => host.stop())
    const a = await Lease.open(connection, 'L2', 1)
    t.ok(await a.acquire({ node: 'a', url: 'http://a', masterKeyId: 'k' }))
    let lost: { reason: string; primary: string | null } | null = null
    const keeper = new LeaseKeeper(a, { node: 'a', url: 'http://a', masterKeyId: 'k' }, (reason, primary) => {
      lost = { reason, primary }
      host.depose(reason, primary)
    }, SILENT_LOG).start()
    t.teardown(() => keeper.stop())
    // Another node takes it: the entry is purged (as if it lapsed) and created by b.
    const kv = await new Kvm(connection).open('L2_LEASE')
    await kv.purge('primary')
    const b = await Lease.open(connection, 'L2', 1)
    t.ok(await b.acquire({ node: 'b', url: 'http://b:8080', masterKeyId: 'k' }), 'b takes it')
    const deadline = Date.now() + 10 * LEASE_RENEW_MS
    while (lost === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    t.match(lost, { reason: /node b \(http:\/\/b:8080\) holds it/, primary: 'http://b:8080' }, 'a learns who has it')
    await t.rejects(host.submit({ kind: 'credit', address: '0x' + '1'.repeat(40), usdcMicros: 1, gasMicros: 0 }),
      { code: 'NOT_PRIMARY', context: { role: 'deposed', primary: 'http://b:8080' } },
      'its writes are refused, naming the new primary')
  })

t.test('a holder that cannot renew for the lease\'s life refuses writes until it can again', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-lease-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const host = await EngineHost.start({ dataDir, hashSeed: 1 })
  t.teardown(() => host.stop())
  // A lease whose renewals find no NATS (as when this node is cut off), until `reachable`.
  let reachable = true
  const unreachable = { renew: async () => {
    if (!reachable) throw new Error('TIMEOUT')
    return true
  }, release: async () => undefined, holder: async () => null } as unknown as Lease
  const confirmations: boolean[] = []
  const keeper = new LeaseKeeper(unreachable, { node: 'a', url: 'http://a', masterKeyId: 'k' }, () => undefined,
    SILENT_LOG, (confirmed) => {
      confirmations.push(confirmed)
      host.leaseConfirmed(confirmed)
    }).start()
  t.teardown(() => keeper.stop())
  const credit = { kind: 'credit', address: '0x' + '2'.repeat(40), usdcMicros: 1, gasMicros: 0 } as const
  t.ok((await host.submit(credit)).result.ok, 'renewed: writes are taken')
  reachable = false
  const cutMs = Date.now()
  while (confirmations.length === 0 && Date.now() - cutMs < LEASE_TTL_MS * 3) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const refusedAfterMs = Date.now() - cutMs
  t.same(confirmations, [false], 'it says the lease is unconfirmed')
  t.ok(refusedAfterMs >= LEASE_TTL_MS - LEASE_RENEW_MS && refusedAfterMs <= LEASE_TTL_MS + 2 * LEASE_RENEW_MS,
    `${refusedAfterMs} ms after its renewals failed (the lease lives ${LEASE_TTL_MS} ms)`)
  await t.rejects(host.submit(credit), { code: 'COMMAND_LOG_UNAVAILABLE', context: { retryAfterSeconds: 1 } },
    'its writes are refused: another node may hold the lease by now')
  t.match(host.writeRefusal(), { code: 'COMMAND_LOG_UNAVAILABLE' }, 'as its readiness as primary says')
  reachable = true
  const healedMs = Date.now()
  while (confirmations.length === 1 && Date.now() - healedMs < LEASE_RENEW_MS * 4) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.same(confirmations, [false, true], 'renewed again, it says so')
  t.ok((await host.submit(credit)).result.ok, 'and takes writes')
})

t.test('a primary whose lease went unconfirmed before its host was up starts refusing writes', async (t) => {
  const proxy = await startTcpProxy(t, nats.url)
  const dataDir = mkdtempSync(join(tmpdir(), 'predex-lease-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const opened = new OpenedParts(SILENT_LOG)
  const ha = await HighAvailability.open({ natsServers: [proxy.url], natsStream: 'EARLY', natsReplicas: 1,
    role: 'primary', dataDir }, MasterKey.random(), SILENT_LOG, opened)
  // Cut off while its host would still be recovering (a long journal): the keeper says so to nobody yet.
  proxy.partition()
  await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS + 3 * LEASE_RENEW_MS))
  const host = await EngineHost.start({ dataDir, hashSeed: 1 })
  t.teardown(() => host.stop())
  ha!.started(host, null, 'http://early', () => undefined)
  t.match(host.writeRefusal(), { code: 'COMMAND_LOG_UNAVAILABLE' }, 'the host, up now, refuses writes')
  proxy.heal()
  const healedMs = Date.now()
  while (host.writeRefusal() !== null && Date.now() - healedMs < LEASE_TTL_MS * 5) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.equal(host.writeRefusal(), null, 'and takes them once the lease is renewed')
  await opened.closeAll()
})
