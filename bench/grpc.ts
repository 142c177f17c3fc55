/**
 * `npm run bench:grpc`: workload 5 of ../shared/spec/benchmarks.md, gRPC end to end, with REST's
 * figure from the same run on the same server beside it (absolute figures drift on a shared
 * machine; the targets are ratios). Predex runs as bench:rest runs it (its own process, durability
 * sync, rate limits off); the load comes from this process over loopback. Every order is really
 * signed, before its phase starts; only the L2 HMACs (REST, unary) are made as requests go. The
 * gRPC load is rendered as bytes before its phase, as REST's is: the unary calls go over raw
 * sockets framed by hand (grpc-raw-unary.ts), as REST's requests do, and the sessions over a lean
 * client on node:http2 (grpc-wire.ts). The generator shares the server's cores: grpc-js's client
 * cost six times REST's generator per call, and node:http2's two to three times, which the unary
 * figure then measured as much as the server.
 *
 * Phases, one after another; each placement phase starts from the same (empty) book, its orders
 * cancelled after it (a cancel_all per session, not timed), and has as many orders in flight:
 * 1. warm-up, not measured: REST, unary and stream placements (pool tables, hot signers, channels,
 *    and V8's optimizing of each path: REST_WARM_UP_ORDERS REST orders, GRPC_WARM_UP_ORDERS each of the others);
 * 2. REST: signed POST /order, closed loop on 32 keep-alive connections (as bench:rest);
 * 3. unary: TradingService.PlaceOrder, closed loop with 32 calls in flight over 4 channels;
 *    2, 3 and 4 in turns, a third of the phase's time at a time, so that all meet the same disk
 *    (placementsInTurns); each of their figures adds up its three slices, and 3b runs first;
 * 3b. the same through the SDK's transport (grpc-js), for comparison: what a Node client of the
 *    SDK gets (unary_sdk_orders_per_s);
 * 4. stream: one order-entry session per trader (8), pipelined, a window of 8 requests in flight
 *    per session (64 in all), as a market maker sends them: orders per second;
 * 5. stream latency: the sessions in an open loop at half of (4)'s rate, latency from each
 *    order's due time to its acknowledgement: p99_ms;
 * 6. stream amends: the orders of (4) and (5) lowered by one lot a request, round and round,
 *    pipelined: amend_per_s, with its p50 and p99;
 * 7. stream cancels: the orders of (4) and (5) cancelled one request each, pipelined;
 * 7b. mass quotes: each session re-quotes its trader's ladder of 10 levels a side (BUY Yes and BUY
 *    No, none crossing), half of each side signed afresh an update and the rest sent again (kept),
 *    the next update after the answer: mass_quote_updates_per_s, with its p50 and p99;
 * 8. book fan-out: N book streams on the token while the sessions place orders (pipelined), each
 *    placement one update of the book: updates delivered per second over all subscribers, and
 *    the source's rate (what each subscriber gets per second).
 *
 * Flags: --quick (3 s phases), --seconds N, --subscribers N (book streams, at most 32 from one
 * address), --window N (requests in flight per session), --json (last line is a JSON object, with
 * each phase's latency histogram under `series` for the suite's charts), --profile-dir DIR (the
 * server writes CPU profiles of its threads there when it stops).
 */
import { availableParallelism, cpus } from 'node:os'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { GrpcTransport } from '../src/client/grpc/transport.js'
import { GRPC_BOOK_STREAMS_PER_ADDRESS_MAX } from '../src/limits.js'
import { BenchFlags } from './flags.js'
import { amendWork, cancelWork, fanOut, openLoop, pipelined, placeWork, quoteWork, renderOrders, repeatWork,
  sdkUnaryClosedLoop, unaryClosedLoop, type FanOut, type LadderUpdates } from './grpc-load.js'
import { BenchSession } from './grpc-session.js'
import { WireChannel } from './grpc-wire.js'
import { RawUnaryChannel } from './grpc-raw-unary.js'
import { closedLoop, mergedLoad, type LoadResult } from './http-load.js'
import { CHAIN_ID, PhaseClock, profileDirOf, setUpTraders, signOrders, startChild, startPredexServer, stopChild,
  type BenchServer, type SignedFor, type Trader } from './predex-server.js'
