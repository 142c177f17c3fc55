/**
 * Contract of the native health and markets endpoints over loopback (api.md, "Endpoints
 * (native)"): /health, /ready, /metrics (Prometheus text), GET /markets (pagination),
 * /markets/:id by UUID, condition id and slug, /markets/upcoming?limit=, /markets/resolving.
 * Shapes are asserted field by field, with types and values.
 */
import t, { type Test } from 'tap'
import { USDC, get, l2, placeLimit, send, startServer } from '../rest-harness.js'
import type { MarketRecord } from '../../src/engine/event.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const CONDITION_ID = /^0x[0-9a-f]{64}$/
const DECIMAL = /^\d+(\.\d+)?$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const MARKET_KEYS = ['id', 'condition_id', 'question', 'slug', 'description', 'status', 'yes_token_id', 'no_token_id', 'tokens',
  'tick_size', 'min_order_size', 'fee_rate_bps', 'neg_risk', 'end_date', 'created_at', 'resolution', 'best_bid', 'best_ask',
  'last_trade_price', 'volume']

const server = await startServer()
t.teardown(() => server.stop())

/** Checks a native market record against the engine's record, field by field. */
function checkMarket(t: Test, body: any, market: MarketRecord, label: string): void {
  for (const key of MARKET_KEYS) t.ok(key in body, `${label}: has ${key}`)
  t.match(body.id, UUID, `${label}: id is a UUID`)
  t.equal(body.id, market.marketId)
  t.match(body.condition_id, CONDITION_ID)
  t.equal(body.condition_id, market.conditionId)
  t.equal(body.question, market.question)
  t.equal(body.slug, market.slug)
  t.equal(body.description, market.description)
  t.equal(body.yes_token_id, market.yesTokenId)
  t.equal(body.no_token_id, market.noTokenId)
  t.match(body.yes_token_id, /^\d+$/, 'token ids are decimal strings')
  t.match(body.no_token_id, /^\d+$/)
  t.equal(body.tokens.length, 2)
  t.same(body.tokens.map((k: any) => [k.token_id, k.outcome]), [[market.yesTokenId, 'Yes'], [market.noTokenId, 'No']])
  t.equal(typeof body.fee_rate_bps, 'number')
  t.ok(Number.isInteger(body.fee_rate_bps))
  t.equal(body.fee_rate_bps, market.feeRateBps)
  t.equal(typeof body.neg_risk, 'boolean')
  t.equal(body.neg_risk, market.negRisk)
  t.match(body.created_at, ISO)
  t.equal(Date.parse(body.created_at), market.createdMs)
  t.match(body.volume, DECIMAL)
}

// Markets: three Active, two Upcoming, one Resolving, one Resolved.
const active = await server.createMarket({ endDateMs: Date.UTC(2030, 0, 31, 12), feeRateBps: 25 })
const active2 = await server.createMarket({ tickSizeMicros: 1_000, minOrderSizeMicros: 10 * USDC, negRisk: true })
const active3 = await server.createMarket()
const upcoming1 = await server.createMarket({ status: 'Upcoming' })
const upcoming2 = await server.createMarket({ status: 'Upcoming' })
const resolving = await server.createMarket()
await server.command({ kind: 'setMarketStatus', marketId: resolving.marketId, status: 'Resolving' })
const resolved = await server.createMarket()
const beforeResolution = Date.now()
await server.command({ kind: 'resolveMarket', marketId: resolved.marketId, outcome: 'No' })
const afterResolution = Date.now()
const all = [active, active2, active3, upcoming1, upcoming2, resolving, resolved]

t.test('GET /health: liveness with engine sequence, journal lag, uptime and version', async (t) => {
  const health = await get(server, '/health')
  t.equal(health.status, 200)
  t.equal(health.body.status, 'ok')
  t.equal(typeof health.body.version, 'string')
  t.match(health.body.version, /^\d+\.\d+\.\d+/)
  t.ok(Number.isSafeInteger(health.body.seq) && health.body.seq >= all.length + 2, 'seq counts the commands so far')
  t.equal(health.body.seq, server.predex.context.read.seq)
  t.ok(Number.isSafeInteger(health.body.uptimeSec) && health.body.uptimeSec >= 0, 'uptime in whole seconds')
  t.ok(Number.isSafeInteger(health.body.journalLag) && health.body.journalLag >= 0, 'journal lag: commands not yet durable')
  t.ok(Number.isSafeInteger(health.body.pendingRequests))
  t.ok(Number.isSafeInteger(health.body.ringBytesUsed))
})

