/**
 * Contract of health and the market listing, face-neutral (api.md, "Endpoints (native)"):
 * liveness, readiness, every market (pagination), a market by UUID, condition id and slug, the
 * upcoming ones (at most `limit`), the ones being resolved. Shapes are asserted field by field,
 * with types and values.
 *
 * Each case builds its own markets (`Exchange.build`). The listings are the whole exchange's, so a
 * case reads them before building and expects what it built after what was there: the same exact
 * lists, counts and cursors on a fresh Predex or after other cases.
 */
import type { Test } from 'tap'
import type { MarketRecord } from '../../../src/engine/event.js'
import { placeOn, USDC } from '../../support/driver.js'
import type { ContractCase, Driver, Query } from '../../support/driver.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const CONDITION_ID = /^0x[0-9a-f]{64}$/
const DECIMAL = /^\d+(\.\d+)?$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
/** The end of a listing: the reference's cursor after the last page. */
const END = 'LTE='
const DEFAULT_PAGE = 100

const MARKET_KEYS = ['id', 'condition_id', 'question', 'slug', 'description', 'status', 'yes_token_id', 'no_token_id', 'tokens',
  'tick_size', 'min_order_size', 'fee_rate_bps', 'neg_risk', 'end_date', 'created_at', 'resolution', 'best_bid', 'best_ask',
  'last_trade_price', 'volume']

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

const ids = (list: readonly any[]): string[] => list.map((m) => m.id)

/** A listing cursor: the base64 of the offset, as the reference's. */
const cursorAt = (offset: number): string => Buffer.from(String(offset)).toString('base64')

/** Market ids as the listings hold them. */
interface Listings {
  readonly markets: readonly string[]
  readonly upcoming: readonly string[]
  readonly resolving: readonly string[]
}

/** Seven markets, three Active, two Upcoming, one Resolving, one Resolved, and the listings as they were before them. */
class Exchange {
  private constructor(
    readonly d: Driver,
    readonly all: readonly MarketRecord[],
    /** Ids of the markets, the upcoming and the resolving ones before this exchange's. */
    readonly before: Listings,
    readonly resolvedWithinMs: readonly [number, number],
  ) {}

  get active(): MarketRecord { return this.all[0]! }
  get active2(): MarketRecord { return this.all[1]! }
  get upcoming1(): MarketRecord { return this.all[3]! }
  get upcoming2(): MarketRecord { return this.all[4]! }
  get resolving(): MarketRecord { return this.all[5]! }
  get resolved(): MarketRecord { return this.all[6]! }

  /** Every market id the listing holds now: what was there, then this exchange's. */
  get listed(): string[] {
    return [...this.before.markets, ...this.all.map((m) => m.marketId)]
  }

  static async build(d: Driver): Promise<Exchange> {
    const listing = await d.markets({ limit: 500 })
    if (listing.body.next_cursor !== END) throw new Error('more than one page of markets before the case: use a fresh Predex')
    const before: Listings = { markets: ids(listing.body.data), upcoming: ids((await d.upcomingMarkets()).body),
      resolving: ids((await d.resolvingMarkets()).body) }
    if (before.markets.length + 7 > DEFAULT_PAGE) throw new Error('the default page must hold every market: use a fresh Predex')
    const active = await d.createMarket({ endDateMs: Date.UTC(2030, 0, 31, 12), feeRateBps: 25 })
    const active2 = await d.createMarket({ tickSizeMicros: 1_000, minOrderSizeMicros: 10 * USDC, negRisk: true })
    const active3 = await d.createMarket()
    const upcoming1 = await d.createMarket({ status: 'Upcoming' })
    const upcoming2 = await d.createMarket({ status: 'Upcoming' })
    const resolving = await d.createMarket()
    await d.command({ kind: 'setMarketStatus', marketId: resolving.marketId, status: 'Resolving' })
    const resolved = await d.createMarket()
    const beforeResolution = Date.now()
    await d.command({ kind: 'resolveMarket', marketId: resolved.marketId, outcome: 'No' })
    const afterResolution = Date.now()
    const all = [active, active2, active3, upcoming1, upcoming2, resolving, resolved]
    return new Exchange(d, all, before, [beforeResolution, afterResolution])
  }
}


