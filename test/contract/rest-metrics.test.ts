/**
 * GET /metrics over loopback: REST's own (Prometheus text, its content type), so it stays out of
 * the face-neutral cases (test/contract/cases/health-markets.ts). Every line of a scrape is parsed
 * against the text format; the process's default series and each series docs/operations.md lists
 * are there with their type; names follow Prometheus's conventions (counters `_total`, no `_ms`).
 * Then it moves: a second scrape after traffic on every face (REST routes, a 404, a signed order
 * through the verification pool and the engine, a WebSocket session, gRPC unary calls) shows each
 * counter grown by at least what was done, and the engine worker's figures (commands by kind,
 * apply time, journal commits) grown with it. Last, the gauges of open things: a gRPC book stream
 * and a WebSocket count while open and stop counting when the client goes (the stream's end
 * counted as CANCELLED).
 */
import t, { type Test } from 'tap'
import { GrpcCallError, GrpcTransport } from '../../src/client/grpc/transport.js'
import { MarketDataService } from '../../src/gen/predex/v1/market_data_pb.js'
import { StreamService } from '../../src/gen/predex/v1/streams_pb.js'
import { METRICS_RENDER_INTERVAL_MS } from '../../src/limits.js'
import { processCpuSeconds } from '../../src/thread-cpu.js'
import { WsClient } from '../support/ws-client.js'
import { get, l2, placeLimit, send, startServer, USDC, type TestServer } from '../support/rest-harness.js'

interface Sample { readonly name: string; readonly labels: Record<string, string>; readonly value: number }
interface Scrape { readonly types: Map<string, string>; readonly samples: Sample[] }

const server = await startServer()
const grpc = new GrpcTransport(`127.0.0.1:${server.predex.grpcPort}`)
t.teardown(async () => {
  grpc.close()
  await server.stop()
})
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
await server.command({ kind: 'setMarketStatus', marketId: (await server.createMarket()).marketId, status: 'Resolving' })

/** Scrapes /metrics and parses every line: a line that is not the text format fails the test. */
async function scrape(t: Test, target: TestServer): Promise<Scrape> {
  const reply = await send(target, 'GET', '/metrics', '', {})
  t.equal(reply.status, 200)
  t.match(reply.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const text = reply.body as string
  t.equal(typeof text, 'string')
  t.ok(text.endsWith('\n'), 'ends with a newline')
  const types = new Map<string, string>()
  const samples: Sample[] = []
  const bad: string[] = []
  for (const line of text.split('\n').slice(0, -1)) {
    if (line === '') continue // allowed between families
    if (line.startsWith('# HELP ')) {
      if (!/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* \S/.test(line)) bad.push(line)
      continue
    }
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line)
    if (line.startsWith('# TYPE ')) {
      if (type === null) bad.push(line)
      else types.set(type[1]!, type[2]!)
      continue
    }
    // Values as Prometheus parses them (Go's ParseFloat, case-blind for NaN and Inf): prom-client writes "Nan".
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? ([-+]?(?:[0-9.]+(?:e[-+]?[0-9]+)?|[Ii]nf)|[Nn]a[Nn])$/
      .exec(line)
    if (match === null) {
      bad.push(line)
      continue
    }
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)]
      .map((m) => [m[1]!, m[2]!]))
    samples.push({ name: match[1]!, labels, value: Number(match[3]) })
  }
  t.same(bad, [], 'every line is HELP, TYPE or a sample')
  const family = (name: string): string | undefined => types.get(name) ?? types.get(name.replace(/_(bucket|sum|count)$/, ''))
  t.same(samples.filter((s) => family(s.name) === undefined).map((s) => s.name), [], 'every sample has a TYPE')
  return { types, samples }
}

/** The sum of `name`'s samples whose labels include `labels`. */
function total(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  return scrape.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0)
}