import { signLimitOrder, type MarketTerms, type SignedOrder } from '../src/client/orders.js'
import { histogram, type LatencyHistogram } from './series.js'
import { describe, pct, round, row, writeResults } from './report.js'
import { orderSource, REST_CONNECTIONS, REST_WARM_UP_ORDERS } from './rest-orders.js'
import { GRPC_STREAM_VS_REST_MIN, GRPC_UNARY_VS_REST_MIN } from './targets.js'
import { CPU_TABLE_HEAD, CpuMeter, cpuRow, perRequest, type CpuPerRequest } from './cpu-time.js'

const TRADERS = 8
/** REST's, unary's and the stream's placements run in this many slices each, in turns (placementsInTurns). */
const INTERLEAVED_SLICES = 3
const CHANNELS = 4
const log = (line: string): void => void process.stderr.write(line + '\n')

interface Settings {
  readonly quick: boolean
  readonly seconds: number
  readonly subscribers: number
  readonly window: number
}

/** Orders signed between two turns of the event loop (about 0.3 s of signing here). */
const SIGN_CHUNK_ORDERS = 500

/** Levels of each side of a mass quote's ladder, and how many of the ladder's orders an update changes. */
const LADDER_LEVELS = 10
const LADDER_CHANGED_PER_UPDATE = LADDER_LEVELS
/** Where the ladders sit: bids (BUY Yes) at 0.20..0.29, asks (BUY No at the same, Yes 0.71..0.80): none cross. */
const LADDER_PRICE_FIRST_CENTS = 20

interface BenchMarket {
  readonly marketId: string
  readonly yesTokenId: string
  readonly noTokenId: string
}

/** Signs orders in batches as phases need them, numbering on so that prices keep cycling. */
class Signer {
  private first = 0

  constructor(private readonly traders: readonly Trader[], private readonly tokenId: string) {}

  /**
   * Each trader's `updates` ladders: the first whole, then each with half its levels of each side
   * (every other level, alternating) signed afresh, the rest sent again as they were (kept).
   */
  async ladders(market: BenchMarket, updates: number): Promise<LadderUpdates[]> {
    const started = performance.now()
    const terms: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: CHAIN_ID }
    const ladders: LadderUpdates[] = []
    let signed = 0
    for (const trader of this.traders) {
      const sign = (level: number): SignedOrder => {
        signed++
        const outcome = level < LADDER_LEVELS ? market.yesTokenId : market.noTokenId
        const price = ((LADDER_PRICE_FIRST_CENTS + (level % LADDER_LEVELS)) / 100).toFixed(2)
        return signLimitOrder(trader.wallet, terms, { tokenId: outcome, side: 'BUY', price, size: 5 })
      }
      let ladder = Array.from({ length: 2 * LADDER_LEVELS }, (_, level) => sign(level))
      const list: SignedOrder[][] = [ladder]
      for (let u = 1; u < updates; u++) {
        ladder = ladder.map((order, level) => (level % 2 === u % 2 ? sign(level) : order))
        list.push(ladder)
        if (u % 50 === 0) await nextTurn()
      }
      ladders.push({ trader, updates: list })
    }
    log(`  (signed ${signed} ladder orders in ${((performance.now() - started) / 1000).toFixed(1)} s, not timed)`)
    return ladders
  }

  /**
   * Signs in chunks with a turn of the event loop between them: the sessions' streams stay open
   * meanwhile, and signing 20 000 orders in one go (11.5 s) kept this process from answering the
   * server's keepalive ping within GRPC_KEEPALIVE_TIMEOUT_MS, so the server dropped the connection
   * and every session on it (a suite run failed so, 2026-11-29). The same orders either way.
   */
  async sign(count: number): Promise<SignedFor[]> {
    const started = performance.now()
    const orders: SignedFor[] = []
    for (let done = 0; done < count; done += SIGN_CHUNK_ORDERS) {
      orders.push(...signOrders(this.traders, this.tokenId, Math.min(SIGN_CHUNK_ORDERS, count - done), this.first + done))
      await nextTurn()
    }
    this.first += count
    log(`  (signed ${count} orders in ${((performance.now() - started) / 1000).toFixed(1)} s, not timed)`)
    return orders
  }
}

/**
 * The load's clients: raw channels for the unary calls (grpc-raw-unary.ts), the sessions (on the
 * lean client's channels: grpc-wire.ts), and the SDK's transports (its own unary figure, and the
 * book streams).
 */
interface GrpcClients {
  readonly channels: readonly RawUnaryChannel[]
  readonly transports: readonly GrpcTransport[]
  readonly sessions: readonly BenchSession[]
}

