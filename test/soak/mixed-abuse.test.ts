/**
 * Two minutes of mixed abuse against one server process (issue 27, "Not done until": own memory
 * within a stated bound of its start after quiet; finding 9 saw 86 -> 314 MB, kept after 90 s).
 * The server runs with its rate limits on, as in production, and these go on at once for
 * MIXED_ABUSE_SECONDS (default 120), each attacker from loopback addresses of its own:
 *
 * - REST authentication failures, each claiming a distinct 15 000-byte API key;
 * - gRPC authentication failures, each claiming a distinct 60 000-byte API key (from 127.0.0.1, the
 *   honest client's address);
 * - reflection streams that flood requests (descriptors, and 200 KB `host` fields) and never
 *   read, dropped after a few seconds and opened again;
 * - book streams on a book that changes (a trader places and cancels orders throughout), never
 *   read, dropped after a few seconds and opened again;
 * - WebSocket /ws/market sockets subscribed to that book (asking for its snapshot again and
 *   again), never read, dropped after a few seconds and opened again;
 * - connection churn to the gRPC port: HTTP/2 sessions opened and dropped as fast as they come up;
 *
 * while an honest client (127.0.0.1) asks every PROBE_EVERY_MS for REST /health, its balance
 * over REST (signed) and its balance over gRPC (signed). Then quiet, and asserted: the honest
 * client saw no 5xx but 503 (no INTERNAL, UNKNOWN, DATA_LOSS or UNIMPLEMENTED over gRPC); of each
 * kind of its probes at least PROBES_SERVED_SHARE_MIN were answered (200 / OK) within
 * PROBE_ANSWERED_MS_MAX; the server's own memory (RssAnon) came back within
 * RSS_ANON_RETURN_MB_MAX of its value before the abuse, waiting up to RETURN_WAIT_MS (V8's memory
 * reducer gives pages back about a minute after a load); and the process is alive and serving.
 *
 * How long each socket and stream lives is drawn from a seeded generator: the seed is printed, and
 * MIXED_ABUSE_SEED=<seed> draws the same. Bounded in time: about MIXED_ABUSE_SECONDS plus the
 * quiet (at most RETURN_WAIT_MS) and some 15 s of setting up and stopping.
 *
 *   MIXED_ABUSE_SECONDS=30 npx tap test/soak/mixed-abuse.test.ts
 *   MIXED_ABUSE_QUIET_MS=90000 npx tap test/soak/mixed-abuse.test.ts   (watch the whole quiet first)
 */
import t from 'tap'
import { Agent } from 'node:http'
import type { ClientHttp2Session } from 'node:http2'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { create, toBinary } from '@bufbuild/protobuf'
import { Client, credentials, status as GrpcStatus } from '@grpc/grpc-js'
import WebSocket from 'ws'
import { setUpTraders, signOrders, startPredexServer, type BenchServer, type Trader } from '../../bench/predex-server.js'
import { GrpcCallError, GrpcTransport } from '../../src/client/grpc/transport.js'
import { l2Headers } from '../../src/crypto/request-headers.js'
import { orderBody } from '../../src/client/orders.js'
import { AccountService, AssetType } from '../../src/gen/predex/v1/account_pb.js'
import { BookStreamRequestSchema } from '../../src/gen/predex/v1/streams_pb.js'
import { ensureBuilt } from '../support/compiled.js'
import { Random } from '../simulation/random.js'
import { Abuser, REFLECTION, type ChurnTally, anonMb, churn, connectionChurn, descriptorsOpen, floodRequests,
  floodStream, forgedCall, forgedHeaders, framed, keyOf, memoryBack, MemorySampler, nowSec, reflectionRequest, rest,
  session, sleep } from '../support/abuse.js'