const PROCESS_SERIES = {
  process_cpu_seconds_total: 'counter', process_resident_memory_bytes: 'gauge', nodejs_heap_size_used_bytes: 'gauge',
  nodejs_gc_duration_seconds: 'histogram', nodejs_eventloop_lag_seconds: 'gauge', nodejs_eventloop_lag_p99_seconds: 'gauge',
}
const PREDEX_SERIES = {
  predex_http_requests_total: 'counter', predex_http_request_duration_seconds: 'histogram',
  predex_http_requests_in_flight: 'gauge', predex_rest_stalled_replies: 'gauge',
  predex_ws_messages_total: 'counter', predex_ws_message_duration_seconds: 'histogram', predex_ws_connections: 'gauge',
  predex_grpc_calls_total: 'counter', predex_grpc_call_duration_seconds: 'histogram', predex_grpc_streams_open: 'gauge',
  predex_engine_commands_total: 'counter', predex_engine_apply_seconds: 'histogram',
  predex_engine_batch_commands: 'histogram', predex_engine_command_duration_seconds: 'histogram',
  predex_engine_seq: 'gauge', predex_engine_applied_seq: 'gauge', predex_engine_pending_requests: 'gauge',
  predex_engine_ring_used_bytes: 'gauge', predex_engine_ring_capacity_bytes: 'gauge',
  predex_journal_commit_seconds: 'histogram', predex_journal_batch_commands: 'histogram',
  predex_journal_written_bytes_total: 'counter', predex_journal_snapshots_total: 'counter',
  predex_journal_unflushed_commands: 'gauge',
  predex_signature_verifications_total: 'counter', predex_signature_verification_duration_seconds: 'histogram',
  predex_signature_pool_pending_orders: 'gauge', predex_signature_pool_running_tasks: 'gauge',
  predex_signature_pool_threads: 'gauge', predex_read_model_lag_commands: 'gauge',
  predex_read_store_lag_commands: 'gauge', predex_heartbeat_chains: 'gauge',
  predex_thread_cpu_seconds_total: 'counter',
}

t.test('a scrape parses, and has the process series and every documented series with its type', async (t) => {
  const first = await scrape(t, server)
  for (const [name, type] of Object.entries({ ...PROCESS_SERIES, ...PREDEX_SERIES })) {
    t.equal(first.types.get(name), type, `${name} is a ${type}`)
  }
  for (const [name, type] of first.types) {
    if (!name.startsWith('predex_')) continue
    t.notMatch(name, /_ms$|_millis|_milliseconds/, `${name}: seconds, not milliseconds`)
    if (type === 'counter') t.match(name, /_total$/, `${name}: a counter ends in _total`)
    else t.notMatch(name, /_total$/, `${name}: only counters end in _total`)
  }
  t.equal(total(first, 'predex_engine_seq'), server.predex.context.read.seq, 'the engine sequence')
  t.equal(total(first, 'predex_signature_pool_threads'), 1, '--sig-workers 1')
  t.ok(total(first, 'process_resident_memory_bytes') > 10_000_000, 'resident memory, in bytes')
})