interface Figures {
  readonly rest: LoadResult
  /** PlaceOrder over the lean client (grpc-wire.ts), requests rendered before the phase as REST's are. */
  readonly unary: LoadResult
  /** PlaceOrder through the SDK's transport (grpc-js): what a Node client of the SDK gets. */
  readonly unarySdk: LoadResult
  readonly stream: LoadResult
  readonly openRate: number
  readonly open: LoadResult
  /** Amends on the session (one lot off a resting order each), pipelined. */
  readonly amends: LoadResult
  /** Mass quotes: a session's whole ladder re-quoted, half of it changed, an update after the other's answer. */
  readonly quotes: LoadResult
  readonly cancels: LoadResult
  readonly fan: FanOut
  /** CPU per order of the three placement phases, read from /proc (cpu-time.ts). */
  readonly cpu: { readonly rest: CpuPerRequest; readonly unary: CpuPerRequest; readonly unarySdk: CpuPerRequest;
    readonly stream: CpuPerRequest }
  /** grpc-js answering PlaceOrder with a constant, called as Predex is (grpc-baseline.ts). */
  readonly floor: { readonly result: LoadResult; readonly cpu: CpuPerRequest }
  /** grpc-js answering each session request at once with a constant, the sessions pipelined as on Predex. */
  readonly streamFloor: { readonly result: LoadResult; readonly cpu: CpuPerRequest }
}

/** Distinct signed orders behind the floor's calls: it reads no request, so they repeat. */
const FLOOR_ORDERS = 200

/**
 * gRPC's floors, in a process of their own: grpc-js answering PlaceOrder with a constant, called by
 * the same closed loop as the unary phase (the same client, the same L2 signing per call); and
 * grpc-js answering each session request with a constant, one session per trader pipelined with
 * the stream phase's window.
 */
async function grpcFloors(signer: Signer, traders: readonly Trader[], settings: Settings):
  Promise<Pick<Figures, 'floor' | 'streamFloor'>> {
  const { seconds, window } = settings
  const child = await startChild('bench/grpc-baseline.js', [], /port (\d+)/)
  const channels = await openChannels(child.port)
  const unaryChannels = await openUnaryChannels(child.port)
  const meter = new CpuMeter(child.process.pid!)
  const cores = availableParallelism()
  try {
    const signed = await signer.sign(FLOOR_ORDERS)
    const rendered = renderOrders(signed)
    const orders = Array.from({ length: 200_000 }, (_, i) => rendered[i % rendered.length]!)
    await unaryClosedLoop(unaryChannels, REST_CONNECTIONS / CHANNELS, 1, orders, [])
    const unary = await meter.phase(() =>
      unaryClosedLoop(unaryChannels, REST_CONNECTIONS / CHANNELS, seconds, orders, []))
    const sessions = await Promise.all(traders.map((trader, i) => BenchSession.open(channels[i % CHANNELS]!, trader)))
    const work = repeatWork(signed)
    await pipelined(sessions, window, 1, work)
    const stream = await meter.phase(() => pipelined(sessions, window, seconds, work))
    await Promise.all(sessions.map((session) => session.close()))
    return { floor: { result: unary.result, cpu: perRequest(unary.cpu, unary.result.requests, cores) },
      streamFloor: { result: stream.result, cpu: perRequest(stream.cpu, stream.result.requests, cores) } }
  } finally {
    for (const channel of channels) channel.close()
    for (const channel of unaryChannels) channel.close()
    await stopChild(child)
  }
}

/** The lean client's connections (grpc-wire.ts) to a gRPC server on 127.0.0.1: the sessions'. */
function openChannels(port: number): Promise<WireChannel[]> {
  return Promise.all(Array.from({ length: CHANNELS }, () => WireChannel.open(`127.0.0.1:${port}`)))
}

/** Raw connections (grpc-raw-unary.ts) to a gRPC server on 127.0.0.1: the unary calls'. */
function openUnaryChannels(port: number): Promise<RawUnaryChannel[]> {
  return Promise.all(Array.from({ length: CHANNELS }, () => RawUnaryChannel.open('127.0.0.1', port)))
}

/** Orders for a phase expected to run near `ratePerSecond`: half as many again, so time ends it, not the orders. */
function budget(ratePerSecond: number, seconds: number): number {
  return Math.ceil(Math.max(ratePerSecond, 200) * seconds * 1.5)
}