t.test('GET /ready: 200 with the sequence once the engine accepts commands', async (t) => {
  const ready = await get(server, '/ready')
  t.equal(ready.status, 200)
  t.same(ready.body, { ready: true, seq: server.predex.context.read.seq })
})

t.test('GET /metrics: Prometheus text format with the series api.md lists', async (t) => {
  await get(server, '/markets')
  await get(server, '/markets/nope')
  const trader = await server.trader()
  t.equal((await l2(server, trader, 'DELETE', '/cancel-all')).status, 200, 'a command through the API')
  const metrics = await send(server, 'GET', '/metrics', '', {})
  t.equal(metrics.status, 200)
  t.match(metrics.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const text = metrics.body as string
  t.equal(typeof text, 'string')
  t.ok(text.endsWith('\n'), 'ends with a newline')
  const types = new Map<string, string>()
  const samples: { name: string; labels: Record<string, string>; value: number }[] = []
  for (const line of text.split('\n').slice(0, -1)) {
    if (line.startsWith('# HELP ')) {
      t.match(line, /^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* \S/, 'HELP line')
      continue
    }
    if (line.startsWith('# TYPE ')) {
      const match = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line)
      t.ok(match, `TYPE line: ${line}`)
      if (match) types.set(match[1]!, match[2]!)
      continue
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? (-?[0-9.e+]+|\+Inf|NaN)$/.exec(line)
    t.ok(match, `sample line: ${line}`)
    if (!match) continue
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]))
    samples.push({ name: match[1]!, labels, value: Number(match[3]) })
  }
  const family = (name: string): string | undefined => types.get(name) ?? types.get(name.replace(/_(bucket|sum|count)$/, ''))
  for (const sample of samples) t.ok(family(sample.name) !== undefined, `${sample.name} has a TYPE`)

  // Request rates by route and status.
  t.equal(types.get('predex_http_requests_total'), 'counter')
  const markets = samples.find((s) => s.name === 'predex_http_requests_total' && s.labels.route === 'GET /markets' && s.labels.status === '200')
  t.ok(markets !== undefined && markets.value >= 1, 'GET /markets counted')
  const notFound = samples.find((s) => s.name === 'predex_http_requests_total' && s.labels.status === '404')
  t.ok(notFound !== undefined && notFound.value >= 1, 'the 404 counted')
  // Latencies: a histogram whose buckets grow and end at the count.
  t.equal(types.get('predex_http_request_duration_ms'), 'histogram')
  const buckets = samples.filter((s) => s.name === 'predex_http_request_duration_ms_bucket' && s.labels.route === 'GET /markets')
  t.ok(buckets.length >= 2)
  for (let i = 1; i < buckets.length; i++) t.ok(buckets[i]!.value >= buckets[i - 1]!.value, 'cumulative buckets')
  t.equal(buckets.at(-1)!.labels.le, '+Inf')
  const count = samples.find((s) => s.name === 'predex_http_request_duration_ms_count' && s.labels.route === 'GET /markets')
  t.equal(buckets.at(-1)!.value, count?.value)
  // Engine queue depth, commands, journal commit latency, signature pool queue.
  const seq = samples.find((s) => s.name === 'predex_engine_seq')
  t.ok(seq !== undefined && seq.value >= all.length + 2, 'engine sequence')
  t.equal(types.get('predex_engine_commands_total'), 'counter', 'commands as a counter (commands/s = rate)')
  t.ok(samples.some((s) => s.name === 'predex_engine_pending_requests'), 'engine queue depth')
  t.equal(types.get('predex_journal_commit_latency_ms'), 'histogram', 'journal commit latency')
  const commits = samples.find((s) => s.name === 'predex_journal_commit_latency_ms_count')
  t.ok(commits !== undefined && commits.value >= 1, 'the cancel-all was observed')
  const commands = samples.find((s) => s.name === 'predex_engine_commands_total')
  t.equal(commands?.value, server.predex.context.read.seq, 'commands applied: the engine sequence')
  t.ok(samples.some((s) => s.name === 'predex_signature_queue'), 'signature pool queue')
})

