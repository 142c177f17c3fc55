/**
 * The gRPC face attacked as test/contract/rest-abuse.test.ts attacks REST (issue 27, deliverable
 * 5), on a real server process (bench/predex-server.ts: its own memory is read from /proc):
 *
 * - non-reading streams of every kind, raw HTTP/2 that never gives a flow-control window back:
 *   reflection (descriptor requests, and 200 KB `host` fields) from several client addresses,
 *   book and user streams while a trader places and cancels orders (so they have updates to
 *   send), order-entry sessions that pipeline pings and read no answer;
 * - a connection flood: CONNECTION_ATTEMPTS idle connections from FLOOD_ADDRESSES loopback
 *   addresses at once, past GRPC_CONNECTIONS_MAX in total;
 *
 * and asserted: every abusive stream is ended by the server (RESOURCE_EXHAUSTED or
 * INVALID_ARGUMENT); the server holds at most GRPC_CONNECTIONS_MAX gRPC connections (its open
 * file descriptors); a client connected before the attack is served during it and REST's /health
 * throughout; a new client is served after; the resident set stays under RSS_MB_MAX; its own
 * memory (RssAnon) comes back within RSS_ANON_RETURN_MB_MAX of where it was before the attack
 * after quiet; and the process is alive at the end. Bounded in time (about a minute here).
 * To look at one part: ABUSE_NO_FLOOD=1 leaves the connection flood out, ABUSE_RETURN_WAIT_MS sets
 * how long memory may take to come back.
 */
import t from 'tap'
import { readdirSync } from 'node:fs'
import { connect as connectTcp, type Socket } from 'node:net'
import { connect as connectHttp2, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders }
  from 'node:http2'
import { create, toBinary, type DescMethod } from '@bufbuild/protobuf'
import { Client, credentials, Metadata, status } from '@grpc/grpc-js'
import { setUpTraders, signOrders, startPredexServer, type BenchServer, type Trader } from '../../bench/predex-server.js'
import { rssOf } from '../../scripts/soak/server.js'
import { l2Metadata } from '../../src/client/grpc/transport.js'
import { l2Headers } from '../../src/client/headers.js'
import { orderBody } from '../../src/client/orders.js'
import { OrderEntryService, SessionRequestSchema } from '../../src/gen/predex/v1/order_entry_pb.js'
import { BookStreamRequestSchema, StreamService, UserStreamRequestSchema } from '../../src/gen/predex/v1/streams_pb.js'
import { GRPC_CONNECTIONS_MAX, GRPC_CONNECTIONS_PER_ADDRESS_MAX } from '../../src/limits.js'
import { ensureBuilt } from '../compiled.js'

/** The whole server's resident set at any moment of the attack. */
const RSS_MB_MAX = 1_024
/** Its own memory after the attack and quiet, above what it was before (the overload test's bound). */
const RSS_ANON_RETURN_MB_MAX = 96
/** How long its memory may take to come back (V8 gives pages back about a minute after a load). */
const RETURN_WAIT_MS = Number(process.env.ABUSE_RETURN_WAIT_MS ?? 60_000)
const ATTACK_MS = 8_000
const FLOOD_ADDRESSES = 20
/** Over the total bound, each address under its own bound. */
const CONNECTION_ATTEMPTS = FLOOD_ADDRESSES * Math.min(GRPC_CONNECTIONS_PER_ADDRESS_MAX, 250)
/** Connections opened at once (under the listen backlog, 511). */
const FLOOD_BATCH = 250
const REFLECTION = '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo'

ensureBuilt()

function varint(value: number): Buffer {
  const bytes: number[] = []
  for (; value > 0x7f; value >>>= 7) bytes.push((value & 0x7f) | 0x80)
  bytes.push(value)
  return Buffer.from(bytes)
}

function stringField(number: number, value: string): Buffer {
  const bytes = Buffer.from(value)
  return Buffer.concat([varint((number << 3) | 2), varint(bytes.length), bytes])
}

/** A gRPC message: uncompressed, its length, its bytes. */
function framed(message: Uint8Array): Buffer {
  const header = Buffer.alloc(5)
  header.writeUInt32BE(message.length, 1)
  return Buffer.concat([header, message])
}

/** An abusive stream: raw HTTP/2, never read until `collect`, then its status. */
class Abuser {
  private headers: IncomingHttpHeaders = {}
  private closed = false
  readonly stream: ClientHttp2Stream

