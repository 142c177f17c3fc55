/**
 * `npm run bench:rest`: workload 4 of ../shared/spec/benchmarks.md, REST end to end. Predex runs
 * as `npm start` runs it (its own process, durability sync, LMDB on a temporary directory), with
 * the rate limits off (one client address drives everything); the load comes from this process
 * over keep-alive connections on loopback. On 2 cores the generator competes with the server, so
 * every figure is compared, in the same run, with the HTTP layer's ceilings: uWS answering a
 * constant JSON body, and node:http doing the same.
 *
 * Measured: the ceilings (closed loop); signed orders (POST /order, every order distinct and
 * verified, resting: BUY Yes below the mid) closed loop for the maximum, then open loop at half
 * of it for latency; cancels (DELETE /order, HMAC only); GET /book reads. Also, before the server
 * starts, the verification pool's ceiling on the same orders (the target compares intake to it).
 *
 * Flags: --quick (shorter), --seconds N (per figure), --json (last line is a JSON object).
 */
import { availableParallelism, cpus } from 'node:os'
import { l2Headers } from '../src/client/headers.js'
import { VerifierPool } from '../src/crypto/verifier-pool.js'
import { closedLoop, getRequest, httpRequest, openLoop, type LoadResult } from './http-load.js'
import { BenchFlags } from './flags.js'
import { CHAIN_ID, setUpTraders, signOrders, startChild, startPredexServer, stopChild, type SignedFor }
  from './predex-server.js'
import { describe, pct, round, row, writeResults } from './report.js'
import { orderSource, REST_CONNECTIONS as CONNECTIONS } from './rest-orders.js'

const TRADERS = 8
const WARM_UP_ORDERS = 400
const log = (line: string): void => void process.stderr.write(line + '\n')
const nowSec = (): number => Math.floor(Date.now() / 1000)

async function ceiling(kind: 'uws' | 'http', seconds: number): Promise<LoadResult> {
  const child = await startChild('bench/rest-baselines.js', [kind], /port (\d+)/)
  try {
    await closedLoop(child.port, CONNECTIONS, 0.5, getRequest('/warm-up'))
    return await closedLoop(child.port, CONNECTIONS, seconds, getRequest('/book'))
  } finally {
    await stopChild(child)
  }
}

