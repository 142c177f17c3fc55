/**
 * Overload (issue 14, deliverable 4): a real server process is driven at twice its measured
 * capacity for a bounded time, and must shed rather than queue: refusals are 429 or 503 with
 * Retry-After, a probe client's reads and orders stay fast, its memory stays under a ceiling, and
 * the memory comes back after the load.
 *
 * The load is batches of 10 signed orders (POST /orders) from 8 traders over 256 keep-alive
 * connections, re-sending orders signed beforehand (signing 20 000 orders would take the test
 * longer than the load): each costs the server a full signature check, the expensive part, before
 * the engine answers it as a duplicate. Capacity is measured first with the same requests in a
 * closed loop, then the open loop offers twice that (each request due on a fixed schedule).
 *
 * The probe runs on a thread of its own (bench/probe.ts), and the comments report the largest
 * event-loop lag of the server and of the load generator during the flood: the read bound failed
 * about one run in eight when the probe shared the generator's loop and the verification threads
 * ran at the main thread's priority (issue 27: server turns of 100-240 ms, the generator's up to
 * 264 ms; now the server's stay under about 70 ms).
 */
import t, { type Test } from 'tap'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { closedLoop, httpRequest, openLoop, type RequestSource } from '../../bench/http-load.js'
import { percentile } from '../../bench/stats.js'
import { setUpTraders, signOrders, startPredexServer, type BenchServer, type SignedFor, type Trader }
  from '../../bench/predex-server.js'
import { l2Headers } from '../../src/crypto/request-headers.js'
import { orderBody } from '../../src/client/orders.js'
import { rssOf } from '../../bench/process-memory.js'
import { ROOT, ensureBuilt } from '../support/compiled.js'
import type { Probe } from '../../bench/probe.js'
import { join } from 'node:path'

/** The probe's reads (GET /book) at the 99th percentile, under twice the capacity. */
const PROBE_READ_P99_MS_MAX = 250
/** The probe's own signed orders (fair queueing lets them past the flood's backlog). */
const PROBE_ORDER_P99_MS_MAX = 1_000
/** The whole server's resident set at any moment of the run. */
const RSS_MB_MAX = 1_024
/** Its own memory (RssAnon) after the load and a pause, above what it was before the load. */
const RSS_ANON_RETURN_MB_MAX = 96
/** How long after the load its memory may take to come back (checkMemoryReturns says why). */
const RSS_RETURN_WAIT_MS = 90_000
const TRADERS = 8
const BATCH = 10
const FLOOD_SECONDS = 8

ensureBuilt()
// The probe's thread runs the compiled module (bench/probe.ts says why).
const { probeOnThread } = await import(join(ROOT, 'dist/bench/probe.js')) as typeof import('../../bench/probe.js')
const nowSec = (): number => Math.floor(Date.now() / 1000)

/** POST /orders of each trader's signed orders in tens, the traders in turn, cycling. */
function batchSource(orders: readonly SignedFor[]): RequestSource {
  const byTrader = new Map<Trader, SignedFor[]>()
  for (const order of orders) byTrader.set(order.trader, [...(byTrader.get(order.trader) ?? []), order])
  const batches: { trader: Trader; body: string }[] = []
  const rounds = Math.floor(Math.min(...[...byTrader.values()].map((own) => own.length)) / BATCH)
  for (let round = 0; round < rounds; round++) {
    for (const [trader, own] of byTrader) {
      const body = `[${own.slice(round * BATCH, (round + 1) * BATCH)
        .map((o) => orderBody(o.signed, trader.credentials.apiKey, 'GTC')).join(',')}]`
      batches.push({ trader, body })
    }
  }
  return (i) => {
    const { trader, body } = batches[i % batches.length]!
    return httpRequest('POST', '/orders', body, l2Headers(trader.credentials, trader.address, 'POST', '/orders', body,
      nowSec()))
  }
}

function sampleMemory(pid: number, samples: { rss: number; anon: number }[]): NodeJS.Timeout {
  return setInterval(() => {
    const memory = rssOf(pid)
    if (memory !== null) samples.push({ rss: memory.rssBytes / 2 ** 20, anon: memory.rssAnonBytes / 2 ** 20 })
  }, 200)
}

/** The server's largest event-loop lag since the last scrape (prom-client's window resets at each). */
async function serverLagMaxMs(server: BenchServer): Promise<number> {
  const text = await (await fetch(`${server.base}/metrics`)).text()
  const match = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)
  return match === null ? Number.NaN : Number(match[1]) * 1000
}

const p99 = (values: readonly number[]): number => percentile(Float64Array.from(values).sort(), 0.99)