/**
 * Unary and stream placements before the figures, each: their own code (grpc-js, protobuf, the
 * session) tiers up as REST's does (rest-orders.ts, REST_WARM_UP_ORDERS), and with a few dozen, as
 * before, the gRPC figures were a colder server's than REST's beside them.
 */
const GRPC_WARM_UP_ORDERS = 6_000

/** SDK calls before its figure, not measured: the server is warm by then, the client's own code is not. */
const SDK_WARM_UP_CALLS = 2_000

/**
 * Not measured: the pool threads build their tables and one per hot signer on first use, the
 * channels and sessions connect, and V8 optimizes each path's code: REST_WARM_UP_ORDERS REST
 * orders, then GRPC_WARM_UP_ORDERS unary and as many stream placements, each path with as many in
 * flight as its figure. Resolves with REST's rate once warm (its last 1 000 orders), which sizes
 * the first phase's orders.
 */
async function warmUp(server: BenchServer, signer: Signer, channels: readonly RawUnaryChannel[],
  sessions: readonly BenchSession[], settings: Settings): Promise<number> {
  const warmCount = 1_000
  const coldCount = REST_WARM_UP_ORDERS - warmCount
  const orders = await signer.sign(REST_WARM_UP_ORDERS + 2 * GRPC_WARM_UP_ORDERS)
  const rest = (from: number, to: number, seconds: number): Promise<LoadResult> => closedLoop(server.restPort,
    REST_CONNECTIONS, seconds, orderSource(orders.slice(from, to), []), to - from)
  const cold = await rest(0, coldCount, 60)
  const warm = await rest(coldCount, REST_WARM_UP_ORDERS, 60)
  const grpcFirst = REST_WARM_UP_ORDERS
  await unaryClosedLoop(channels, REST_CONNECTIONS / CHANNELS, 60,
    renderOrders(orders.slice(grpcFirst, grpcFirst + GRPC_WARM_UP_ORDERS)), [])
  await pipelined(sessions, settings.window, 60, placeWork(orders.slice(grpcFirst + GRPC_WARM_UP_ORDERS), []))
  log(`warm-up: ${cold.requests} REST orders in ${cold.seconds.toFixed(1)} s, then ${warm.requests} at ` +
    `${Math.round(warm.perSecond)}/s, then ${GRPC_WARM_UP_ORDERS} unary and as many stream placements`)
  return warm.perSecond
}

/** Cancels every open order of every trader, one cancel_all per session: each phase starts from the same book. */
async function cancelEverything(sessions: readonly BenchSession[]): Promise<void> {
  const answers = await Promise.all(sessions.map((session) => session.send({ case: 'cancelAll', value: {} })))
  const canceled = answers.reduce((sum, answer) =>
    sum + (answer.result.case === 'canceled' ? answer.result.value.canceled.length : 0), 0)
  log(`  (cancelled the ${canceled} open orders, not timed)`)
}

/**
 * Placements: REST, unary (the lean client, then the SDK's), then the stream, each from an empty
 * book, with as many in flight.
 */
async function intake(server: BenchServer, signer: Signer, clients: GrpcClients, settings: Settings,
  warmRate: number, phases: PhaseClock):
  Promise<{ rest: LoadResult; unary: LoadResult; unarySdk: LoadResult; stream: LoadResult; resting: SignedFor[] }> {
  const { transports, sessions } = clients
  const { seconds } = settings
  // The SDK's client first, for comparison only (not judged), from an empty book as the others.
  const sdkOrders = await signer.sign(SDK_WARM_UP_CALLS + budget(warmRate, seconds))
  await sdkUnaryClosedLoop(transports, REST_CONNECTIONS / CHANNELS, 60, sdkOrders.slice(0, SDK_WARM_UP_CALLS))
  const unarySdk = await phases.time('unary_sdk', () =>
    sdkUnaryClosedLoop(transports, REST_CONNECTIONS / CHANNELS, seconds, sdkOrders.slice(SDK_WARM_UP_CALLS)))
  log(`gRPC PlaceOrder through the SDK's client (grpc-js), closed loop (${REST_CONNECTIONS} in flight): ` +
    describe(unarySdk))
  await cancelEverything(sessions)
  const { rest, unary, stream, resting } = await placementsInTurns(server, signer, clients, settings, warmRate, phases)
  log(`REST POST /order, closed loop (${REST_CONNECTIONS} connections): ${describe(rest)}`)
  log(`gRPC PlaceOrder, closed loop (${REST_CONNECTIONS} in flight on ${CHANNELS} channels): ${describe(unary)}`)
  log(`stream place, pipelined (${sessions.length} sessions x ${settings.window} in flight): ${describe(stream)}`)
  return { rest, unary, unarySdk, stream, resting }
}