  constructor(session: ClientHttp2Session, path: string, metadata: Metadata | null = null) {
    const extra: Record<string, string> = {}
    for (const [name, value] of Object.entries(metadata?.getMap() ?? {})) extra[name] = String(value)
    this.stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc',
      te: 'trailers', ...extra })
    this.stream.on('error', () => undefined)
    this.stream.on('response', (headers) => (this.headers = { ...this.headers, ...headers }))
    this.stream.on('trailers', (headers) => (this.headers = { ...this.headers, ...headers }))
    this.stream.on('close', () => (this.closed = true))
  }

  /** Writes `message` while the stream takes it (HTTP/2 flow control toward the server). */
  send(message: Buffer): boolean {
    return !this.closed && !this.stream.destroyed && this.stream.write(message)
  }

  /** Reads what is left and resolves with the grpc-status (null: none within `ms`). */
  async collect(ms: number): Promise<number | null> {
    this.stream.on('data', () => undefined)
    const deadline = Date.now() + ms
    while (this.headers['grpc-status'] === undefined && !this.closed && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const code = this.headers['grpc-status']
    return code === undefined ? null : Number(code)
  }
}

function session(port: number, localAddress = '127.0.0.1'): ClientHttp2Session {
  const client = connectHttp2(`http://127.0.0.1:${port}`,
    { createConnection: () => connectTcp({ host: '127.0.0.1', port, localAddress }) })
  client.on('error', () => undefined)
  return client
}

/** Keeps writing `message` to `abuser` until `stop` says so; writes wait for the stream to drain. */
async function flood(abuser: Abuser, message: () => Buffer, stop: () => boolean): Promise<void> {
  while (!stop()) {
    if (!abuser.send(message())) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      if (abuser.stream.destroyed) return
    }
  }
}

const signer = (trader: Trader): { credentials: Trader['credentials']; address: string } =>
  ({ credentials: trader.credentials, address: trader.address })

function signed(method: DescMethod, trader: Trader, bytes: Uint8Array): Metadata {
  return l2Metadata(signer(trader), method, bytes)
}

/**
 * Opens idle TCP connections from FLOOD_ADDRESSES addresses, in batches (the kernel's accept queue
 * would drop the SYNs of thousands at once, and their retries take seconds); resolves with how
 * many the server kept (its SETTINGS came) and how many got no answer in time.
 */
async function connectionFlood(port: number): Promise<{ kept: number; silent: number; sockets: Socket[] }> {
  const sockets: Socket[] = []
  let kept = 0
  let silent = 0
  for (let first = 0; first < CONNECTION_ATTEMPTS; first += FLOOD_BATCH) {
    const outcomes: Promise<'kept' | 'closed' | 'silent'>[] = []
    for (let i = first; i < Math.min(first + FLOOD_BATCH, CONNECTION_ATTEMPTS); i++) {
      const socket = connectTcp({ host: '127.0.0.1', port, localAddress: `127.0.0.${10 + (i % FLOOD_ADDRESSES)}` })
      socket.on('error', () => undefined)
      sockets.push(socket)
      outcomes.push(new Promise((resolve) => {
        const timer = setTimeout(() => resolve('silent'), 5_000)
        socket.once('data', () => resolve('kept'))
        socket.once('close', () => {
          clearTimeout(timer)
          resolve('closed')
        })
      }))
    }
    for (const outcome of await Promise.all(outcomes)) {
      if (outcome === 'kept') kept++
      if (outcome === 'silent') silent++
    }
  }
  return { kept, silent, sockets }
}

const descriptorsOpen = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length

async function restHealthy(server: BenchServer): Promise<boolean> {
  try {
    return (await fetch(`${server.base}/health`, { signal: AbortSignal.timeout(2_000) })).status === 200
  } catch {
    return false
  }
}

/** A gRPC health check on `client`'s connection. */
function grpcHealthy(client: Client): Promise<boolean> {
  return new Promise((resolve) => client.makeUnaryRequest('/grpc.health.v1.Health/Check', (x: Buffer) => x,
    (x: Buffer) => x, Buffer.alloc(0), new Metadata(), { deadline: Date.now() + 2_000 },
    (error) => resolve(error === null)))
}