t.test('GET /markets: every market, with the full record, paginated with cursors', async (t) => {
  const first = await get(server, '/markets')
  t.equal(first.status, 200)
  t.same(Object.keys(first.body).sort(), ['count', 'data', 'limit', 'next_cursor'])
  t.equal(first.body.limit, 100, 'default page size')
  t.equal(first.body.count, all.length)
  t.equal(first.body.next_cursor, 'LTE=', 'one page: the end')
  t.same(first.body.data.map((m: any) => m.id), all.map((m) => m.marketId), 'in creation order')
  for (const [i, market] of all.entries()) checkMarket(t, first.body.data[i], server.predex.context.read.markets.get(market.marketId)!, `market ${i}`)

  // Pages of 3 from MA== to LTE=.
  const seen: string[] = []
  let cursor = 'MA=='
  const cursors: string[] = []
  for (let pages = 0; cursor !== 'LTE=' && pages < 10; pages++) {
    const response = await get(server, `/markets?limit=3&next_cursor=${encodeURIComponent(cursor)}`)
    t.equal(response.status, 200)
    t.equal(response.body.limit, 3)
    t.equal(response.body.count, response.body.data.length)
    t.ok(response.body.data.length <= 3)
    seen.push(...response.body.data.map((m: any) => m.id))
    cursor = response.body.next_cursor
    cursors.push(cursor)
  }
  t.same(cursors, [Buffer.from('3').toString('base64'), Buffer.from('6').toString('base64'), 'LTE='])
  t.same(seen, all.map((m) => m.marketId), 'the pages together are the list, once each')
  const exact = await get(server, `/markets?limit=7`)
  t.equal(exact.body.next_cursor, 'LTE=', 'a page that ends exactly at the last market is the end')
  const max = await get(server, '/markets?limit=5000')
  t.equal(max.body.limit, 500, 'page size capped at 500')
  for (const bad of ['limit=0', 'limit=-1', 'limit=abc', 'next_cursor=%21%21', 'next_cursor=' + encodeURIComponent(Buffer.from('x').toString('base64'))]) {
    const response = await get(server, `/markets?${bad}`)
    t.equal(response.status, 400, bad)
    t.equal(response.body.code, 'INVALID_PARAMETER', bad)
    t.equal(typeof response.body.error, 'string')
  }
})

t.test('GET /markets/:id by UUID, condition id and slug: the same record', async (t) => {
  const byId = await get(server, `/markets/${active.marketId}`)
  t.equal(byId.status, 200)
  checkMarket(t, byId.body, active, 'by id')
  t.equal(byId.body.status, 'Active')
  t.equal(byId.body.tick_size, '0.01')
  t.equal(byId.body.min_order_size, '5')
  t.equal(byId.body.fee_rate_bps, 25)
  t.equal(byId.body.neg_risk, false)
  t.equal(byId.body.end_date, '2030-01-31T12:00:00.000Z')
  t.equal(byId.body.resolution, null)
  t.equal(byId.body.best_bid, null)
  t.equal(byId.body.best_ask, null)
  t.equal(byId.body.last_trade_price, null)
  t.equal(byId.body.volume, '0')
  t.same(byId.body.tokens, [{ token_id: active.yesTokenId, outcome: 'Yes', price: null }, { token_id: active.noTokenId, outcome: 'No', price: null }])
  const byCondition = await get(server, `/markets/${active.conditionId}`)
  t.equal(byCondition.status, 200)
  t.same(byCondition.body, byId.body)
  const bySlug = await get(server, `/markets/${active.slug}`)
  t.equal(bySlug.status, 200)
  t.same(bySlug.body, byId.body)

  const other = await get(server, `/markets/${active2.slug}`)
  checkMarket(t, other.body, active2, 'active2')
  t.equal(other.body.tick_size, '0.001')
  t.equal(other.body.min_order_size, '10')
  t.equal(other.body.neg_risk, true)
  t.equal(other.body.end_date, null, 'no end date: null')

  for (const unknown of ['00000000-0000-4000-8000-000000000000', '0x' + '0'.repeat(64), 'no-such-slug']) {
    const response = await get(server, `/markets/${unknown}`)
    t.equal(response.status, 404, unknown)
    t.equal(response.body.code, 'MARKET_NOT_FOUND')
    t.equal(typeof response.body.error, 'string')
  }
})