/**
 * The REST, unary and stream placements in turns, INTERLEAVED_SLICES slices each, every slice from
 * an empty book. The unary and stream targets are ratios to REST, and this disk holds a flush for
 * 50-800 ms a few times in ten seconds (docs/performance.md, 2026-12-02), which stops a closed
 * loop's acks for as long. Run one after the other, whichever phase met more stalls lost by that
 * much (REST 1 885/s against unary 1 307/s, both p99 over 400 ms, with both cores 56-66 % busy;
 * the stream's ratio to REST read 2.31, 1.48 and 2.04 in three runs); in turns, all three meet
 * the same disk. The last stream slice's orders stay: they are the resting orders of the phases
 * after (the open loop adds its own), a third of what a whole stream phase left.
 */
async function placementsInTurns(server: BenchServer, signer: Signer, clients: GrpcClients, settings: Settings,
  warmRate: number, phases: PhaseClock): Promise<{ rest: LoadResult; unary: LoadResult; stream: LoadResult;
  resting: SignedFor[] }> {
  const { channels, sessions } = clients
  const sliceSeconds = settings.seconds / INTERLEAVED_SLICES
  // Each slice's orders its own (an order sent twice would be refused as a duplicate), signed
  // before the first; the stream takes in two to three times REST's rate.
  const chunks = async <T>(perSlice: number, render: (orders: SignedFor[]) => T[]): Promise<T[][]> => {
    const orders = render(await signer.sign(INTERLEAVED_SLICES * perSlice))
    return Array.from({ length: INTERLEAVED_SLICES }, (_, i) => orders.slice(i * perSlice, (i + 1) * perSlice))
  }
  const restOrders = await chunks(budget(warmRate * 1.5, sliceSeconds), (orders) => orders)
  const unaryOrders = await chunks(budget(warmRate * 1.5, sliceSeconds), renderOrders)
  const streamOrders = await chunks(budget(warmRate * 4, sliceSeconds), (orders) => orders)
  const rests: LoadResult[] = []
  const unaries: LoadResult[] = []
  const streams: LoadResult[] = []
  let resting: SignedFor[] = []
  for (let slice = 0; slice < INTERLEAVED_SLICES; slice++) {
    const restSlice = restOrders[slice]!
    rests.push(await phases.time('rest', () => closedLoop(server.restPort, REST_CONNECTIONS, sliceSeconds,
      orderSource(restSlice, []), restSlice.length)))
    await cancelEverything(sessions)
    unaries.push(await phases.time('unary', () =>
      unaryClosedLoop(channels, REST_CONNECTIONS / CHANNELS, sliceSeconds, unaryOrders[slice]!, [])))
    await cancelEverything(sessions)
    resting = []
    const work = placeWork(streamOrders[slice]!, resting)
    streams.push(await phases.time('stream', () => pipelined(sessions, settings.window, sliceSeconds, work)))
    if (slice < INTERLEAVED_SLICES - 1) await cancelEverything(sessions)
  }
  return { rest: mergedLoad(rests), unary: mergedLoad(unaries), stream: mergedLoad(streams), resting }
}

/**
 * Every phase, one after another; `phases` says when each ran (for splitting the server's profiles:
 * --profile-dir, profile-summary.mjs --phase) and what CPU it took.
 */
