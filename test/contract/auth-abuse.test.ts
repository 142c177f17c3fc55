/**
 * Authentication failures as an attacker sends them (issue 27, findings 5 and 9, deliverable 5): a
 * real server process takes L2 requests each claiming a distinct unknown API key, oversized (15 000
 * bytes: over REST the most its header bound lets through, over gRPC the most its metadata bound
 * does), from the same address as an honest client. Before the fix each failure left its whole key
 * in the failure table, and gRPC's header values stayed as garbage V8 never collected: 19.5 MB
 * (REST) and 113 MB (gRPC, 60 000-byte keys) per 1 000 failures, never given back. Now the
 * server's own memory (RssAnon) stays under a ceiling during the flood and comes back within
 * RSS_ANON_RETURN_MB_MAX of where it was after a quiet spell, the honest client is served all
 * along (REST and gRPC, signed), and the server is alive at the end.
 *
 * What stays after the quiet spell is glibc's heap: gRPC's header values are its blocks, freed
 * when V8 collects the strings that lend them, and the heap keeps the high-water mark of that
 * garbage. With 60 000-byte keys and a collection per 32 MiB checked each second, +78 MB stayed
 * here and +104 MB on CI (the run that failed, 2026-11-29); now keys past 16 KiB are refused while
 * HTTP/2 decodes them and the watch collects per 8 MiB every 200 ms: +20 to +30 MB.
 */
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, credentials as grpcCredentials, status as GrpcStatus } from '@grpc/grpc-js'
import { startChild, stopChild, type Child } from '../../bench/predex-server.js'
import { AccountService } from '../../src/gen/predex/v1/account_pb.js'
import { AssetType } from '../../src/gen/predex/v1/account_pb.js'
import { GrpcTransport } from '../../src/client/grpc/transport.js'
import { l1Headers, l2Headers } from '../../src/crypto/request-headers.js'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { ensureBuilt } from '../support/compiled.js'
import { anonMb, floodRequests, forgedCall, forgedHeaders, keyOf, memoryBack, nowSec, rest as restOn }
  from '../support/abuse.js'

const CHAIN_ID = 80002
const REST_FAILURES = 3_000
const REST_KEY_BYTES = 15_000
const GRPC_FAILURES = 3_000
const GRPC_KEY_BYTES = 15_000
const CONCURRENCY = 16
/** Own memory at any moment of the flood above where it was before (unbounded, it was 400 MB here). */
const RSS_ANON_PEAK_MB_MAX = 256
/** Own memory after the quiet spell above where it was before (+76 to +82 MB here before the fix). */
const RSS_ANON_RETURN_MB_MAX = 64
/** How long the quiet spell may last before memory must be back. */
const QUIET_WAIT_MS = 30_000
/** An honest request's answer time while the flood goes on. */
const PROBE_MS_MAX = 2_000

ensureBuilt()

interface Server {
  readonly child: Child
  readonly restPort: number
  readonly grpcPort: number
}

async function startServer(dataDir: string): Promise<Server> {
  const child = await startChild('src/main.js', ['--data-dir', dataDir, '--port', '0', '--grpc-port', '0', '--no-demo',
    '--admin-key', 'a'.repeat(40), '--log-format', 'json'], /gRPC listening on [^\s:]+:(\d+)/)
  const restPort = Number(/REST listening on http:\/\/[^:]+:(\d+)/.exec(child.output)?.[1])
  return { child, restPort, grpcPort: child.port }
}

/** One REST request: its status (or the error's code when the connection failed). */
function rest(server: Server, agent: Agent, method: string, path: string, headers: Record<string, string>):
  Promise<number | string> {
  return restOn(server.restPort, agent, method, path, headers)
}

/** Runs `send(i)` for i < count, CONCURRENCY at a time; the answers counted by status. */
function flood(count: number, send: (i: number) => Promise<number | string>): Promise<Map<number | string, number>> {
  return floodRequests(CONCURRENCY, (i) => i < count, send)
}