t.test('a market record reflects its book and its trades', async (t) => {
  const market = await server.createMarket()
  const maker = await server.trader(100 * USDC)
  const taker = await server.trader(100 * USDC)
  await server.command({ kind: 'split', address: maker.address, marketId: market.marketId, amountMicros: 50 * USDC })
  t.equal((await placeLimit(server, maker, market, { side: 'BUY', price: '0.40', size: '10' })).status, 200)
  t.equal((await placeLimit(server, maker, market, { side: 'SELL', price: '0.62', size: '10' })).status, 200)
  // A bid for No at 0.35 is an ask for Yes at 0.65; an ask for No at 0.45 is a bid for Yes at 0.55.
  t.equal((await placeLimit(server, maker, market, { outcome: 'No', side: 'SELL', price: '0.45', size: '10' })).status, 200)
  const quoted = (await get(server, `/markets/${market.marketId}`)).body
  t.equal(quoted.best_bid, '0.55', 'best bid of Yes, implied liquidity included (what /price?side=buy says)')
  t.equal(quoted.best_ask, '0.62')
  t.equal((await get(server, `/price?token_id=${market.yesTokenId}&side=buy`)).body.price, quoted.best_bid)
  t.equal((await get(server, `/price?token_id=${market.yesTokenId}&side=sell`)).body.price, quoted.best_ask)

  // The taker buys 5 Yes at 0.62: a trade at 0.62.
  const trade = await placeLimit(server, taker, market, { side: 'BUY', price: '0.62', size: '5' })
  t.equal(trade.body.status, 'matched')
  const traded = (await get(server, `/markets/${market.marketId}`)).body
  t.equal(traded.last_trade_price, '0.62')
  t.same(traded.tokens, [{ token_id: market.yesTokenId, outcome: 'Yes', price: '0.62' }, { token_id: market.noTokenId, outcome: 'No', price: null }])
  t.equal(traded.volume, '3.1', '5 shares at 0.62')
})

t.test('GET /markets/upcoming?limit=: Upcoming markets only, at most limit', async (t) => {
  const upcoming = await get(server, '/markets/upcoming')
  t.equal(upcoming.status, 200)
  t.ok(Array.isArray(upcoming.body))
  t.same(upcoming.body.map((m: any) => m.id), [upcoming1.marketId, upcoming2.marketId])
  for (const market of upcoming.body) t.equal(market.status, 'Upcoming')
  checkMarket(t, upcoming.body[0], upcoming1, 'upcoming')
  const one = await get(server, '/markets/upcoming?limit=1')
  t.same(one.body.map((m: any) => m.id), [upcoming1.marketId])
  const bad = await get(server, '/markets/upcoming?limit=0')
  t.equal(bad.status, 400)
  t.equal(bad.body.code, 'INVALID_PARAMETER')
})

t.test('GET /markets/resolving: markets being resolved only; a resolved market carries its resolution', async (t) => {
  const list = await get(server, '/markets/resolving')
  t.equal(list.status, 200)
  t.ok(Array.isArray(list.body))
  t.same(list.body.map((m: any) => m.id), [resolving.marketId])
  t.equal(list.body[0].status, 'Resolving')
  t.equal(list.body[0].resolution, null)
  checkMarket(t, list.body[0], resolving, 'resolving')

  const done = await get(server, `/markets/${resolved.marketId}`)
  t.equal(done.body.status, 'Resolved')
  t.same(Object.keys(done.body.resolution).sort(), ['outcome', 'resolved_at'])
  t.equal(done.body.resolution.outcome, 'No')
  t.match(done.body.resolution.resolved_at, ISO)
  const at = Date.parse(done.body.resolution.resolved_at)
  t.ok(at >= beforeResolution - 1000 && at <= afterResolution + 1000, `resolved_at is the time of resolution (${done.body.resolution.resolved_at})`)
})

// Last: it stops the engine under the running server.
t.test('GET /ready: 503 NOT_READY once the engine takes no commands; /health still answers', async (t) => {
  await server.predex.context.host.stop()
  const ready = await get(server, '/ready')
  t.equal(ready.status, 503)
  t.equal(ready.body.code, 'NOT_READY')
  t.match(ready.body.error, /stopping|stopped/)
  t.equal((await get(server, '/health')).status, 200, 'liveness is not readiness')
})