t.test('twice the capacity: shed with Retry-After, probe fast, memory bounded and back', async (t) => {
  // OVERLOAD_PROFILE_DIR=<dir>: the server's threads write CPU profiles there when it stops.
  const server = await startPredexServer({ profileDir: process.env.OVERLOAD_PROFILE_DIR ?? null })
  t.teardown(() => server.stop())
  const { traders, tokenId } = await setUpTraders(server, TRADERS + 1)
  const prober = traders.pop()!
  const orders = signOrders(traders, tokenId, 2_400)
  const probeOrders = signOrders([prober], tokenId, 40, 7)
  const source = batchSource(orders)
  // Once through: the orders rest, and every later send of them is a duplicate after its signature check.
  await closedLoop(server.restPort, 32, 60, source, orders.length / BATCH)
  const capacity = await closedLoop(server.restPort, 64, 3, source)
  // Only what was placed or answered counts: a shed batch is not capacity.
  const capacityOrdersPerS = ((capacity.statuses['200'] ?? 0) * BATCH) / capacity.seconds
  t.comment(`capacity: ${capacityOrdersPerS.toFixed(0)} orders/s (${JSON.stringify(capacity.statuses)})`)
  const before = rssOf(server.pid)!
  const samples: { rss: number; anon: number }[] = []
  const sampler = sampleMemory(server.pid, samples)
  await serverLagMaxMs(server) // starts the server's window of event-loop lag afresh
  const ownLag = monitorEventLoopDelay({ resolution: 10 })
  ownLag.enable()
  const [flood, probed] = await Promise.all([
    openLoop(server.restPort, 256, (2 * capacityOrdersPerS) / BATCH, FLOOD_SECONDS, source),
    probeOnThread({ base: server.base, tokenId, address: prober.address, credentials: prober.credentials,
      orderBodies: probeOrders.map((o) => orderBody(o.signed, prober.credentials.apiKey, 'GTC')), seconds: FLOOD_SECONDS }),
  ])
  ownLag.disable()
  clearInterval(sampler)
  t.comment(`event-loop lag during the flood: the server's max ${(await serverLagMaxMs(server)).toFixed(0)} ms; `
    + `the load generator's max ${(ownLag.max / 1e6).toFixed(0)} ms, p99 ${(ownLag.percentile(99) / 1e6).toFixed(0)} ms`)
  t.comment(`flood: ${JSON.stringify(flood.statuses)}, ${(flood.requests * BATCH / flood.seconds).toFixed(0)} orders/s `
    + `answered, p99 ${flood.latencyMs.p99.toFixed(0)} ms`)
  checkShedding(t, flood.statuses, capacityOrdersPerS, flood.requests, flood.seconds)
  checkProbe(t, probed)
  const peakMb = Math.max(...samples.map((s) => s.rss))
  t.ok(peakMb <= RSS_MB_MAX, `the resident set peaked at ${peakMb.toFixed(0)} MB (at most ${RSS_MB_MAX})`)
  await checkMemoryReturns(t, server.pid, before.rssAnonBytes / 2 ** 20)
})

function checkShedding(t: Test, statuses: Readonly<Record<string, number>>, capacityOrdersPerS: number,
  requests: number, seconds: number): void {
  const offeredOrdersPerS = (requests * BATCH) / FLOOD_SECONDS
  t.ok(offeredOrdersPerS >= 1.8 * capacityOrdersPerS, `the load offered ${offeredOrdersPerS.toFixed(0)} orders/s, `
    + `about twice the capacity (${capacityOrdersPerS.toFixed(0)}); all answered in ${seconds.toFixed(1)} s`)
  const shed = (statuses['503'] ?? 0) + (statuses['429'] ?? 0)
  t.ok(shed > 0, `the server shed ${shed} requests with 429 or 503`)
  const withoutRetryAfter = Object.entries(statuses).filter(([key]) => key.includes('without'))
  t.same(withoutRetryAfter, [], 'every 429 and 503 carried Retry-After')
  const unexpected = Object.keys(statuses).filter((key) => !['200', '429', '503'].includes(key))
  t.same(unexpected, [], 'nothing but answers and sheds (no 5xx but 503, no other refusal)')
}

function checkProbe(t: Test, probed: Probe): void {
  const readP99 = p99(probed.readMs)
  const orderP99 = p99(probed.orderMs)
  t.ok(readP99 <= PROBE_READ_P99_MS_MAX, `the probe's reads: p99 ${readP99.toFixed(0)} ms over ${probed.readMs.length} `
    + `(at most ${PROBE_READ_P99_MS_MAX})`)
  t.ok(orderP99 <= PROBE_ORDER_P99_MS_MAX, `the probe's orders: p99 ${orderP99.toFixed(0)} ms over `
    + `${probed.orderMs.length} (at most ${PROBE_ORDER_P99_MS_MAX})`)
  t.same(probed.refusals, [], `the probe's ${probed.orderStatuses.length} orders were all placed, none shed`)
}

/**
 * Its own memory back near where it was before the load, within RSS_RETURN_WAIT_MS. With the
 * native backend (capacity about 12 000 orders/s) the heap grows more under the flood, and V8's
 * memory reducer gives it back about a minute after the load, not within the 15 s once allowed:
 * sampled every 5 s after the flood, 388 388 388 388 378 ... 378 245 MB (271 before), so +103 to
 * +111 MB at 15 s in two of five runs, and below the level before the load at 60 s.
 */
async function checkMemoryReturns(t: Test, pid: number, beforeMb: number): Promise<void> {
  let afterMb = Infinity
  for (let waited = 0; waited < RSS_RETURN_WAIT_MS && afterMb > beforeMb + RSS_ANON_RETURN_MB_MAX; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    afterMb = rssOf(pid)!.rssAnonBytes / 2 ** 20
  }
  t.ok(afterMb <= beforeMb + RSS_ANON_RETURN_MB_MAX, `its own memory came back to ${afterMb.toFixed(0)} MB `
    + `(${beforeMb.toFixed(0)} MB before the load; at most ${RSS_ANON_RETURN_MB_MAX} MB more)`)
}