async function measure(server: BenchServer, signer: Signer, clients: GrpcClients, settings: Settings,
  market: BenchMarket, phases: PhaseClock): Promise<Figures> {
  const tokenId = market.yesTokenId
  const { seconds, window } = settings
  const { transports, sessions } = clients
  const warmRate = await warmUp(server, signer, clients.channels, sessions, settings)
  await cancelEverything(sessions)
  const { floor, streamFloor } = await grpcFloors(signer, sessions.map((session) => session.trader), settings)
  log(`floor: grpc-js answering PlaceOrder with a constant, closed loop (${REST_CONNECTIONS} in flight on ` +
    `${CHANNELS} channels): ${describe(floor.result)}`)
  log(`floor: grpc-js answering each session request with a constant (${sessions.length} sessions x ${window}): ` +
    describe(streamFloor.result))
  const { rest, unary, unarySdk, stream, resting } = await intake(server, signer, clients, settings, warmRate, phases)
  const openRate = Math.max(1, Math.floor(stream.perSecond / 2))
  const openOrders = await signer.sign(Math.ceil(openRate * seconds) + 2 * TRADERS)
  const open = await openLoop(sessions, openRate, seconds, placeWork(openOrders, resting))
  log(`stream place, open loop at ${openRate}/s (half the pipelined rate): ${describe(open)}`)
  const amendJobs = amendWork(resting)
  const amends = await phases.time('amends', () => pipelined(sessions, window, seconds, amendJobs))
  log(`stream amend, pipelined (one lot off a resting order each): ${describe(amends)}`)
  const cancelJobs = cancelWork(resting)
  const cancels = await phases.time('cancels', () => pipelined(sessions, window, seconds, cancelJobs))
  log(`stream cancel, pipelined: ${describe(cancels)} (${resting.length} resting orders to cancel)`)
  await cancelEverything(sessions)
  const quoteUpdates = Math.ceil((stream.perSecond / LADDER_CHANGED_PER_UPDATE / sessions.length) * seconds * 1.2)
  const ladders = await signer.ladders(market, quoteUpdates)
  const quoteJobs = quoteWork(market.marketId, ladders)
  const quotes = await phases.time('quotes', () => pipelined(sessions, 1, seconds, quoteJobs))
  log(`mass quotes, one session's after the other's answer (${LADDER_LEVELS} levels a side, ` +
    `${LADDER_CHANGED_PER_UPDATE} changed an update): ${describe(quotes)}`)
  await cancelEverything(sessions)
  const fanOrders = await signer.sign(budget(stream.perSecond, seconds))
  const fanJobs = placeWork(fanOrders, [])
  const fan = await fanOut(transports, settings.subscribers, tokenId, () => pipelined(sessions, window, seconds, fanJobs))
  log(`book fan-out: ${fan.subscribers} subscribers, ${Math.round(fan.sourceUpdatesPerSecond)} updates/s each, ` +
    `${Math.round(fan.deliveredPerSecond)}/s delivered (${fan.delivered} in ${fan.seconds.toFixed(1)} s, ` +
    `${fan.gaps} gaps); source: ${describe(fan.source)}`)
  const cores = availableParallelism()
  const cpu = { rest: perRequest(phases.cpu('rest'), rest.requests, cores),
    unary: perRequest(phases.cpu('unary'), unary.requests, cores),
    unarySdk: perRequest(phases.cpu('unary_sdk'), unarySdk.requests, cores),
    stream: perRequest(phases.cpu('stream'), stream.requests, cores) }
  return { rest, unary, unarySdk, stream, openRate, open, amends, cancels, quotes, fan, cpu, floor, streamFloor }
}

function reportOf(f: Figures, settings: Settings, sessions: number): Record<string, unknown> {
  return {
    rest_orders_per_s: Math.round(f.rest.perSecond), unary_orders_per_s: Math.round(f.unary.perSecond),
    unary_sdk_orders_per_s: Math.round(f.unarySdk.perSecond), unary_sdk_p99_ms: round(f.unarySdk.latencyMs.p99),
    stream_orders_per_s: Math.round(f.stream.perSecond), stream_cancels_per_s: Math.round(f.cancels.perSecond),
    amend_per_s: Math.round(f.amends.perSecond), amend_p50_ms: round(f.amends.latencyMs.p50),
    amend_p99_ms: round(f.amends.latencyMs.p99),
    mass_quote_updates_per_s: Math.round(f.quotes.perSecond), mass_quote_p50_ms: round(f.quotes.latencyMs.p50),
    mass_quote_p99_ms: round(f.quotes.latencyMs.p99),
    p99_ms: round(f.open.latencyMs.p99), p50_ms: round(f.open.latencyMs.p50), stream_open_rate_per_s: f.openRate,
    book_stream_updates_per_s: Math.round(f.fan.deliveredPerSecond), book_stream_subscribers: f.fan.subscribers,
    book_source_updates_per_s: Math.round(f.fan.sourceUpdatesPerSecond), book_stream_gaps: f.fan.gaps,
    rest_p99_ms: round(f.rest.latencyMs.p99), unary_p99_ms: round(f.unary.latencyMs.p99),
    stream_pipelined_p99_ms: round(f.stream.latencyMs.p99), stream_cancels_p99_ms: round(f.cancels.latencyMs.p99),
    stream_vs_rest: round(f.stream.perSecond / f.rest.perSecond),
    unary_vs_rest: round(f.unary.perSecond / f.rest.perSecond),
    unary_sdk_vs_rest: round(f.unarySdk.perSecond / f.rest.perSecond),
    grpc_constant_per_s: Math.round(f.floor.result.perSecond),
    unary_vs_grpc_constant: round(f.unary.perSecond / f.floor.result.perSecond),
    grpc_stream_constant_per_s: Math.round(f.streamFloor.result.perSecond),
    stream_vs_grpc_stream_constant: round(f.stream.perSecond / f.streamFloor.result.perSecond),
    cpu_per_order: { rest: f.cpu.rest, unary: f.cpu.unary, unary_sdk: f.cpu.unarySdk, stream: f.cpu.stream,
      grpc_constant: f.floor.cpu, grpc_stream_constant: f.streamFloor.cpu },
    seconds: settings.seconds, sessions, window: settings.window, channels: CHANNELS, connections: REST_CONNECTIONS,
    cores: availableParallelism(), node: process.version,
    statuses: { rest: f.rest.statuses, unary: f.unary.statuses, unary_sdk: f.unarySdk.statuses, stream: f.stream.statuses, open: f.open.statuses,
      cancels: f.cancels.statuses, quotes: f.quotes.statuses, book_source: f.fan.source.statuses },
  }
}