t.test('it moves: every face\'s traffic and the engine\'s work show in the next scrape', async (t) => {
  const before = await scrape(t, server)
  // REST: three routes and a path no route serves.
  await get(server, '/markets')
  await get(server, `/markets/${market.marketId}`)
  await get(server, '/no/such/path')
  // A signed order: the verification pool, then the engine and the journal.
  const trader = await server.trader(100 * USDC)
  const placed = await placeLimit(server, trader, market, { side: 'BUY', price: '0.40', size: '10' })
  t.equal(placed.status, 200, 'an order rests')
  t.equal((await l2(server, trader, 'DELETE', '/cancel-all')).status, 200, 'and is cancelled')
  // WebSocket: a PING, a subscription, a refused message; the socket is open during the scrape.
  const ws = await WsClient.open(`ws://127.0.0.1:${server.predex.port}/ws/market`)
  t.teardown(() => ws.socket.close())
  ws.send('PING')
  t.equal(await ws.next(), 'PONG')
  ws.send({ type: 'market', assets_ids: [market.yesTokenId] })
  await ws.json()
  ws.send({ type: 'market', assets_ids: 'not a list' })
  t.equal((await ws.json()).event_type, 'error')
  // gRPC: a unary call answered, one refused.
  await grpc.unary(MarketDataService.method.getMarket, { market: market.marketId }, null)
  const refused = await grpc.unary(MarketDataService.method.getMarket, { market: 'nope' }, null).catch((e: unknown) => e)
  t.ok(refused instanceof GrpcCallError, 'an unknown market is refused')
  // A scrape within the render interval of the last one would be that one's text.
  await new Promise((resolve) => setTimeout(resolve, METRICS_RENDER_INTERVAL_MS))
  const cpuSecondsBefore = processCpuSeconds()
  const after = await scrape(t, server)
  const cpuSecondsAfter = processCpuSeconds()
  const grew = (name: string, labels: Record<string, string>, by: number, what: string): void => {
    const delta = total(after, name, labels) - total(before, name, labels)
    t.ok(delta >= by, `${what}: ${name}${JSON.stringify(labels)} grew by ${delta} (at least ${by})`)
  }
  grew('predex_http_requests_total', { route: 'GET /markets', status: '200' }, 1, 'GET /markets')
  grew('predex_http_requests_total', { route: 'GET /markets/:id', status: '200' }, 1, 'the route pattern, not the path')
  t.equal(after.samples.filter((s) => s.name === 'predex_http_requests_total' && s.labels.route?.includes(market.marketId))
    .length, 0, 'no raw path as a label')
  grew('predex_http_requests_total', { route: 'unmatched', status: '404' }, 1, 'the 404')
  grew('predex_http_request_duration_seconds_count', { route: 'POST /order', status: '200' }, 1, 'the order timed')
  grew('predex_signature_verifications_total', { result: 'valid' }, 1, 'the order\'s signature checked')
  grew('predex_signature_verification_duration_seconds_count', { result: 'valid' }, 1, 'and timed')
  grew('predex_engine_commands_total', { kind: 'placeOrder', result: 'accepted' }, 1, 'the engine applied it')
  grew('predex_engine_commands_total', { kind: 'cancelAll', result: 'accepted' }, 1, 'and the cancel')
  grew('predex_engine_commands_total', { kind: 'credit' }, 1, 'and the funding')
  grew('predex_engine_apply_seconds_count', {}, 4, 'each apply timed')
  grew('predex_engine_batch_commands_count', {}, 1, 'drains of the ring')
  grew('predex_engine_command_duration_seconds_count', {}, 2, 'submit to durable acknowledgement')
  grew('predex_journal_commit_seconds_count', {}, 2, 'journal transactions')
  grew('predex_journal_batch_commands_sum', {}, 4, 'commands journaled')
  grew('predex_journal_written_bytes_total', {}, 100, 'journal bytes')
  grew('predex_engine_seq', {}, 4, 'the sequence')
  grew('predex_ws_messages_total', { channel: 'market', status: 'pong' }, 1, 'the PING')
  grew('predex_ws_messages_total', { channel: 'market', status: 'ok' }, 1, 'the subscription')
  t.equal(after.samples.filter((s) => s.name === 'predex_ws_messages_total' && !['ok', 'pong'].includes(s.labels.status!))
    .length >= 1, true, 'the refused message under its catalogue code')
  t.equal(total(after, 'predex_ws_connections', { channel: 'market' }), 1, 'one socket open')
  const getMarket = '/predex.v1.MarketDataService/GetMarket'
  grew('predex_grpc_calls_total', { method: getMarket, code: 'OK' }, 1, 'the gRPC call')
  grew('predex_grpc_calls_total', { method: getMarket, code: 'NOT_FOUND' }, 1, 'the refused gRPC call')
  grew('predex_grpc_call_duration_seconds_count', { method: getMarket }, 2, 'gRPC unary calls timed')
  t.equal(total(after, 'predex_engine_applied_seq'), server.predex.context.read.seq, 'all applied are projected')
  t.equal(total(after, 'predex_read_model_lag_commands'), 0, 'the read model is caught up at rest')
  // Histograms: cumulative buckets ending in +Inf at the count.
  const buckets = after.samples.filter((s) => s.name === 'predex_journal_commit_seconds_bucket')
  for (let i = 1; i < buckets.length; i++) t.ok(buckets[i]!.value >= buckets[i - 1]!.value, 'cumulative buckets')
  t.equal(buckets.at(-1)?.labels.le, '+Inf')
  t.equal(buckets.at(-1)?.value, total(after, 'predex_journal_commit_seconds_count'))
  threadsAddUp(t, before, after, cpuSecondsBefore, cpuSecondsAfter)
  ws.socket.close()
})

