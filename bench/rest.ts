/**
 * `npm run bench:rest`: workload 4 of ../shared/spec/benchmarks.md, REST end to end. Predex runs
 * as `npm start` runs it (its own process, durability sync, LMDB on a temporary directory), with
 * the rate limits off (one client address drives everything); the load comes from this process
 * over keep-alive connections on loopback. On 2 cores the generator competes with the server, so
 * every figure is compared, in the same run, with the HTTP layer's ceilings: uWS answering a
 * constant JSON body, and node:http doing the same.
 *
 * Measured, after a warm-up of REST_WARM_UP_ORDERS orders (rest-orders.ts: a fresh server compiles its hot paths first;
 * their rate is reported, not judged): the ceilings (closed loop); signed orders (POST /order,
 * every order distinct and verified, resting: BUY Yes below the mid) closed loop for the maximum,
 * then open loop at half of it for latency; GET /book reads; signed orders in batches of 10
 * (POST /orders, closed loop, counted in orders, each answer checked: every order of it
 * accepted); cancels (DELETE /order, HMAC only); the batches and cancels after warm-ups of their
 * own. Also, before the server starts, the verification pool's ceiling on the same orders (the
 * target compares intake to it), and the floor of a durable write: uWS answering the constant
 * after a group flush of its own (rest-baselines.ts). What the machine allows at most
 * (`*_reachable`): the lower of the rate at which only an order's signature check and the load
 * generator's CPU fit on the cores (from the CPU table) and that floor's rate, over each target's
 * reference; a target above it is out of reach here.
 *
 * Flags: --quick (shorter), --seconds N (per figure), --json (last line is a JSON object, with
 * the latency histograms under `series`), --profile-dir DIR (the server's threads write CPU
 * profiles there, with phases.json saying when each figure ran: docs/performance.md).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { l2Headers } from '../src/crypto/request-headers.js'
import { VerifierPool } from '../src/crypto/verifier-pool.js'
import { installSigBackend, SIG_BACKEND_CHOICES, type SigBackend } from '../src/crypto/sig-backend.js'
import { closedLoop, getRequest, httpRequest, openLoop, type AnswerKey, type LoadResult } from './http-load.js'
import { BenchFlags } from './flags.js'
import { CHAIN_ID, PhaseClock, profileDirOf, setUpTraders, signOrders, startChild, startPredexServer, stopChild,
  type SignedFor, type Trader } from './predex-server.js'
import { describe, pct, round, row, writeResults } from './report.js'
import { BATCH_ORDERS, batchesOf, batchSource, orderSource, REST_CONNECTIONS as CONNECTIONS, REST_WARM_UP_ORDERS }
  from './rest-orders.js'
import { histogram, type WorkloadSeries } from './series.js'
import { CPU_TABLE_HEAD, CpuMeter, cpuRow, perRequest, reachablePerSecond, type CpuPerRequest } from './cpu-time.js'

const TRADERS = 8
/** The batch figure's orders beyond the measured count (the warm-up's size before it grew to 14 000). */
const BATCH_SET_ORDERS = 4_000
/** Cancels and batches sent before their figures, for the same reason (their paths are partly their own). */
const WARM_UP_CANCELS = 1_000
const WARM_UP_BATCHES = 100
const log = (line: string): void => void process.stderr.write(line + '\n')
const nowSec = (): number => Math.floor(Date.now() / 1000)