async function poolCeiling(orders: readonly SignedFor[], threads: number): Promise<number> {
  const pool = new VerifierPool({ chainId: CHAIN_ID, threads })
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

async function main(): Promise<void> {
  const flags = new BenchFlags()
  const quick = flags.quick
  const seconds = flags.number('--seconds', quick ? 3 : 8)
  const cores = availableParallelism()
  log(`# REST end to end (workload 4): ${seconds} s per figure, ${CONNECTIONS} keep-alive connections, ${cores} cores, Node ${process.version}`)

  const uws = await ceiling('uws', seconds)
  log(`ceiling, uWS constant JSON: ${describe(uws)}`)
  const node = await ceiling('http', seconds)
  log(`context, node:http constant JSON: ${describe(node)}`)

  const server = await startPredexServer()
  try {
    const port = server.restPort
    const { traders, tokenId } = await setUpTraders(server, TRADERS)
    // Enough distinct orders for the closed loop at several times the pool ceiling we expect here.
    const orderCount = quick ? 6_000 : 20_000
    log(`signing ${orderCount} orders of ${TRADERS} traders...`)
    const orders = signOrders(traders, tokenId, orderCount)
    const sigThreads = cores
    const pool = await poolCeiling(orders.slice(0, Math.min(orders.length, 4_000)), sigThreads)
    log(`verification pool ceiling (${sigThreads} threads, hot signers, measured with the server idle): ${Math.round(pool)}/s`)

    const placed: SignedFor[] = []
    const placeSource = orderSource(orders, placed)
    // Warm-up, not measured: each pool thread builds its generator table (about a second) and a
    // table per hot signer (about 100 ms each) on first use; a market maker's steady state is after.
    const warmUp = await closedLoop(port, CONNECTIONS, 60, placeSource, WARM_UP_ORDERS)
    log(`warm-up: ${warmUp.requests} orders in ${warmUp.seconds.toFixed(1)} s`)
    const placeMax = await closedLoop(port, CONNECTIONS, seconds, placeSource, Math.floor(orderCount / 2))
    log(`POST /order, closed loop: ${describe(placeMax)}`)
    const rate = Math.max(1, Math.floor(placeMax.perSecond / 2))
    const placeOpen = await openLoop(port, CONNECTIONS * 2, rate, Math.min(seconds, (orderCount - placed.length) / rate),
      placeSource)
    log(`POST /order, open loop at ${rate}/s (half the maximum): ${describe(placeOpen)}`)

    const book = await closedLoop(port, CONNECTIONS, seconds, getRequest(`/book?token_id=${tokenId}`))
    log(`GET /book (49 levels), closed loop: ${describe(book)}`)

    let nextCancel = 0
    const cancelSource = (): Buffer => {
      const { trader, signed } = placed[nextCancel++]!
      const body = JSON.stringify({ orderID: signed.orderId })
      return httpRequest('DELETE', '/order', body,
        l2Headers(trader.credentials, trader.address, 'DELETE', '/order', body, nowSec()))
    }
    const cancels = await closedLoop(port, CONNECTIONS, seconds, cancelSource, placed.length)
    log(`DELETE /order, closed loop: ${describe(cancels)}`)

    const intakeRatio = placeMax.perSecond / pool
    const bookRatio = book.perSecond / uws.perSecond
    const report = {
      seconds, connections: CONNECTIONS, cores, node: process.version,
      uws_constant_per_s: Math.round(uws.perSecond), node_http_constant_per_s: Math.round(node.perSecond),
      pool_ceiling_per_s: Math.round(pool),
      orders_per_s: Math.round(placeMax.perSecond), orders_closed_p50_ms: round(placeMax.latencyMs.p50), orders_closed_p99_ms: round(placeMax.latencyMs.p99),
      orders_open_rate_per_s: rate, orders_open_p50_ms: round(placeOpen.latencyMs.p50), orders_open_p99_ms: round(placeOpen.latencyMs.p99),
      orders_open_p999_ms: round(placeOpen.latencyMs.p999),
      cancels_per_s: Math.round(cancels.perSecond), cancels_p99_ms: round(cancels.latencyMs.p99),
      book_per_s: Math.round(book.perSecond), book_p99_ms: round(book.latencyMs.p99),
      intake_vs_pool: round(intakeRatio), book_vs_uws: round(bookRatio),
      statuses: { orders: placeMax.statuses, orders_open: placeOpen.statuses, cancels: cancels.statuses, book: book.statuses },
    }
    const markdown = [
      `# REST end to end (workload 4)`, '',
      `Command: \`npm run bench:rest${quick ? ' -- --quick' : ''}\`; ${cores} cores (${cpus()[0]?.model ?? ''}), Node ${process.version}; ` +
        `${seconds} s per figure, ${CONNECTIONS} keep-alive connections, one run (repeat it and compare ratios; the machine is shared).`,
      `Predex in its own process (durability sync, rate limits off); load generator in this process; both on the same ${cores} cores.`, '',
      '| figure | per second | p50 ms | p99 ms | p99.9 ms |', '| --- | --- | --- | --- | --- |',
      row('uWS constant JSON (ceiling)', uws), row('node:http constant JSON', node), row('POST /order, closed loop', placeMax),
      row(`POST /order, open loop at ${rate}/s`, placeOpen), row('DELETE /order, closed loop', cancels), row('GET /book, closed loop', book), '',
      `Verification pool ceiling on the same orders (${sigThreads} threads, server idle): ${Math.round(pool)}/s.`, '',
      `Targets: signed-order intake >= 80 % of the pool ceiling: ${pct(intakeRatio)} (${intakeRatio >= 0.8 ? 'met' : 'NOT met'}); ` +
        `GET /book >= 50 % of the uWS constant-JSON ceiling: ${pct(bookRatio)} (${bookRatio >= 0.5 ? 'met' : 'NOT met'}).`,
      `Statuses: ${JSON.stringify(report.statuses)}`,
    ].join('\n')
    log('\n' + markdown)
    writeResults('rest', report, markdown)
    if (flags.json) {
      const { statuses: _statuses, ...line } = report
      console.log(JSON.stringify(line))
    }
  } finally {
    await server.stop()
  }
}

await main()