export const healthMarketsCases: readonly ContractCase[] = [
  {
    name: 'GET /health: liveness with engine sequence, journal lag, uptime and version',
    async run(t, d) {
      const { all } = await Exchange.build(d)
      const health = await d.health()
      t.equal(health.status, 200)
      t.equal(health.body.status, 'ok')
      t.equal(typeof health.body.version, 'string')
      t.match(health.body.version, /^\d+\.\d+\.\d+/)
      t.ok(Number.isSafeInteger(health.body.seq) && health.body.seq >= all.length + 2, 'seq counts the commands so far')
      t.equal(health.body.seq, (await d.engineState()).seq)
      t.ok(Number.isSafeInteger(health.body.uptimeSec) && health.body.uptimeSec >= 0, 'uptime in whole seconds')
      t.ok(Number.isSafeInteger(health.body.journalLag) && health.body.journalLag >= 0, 'journal lag: commands not yet durable')
      t.ok(Number.isSafeInteger(health.body.pendingRequests))
      t.ok(Number.isSafeInteger(health.body.ringBytesUsed))
    },
  },
  {
    name: 'GET /ready: 200 with the sequence once the engine accepts commands',
    async run(t, d) {
      const ready = await d.ready()
      t.equal(ready.status, 200)
      t.same(ready.body, { ready: true, seq: (await d.engineState()).seq })
    },
  },
  {
    name: 'GET /markets: every market, with the full record, paginated with cursors',
    async run(t, d) {
      const exchange = await Exchange.build(d)
      const listed = exchange.listed
      const first = await d.markets()
      t.equal(first.status, 200)
      t.same(Object.keys(first.body).sort(), ['count', 'data', 'limit', 'next_cursor'])
      t.equal(first.body.limit, DEFAULT_PAGE, 'default page size')
      t.equal(first.body.count, listed.length)
      t.equal(first.body.next_cursor, END, 'one page: the end')
      t.same(ids(first.body.data), listed, 'in creation order')
      const offset = exchange.before.markets.length
      for (const [i, market] of exchange.all.entries()) {
        checkMarket(t, first.body.data[offset + i], (await d.marketRecord(market.marketId))!, `market ${i}`)
      }

      // Pages of 3 from MA== (offset 0) to the end.
      const seen: string[] = []
      let cursor = 'MA=='
      const cursors: string[] = []
      for (let pages = 0; cursor !== END && pages < listed.length / 3 + 3; pages++) {
        const response = await d.markets({ limit: 3, next_cursor: cursor })
        t.equal(response.status, 200)
        t.equal(response.body.limit, 3)
        t.equal(response.body.count, response.body.data.length)
        t.ok(response.body.data.length <= 3)
        seen.push(...ids(response.body.data))
        cursor = response.body.next_cursor
        cursors.push(cursor)
      }
      const expected = Array.from({ length: Math.ceil(listed.length / 3) - 1 }, (_, page) => cursorAt(3 * (page + 1)))
      t.same(cursors, [...expected, END])
      t.same(seen, listed, 'the pages together are the list, once each')
      const exact = await d.markets({ limit: listed.length })
      t.equal(exact.body.next_cursor, END, 'a page that ends exactly at the last market is the end')
      const max = await d.markets({ limit: 5000 })
      t.equal(max.body.limit, 500, 'page size capped at 500')
      const bads: Query[] = [{ limit: 0 }, { limit: -1 }, { limit: 'abc' }, { next_cursor: '!!' },
        { next_cursor: Buffer.from('x').toString('base64') }]
      for (const bad of bads) {
        const response = await d.markets(bad)
        t.equal(response.status, 400, JSON.stringify(bad))
        t.equal(response.body.code, 'INVALID_PARAMETER', JSON.stringify(bad))
        t.equal(typeof response.body.error, 'string')
      }
    },
  },
  {
    name: 'GET /markets/:id by UUID, condition id and slug: the same record',
    async run(t, d) {
      const { active, active2 } = await Exchange.build(d)
      const byId = await d.market(active.marketId)
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
      t.same(byId.body.tokens, [{ token_id: active.yesTokenId, outcome: 'Yes', price: null },
        { token_id: active.noTokenId, outcome: 'No', price: null }])
      const byCondition = await d.market(active.conditionId)
      t.equal(byCondition.status, 200)
      t.same(byCondition.body, byId.body)
      const bySlug = await d.market(active.slug)
      t.equal(bySlug.status, 200)
      t.same(bySlug.body, byId.body)

      const other = await d.market(active2.slug)
      checkMarket(t, other.body, active2, 'active2')
      t.equal(other.body.tick_size, '0.001')
      t.equal(other.body.min_order_size, '10')
      t.equal(other.body.neg_risk, true)
      t.equal(other.body.end_date, null, 'no end date: null')

      for (const unknown of ['00000000-0000-4000-8000-000000000000', '0x' + '0'.repeat(64), 'no-such-slug']) {
        const response = await d.market(unknown)
        t.equal(response.status, 404, unknown)
        t.equal(response.body.code, 'MARKET_NOT_FOUND')
        t.equal(typeof response.body.error, 'string')
      }
    },
  },
  {
    name: 'a market record reflects its book and its trades',
    async run(t, d) {
      const market = await d.createMarket()
      const maker = await d.trader(100 * USDC)
      const taker = await d.trader(100 * USDC)
      await d.command({ kind: 'split', address: maker.address, marketId: market.marketId, amountMicros: 50 * USDC })
      t.equal((await placeOn(d, maker, market, { side: 'BUY', price: '0.40', size: '10' })).status, 200)
      t.equal((await placeOn(d, maker, market, { side: 'SELL', price: '0.62', size: '10' })).status, 200)
      // A bid for No at 0.35 is an ask for Yes at 0.65; an ask for No at 0.45 is a bid for Yes at 0.55.
      t.equal((await placeOn(d, maker, market, { outcome: 'No', side: 'SELL', price: '0.45', size: '10' })).status, 200)
      const quoted = (await d.market(market.marketId)).body
      t.equal(quoted.best_bid, '0.55', 'best bid of Yes, implied liquidity included (what /price?side=buy says)')
      t.equal(quoted.best_ask, '0.62')
      t.equal((await d.tokenRead('price', { token_id: market.yesTokenId, side: 'buy' })).body.price, quoted.best_bid)
      t.equal((await d.tokenRead('price', { token_id: market.yesTokenId, side: 'sell' })).body.price, quoted.best_ask)

      // The taker buys 5 Yes at 0.62: a trade at 0.62.
      const trade = await placeOn(d, taker, market, { side: 'BUY', price: '0.62', size: '5' })
      t.equal(trade.body.status, 'matched')
      const traded = (await d.market(market.marketId)).body
      t.equal(traded.last_trade_price, '0.62')
      t.same(traded.tokens, [{ token_id: market.yesTokenId, outcome: 'Yes', price: '0.62' },
        { token_id: market.noTokenId, outcome: 'No', price: null }])
      t.equal(traded.volume, '3.1', '5 shares at 0.62')
    },
  },
  {
    name: 'GET /markets/upcoming?limit=: Upcoming markets only, at most limit',
    async run(t, d) {
      const { before, upcoming1, upcoming2 } = await Exchange.build(d)
      const listed = [...before.upcoming, upcoming1.marketId, upcoming2.marketId]
      const upcoming = await d.upcomingMarkets()
      t.equal(upcoming.status, 200)
      t.ok(Array.isArray(upcoming.body))
      t.same(ids(upcoming.body), listed)
      for (const market of upcoming.body) t.equal(market.status, 'Upcoming')
      checkMarket(t, upcoming.body[before.upcoming.length], upcoming1, 'upcoming')
      const one = await d.upcomingMarkets({ limit: 1 })
      t.same(ids(one.body), listed.slice(0, 1))
      const bad = await d.upcomingMarkets({ limit: 0 })
      t.equal(bad.status, 400)
      t.equal(bad.body.code, 'INVALID_PARAMETER')
    },
  },
  {
    name: 'GET /markets/resolving: markets being resolved only; a resolved market carries its resolution',
    async run(t, d) {
      const { before, resolving, resolved, resolvedWithinMs } = await Exchange.build(d)
      const list = await d.resolvingMarkets()
      t.equal(list.status, 200)
      t.ok(Array.isArray(list.body))
      t.same(ids(list.body), [...before.resolving, resolving.marketId])
      const ours = list.body.at(-1)
      t.equal(ours.status, 'Resolving')
      t.equal(ours.resolution, null)
      checkMarket(t, ours, resolving, 'resolving')

      const done = await d.market(resolved.marketId)
      t.equal(done.body.status, 'Resolved')
      t.same(Object.keys(done.body.resolution).sort(), ['outcome', 'resolved_at'])
      t.equal(done.body.resolution.outcome, 'No')
      t.match(done.body.resolution.resolved_at, ISO)
      const at = Date.parse(done.body.resolution.resolved_at)
      t.ok(at >= resolvedWithinMs[0] - 1000 && at <= resolvedWithinMs[1] + 1000,
        `resolved_at is the time of resolution (${done.body.resolution.resolved_at})`)
    },
  },
  {
    name: 'GET /ready: 503 NOT_READY once the engine takes no commands; /health still answers',
    async run(t, d) {
      await d.stopEngine()
      try {
        const ready = await d.ready()
        t.equal(ready.status, 503)
        t.equal(ready.body.code, 'NOT_READY')
        t.match(ready.body.error, /stopping|stopped/)
        t.equal((await d.health()).status, 200, 'liveness is not readiness')
      } finally {
        // The cases after this one need an engine.
        await d.restart()
      }
    },
  },
]
