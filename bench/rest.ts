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
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { PredexClient } from '../src/client/predex-client.js'
import { l2Headers, type ApiCredentials } from '../src/client/headers.js'
import { orderBody, signLimitOrder, type MarketTerms, type SignedOrder } from '../src/client/orders.js'
import { Wallet } from '../src/client/wallet.js'
import { VerifierPool } from '../src/crypto/verifier-pool.js'
import { closedLoop, openLoop, type LoadResult } from './http-load.js'
import { BenchFlags } from './flags.js'

const CHAIN_ID = 80002
const TRADERS = 8
const CONNECTIONS = 32
const WARM_UP_ORDERS = 400
const log = (line: string): void => void process.stderr.write(line + '\n')
const nowSec = (): number => Math.floor(Date.now() / 1000)
const DIST = new URL('../', import.meta.url).pathname

interface Trader {
  readonly wallet: Wallet
  readonly address: string
  readonly credentials: ApiCredentials
}

interface Child {
  readonly process: ChildProcess
  readonly port: number
}

/** Starts `node <script> <args>` and waits for its port in its output. */
function startChild(script: string, args: readonly string[], portPattern: RegExp): Promise<Child> {
  return new Promise((resolve, reject) => {
    // PREDEX_BENCH_NODE_OPTIONS: extra node flags for the children (e.g. --cpu-prof to profile the server).
    const nodeOptions = (process.env.PREDEX_BENCH_NODE_OPTIONS ?? '').split(' ').filter((flag) => flag !== '')
    const child = spawn(process.execPath, [...nodeOptions, join(DIST, script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 60_000)
    const onData = (chunk: Buffer): void => {
      output += chunk.toString()
      const match = portPattern.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve({ process: child, port: Number(match[1]) })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)))
  })
}

async function stopChild(child: Child): Promise<void> {
  const exited = new Promise((resolve) => child.process.once('exit', resolve))
  child.process.kill('SIGTERM')
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 20_000)
  await exited
  clearTimeout(timer)
}