const SECONDS = Number(process.env.MIXED_ABUSE_SECONDS ?? 120)
const SEED = Number(process.env.MIXED_ABUSE_SEED ?? Math.floor(Math.random() * 2 ** 31))
/** Own memory after the abuse and quiet, above what it was before (issue 27's bound, the overload test's). */
const RSS_ANON_RETURN_MB_MAX = 96
/** How long the quiet may last before own memory must be back. */
const RETURN_WAIT_MS = 90_000
/** Quiet watched before memory is judged (default none: judged as soon as it is back), to see where it settles. */
const QUIET_WATCHED_MS = Number(process.env.MIXED_ABUSE_QUIET_MS ?? 0)
/** The honest client's round: /health, a signed REST read, a signed gRPC read, side by side. */
const PROBE_EVERY_MS = 250
/** An honest request given up after this long (then it counts as not served). */
const PROBE_TIMEOUT_MS = 5_000
/** Served: answered 200 (OK over gRPC) within this long... */
const PROBE_ANSWERED_MS_MAX = 2_000
/** ...for at least this share of each kind of probe. */
const PROBES_SERVED_SHARE_MIN = 0.9
/** How long an abusive socket or stream lives before it is dropped (and another opened). */
const LIFETIME_MS_MIN = 2_000
const LIFETIME_MS_MAX = 5_000

const REST_KEY_BYTES = 15_000
/** Eight addresses: each (address, oversized claim) is blocked after AUTH_FAILURE's burst, as it should be. */
const REST_ADDRESSES = Array.from({ length: 8 }, (_, i) => `127.0.0.${20 + i}`)
const REST_CONCURRENCY = 4
/** The most a call's metadata carries within GRPC_METADATA_BYTES_MAX: larger is reset while HTTP/2 decodes it. */
const GRPC_KEY_BYTES = 15_000
const GRPC_CONCURRENCY = 4
const REFLECTION_ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']
/** Streams on each reflection connection (GRPC_REFLECTION_STREAMS_PER_ADDRESS_MAX), one of them with 200 KB hosts. */
const REFLECTION_STREAMS = 4
const BOOK_ADDRESSES = ['127.0.0.6', '127.0.0.7']
const BOOK_STREAMS = 8
const WS_ADDRESSES = ['127.0.0.8', '127.0.0.9']
const WS_SOCKETS = 12
/** Subscriptions a socket sends before it stops reading: a snapshot of the book each. */
const WS_SUBSCRIBES = 20
const CHURN_ADDRESSES = ['127.0.0.40', '127.0.0.41', '127.0.0.42', '127.0.0.43']
const CHURN_CONCURRENCY = 8
/** Between the trader's cancel and its next placement. */
const TRADER_PAUSE_MS = 20

ensureBuilt()

const count = <K>(map: Map<K, number>, key: K): void => {
  map.set(key, (map.get(key) ?? 0) + 1)
}

/** Waits `ms` or until `stop` says so (checked every 100 ms), so that the abuse ends on time. */
async function live(ms: number, stop: () => boolean): Promise<void> {
  const until = Date.now() + ms
  while (!stop() && Date.now() < until) await sleep(Math.min(100, until - Date.now()))
}

type ProbeKind = 'REST /health' | 'REST signed read' | 'gRPC signed read'

interface ProbeAnswer {
  readonly kind: ProbeKind
  /** The HTTP status, the gRPC status's name, or the failure's code. */
  readonly status: string
  readonly served: boolean
  readonly ms: number
}

/** The honest client: a trader with an API key on 127.0.0.1, asking its balance signed on both faces. */
class Honest {
  readonly answers: ProbeAnswer[] = []
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 2 })
  private readonly grpc: GrpcTransport

  constructor(private readonly server: BenchServer, private readonly trader: Trader) {
    this.grpc = new GrpcTransport(`127.0.0.1:${server.grpcPort}`)
  }

  /** One round: the three requests side by side. */
  async round(): Promise<void> {
    const path = '/balance-allowance?asset_type=COLLATERAL'
    await Promise.all([
      this.timed('REST /health', async () => String(await rest(this.server.restPort, this.agent, 'GET', '/health', {},
        { timeoutMs: PROBE_TIMEOUT_MS }))),
      this.timed('REST signed read', async () => String(await rest(this.server.restPort, this.agent, 'GET', path,
        l2Headers(this.trader.credentials, this.trader.address, 'GET', '/balance-allowance', '', nowSec(), 'EXCHANGE'),
        { timeoutMs: PROBE_TIMEOUT_MS }))),
      this.timed('gRPC signed read', async () => {
        try {
          await this.grpc.unary(AccountService.method.getBalanceAllowance, { assetType: AssetType.COLLATERAL },
            { credentials: this.trader.credentials, address: this.trader.address },
            { deadline: Date.now() + PROBE_TIMEOUT_MS })
          return 'OK'
        } catch (error) {
          return error instanceof GrpcCallError ? GrpcStatus[error.grpcCode] ?? String(error.grpcCode) : String(error)
        }
      }),
    ])
  }

  private async timed(kind: ProbeKind, request: () => Promise<string>): Promise<void> {
    const started = performance.now()
    const status = await request()
    const ms = performance.now() - started
    this.answers.push({ kind, status, ms, served: (status === '200' || status === 'OK') && ms <= PROBE_ANSWERED_MS_MAX })
  }

  close(): void {
    this.agent.destroy()
    this.grpc.close()
  }
}