/** A trader placing and cancelling pre-signed orders over REST, so that book and user streams have updates. */
async function churn(server: BenchServer, trader: Trader, tokenId: string, stop: () => boolean): Promise<void> {
  const orders = signOrders([trader], tokenId, 400)
  const nowSec = (): number => Math.floor(Date.now() / 1000)
  for (let i = 0; !stop(); i = (i + 1) % orders.length) {
    const body = orderBody(orders[i]!.signed, trader.credentials.apiKey, 'GTC')
    const placed = await fetch(`${server.base}/order`, { method: 'POST', body,
      headers: l2Headers(trader.credentials, trader.address, 'POST', '/order', body, nowSec()) })
    const answer = await placed.json() as { orderID?: string }
    if (answer.orderID === undefined) continue
    const cancel = JSON.stringify({ orderID: answer.orderID })
    await fetch(`${server.base}/order`, { method: 'DELETE', body: cancel,
      headers: l2Headers(trader.credentials, trader.address, 'DELETE', '/order', cancel, nowSec()) })
  }
}

t.test('the gRPC face under abuse: streams ended, connections bounded, others served, memory back', async (t) => {
  const server = await startPredexServer()
  t.teardown(() => server.stop())
  const { traders, tokenId } = await setUpTraders(server, 3)
  const [maker, watcher, sessionTrader] = traders as [Trader, Trader, Trader]
  const probe = new Client(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure(),
    { 'grpc.use_local_subchannel_pool': 1 })
  t.teardown(() => probe.close())
  t.ok(await grpcHealthy(probe), 'the probe client is served before the attack')
  const before = rssOf(server.pid)!
  const descriptorsBefore = descriptorsOpen(server.pid)
  let peakRssMb = before.rssBytes / 2 ** 20
  const sampler = setInterval(() => {
    const memory = rssOf(server.pid)
    if (memory !== null) peakRssMb = Math.max(peakRssMb, memory.rssBytes / 2 ** 20)
  }, 200)
  t.teardown(() => clearInterval(sampler))

  const sessions: ClientHttp2Session[] = []
  const abusers: { what: string; abuser: Abuser }[] = []
  const open = (what: string, localAddress: string, path: string, metadata: Metadata | null = null): Abuser => {
    const client = session(server.grpcPort, localAddress)
    sessions.push(client)
    const abuser = new Abuser(client, path, metadata)
    abusers.push({ what, abuser })
    return abuser
  }
  t.teardown(() => sessions.forEach((s) => s.destroy()))
  const started = Date.now()
  const stop = (): boolean => Date.now() - started > ATTACK_MS
  const work: Promise<void>[] = []
  // Reflection from four addresses, four streams each: descriptors, and 200 KB hosts.
  for (let a = 0; a < 4; a++) {
    for (let s = 0; s < 4; s++) {
      const big = s === 3
      const abuser = open(big ? 'reflection, 200 KB hosts' : 'reflection', `127.0.0.${2 + a}`, REFLECTION)
      const request = framed(big ? Buffer.concat([stringField(1, 'h'.repeat(200_000)), stringField(7, '*')])
        : stringField(4, 'predex.v1.TradingService'))
      work.push(flood(abuser, () => request, stop))
    }
  }
  // Book streams (public) and a user stream (L2), never read, while the maker churns the book.
  for (let s = 0; s < 8; s++) {
    const request = toBinary(BookStreamRequestSchema, create(BookStreamRequestSchema, { tokenIds: [tokenId] }))
    const abuser = open('book stream', '127.0.0.6', '/predex.v1.StreamService/BookStream')
    abuser.stream.end(framed(request))
  }
  const userRequest = toBinary(UserStreamRequestSchema, create(UserStreamRequestSchema, { fromSeq: 0n, epoch: '' }))
  open('user stream', '127.0.0.7', '/predex.v1.StreamService/UserStream',
    signed(StreamService.method.userStream, maker, userRequest)).stream.end(framed(userRequest))
  void watcher
  work.push(churn(server, maker, tokenId, stop))
  // Order-entry sessions that pipeline pings and read nothing.
  for (let s = 0; s < 2; s++) {
    const abuser = open('order-entry session', '127.0.0.8', '/predex.v1.OrderEntryService/Session',
      signed(OrderEntryService.method.session, sessionTrader, new Uint8Array(0)))
    let n = 0
    work.push(flood(abuser, () => framed(toBinary(SessionRequestSchema, create(SessionRequestSchema,
      { requestId: `p${n++}`, action: { case: 'ping', value: {} } }))), stop))
  }
  // The connection flood, and the probes while all this goes on.
  const flooded = process.env.ABUSE_NO_FLOOD === '1' ? Promise.resolve({ kept: 0, silent: 0, sockets: [] })
    : connectionFlood(server.grpcPort)
  let restProbes = 0
  let restFailures = 0
  let grpcProbes = 0
  let grpcFailures = 0
  const probing = (async () => {
    while (!stop()) {
      restProbes++
      if (!(await restHealthy(server))) restFailures++
      grpcProbes++
      if (!(await grpcHealthy(probe))) grpcFailures++
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  })()
  const { kept, silent, sockets } = await flooded
  t.comment(`flood over in ${Date.now() - started} ms: ${kept} kept, ${silent} without an answer`)
  const descriptorsDuring = descriptorsOpen(server.pid)
  await Promise.all([...work, probing].map((p) => Promise.race([p,
    new Promise((resolve) => setTimeout(resolve, ATTACK_MS * 2))])))
  t.comment(`attack over in ${Date.now() - started} ms; peak RSS ${peakRssMb.toFixed(0)} MB`)

  t.ok(kept <= GRPC_CONNECTIONS_MAX, `the server kept ${kept} of ${CONNECTION_ATTEMPTS} flood connections ` +
    `(at most ${GRPC_CONNECTIONS_MAX})`)
  t.ok(descriptorsDuring - descriptorsBefore <= GRPC_CONNECTIONS_MAX + 200, `its descriptors: ${descriptorsBefore} ` +
    `before, ${descriptorsDuring} during the flood`)
  t.equal(restFailures, 0, `REST /health answered all ${restProbes} probes during the attack`)
  t.equal(grpcFailures, 0, `the client connected before answered all ${grpcProbes} health checks during the attack`)

  const unended: string[] = []
  const codes = new Map<string, number>()
  for (const { what, abuser } of abusers) {
    const code = await abuser.collect(what.startsWith('book') || what.startsWith('user') ? 500 : 5_000)
    const key = `${what}: ${code === null ? 'open' : status[code]}`
    codes.set(key, (codes.get(key) ?? 0) + 1)
    if (!what.startsWith('book') && !what.startsWith('user') && code !== status.RESOURCE_EXHAUSTED &&
      code !== status.INVALID_ARGUMENT) unended.push(key)
  }
  t.comment(JSON.stringify(Object.fromEntries(codes)))
  t.same(unended, [], 'every flooding stream was ended by the server (RESOURCE_EXHAUSTED or INVALID_ARGUMENT)')
  t.ok(peakRssMb <= RSS_MB_MAX, `the resident set peaked at ${peakRssMb.toFixed(0)} MB (at most ${RSS_MB_MAX})`)

  for (const socket of sockets) socket.destroy()
  for (const s of sessions) s.destroy()
  await new Promise((resolve) => setTimeout(resolve, 500))
  const fresh = new Client(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure(),
    { 'grpc.use_local_subchannel_pool': 1 })
  t.ok(await grpcHealthy(fresh), 'a new client is served after the attack')
  fresh.close()
  const beforeMb = before.rssAnonBytes / 2 ** 20
  let afterMb = Infinity
  const quietStarted = Date.now()
  while (Date.now() - quietStarted < RETURN_WAIT_MS && afterMb > beforeMb + RSS_ANON_RETURN_MB_MAX) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    afterMb = rssOf(server.pid)!.rssAnonBytes / 2 ** 20
  }
  t.ok(afterMb <= beforeMb + RSS_ANON_RETURN_MB_MAX, `its own memory: ${beforeMb.toFixed(0)} MB before the attack, ` +
    `${afterMb.toFixed(0)} MB after ${((Date.now() - quietStarted) / 1000).toFixed(1)} s of quiet ` +
    `(at most ${RSS_ANON_RETURN_MB_MAX} MB more)`)
  const metrics = await (await fetch(`${server.base}/metrics`)).text()
  const heapMb = (name: string): string => (Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1]) / 2 ** 20)
    .toFixed(0)
  t.comment(`after quiet: ${descriptorsOpen(server.pid)} descriptors; main thread's V8 heap ` +
    `${heapMb('nodejs_heap_size_used_bytes')} MB used of ${heapMb('nodejs_heap_size_total_bytes')} MB, ` +
    `external ${heapMb('nodejs_external_memory_bytes')} MB`)
  t.ok(await restHealthy(server), 'and the process is alive and serving')
})