/** The honest client: a wallet with an API key, asking its balance signed on both faces. */
class Honest {
  readonly slowMs: number[] = []
  readonly failures: string[] = []
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 })
  private readonly grpc: GrpcTransport

  private constructor(private readonly server: Server, private readonly wallet: Wallet,
    private readonly credentials: ApiCredentials) {
    this.grpc = new GrpcTransport(`127.0.0.1:${server.grpcPort}`)
  }

  static async create(server: Server): Promise<Honest> {
    const wallet = Wallet.random()
    const response = await fetch(`http://127.0.0.1:${server.restPort}/auth/api-key`,
      { method: 'POST', headers: l1Headers(wallet, CHAIN_ID, nowSec()) })
    if (response.status !== 200) throw new Error(`api key: ${response.status} ${await response.text()}`)
    return new Honest(server, wallet, (await response.json()) as ApiCredentials)
  }

  /** One signed request on each face; a failure or a slow answer is noted. */
  async probe(): Promise<void> {
    const path = '/balance-allowance?asset_type=COLLATERAL'
    const started = performance.now()
    const status = await rest(this.server, this.agent, 'GET', path, l2Headers(this.credentials,
      this.wallet.address.toLowerCase(), 'GET', '/balance-allowance', '', nowSec(), 'EXCHANGE'))
    if (status !== 200) this.failures.push(`REST ${status}`)
    try {
      await this.grpc.unary(AccountService.method.getBalanceAllowance, { assetType: AssetType.COLLATERAL },
        { credentials: this.credentials, address: this.wallet.address.toLowerCase() })
    } catch (error) {
      this.failures.push(`gRPC ${String(error)}`)
    }
    this.slowMs.push(performance.now() - started)
  }

  close(): void {
    this.agent.destroy()
    this.grpc.close()
  }
}

/** Runs `during` while the honest client probes every 250 ms and memory is sampled: the peak. */
async function underProbe<T>(server: Server, honest: Honest, during: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peakMb = anonMb(server.child.process.pid!)
  let running = true
  const probing = (async () => {
    while (running) {
      await honest.probe()
      peakMb = Math.max(peakMb, anonMb(server.child.process.pid!))
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  })()
  const result = await during()
  running = false
  await probing
  return { result, peakMb: Math.max(peakMb, anonMb(server.child.process.pid!)) }
}

async function checkMemoryBack(t: Test, pid: number, beforeMb: number): Promise<void> {
  const { afterMb } = await memoryBack(pid, beforeMb, RSS_ANON_RETURN_MB_MAX, QUIET_WAIT_MS)
  t.ok(afterMb <= beforeMb + RSS_ANON_RETURN_MB_MAX, `own memory back to ${afterMb.toFixed(0)} MB after the quiet `
    + `(${beforeMb.toFixed(0)} MB before; at most ${RSS_ANON_RETURN_MB_MAX} MB more)`)
}

t.test('oversized distinct keys over REST and gRPC: memory bounded and back, the honest client served', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'predex.auth-abuse-'))
  const server = await startServer(dataDir)
  const pid = server.child.process.pid!
  const honest = await Honest.create(server)
  const grpcClient = new Client(`127.0.0.1:${server.grpcPort}`, grpcCredentials.createInsecure())
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  t.teardown(async () => {
    honest.close()
    grpcClient.close()
    agent.destroy()
    if (server.child.process.exitCode === null) await stopChild(server.child)
    rmSync(dataDir, { recursive: true, force: true })
  })
  for (let i = 0; i < 4; i++) await honest.probe() // warm: both faces' first calls, before the baseline
  const beforeMb = anonMb(pid)
  const startedMs = performance.now()
  const { result: statuses, peakMb } = await underProbe(server, honest, async () => ({
    rest: await flood(REST_FAILURES, (i) => rest(server, agent, 'GET', '/auth/api-keys',
      forgedHeaders(keyOf(i, REST_KEY_BYTES)))),
    grpc: await flood(GRPC_FAILURES, (i) => forgedCall(grpcClient, i, GRPC_KEY_BYTES)),
  }))
  t.comment(JSON.stringify({ seconds: Math.round((performance.now() - startedMs) / 1000), beforeMb: Math.round(beforeMb),
    peakMb: Math.round(peakMb), rest: Object.fromEntries(statuses.rest), grpc: Object.fromEntries(statuses.grpc) }))
  t.same([...statuses.rest.keys()].filter((s) => s !== 401 && s !== 429), [], 'REST: every forged request 401 or 429')
  t.same([...statuses.grpc.keys()].filter((s) => s !== GrpcStatus.UNAUTHENTICATED &&
    s !== GrpcStatus.RESOURCE_EXHAUSTED), [], 'gRPC: every forged call UNAUTHENTICATED or RESOURCE_EXHAUSTED')
  t.ok(peakMb <= beforeMb + RSS_ANON_PEAK_MB_MAX, `own memory peaked at ${peakMb.toFixed(0)} MB `
    + `(${beforeMb.toFixed(0)} MB before; at most ${RSS_ANON_PEAK_MB_MAX} MB more)`)
  t.same(honest.failures, [], `the honest client was served (${honest.slowMs.length} probes)`)
  t.ok(Math.max(...honest.slowMs) <= PROBE_MS_MAX, `its slowest probe: ${Math.max(...honest.slowMs).toFixed(0)} ms `
    + `(at most ${PROBE_MS_MAX})`)
  await checkMemoryBack(t, pid, beforeMb)
  await honest.probe()
  t.same(honest.failures, [], 'and served after')
  t.equal(server.child.process.exitCode, null, 'the server is alive')
})