/** Its resting orders: 49 bids, one on each price level 0.01..0.49, so that snapshots have some size. */
async function deepen(server: BenchServer, trader: Trader, tokenId: string): Promise<void> {
  for (const { signed } of signOrders([trader], tokenId, 49)) {
    const body = orderBody(signed, trader.credentials.apiKey, 'GTC')
    const placed = await fetch(`${server.base}/order`, { method: 'POST', body,
      headers: l2Headers(trader.credentials, trader.address, 'POST', '/order', body, nowSec()) })
    if (placed.status !== 200) throw new Error(`a resting order: ${placed.status} ${await placed.text()}`)
  }
}

t.test(`${SECONDS} s of mixed abuse: the honest client served, own memory back after quiet, alive`, async (t) => {
  t.comment(`seed ${SEED} (MIXED_ABUSE_SEED=${SEED} draws the same lifetimes)`)
  const draw = new Random(SEED)
  const lifetime = (): number => draw.int(LIFETIME_MS_MIN, LIFETIME_MS_MAX)
  const server = await startPredexServer({ rateLimits: true })
  t.teardown(() => server.stop())
  const { traders, tokenId } = await setUpTraders(server, 3)
  const [maker, depth, honestTrader] = traders as [Trader, Trader, Trader]
  await deepen(server, depth, tokenId)
  const honest = new Honest(server, honestTrader)
  t.teardown(() => honest.close())
  for (let i = 0; i < 8; i++) await honest.round() // warm: both faces' first calls, before the baseline
  honest.answers.length = 0

  // Everything the attackers hold, dropped at the end whatever happened.
  const sessions = new Set<ClientHttp2Session>()
  const sockets = new Set<WebSocket>()
  const restAgent = new Agent({ keepAlive: true, maxSockets: REST_CONCURRENCY })
  const forgingClient = new Client(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure(),
    { 'grpc.use_local_subchannel_pool': 1 })
  const dropAll = (): void => {
    for (const s of sessions) s.destroy()
    for (const socket of sockets) socket.terminate()
    restAgent.destroy()
    forgingClient.close()
  }
  t.teardown(dropAll)

  const pid = server.pid
  const beforeMb = anonMb(pid)
  const descriptorsBefore = descriptorsOpen(pid)
  const sampler = new MemorySampler(pid)
  t.teardown(() => sampler.stop())
  const timeline: number[] = []
  const timelineTimer = setInterval(() => timeline.push(Math.round(anonMb(pid))), 10_000)
  t.teardown(() => clearInterval(timelineTimer))
  const lag = monitorEventLoopDelay({ resolution: 20 })
  lag.enable()
  t.teardown(() => lag.disable())

  const started = Date.now()
  const stop = (): boolean => Date.now() - started >= SECONDS * 1000
  const tally = {
    rest: new Map<number | string, number>(), grpc: new Map<number | string, number>(),
    reflection: new Map<string, number>(), book: new Map<string, number>(), ws: new Map<string, number>(),
    churn: { connected: 0, refused: 0, silent: 0 } satisfies ChurnTally,
  }
  /** The stream's end as the server gave it, read just before the stream is dropped. */
  const ending = async (abuser: Abuser): Promise<string> => {
    const code = await abuser.collect(100)
    return code === null ? 'open when dropped' : GrpcStatus[code] ?? String(code)
  }
  const opened = (localAddress: string): ClientHttp2Session => {
    const client = session(server.grpcPort, localAddress)
    sessions.add(client)
    client.once('close', () => sessions.delete(client))
    return client
  }

  const work: Promise<unknown>[] = []
  // Authentication failures, each with a key of its own.
  work.push(floodRequests(REST_CONCURRENCY, () => !stop(), (i) => rest(server.restPort, restAgent, 'GET',
    '/auth/api-keys', forgedHeaders(keyOf(i, REST_KEY_BYTES)),
    { localAddress: REST_ADDRESSES[i % REST_ADDRESSES.length], timeoutMs: 10_000 })).then((s) => (tally.rest = s)))
  work.push(floodRequests(GRPC_CONCURRENCY, () => !stop(), (i) => forgedCall(forgingClient, i, GRPC_KEY_BYTES))
    .then((s) => (tally.grpc = s)))
  // Reflection streams flooding requests, never read, dropped and opened again.
  for (const address of REFLECTION_ADDRESSES) {
    work.push((async () => {
      while (!stop()) {
        const client = opened(address)
        const until = Date.now() + lifetime()
        const abusers = Array.from({ length: REFLECTION_STREAMS }, (_, s) => {
          const abuser = new Abuser(client, REFLECTION)
          const request = reflectionRequest(s === REFLECTION_STREAMS - 1 ? 200_000 : 0)
          return { abuser,
            flooding: floodStream(abuser, () => request, () => stop() || Date.now() >= until, { drained: true }) }
        })
        await Promise.all(abusers.map(({ flooding }) => flooding))
        await live(until - Date.now(), stop)
        for (const { abuser } of abusers) count(tally.reflection, await ending(abuser))
        client.destroy()
      }
    })())
  }
  // Book streams on the changing book, never read, dropped and opened again.
  const bookRequest = framed(toBinary(BookStreamRequestSchema, create(BookStreamRequestSchema, { tokenIds: [tokenId] })))
  for (const address of BOOK_ADDRESSES) {
    work.push((async () => {
      while (!stop()) {
        const client = opened(address)
        const abusers = Array.from({ length: BOOK_STREAMS }, () => {
          const abuser = new Abuser(client, '/predex.v1.StreamService/BookStream')
          abuser.stream.end(bookRequest)
          return abuser
        })
        await live(lifetime(), stop)
        for (const abuser of abusers) count(tally.book, await ending(abuser))
        client.destroy()
      }
    })())
  }
  // WebSockets on the same book asking for its snapshot again and again, never read, dropped and opened again.
  for (let w = 0; w < WS_SOCKETS; w++) {
    work.push((async () => {
      while (!stop()) {
        const socket = new WebSocket(`ws://127.0.0.1:${server.restPort}/ws/market`,
          { localAddress: WS_ADDRESSES[w % WS_ADDRESSES.length] })
        sockets.add(socket)
        socket.on('error', () => undefined)
        let closedByServer = false
        const closed = new Promise<void>((resolve) => socket.once('close', () => {
          closedByServer = true
          resolve()
        }))
        const open = await Promise.race([new Promise<boolean>((resolve) => socket.once('open', () => resolve(true))),
          closed.then(() => false), sleep(5_000).then(() => false)])
        if (open) {
          for (let s = 0; s < WS_SUBSCRIBES; s++) socket.send(JSON.stringify({ type: 'market', assets_ids: [tokenId] }))
          socket.pause()
          await Promise.race([live(lifetime(), stop), closed])
        }
        count(tally.ws, !open ? 'not opened' : closedByServer ? 'closed by the server' : 'dropped')
        socket.terminate()
        sockets.delete(socket)
        if (!open) await sleep(100)
      }
    })())
  }
  // Connection churn, and the trader who keeps the book changing.
  work.push(connectionChurn(server.grpcPort, CHURN_ADDRESSES, CHURN_CONCURRENCY, stop, tally.churn))
  work.push(churn(server, maker, tokenId, stop, TRADER_PAUSE_MS))
  // The honest client throughout, a round every PROBE_EVERY_MS (a late round goes at once).
  work.push((async () => {
    for (let due = Date.now(); !stop(); due += PROBE_EVERY_MS) {
      await sleep(Math.max(0, due - Date.now()))
      await honest.round()
    }
  })())

  const finished = await Promise.race([Promise.all(work).then(() => true), (async () => {
    while (!stop()) await sleep(200)
    await sleep(10_000)
    return false
  })()])
  dropAll()
  lag.disable()
  const abuseMs = Date.now() - started
  const peakRssMb = sampler.peakRssMb
  const peakAnonMb = sampler.peakAnonMb
  sampler.stop()
  t.comment(JSON.stringify({ seconds: Math.round(abuseMs / 1000), allAttackersStopped: finished,
    rest: Object.fromEntries(tally.rest), grpc: Object.fromEntries(tally.grpc),
    reflection: Object.fromEntries(tally.reflection), bookStreams: Object.fromEntries(tally.book),
    webSockets: Object.fromEntries(tally.ws), churn: tally.churn }))
  t.comment(`this process's event-loop lag during the abuse: p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms, ` +
    `max ${(lag.max / 1e6).toFixed(0)} ms`)

  // The honest client.
  const kinds: ProbeKind[] = ['REST /health', 'REST signed read', 'gRPC signed read']
  for (const kind of kinds) {
    const answers = honest.answers.filter((a) => a.kind === kind)
    const statuses = new Map<string, number>()
    for (const answer of answers) count(statuses, answer.status)
    const served = answers.filter((a) => a.served).length
    const slowest = Math.max(...answers.map((a) => a.ms))
    t.ok(answers.length > 0 && served >= PROBES_SERVED_SHARE_MIN * answers.length, `${kind}: ${served} of ` +
      `${answers.length} probes answered within ${PROBE_ANSWERED_MS_MAX} ms (at least ` +
      `${PROBES_SERVED_SHARE_MIN * 100}%); slowest ${slowest.toFixed(0)} ms; ${JSON.stringify(Object.fromEntries(statuses))}`)
  }
  const fiveHundreds = honest.answers.filter((a) => /^5\d\d$/.test(a.status) && a.status !== '503')
  t.same(fiveHundreds.map((a) => `${a.kind} ${a.status}`), [], 'the honest client saw no 5xx but 503 over REST')
  const broken = honest.answers.filter((a) => ['INTERNAL', 'UNKNOWN', 'DATA_LOSS', 'UNIMPLEMENTED'].includes(a.status))
  t.same(broken.map((a) => `${a.kind} ${a.status}`), [], 'nor INTERNAL, UNKNOWN, DATA_LOSS or UNIMPLEMENTED over gRPC')

  // Quiet, then own memory.
  await sleep(QUIET_WATCHED_MS)
  const { afterMb, waitedMs: backMs } = await memoryBack(pid, beforeMb, RSS_ANON_RETURN_MB_MAX, RETURN_WAIT_MS)
  clearInterval(timelineTimer)
  const waitedMs = QUIET_WATCHED_MS + backMs
  t.comment(`own memory (RssAnon): ${beforeMb.toFixed(0)} MB before, peak ${peakAnonMb.toFixed(0)} MB (resident set ` +
    `${peakRssMb.toFixed(0)} MB), ${afterMb.toFixed(0)} MB after ${(waitedMs / 1000).toFixed(1)} s of quiet; every 10 s: ` +
    `${timeline.join(' ')}; descriptors ${descriptorsBefore} before, ${descriptorsOpen(pid)} after`)
  t.ok(afterMb <= beforeMb + RSS_ANON_RETURN_MB_MAX, `own memory back to ${afterMb.toFixed(0)} MB within ` +
    `${RETURN_WAIT_MS / 1000} s of quiet (${beforeMb.toFixed(0)} MB before; at most ${RSS_ANON_RETURN_MB_MAX} MB more)`)

  // Alive and serving.
  t.ok(Number.isFinite(anonMb(pid)), 'the server process is alive')
  honest.answers.length = 0
  await honest.round()
  t.same(honest.answers.filter((a) => !a.served).map((a) => `${a.kind} ${a.status} ${a.ms.toFixed(0)} ms`), [],
    'and serves the honest client after the quiet')
})