function get(path: string): (i: number) => Buffer {
  const bytes = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: bench\r\n\r\n`)
  return () => bytes
}

function request(method: string, path: string, body: string, headers: Record<string, string>): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: bench', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)]
  return Buffer.from(lines.join('\r\n') + '\r\n\r\n' + body)
}

function describe(result: LoadResult): string {
  const statuses = Object.entries(result.statuses).map(([status, count]) => `${status}: ${count}`).join(', ')
  return `${Math.round(result.perSecond)}/s (${result.requests} in ${result.seconds.toFixed(1)} s; latency p50 ${result.latencyMs.p50.toFixed(2)} ms, ` +
    `p99 ${result.latencyMs.p99.toFixed(2)} ms, p99.9 ${result.latencyMs.p999.toFixed(2)} ms; ${statuses})`
}

async function ceiling(kind: 'uws' | 'http', seconds: number): Promise<LoadResult> {
  const child = await startChild('bench/rest-baselines.js', [kind], /port (\d+)/)
  try {
    await closedLoop(child.port, CONNECTIONS, 0.5, get('/warm-up'))
    return await closedLoop(child.port, CONNECTIONS, seconds, get('/book'))
  } finally {
    await stopChild(child)
  }
}

/** Orders of each trader, BUY Yes on prices 0.01..0.49 (they rest: nobody sells), size 5. */
function signOrders(traders: readonly Trader[], tokenId: string, count: number): { trader: Trader; signed: SignedOrder }[] {
  const terms: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: CHAIN_ID }
  return Array.from({ length: count }, (_, i) => {
    const trader = traders[i % traders.length]!
    const price = ((i % 49) + 1) / 100
    return { trader, signed: signLimitOrder(trader.wallet, terms, { tokenId, side: 'BUY', price: price.toFixed(2), size: 5 }) }
  })
}

async function poolCeiling(orders: readonly { signed: SignedOrder }[], threads: number): Promise<number> {
  const pool = new VerifierPool({ chainId: CHAIN_ID, threads })
  const tasks = orders.map(({ signed }) => ({ order: signed.order, negRisk: false, signature: signed.signature }))
  await Promise.all(tasks.slice(0, 400).map((task) => pool.verify(task)))
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

async function setUp(base: string, adminKey: string): Promise<{ traders: Trader[]; tokenId: string }> {
  const admin = new PredexClient({ baseUrl: base, adminKey })
  const market = await admin.createMarket({ question: 'Will the benchmark finish?', tick_size: '0.01', min_order_size: '5' })
  const traders = await Promise.all(Array.from({ length: TRADERS }, async () => {
    const wallet = Wallet.random()
    const client = new PredexClient({ baseUrl: base, wallet })
    await client.faucet('1000000')
    await client.approve(Number.MAX_SAFE_INTEGER)
    const credentials = await client.createApiKey()
    return { wallet, address: wallet.address.toLowerCase(), credentials }
  }))
  return { traders, tokenId: market.yes_token_id }
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

  const dataDir = mkdtempSync(join(tmpdir(), 'predex-bench-rest-'))
  const adminKey = 'bench-admin-key-' + 'x'.repeat(16)
  const server = await startChild('src/main.js', ['--data-dir', dataDir, '--port', '0', '--grpc-port', '0', '--no-demo', '--rate-limits', 'false',
    '--faucet-amount', '1000000', '--faucet-cooldown', '0', '--admin-key', adminKey], /REST listening on http:\/\/127\.0\.0\.1:(\d+)/)
  try {
    const base = `http://127.0.0.1:${server.port}`
    const { traders, tokenId } = await setUp(base, adminKey)
    // Enough distinct orders for the closed loop at several times the pool ceiling we expect here.
    const orderCount = quick ? 6_000 : 20_000
    log(`signing ${orderCount} orders of ${TRADERS} traders...`)
    const orders = signOrders(traders, tokenId, orderCount)
    const sigThreads = cores
    const pool = await poolCeiling(orders.slice(0, Math.min(orders.length, 4_000)), sigThreads)
    log(`verification pool ceiling (${sigThreads} threads, hot signers, measured with the server idle): ${Math.round(pool)}/s`)

    let nextOrder = 0
    const placedIds: { trader: Trader; orderId: string }[] = []
    const placeSource = (): Buffer => {
      const { trader, signed } = orders[nextOrder++ % orders.length]!
      placedIds.push({ trader, orderId: signed.orderId })
      const body = orderBody(signed, trader.credentials.apiKey, 'GTC')
      return request('POST', '/order', body, l2Headers(trader.credentials, trader.address, 'POST', '/order', body, nowSec()))
    }
    // Warm-up, not measured: each pool thread builds its generator table (about a second) and a
    // table per hot signer (about 100 ms each) on first use; a market maker's steady state is after.
    const warmUp = await closedLoop(server.port, CONNECTIONS, 60, placeSource, WARM_UP_ORDERS)
    log(`warm-up: ${warmUp.requests} orders in ${warmUp.seconds.toFixed(1)} s`)
    const placeMax = await closedLoop(server.port, CONNECTIONS, seconds, placeSource, Math.floor(orderCount / 2))
    log(`POST /order, closed loop: ${describe(placeMax)}`)
    const rate = Math.max(1, Math.floor(placeMax.perSecond / 2))
    const placeOpen = await openLoop(server.port, CONNECTIONS * 2, rate, Math.min(seconds, (orderCount - nextOrder) / rate), placeSource)
    log(`POST /order, open loop at ${rate}/s (half the maximum): ${describe(placeOpen)}`)

    const book = await closedLoop(server.port, CONNECTIONS, seconds, get(`/book?token_id=${tokenId}`))
    log(`GET /book (49 levels), closed loop: ${describe(book)}`)

    let nextCancel = 0
    const cancelSource = (): Buffer => {
      const { trader, orderId } = placedIds[nextCancel++]!
      const body = JSON.stringify({ orderID: orderId })
      return request('DELETE', '/order', body, l2Headers(trader.credentials, trader.address, 'DELETE', '/order', body, nowSec()))
    }
    const cancels = await closedLoop(server.port, CONNECTIONS, seconds, cancelSource, placedIds.length)
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
    const results = new URL('../../bench/results/', import.meta.url)
    mkdirSync(results, { recursive: true })
    writeFileSync(new URL('rest.json', results), JSON.stringify(report, null, 2) + '\n')
    writeFileSync(new URL('rest.md', results), markdown + '\n')
    if (flags.json) {
      const { statuses: _statuses, ...line } = report
      console.log(JSON.stringify(line))
    }
  } finally {
    await stopChild(server)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}

function pct(ratio: number): string {
  return `${Math.round(ratio * 100)} %`
}

function row(label: string, result: LoadResult): string {
  return `| ${label} | ${Math.round(result.perSecond)} | ${result.latencyMs.p50.toFixed(2)} | ${result.latencyMs.p99.toFixed(2)} | ${result.latencyMs.p999.toFixed(2)} |`
}

await main()
