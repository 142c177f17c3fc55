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
import type { ClientHttp2Session } from 'node:http2'
import { create, toBinary, type DescMethod } from '@bufbuild/protobuf'
import { Client, credentials, Metadata, status } from '@grpc/grpc-js'
import { setUpTraders, startPredexServer, type Trader } from '../../bench/predex-server.js'
import { rssOf } from '../../bench/process-memory.js'
import { l2Metadata } from '../../src/client/grpc/transport.js'
import { OrderEntryService, SessionRequestSchema } from '../../src/gen/predex/v1/order_entry_pb.js'
import { BookStreamRequestSchema, StreamService, UserStreamRequestSchema } from '../../src/gen/predex/v1/streams_pb.js'
import { GRPC_CONNECTIONS_MAX, GRPC_CONNECTIONS_PER_ADDRESS_MAX } from '../../src/limits.js'
import { ensureBuilt } from '../support/compiled.js'
import { Abuser, REFLECTION, churn, connectionFlood, descriptorsOpen, floodStream, framed, glibcHeapMb, grpcHealthy,
  memoryBack, MemorySampler, reflectionRequest, restHealthy, session } from '../support/abuse.js'

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

ensureBuilt()

const signer = (trader: Trader): { credentials: Trader['credentials']; address: string } =>
  ({ credentials: trader.credentials, address: trader.address })

function signed(method: DescMethod, trader: Trader, bytes: Uint8Array): Metadata {
  return l2Metadata(signer(trader), method, bytes)
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
  const glibcHeapBefore = glibcHeapMb(server.pid)
  const descriptorsBefore = descriptorsOpen(server.pid)
  const sampler = new MemorySampler(server.pid)
  t.teardown(() => sampler.stop())

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
      const request = reflectionRequest(big ? 200_000 : 0)
      work.push(floodStream(abuser, () => request, stop))
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
    work.push(floodStream(abuser, () => framed(toBinary(SessionRequestSchema, create(SessionRequestSchema,
      { requestId: `p${n++}`, action: { case: 'ping', value: {} } }))), stop))
  }
  // The connection flood, and the probes while all this goes on.
  const flooded = process.env.ABUSE_NO_FLOOD === '1' ? Promise.resolve({ kept: 0, silent: 0, sockets: [] })
    : connectionFlood(server.grpcPort, { attempts: CONNECTION_ATTEMPTS, addresses: FLOOD_ADDRESSES, firstAddress: 10,
      batch: FLOOD_BATCH })
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
  const peakRssMb = sampler.peakRssMb
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
  const { afterMb, waitedMs } = await memoryBack(server.pid, beforeMb, RSS_ANON_RETURN_MB_MAX, RETURN_WAIT_MS)
  // Where it is, so that a failure says whose memory stayed: V8's main heap or glibc's.
  const metrics = await (await fetch(`${server.base}/metrics`)).text()
  const heapMb = (name: string): string => (Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1]) / 2 ** 20)
    .toFixed(0)
  const where = `main thread's V8 heap ${heapMb('nodejs_heap_size_used_bytes')} MB used of ` +
    `${heapMb('nodejs_heap_size_total_bytes')} MB; glibc's heap ${glibcHeapBefore.toFixed(0)} MB before, ` +
    `${glibcHeapMb(server.pid).toFixed(0)} MB after`
  t.ok(afterMb <= beforeMb + RSS_ANON_RETURN_MB_MAX, `its own memory: ${beforeMb.toFixed(0)} MB before the attack, ` +
    `${afterMb.toFixed(0)} MB after ${(waitedMs / 1000).toFixed(1)} s of quiet ` +
    `(at most ${RSS_ANON_RETURN_MB_MAX} MB more); ${where}`)
  t.comment(`after quiet: ${descriptorsOpen(server.pid)} descriptors; external ${heapMb('nodejs_external_memory_bytes')} MB`)
  t.ok(await restHealthy(server), 'and the process is alive and serving')
})