/** Each timed phase's latencies as a histogram (bench/series.ts), for the suite's charts. */
function seriesOf(f: Figures, sessions: number, window: number): { histograms: LatencyHistogram[]; timelines: [] } {
  const phases: readonly [string, LoadResult][] = [
    [`REST POST /order, closed loop (${REST_CONNECTIONS} connections)`, f.rest],
    [`gRPC PlaceOrder, closed loop (${REST_CONNECTIONS} in flight)`, f.unary],
    [`gRPC PlaceOrder through the SDK's client (${REST_CONNECTIONS} in flight)`, f.unarySdk],
    [`stream place, pipelined (${sessions} x ${window})`, f.stream],
    [`stream place, open loop at ${f.openRate}/s (ack latency from due time)`, f.open],
    ['stream amend, pipelined', f.amends],
    ['mass quote, a ladder re-quoted', f.quotes],
    ['stream cancel, pipelined', f.cancels],
  ]
  return { histograms: phases.map(([label, result]) => histogram(label, 'ms', result.latenciesMs)), timelines: [] }
}

function markdownOf(f: Figures, settings: Settings, sessions: number, report: Record<string, unknown>): string {
  const streamRatio = f.stream.perSecond / f.rest.perSecond
  const unaryRatio = f.unary.perSecond / f.rest.perSecond
  const cores = availableParallelism()
  return [
    '# gRPC end to end (workload 5)', '',
    `Command: \`npm run bench:grpc${settings.quick ? ' -- --quick' : ''}\`; ` +
      `${cores} cores (${cpus()[0]?.model ?? ''}), ` +
      `Node ${process.version}; ${settings.seconds} s per phase, one run (repeat it and compare ratios).`,
    `Predex in its own process (durability sync, rate limits off); the load from this process, on the same ${cores} ` +
      `cores; REST and gRPC on the same server, in the same run. Orders signed before each phase. REST's requests ` +
      'and the gRPC requests (bench/grpc-wire.ts, a lean client on node:http2) are rendered as bytes before their ' +
      'phase, only the L2 HMACs made as they go; one unary figure is the SDK\'s client (grpc-js), for comparison.', '',
    '| figure | per second | p50 ms | p99 ms | p99.9 ms |', '| --- | --- | --- | --- | --- |',
    row(`floor: grpc-js answering PlaceOrder with a constant (${REST_CONNECTIONS} in flight)`, f.floor.result),
    row(`floor: grpc-js answering each session request with a constant (${sessions} x ${settings.window})`,
      f.streamFloor.result),
    row(`REST POST /order, closed loop (${REST_CONNECTIONS} connections)`, f.rest),
    row(`gRPC PlaceOrder, closed loop (${REST_CONNECTIONS} in flight, ${CHANNELS} channels)`, f.unary),
    row(`gRPC PlaceOrder through the SDK's client (grpc-js), same loop`, f.unarySdk),
    row(`stream place, pipelined (${sessions} sessions x ${settings.window})`, f.stream),
    row(`stream place, open loop at ${f.openRate}/s (ack latency)`, f.open),
    row('stream amend, pipelined (one lot off a resting order)', f.amends),
    row(`mass quote (${LADDER_LEVELS} levels a side, ${LADDER_CHANGED_PER_UPDATE} changed an update)`, f.quotes),
    row(`stream cancel, pipelined`, f.cancels), '',
    `Book stream fan-out: ${f.fan.subscribers} subscribers on one token, the book changing ` +
      `${Math.round(f.fan.sourceUpdatesPerSecond)} times/s (stream placements): ` +
      `${Math.round(f.fan.deliveredPerSecond)} updates/s delivered in all, ${f.fan.gaps} gaps.`, '',
    'CPU per order placed, read from /proc (bench/cpu-time.ts):', '', ...CPU_TABLE_HEAD,
    cpuRow('REST POST /order', f.cpu.rest), cpuRow('gRPC PlaceOrder (unary)', f.cpu.unary),
    cpuRow('gRPC PlaceOrder, the SDK\'s client', f.cpu.unarySdk),
    cpuRow('order-entry stream', f.cpu.stream),
    cpuRow('floor: grpc-js, a constant answer (its own process)', f.floor.cpu),
    cpuRow('floor: grpc-js, a constant session answer (its own process)', f.streamFloor.cpu), '',
    `Targets: stream intake >= ${GRPC_STREAM_VS_REST_MIN} x REST intake: ${pct(streamRatio)} of REST ` +
      `(${streamRatio >= GRPC_STREAM_VS_REST_MIN ? 'met' : 'NOT met'}); unary >= ${GRPC_UNARY_VS_REST_MIN} x REST: ` +
      `${pct(unaryRatio)} of REST (${unaryRatio >= GRPC_UNARY_VS_REST_MIN ? 'met' : 'NOT met'}).`,
    `Statuses: ${JSON.stringify(report.statuses)}`,
  ].join('\n')
}