/**
 * Which thread spent the CPU (issue 29, point 5): the server's own threads by role, the rest of
 * the process as `other`, summing to the process's CPU time; each counter only grows. The order
 * above went through the verification pool, the engine worker and its journal thread.
 */
function threadsAddUp(t: Test, before: Scrape, after: Scrape, cpuSecondsBefore: number, cpuSecondsAfter: number): void {
  const name = 'predex_thread_cpu_seconds_total'
  const threads = after.samples.filter((s) => s.name === name).map((s) => s.labels.thread!).sort()
  if (process.platform !== 'linux') {
    t.same(threads, ['other'], 'without /proc, the process\'s CPU is all "other"')
    return
  }
  t.same(threads, ['engine', 'journal', 'main', 'other', 'snapshot', 'verify'],
    'each role once (the server starts its snapshot replica with itself)')
  for (const thread of threads) {
    const grown = total(after, name, { thread }) - total(before, name, { thread })
    t.ok(grown >= 0, `${thread}: never decreases (${grown.toFixed(3)} s)`)
  }
  t.ok(total(after, name, { thread: 'main' }) > 0, 'the main thread has spent CPU')
  t.ok(total(after, name, { thread: 'engine' }) > 0, 'so has the engine worker')
  // The server runs in this process: the threads add up to its CPU time since it started, as
  // process.cpuUsage counts it before and after the scrape (prom-client's process_cpu_seconds_total
  // counts only from its own creation).
  const sum = total(after, name)
  t.ok(sum >= cpuSecondsBefore && sum <= cpuSecondsAfter, `the threads add up to the process: ${sum.toFixed(3)} s, ` +
    `between ${cpuSecondsBefore.toFixed(3)} and ${cpuSecondsAfter.toFixed(3)}`)
}

/** Scrapes until `check` holds (bounded): what a client's going away changes lands a turn or two later. */
async function eventually(t: Test, check: (scrape: Scrape) => boolean, timeoutMs = 5_000): Promise<Scrape> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const now = await scrape(t, server)
    if (check(now) || Date.now() > deadline) return now
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

t.test('open streams and sockets count while open, and not after the client goes', async (t) => {
  const bookStream = '/predex.v1.StreamService/BookStream'
  const before = await scrape(t, server)
  const stream = grpc.serverStream(StreamService.method.bookStream, { tokenIds: [market.yesTokenId] }, null)
  stream.on('error', () => undefined) // the cancel below ends it with CANCELLED
  await new Promise<void>((resolve) => stream.once('data', () => resolve()))
  const ws = await WsClient.open(`ws://127.0.0.1:${server.predex.port}/ws/user`)
  const open = await eventually(t, (s) => total(s, 'predex_ws_connections', { channel: 'user' }) === 1)
  t.equal(total(open, 'predex_grpc_streams_open', { method: bookStream }), 1, 'the book stream is open')
  t.equal(total(open, 'predex_ws_connections', { channel: 'user' }), 1, 'the user socket is open')
  stream.cancel()
  ws.socket.close()
  const closed = await eventually(t, (s) => total(s, 'predex_grpc_streams_open', { method: bookStream }) === 0 &&
    total(s, 'predex_ws_connections', { channel: 'user' }) === 0)
  t.equal(total(closed, 'predex_grpc_streams_open', { method: bookStream }), 0, 'the stream is no longer open')
  t.equal(total(closed, 'predex_ws_connections', { channel: 'user' }), 0, 'nor the socket')
  t.equal(total(closed, 'predex_grpc_calls_total', { method: bookStream, code: 'CANCELLED' }) -
    total(before, 'predex_grpc_calls_total', { method: bookStream, code: 'CANCELLED' }), 1, 'the stream ended, cancelled')
  t.equal(total(closed, 'predex_grpc_call_duration_seconds_count', { method: bookStream }), 0, 'streams are not timed')
})