async function ceiling(kind: 'uws' | 'uws-durable' | 'http', seconds: number): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'predex-bench-floor-'))
  const child = await startChild('bench/rest-baselines.js', [kind, dir], /port (\d+)/)
  try {
    await closedLoop(child.port, CONNECTIONS, 0.5, getRequest('/warm-up'))
    return await closedLoop(child.port, CONNECTIONS, seconds, getRequest('/book'))
  } finally {
    await stopChild(child)
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The signature backend the server runs: it inherits this environment, so SIG_BACKEND when set,
 * else its default, auto (native when the binding loads). The pool's ceiling is measured with it.
 */
function serverSigBackend(): SigBackend {
  return installSigBackend(SIG_BACKEND_CHOICES.find((name) => name === process.env.SIG_BACKEND) ?? 'auto').backend
}

async function poolCeiling(orders: readonly SignedFor[], threads: number, backend: SigBackend): Promise<number> {
  const pool = new VerifierPool({ chainId: CHAIN_ID, threads, backend })
  const tasks = orders.map(({ signed }) => ({ order: signed.order, negRisk: false, signature: signed.signature }))
  // Warm-up in two halves: one key may have at most VERIFY_PENDING_PER_KEY_MAX (256) orders pending.
  for (const from of [0, 200]) await Promise.all(tasks.slice(from, from + 200).map((task) => pool.verify(task)))
  const start = performance.now()
  let next = 0
  await Promise.all(Array.from({ length: 256 }, async () => {
    while (next < tasks.length) {
      const verdict = await pool.verify(tasks[next++]!)
      if (!verdict.ok) throw new Error('a benchmark order failed to verify')
    }
  }))
  const rate = tasks.length / ((performance.now() - start) / 1000)
  await pool.close()
  return rate
}

interface Settings {
  readonly quick: boolean
  readonly json: boolean
  readonly seconds: number
  readonly cores: number
  readonly profileDir: string | null
}

interface Figures {
  readonly uws: LoadResult
  /** uWS answering the constant after a group flush of its own (rest-baselines.ts): a durable write's floor. */
  readonly durable: LoadResult
  readonly node: LoadResult
  readonly pool: number
  /** The server's signature backend (and the pool ceiling's). */
  readonly backend: SigBackend
  /** The warm-up: the first REST_WARM_UP_ORDERS orders a fresh server takes (reported, not judged). */
  readonly warmUp: LoadResult
  readonly placeMax: LoadResult
  readonly openRate: number
  readonly placeOpen: LoadResult
  readonly book: LoadResult
  readonly batch: LoadResult
  /** Orders the batches placed (every order of every answer accepted), per second. */
  readonly batchOrdersPerSecond: number
  readonly cancels: LoadResult
  /** CPU per request of each server figure, read from /proc (cpu-time.ts). */
  readonly cpu: Readonly<Record<CpuFigure, CpuPerRequest>>
}

/** The server figures whose CPU is read; a batch's is per order placed, not per request. */
const CPU_FIGURES = ['orders', 'orders-open', 'book', 'batch', 'cancels'] as const
type CpuFigure = typeof CPU_FIGURES[number]

/**
 * Counts a batch answer as `200` only when every order in it was accepted (native shape:
 * {total_successful, total_failed, results}); `accepted` counts the orders placed.
 */
function batchAnswerKey(accepted: { orders: number }): AnswerKey {
  return (status, body) => {
    if (status !== 200) return String(status)
    const answer = JSON.parse(body.toString()) as { total_successful?: number; total_failed?: number }
    accepted.orders += answer.total_successful ?? 0
    return answer.total_successful === BATCH_ORDERS ? '200' : `200 with ${answer.total_failed ?? '?'} refused`
  }
}

function signTimed(traders: readonly Trader[], tokenId: string, count: number, first = 0): SignedFor[] {
  const started = performance.now()
  const orders = signOrders(traders, tokenId, count, first)
  const seconds = (performance.now() - started) / 1000
  log(`signed ${count} orders of ${traders.length} traders in ${seconds.toFixed(1)} s (not timed)`)
  return orders
}

/** The server-side figures, one after another on one server; `phases` marks when each ran. */
async function serverFigures(settings: Settings, port: number, orders: readonly SignedFor[],
  batches: readonly SignedFor[][], phases: PhaseClock):
  Promise<Omit<Figures, 'uws' | 'durable' | 'node' | 'pool' | 'backend' | 'cpu'>> {
  const { seconds } = settings
  const placed: SignedFor[] = []
  const placeSource = orderSource(orders, placed)
  // Warm-up, not measured: each pool thread builds its generator table (about a second) and a
  // table per hot signer (about 100 ms each) on first use; a market maker's steady state is after.
  const warmUp = await phases.time('warm-up', () => closedLoop(port, CONNECTIONS, 60, placeSource, REST_WARM_UP_ORDERS))
  log(`warm-up (a fresh server: not a figure): POST /order ${describe(warmUp)}`)
  const placeMax = await phases.time('orders', () =>
    closedLoop(port, CONNECTIONS, seconds, placeSource, Math.floor((orders.length - REST_WARM_UP_ORDERS) / 2)))
  log(`POST /order, closed loop: ${describe(placeMax)}`)
  const openRate = Math.max(1, Math.floor(placeMax.perSecond / 2))
  const placeOpen = await phases.time('orders-open', () => openLoop(port, CONNECTIONS * 2, openRate,
    Math.min(seconds, (orders.length - placed.length) / openRate), placeSource))
  log(`POST /order, open loop at ${openRate}/s (half the maximum): ${describe(placeOpen)}`)
  const bookRequest = getRequest(`/book?token_id=${tokenIdOf(orders)}`)
  const book = await phases.time('book', () => closedLoop(port, CONNECTIONS, seconds, bookRequest))
  log(`GET /book (49 levels), closed loop: ${describe(book)}`)
  const batchNext = batchSource(batches, placed)
  await phases.time('warm-up-batch', () => closedLoop(port, CONNECTIONS, 60, batchNext, WARM_UP_BATCHES))
  const accepted = { orders: 0 }
  const batch = await phases.time('batch', () => closedLoop(port, CONNECTIONS, seconds, batchNext,
    batches.length - WARM_UP_BATCHES, batchAnswerKey(accepted)))
  const batchOrdersPerSecond = accepted.orders / batch.seconds
  log(`POST /orders (${BATCH_ORDERS} per batch), closed loop: ${Math.round(batchOrdersPerSecond)} orders/s; ` +
    `requests ${describe(batch)}`)
  const cancelNext = cancelSource(placed)
  await phases.time('warm-up-cancels', () => closedLoop(port, CONNECTIONS, 60, cancelNext, WARM_UP_CANCELS))
  const cancels = await phases.time('cancels', () =>
    closedLoop(port, CONNECTIONS, seconds, cancelNext, placed.length - WARM_UP_CANCELS))
  log(`DELETE /order, closed loop: ${describe(cancels)}`)
  return { warmUp, placeMax, openRate, placeOpen, book, batch, batchOrdersPerSecond, cancels }
}

/** Each server figure's CPU per request (per order placed, for the batches). */
function cpuOf(phases: PhaseClock, f: Awaited<ReturnType<typeof serverFigures>>, cores: number):
  Record<CpuFigure, CpuPerRequest> {
  const requests: Record<CpuFigure, number> = { 'orders': f.placeMax.requests, 'orders-open': f.placeOpen.requests,
    'book': f.book.requests, 'batch': Math.round(f.batchOrdersPerSecond * f.batch.seconds),
    'cancels': f.cancels.requests }
  return Object.fromEntries(CPU_FIGURES.map((name) =>
    [name, perRequest(phases.cpu(name), requests[name], cores)])) as Record<CpuFigure, CpuPerRequest>
}

function tokenIdOf(orders: readonly SignedFor[]): string {
  return orders[0]!.signed.order.tokenId
}

/** DELETE /order of the orders placed, in the order they were sent. */
function cancelSource(placed: readonly SignedFor[]): (i: number) => Buffer {
  let next = 0
  return () => {
    const { trader, signed } = placed[next++]!
    const body = JSON.stringify({ orderID: signed.orderId })
    return httpRequest('DELETE', '/order', body,
      l2Headers(trader.credentials, trader.address, 'DELETE', '/order', body, nowSec()))
  }
}

async function measure(settings: Settings): Promise<Figures> {
  const uws = await ceiling('uws', settings.seconds)
  log(`ceiling, uWS constant JSON: ${describe(uws)}`)
  const durable = await ceiling('uws-durable', settings.seconds)
  log(`floor of a durable write, uWS constant JSON after a group flush: ${describe(durable)}`)
  const node = await ceiling('http', settings.seconds)
  log(`context, node:http constant JSON: ${describe(node)}`)
  const server = await startPredexServer({ profileDir: settings.profileDir })
  const phases = new PhaseClock(new CpuMeter(server.pid, `${server.base}/metrics`))
  try {
    const { traders, tokenId } = await setUpTraders(server, TRADERS)
    // Enough distinct orders for the closed loop at several times the pool ceiling we expect here.
    const measured = settings.quick ? 6_000 : 20_000
    const orderCount = REST_WARM_UP_ORDERS + measured
    const orders = signTimed(traders, tokenId, orderCount)
    // The batches' own orders: as many as before the warm-up grew, so that their figure's window stays the same.
    const batches = batchesOf(signTimed(traders, tokenId, BATCH_SET_ORDERS + measured, orderCount), BATCH_ORDERS)
    const backend = serverSigBackend()
    const pool = await poolCeiling(orders.slice(0, Math.min(orders.length, 4_000)), settings.cores, backend)
    log(`verification pool ceiling (${settings.cores} threads, ${backend}, hot signers, measured with the server ` +
      `idle): ${Math.round(pool)}/s`)
    const figures = await serverFigures(settings, server.restPort, orders, batches, phases)
    return { uws, durable, node, pool, backend, ...figures, cpu: cpuOf(phases, figures, settings.cores) }
  } finally {
    await server.stop()
    phases.write(settings.profileDir)
    if (settings.profileDir !== null) {
      log(`server CPU profiles in ${settings.profileDir}: ` +
        `node scripts/profile-summary.mjs ${settings.profileDir} --phase orders`)
    }
  }
}

function reportOf(settings: Settings, f: Figures): Record<string, unknown> {
  return {
    seconds: settings.seconds, connections: CONNECTIONS, cores: settings.cores, node: process.version,
    uws_constant_per_s: Math.round(f.uws.perSecond), node_http_constant_per_s: Math.round(f.node.perSecond),
    uws_durable_per_s: Math.round(f.durable.perSecond), uws_durable_p50_ms: round(f.durable.latencyMs.p50),
    durable_vs_uws: ratio(f.durable.perSecond, f.uws.perSecond),
    pool_ceiling_per_s: Math.round(f.pool), sig_backend: f.backend,
    orders_cold_per_s: Math.round(f.warmUp.perSecond),
    orders_per_s: Math.round(f.placeMax.perSecond), orders_closed_p50_ms: round(f.placeMax.latencyMs.p50),
    orders_closed_p99_ms: round(f.placeMax.latencyMs.p99),
    orders_open_rate_per_s: f.openRate, orders_open_p50_ms: round(f.placeOpen.latencyMs.p50),
    orders_open_p99_ms: round(f.placeOpen.latencyMs.p99), orders_open_p999_ms: round(f.placeOpen.latencyMs.p999),
    cancels_per_s: Math.round(f.cancels.perSecond), cancels_p99_ms: round(f.cancels.latencyMs.p99),
    book_per_s: Math.round(f.book.perSecond), book_p99_ms: round(f.book.latencyMs.p99),
    batch_orders_per_s: Math.round(f.batchOrdersPerSecond), batch_p99_ms: round(f.batch.latencyMs.p99),
    intake_vs_pool: ratio(f.placeMax.perSecond, f.pool), book_vs_uws: ratio(f.book.perSecond, f.uws.perSecond),
    orders_vs_uws: ratio(f.placeMax.perSecond, f.uws.perSecond),
    cancels_vs_uws: ratio(f.cancels.perSecond, f.uws.perSecond),
    cancels_vs_durable: ratio(f.cancels.perSecond, f.durable.perSecond),
    batch_vs_single: ratio(f.batchOrdersPerSecond, f.placeMax.perSecond),
    ...reachableOf(settings, f),
    cpu_per_request: f.cpu,
    statuses: { orders: f.placeMax.statuses, orders_open: f.placeOpen.statuses, cancels: f.cancels.statuses,
      book: f.book.statuses, batch: f.batch.statuses },
  }
}

/**
 * The most each target's figure could reach on this machine: the lower of two bounds, over the
 * same reference as the figure. From this run's CPU table, the rate at which only what no server
 * change removes fits on the cores (an order's signature check and the load generator's HTTP and
 * HMAC; for a cancel, the load generator's); and the durable floor's rate (a write acknowledged
 * after a flush, with nothing else: its connections wait for the disk). Below a target, the
 * target is out of reach here whatever the server does.
 */
function reachableOf(settings: Settings, f: Figures): Record<string, number | null> {
  const durableBound = (rate: number | null): number | null => rate === null ? null
    : Math.min(rate, f.durable.perSecond)
  const orders = durableBound(reachablePerSecond(f.cpu.orders, ['verify'], settings.cores))
  const cancels = durableBound(reachablePerSecond(f.cpu.cancels, [], settings.cores))
  const over = (rate: number | null, reference: number): number | null => rate === null ? null : ratio(rate, reference)
  return { intake_vs_pool_reachable: over(orders, f.pool), orders_vs_uws_reachable: over(orders, f.uws.perSecond),
    cancels_vs_uws_reachable: over(cancels, f.uws.perSecond) }
}

/** A ratio to three decimals: small ratios (orders against uWS) would round to nothing at two. */
function ratio(value: number, reference: number): number {
  return Number((value / reference).toFixed(3))
}

function seriesOf(f: Figures): WorkloadSeries {
  const figure = (label: string, result: LoadResult): ReturnType<typeof histogram> =>
    histogram(label, 'ms', result.latenciesMs)
  return {
    histograms: [figure('uWS constant JSON', f.uws), figure('node:http constant JSON', f.node),
      figure('POST /order, closed loop', f.placeMax), figure(`POST /order, open loop at ${f.openRate}/s`, f.placeOpen),
      figure('GET /book, closed loop', f.book),
      figure(`POST /orders (${BATCH_ORDERS} per batch), closed loop`, f.batch),
      figure('DELETE /order, closed loop', f.cancels)],
    timelines: [],
  }
}

function markdownOf(settings: Settings, f: Figures, r: Record<string, unknown>): string {
  const { cores, seconds, quick } = settings
  const met = (ok: boolean): string => (ok ? 'met' : 'NOT met')
  const target = (value: unknown, least: number): string => `${pct(Number(value))} (${met(Number(value) >= least)})`
  const reach = (value: unknown): string => typeof value === 'number' ? pct(value) : 'n/a'
  const batchRatio = Number(r.batch_vs_single)
  return [
    `# REST end to end (workload 4)`, '',
    `Command: \`npm run bench:rest${quick ? ' -- --quick' : ''}\`; ${cores} cores (${cpus()[0]?.model ?? ''}), ` +
      `Node ${process.version}; ${seconds} s per figure, ${CONNECTIONS} keep-alive connections, one run ` +
      '(repeat it and compare ratios; the machine is shared).',
    'Predex in its own process (durability sync, rate limits off); load generator in this process; ' +
      `both on the same ${cores} cores.`, '',
    '| figure | per second | p50 ms | p99 ms | p99.9 ms |', '| --- | --- | --- | --- | --- |',
    row('uWS constant JSON (ceiling)', f.uws),
    row('uWS constant JSON after a group flush (a durable write\'s floor)', f.durable),
    row('node:http constant JSON', f.node),
    row(`POST /order, the first ${REST_WARM_UP_ORDERS} after start (warm-up, not judged)`, f.warmUp),
    row('POST /order, closed loop', f.placeMax),
    row(`POST /order, open loop at ${f.openRate}/s`, f.placeOpen), row('DELETE /order, closed loop', f.cancels),
    row('GET /book, closed loop', f.book),
    row(`POST /orders (${BATCH_ORDERS} per batch), closed loop: requests`, f.batch),
    `| POST /orders: orders placed | ${Math.round(f.batchOrdersPerSecond)} | | | |`, '',
    `Verification pool ceiling on the same orders (${cores} threads, server idle): ${Math.round(f.pool)}/s.`, '',
    'CPU per request, read from /proc (a profile counts a thread waiting for a core as busy, and does not see ' +
      'the threads V8 and libuv run for the process): bench/cpu-time.ts.', '',
    ...CPU_TABLE_HEAD,
    cpuRow('POST /order, closed loop', f.cpu.orders), cpuRow(`POST /order, open loop at ${f.openRate}/s`,
      f.cpu['orders-open']),
    cpuRow('GET /book, closed loop', f.cpu.book), cpuRow(`POST /orders, per order placed`, f.cpu.batch),
    cpuRow('DELETE /order, closed loop', f.cpu.cancels), '',
    `Targets: signed-order intake >= 80 % of the pool ceiling: ${target(r.intake_vs_pool, 0.8)}; ` +
      `POST /order >= 20 % of the uWS constant-JSON ceiling: ${target(r.orders_vs_uws, 0.2)}; ` +
      `DELETE /order >= 40 %: ${target(r.cancels_vs_uws, 0.4)}; GET /book >= 50 %: ${target(r.book_vs_uws, 0.5)}; ` +
      `POST /orders (${BATCH_ORDERS} per batch) >= 3 x single placements in orders/s: ` +
      `${batchRatio} x (${met(batchRatio >= 3)}).`,
    `Reachable on this machine at most, with only an order's signature check and the load generator's CPU on the ` +
      `${cores} cores (a cancel: the load generator's alone), and no faster than the durable floor ` +
      `(${reach(r.durable_vs_uws)} of uWS): intake ${reach(r.intake_vs_pool_reachable)} of ` +
      `the pool ceiling, POST /order ${reach(r.orders_vs_uws_reachable)} and DELETE /order ` +
      `${reach(r.cancels_vs_uws_reachable)} of uWS. DELETE /order reached ${reach(r.cancels_vs_durable)} of the ` +
      'durable floor.',
    `Statuses: ${JSON.stringify(r.statuses)}`,
  ].join('\n')
}

async function main(): Promise<void> {
  const flags = new BenchFlags()
  const settings: Settings = { quick: flags.quick, json: flags.json,
    seconds: flags.number('--seconds', flags.quick ? 3 : 8),
    cores: availableParallelism(), profileDir: profileDirOf() }
  log(`# REST end to end (workload 4): ${settings.seconds} s per figure, ${CONNECTIONS} keep-alive connections, ` +
    `${settings.cores} cores, Node ${process.version}`)
  const figures = await measure(settings)
  const report = reportOf(settings, figures)
  const markdown = markdownOf(settings, figures, report)
  log('\n' + markdown)
  const series = seriesOf(figures)
  writeResults('rest', { ...report, series }, markdown)
  if (settings.json) {
    const { statuses: _statuses, ...line } = report
    console.log(JSON.stringify({ ...line, series }))
  }
}

await main()