function settingsOf(flags: BenchFlags): Settings {
  const subscribers = flags.integer('--subscribers', 16)
  if (subscribers > GRPC_BOOK_STREAMS_PER_ADDRESS_MAX) {
    throw new Error(`--subscribers: at most ${GRPC_BOOK_STREAMS_PER_ADDRESS_MAX} book streams from one address`)
  }
  return { quick: flags.quick, seconds: flags.number('--seconds', flags.quick ? 3 : 8), subscribers,
    window: flags.integer('--window', 8) }
}

async function main(): Promise<void> {
  const flags = new BenchFlags()
  const settings = settingsOf(flags)
  log(`# gRPC end to end (workload 5): ${settings.seconds} s per phase, ${availableParallelism()} cores, ` +
    `Node ${process.version}`)
  const profileDir = profileDirOf()
  const server = await startPredexServer({ profileDir })
  const phases = new PhaseClock(new CpuMeter(server.pid, `${server.base}/metrics`))
  const transports = Array.from({ length: CHANNELS }, () =>
    new GrpcTransport(`127.0.0.1:${server.grpcPort}`, { 'grpc.use_local_subchannel_pool': 1 }))
  const channels = await openChannels(server.grpcPort)
  const unaryChannels = await openUnaryChannels(server.grpcPort)
  try {
    const { traders, tokenId, noTokenId, marketId } = await setUpTraders(server, TRADERS)
    const sessions = await Promise.all(traders.map((trader, i) => BenchSession.open(channels[i % CHANNELS]!, trader)))
    const figures = await measure(server, new Signer(traders, tokenId),
      { channels: unaryChannels, transports, sessions }, settings,
      { marketId, yesTokenId: tokenId, noTokenId }, phases)
    await Promise.all(sessions.map((session) => session.close()))
    const report = reportOf(figures, settings, sessions.length)
    const markdown = markdownOf(figures, settings, sessions.length, report)
    log('\n' + markdown)
    writeResults('grpc', report, markdown)
    if (flags.json) {
      const { statuses: _statuses, ...line } = report
      console.log(JSON.stringify({ ...line, series: seriesOf(figures, sessions.length, settings.window) }))
    }
  } finally {
    for (const transport of transports) transport.close()
    for (const channel of channels) channel.close()
    for (const channel of unaryChannels) channel.close()
    await server.stop()
    phases.write(profileDir)
  }
}

await main()
