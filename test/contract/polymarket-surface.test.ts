/**
 * The rest of Polymarket's current surface on /compat (issue 12, deliverables 3 and 6): version
 * and liveness, the market look-ups clob-client-v2 makes before building an order, simplified and
 * sampling markets, live activity, prices history with fidelity, and the calls answered for
 * programs Predex does not run. Over raw HTTP for the exact bodies and refusals, and through an
 * unmodified @polymarket/clob-client-v2 1.1.0 for what it reads. One server for the file.
 */
import t, { type Test } from 'tap'
import { generatePrivateKey } from 'viem/accounts'
import { ClobClient, PriceHistoryInterval, Side, type ApiKeyCreds } from '@polymarket/clob-client-v2'
import { feeBoundOf } from '../../src/engine/units.js'
import { COMPAT_MARKET_KEYS, ERROR_KEYS, PAGE_KEYS, keyDrift, keysOf } from '../../src/api/shapes/keys.js'
import type { ClobMarketInfo, MarketTradeEvent, SimplifiedMarket } from '../../src/api/shapes/polymarket.js'
import { LIVE_ACTIVITY_TRADES_MAX, ORDERS_SCORING_IDS_MAX, PRICES_HISTORY_FIDELITY_MINUTES_MAX }
  from '../../src/limits.js'
import { l2Headers } from '../../src/crypto/request-headers.js'
import { CHAIN_ID, USDC, get, nowSec, placeLimit, send, startServer, type Trader } from '../support/rest-harness.js'
import { walletOf } from '../compat/support.js'

const CLOB_MARKET_KEYS = keysOf<ClobMarketInfo>()(['c', 't', 'mts', 'mos', 'nr', 'fd', 'mbf', 'tbf', 'r', 'ao'])
const SIMPLIFIED_MARKET_KEYS = keysOf<SimplifiedMarket>()(['condition_id', 'tokens', 'rewards', 'active', 'closed',
  'archived', 'accepting_orders'])
const TRADE_EVENT_KEYS = keysOf<MarketTradeEvent>()(['event_type', 'market', 'user', 'side', 'size', 'fee_rate_bps',
  'price', 'outcome', 'outcome_index', 'transaction_hash', 'timestamp'])
const BUILDER_CODE = `0x${'ab'.repeat(32)}`
const END = 'LTE='

const server = await startServer()
t.teardown(() => server.stop())
const host = `${server.base}/compat`
/** Tick 0.01, no fee: where the trades happen. */
const m1 = await server.createMarket()
/** Tick 0.001, neg-risk, a 150 bps fee. */
const m2 = await server.createMarket({ tickSizeMicros: 1_000, negRisk: true, feeRateBps: 150, minOrderSizeMicros: 1 * USDC })
/** Tick 0.1, not trading yet. */
const m3 = await server.createMarket({ tickSizeMicros: 100_000, status: 'Upcoming' })
const alice = await server.trader(100 * USDC)
const bob = await server.trader(100 * USDC)
await server.command({ kind: 'split', address: alice.address, marketId: m1.marketId, amountMicros: 50 * USDC })

const wallet = walletOf(generatePrivateKey())
const walletAddress = wallet.account!.address.toLowerCase()
const creds: ApiKeyCreds = await new ClobClient({ host, chain: CHAIN_ID, signer: wallet }).createOrDeriveApiKey()
/** An unmodified clob-client-v2 with a signer and credentials. */
const client = new ClobClient({ host, chain: CHAIN_ID, signer: wallet, creds })
/** One without: public calls need none. */
const anonymous = new ClobClient({ host, chain: CHAIN_ID })

/** Alice sells Yes of m1 at `price`, Bob buys it: one trade. Returns its id. */
async function tradeOnce(price: string): Promise<string> {
  const sell = await placeLimit(server, alice, m1, { side: 'SELL', price, size: '5' })
  if (sell.status !== 200) throw new Error(`sell: ${JSON.stringify(sell.body)}`)
  const buy = await placeLimit(server, bob, m1, { side: 'BUY', price, size: '5' })
  if (buy.status !== 200 || buy.body.tradeIDs.length !== 1) throw new Error(`buy: ${JSON.stringify(buy.body)}`)
  return buy.body.tradeIDs[0]
}

/** An L2 request under /compat with Polymarket's headers (the HMAC covers the path without /compat). */
async function compatL2(trader: Trader, method: string, path: string, body = ''): Promise<{ status: number; body: any }> {
  const headers = l2Headers(trader.credentials, trader.address, method, path.split('?')[0]!, body, nowSec(), 'POLY')
  return send(server, method, `/compat${path}`, body, headers)
}

function isCatalogueError(t: Test, reply: { status: number; body: any }, status: number, code: string,
  what: string): void {
  t.equal(reply.status, status, `${what}: ${status}`)
  t.equal(reply.body?.code, code, `${what}: ${code}`)
  t.same(keyDrift({ error: reply.body?.error, code: reply.body?.code }, ERROR_KEYS), [])
  t.type(reply.body?.error, 'string')
}

t.test('GET /version: the number 2 on both surfaces; GET /compat/ok: "OK"', async (t) => {
  t.same((await get(server, '/compat/version')).body, { version: 2 })
  t.same((await get(server, '/version')).body, { version: 2 }, 'natively too')
  const ok = await get(server, '/compat/ok')
  t.equal(ok.status, 200)
  t.equal(ok.body, 'OK')
  t.equal((await get(server, '/ok')).status, 404, 'liveness natively is /health')
  t.equal(await anonymous.getVersion(), 2, 'clob-client-v2 getVersion')
  t.equal(await anonymous.getOk(), 'OK', 'clob-client-v2 getOk')
})

t.test('GET /compat/clob-markets/:condition_id: the market\'s terms as the client reads them', async (t) => {
  const reply = await get(server, `/compat/clob-markets/${m2.conditionId}`)
  t.equal(reply.status, 200)
  t.same(keyDrift(reply.body, CLOB_MARKET_KEYS), [])
  t.same(reply.body, { c: m2.conditionId, t: [{ t: m2.yesTokenId, o: 'Yes' }, { t: m2.noTokenId, o: 'No' }], mts: 0.001,
    mos: 1, nr: true, fd: { r: 0.015, e: 0 }, mbf: 0, tbf: 150, r: null, ao: true })
  t.match((await get(server, `/compat/clob-markets/${m1.conditionId}`)).body,
    { mts: 0.01, mos: 5, nr: false, fd: { r: 0, e: 0 }, tbf: 0, ao: true })
  t.match((await get(server, `/compat/clob-markets/${m3.conditionId}`)).body, { mts: 0.1, ao: false }, 'not trading yet')
  t.same((await get(server, `/compat/clob-markets/${m2.marketId}`)).body, reply.body, 'by UUID too')
  t.same((await get(server, `/compat/clob-markets/${m2.slug}`)).body, reply.body, 'by slug too')
  isCatalogueError(t, await get(server, `/compat/clob-markets/0x${'0'.repeat(64)}`), 404, 'MARKET_NOT_FOUND',
    'an unknown condition id')
  t.equal((await get(server, `/clob-markets/${m2.conditionId}`)).status, 404, 'compat only')

  const info = await anonymous.getClobMarketInfo(m2.conditionId)
  t.equal(info.mts.toString(), '0.001', 'mts stringifies to a tick key')
  t.equal(anonymous.tickSizes[m2.noTokenId], '0.001', 'the client caches the tick of both tokens')
  t.equal(anonymous.negRisk[m2.yesTokenId], true, 'and neg risk')
  t.same(anonymous.feeInfos[m2.yesTokenId], { rate: 0.015, exponent: 0 }, 'and the fee curve')
})

t.test('GET /compat/markets-by-token/:token_id: the condition id and both tokens', async (t) => {
  for (const token of [m1.yesTokenId, m1.noTokenId]) {
    t.same((await get(server, `/compat/markets-by-token/${token}`)).body,
      { condition_id: m1.conditionId, primary_token_id: m1.yesTokenId, secondary_token_id: m1.noTokenId })
  }
  isCatalogueError(t, await get(server, '/compat/markets-by-token/12345'), 404, 'TOKEN_NOT_FOUND', 'an unknown token')
  isCatalogueError(t, await get(server, '/compat/markets-by-token/1%2C2'), 400, 'INVALID_PARAMETER', 'not a token id')
})

t.test('createMarketOrder looks the market up through both, and a BUY with userUSDCBalance fits it', async (t) => {
  const fresh = new ClobClient({ host, chain: CHAIN_ID, signer: wallet, creds })
  const order = await fresh.createMarketOrder({ tokenID: m2.noTokenId, side: Side.BUY, amount: 10, price: 0.5 })
  t.equal(order.tokenId, m2.noTokenId, 'a market order built from the look-ups')
  t.equal(fresh.tickSizes[m2.yesTokenId], '0.001')
})

t.test('a BUY sized by the client to its whole balance (userUSDCBalance) is taken: the fee budget covers the hold',
  async (t) => {
    // The client shrinks the BUY so that cost plus its fee budget fit the balance; the engine holds cost plus
    // the fee bound, and refuses the order if the balance cannot.
    const balanceMicros = 20 * USDC
    await server.fund(walletAddress, balanceMicros)
    for (const price of [0.05, 0.5, 0.951]) {
      const order = await client.createOrder({ tokenID: m2.yesTokenId, side: Side.BUY, price, size: 1_000,
        userUSDCBalance: balanceMicros / USDC })
      const costMicros = Number(order.makerAmount)
      t.ok(costMicros + feeBoundOf(m2.feeRateBps, costMicros) <= balanceMicros,
        `@ ${price}: cost ${costMicros} + fee bound fits ${balanceMicros}`)
      // The budget is balance / price x rate; the size is rounded down to 0.01 share.
      const leftMicros = balanceMicros - (balanceMicros / price) * (m2.feeRateBps / 10_000)
      t.ok(costMicros <= leftMicros && costMicros >= leftMicros - price * 10_000 - 1,
        `@ ${price}: the cost is what the budget leaves (${Math.round(leftMicros)})`)
      const placed = await client.postOrder(order)
      t.match(placed, { success: true, status: 'live' }, `@ ${price}: the engine takes it`)
      t.same((await client.cancelAll()).canceled, [placed.orderID])
    }
  })

t.test('GET /compat/simplified-markets and the sampling lists: pages to LTE=', async (t) => {
  const first = await get(server, '/compat/simplified-markets?limit=2')
  t.equal(first.status, 200)
  t.same(keyDrift(first.body, PAGE_KEYS), [])
  t.equal(first.body.count, 2)
  for (const item of first.body.data) t.same(keyDrift(item, SIMPLIFIED_MARKET_KEYS), [])
  t.same(first.body.data[0], { condition_id: m1.conditionId,
    tokens: [{ token_id: m1.yesTokenId, outcome: 'Yes', price: 0, winner: false },
      { token_id: m1.noTokenId, outcome: 'No', price: 0, winner: false }],
    rewards: { rates: null, min_size: 0, max_spread: 0 }, active: true, closed: false, archived: false,
    accepting_orders: true })
  const second = await get(server, `/compat/simplified-markets?limit=2&next_cursor=${first.body.next_cursor}`)
  t.same(second.body.data.map((m: SimplifiedMarket) => m.condition_id), [m3.conditionId])
  t.equal(second.body.next_cursor, END)
  const viaClient = await anonymous.getSimplifiedMarkets()
  t.same(viaClient.data.map((m: SimplifiedMarket) => m.condition_id), [m1, m2, m3].map((m) => m.conditionId))
  t.equal(viaClient.next_cursor, END)
  const full = (await get(server, '/compat/markets')).body.data[0]
  t.same(keyDrift(full, COMPAT_MARKET_KEYS), [], 'GET /compat/markets is unchanged')

  for (const path of ['/compat/sampling-markets', '/compat/sampling-simplified-markets']) {
    t.same((await get(server, path)).body, { limit: 100, count: 0, next_cursor: END, data: [] }, `${path}: none`)
    isCatalogueError(t, await get(server, `${path}?next_cursor=nonsense`), 400, 'INVALID_PARAMETER', `${path}: a bad cursor`)
  }
  t.same((await anonymous.getSamplingMarkets()).data, [])
  t.equal((await anonymous.getSamplingSimplifiedMarkets()).next_cursor, END)
})

t.test('L2 calls answered for programs Predex does not run', async (t) => {
  t.same(await client.getClosedOnlyMode(), { closed_only: false }, 'getClosedOnlyMode')
  const orderId = `0x${'1f'.repeat(32)}`
  const otherId = `0x${'2e'.repeat(32)}`
  t.same(await client.isOrderScoring({ order_id: orderId }), { scoring: false }, 'isOrderScoring')
  t.same(await client.areOrdersScoring({ orderIds: [orderId, otherId] }), { [orderId]: false, [otherId]: false },
    'areOrdersScoring')
  t.same(await client.getNotifications(), [], 'getNotifications')
  t.equal(await client.dropNotifications({ ids: ['1', '2'] }), null, 'dropNotifications')
  t.same(await client.getPreMigrationOrders(), [], 'getPreMigrationOrders: V1 orders are in GET /data/orders')
  t.same(await client.getEarningsForUserForDay('2026-05-01'), [], 'getEarningsForUserForDay')
  t.same(await client.getTotalEarningsForUserForDay('2026-05-01'), [], 'getTotalEarningsForUserForDay')
  t.same(await client.getRewardPercentages(), {}, 'getRewardPercentages')
  t.same(await client.getUserEarningsAndMarketsConfig('2026-05-01'), [], 'getUserEarningsAndMarketsConfig')

  const trader: Trader = alice
  isCatalogueError(t, await compatL2(trader, 'GET', '/order-scoring'), 400, 'INVALID_PARAMETER', 'no order_id')
  isCatalogueError(t, await compatL2(trader, 'GET', '/order-scoring?order_id=0x12'), 400, 'INVALID_PARAMETER',
    'a malformed order_id')
  for (const [body, what] of [['{"a":1}', 'an object'], ['[1]', 'a number'], ['["0x12"]', 'a short id'], ['[', 'not JSON']]) {
    const reply = await compatL2(trader, 'POST', '/orders-scoring', body)
    t.equal(reply.status, 400, `orders-scoring, ${what}: 400`)
  }
  const tooMany = JSON.stringify(Array.from({ length: ORDERS_SCORING_IDS_MAX + 1 }, () => orderId))
  isCatalogueError(t, await compatL2(trader, 'POST', '/orders-scoring', tooMany), 400, 'INVALID_PARAMETER',
    `more than ${ORDERS_SCORING_IDS_MAX} ids`)
  const full = JSON.stringify(Array.from({ length: ORDERS_SCORING_IDS_MAX }, () => orderId))
  t.equal((await compatL2(trader, 'POST', '/orders-scoring', full)).status, 200, `${ORDERS_SCORING_IDS_MAX} ids`)
  for (const [method, path] of [['GET', '/compat/auth/ban-status/closed-only'], ['GET', '/compat/notifications'],
    ['DELETE', '/compat/notifications'], ['GET', '/compat/data/pre-migration-orders'], ['GET', '/compat/rewards/user'],
    ['GET', `/compat/order-scoring?order_id=${orderId}`]] as const) {
    t.equal((await send(server, method, path, '', {})).status, 401, `${method} ${path} without credentials`)
  }
})

t.test('builder fees and builder trades: none', async (t) => {
  t.same((await get(server, `/compat/fees/builder-fees/${BUILDER_CODE}`)).body,
    { builder_maker_fee_rate_bps: 0, builder_taker_fee_rate_bps: 0 })
  isCatalogueError(t, await get(server, '/compat/fees/builder-fees/0x12'), 400, 'INVALID_PARAMETER', 'a malformed code')
  const trades = await anonymous.getBuilderTrades({ builder_code: BUILDER_CODE })
  t.same(trades, { trades: [], limit: 100, count: 0, next_cursor: END }, 'getBuilderTrades')
  isCatalogueError(t, await get(server, '/compat/builder/trades'), 400, 'INVALID_PARAMETER', 'no builder_code')
  // A builder code on the client makes createMarketOrder ask for its fee rates.
  const builder = new ClobClient({ host, chain: CHAIN_ID, signer: wallet, creds, builderConfig: { builderCode: BUILDER_CODE } })
  const order = await builder.createMarketOrder({ tokenID: m1.yesTokenId, side: Side.BUY, amount: 5, price: 0.5 })
  t.same(builder.builderFeeRates[BUILDER_CODE], { maker: 0, taker: 0 })
  t.equal(order.tokenId, m1.yesTokenId)
})

t.test('rewards reads: empty pages to LTE=, /rewards/markets/current before /rewards/markets/:condition_id', async (t) => {
  t.same((await get(server, '/compat/rewards/markets/current')).body, { limit: 100, count: 0, next_cursor: END, data: [] })
  t.same((await get(server, `/compat/rewards/markets/${m1.conditionId}`)).body.data, [])
  isCatalogueError(t, await get(server, `/compat/rewards/markets/0x${'0'.repeat(64)}`), 404, 'MARKET_NOT_FOUND',
    'an unknown market')
  t.same(await anonymous.getCurrentRewards(), [], 'getCurrentRewards')
  t.same(await anonymous.getRawRewardsForMarket(m1.conditionId), [], 'getRawRewardsForMarket')
})

t.test('GET /compat/markets/live-activity/:condition_id: the market\'s trades, newest first', async (t) => {
  t.same((await get(server, `/compat/markets/live-activity/${m1.conditionId}`)).body, [], 'no trades yet')
  const first = await tradeOnce('0.6')
  const second = await tradeOnce('0.55')
  const reply = await get(server, `/compat/markets/live-activity/${m1.conditionId}`)
  t.equal(reply.status, 200)
  t.equal(reply.body.length, 2)
  for (const event of reply.body) t.same(keyDrift(event, TRADE_EVENT_KEYS), [])
  const [newest, oldest] = reply.body as MarketTradeEvent[]
  const read = server.predex.context.read
  t.match(newest, { event_type: 'trade', side: 'BUY', size: '5', price: '0.55', outcome: 'Yes', outcome_index: 0,
    fee_rate_bps: '0', market: { condition_id: m1.conditionId, asset_id: m1.yesTokenId, question: m1.question, slug: m1.slug },
    user: { address: bob.address, username: '', pseudonym: '' },
    timestamp: String(Math.floor(read.trade(second)!.timeMs / 1000)) })
  t.equal(oldest!.price, '0.6')
  t.match(newest!.transaction_hash, /^0x[0-9a-f]{64}$/)
  const bobs = await compatL2(bob, 'GET', `/data/trades?id=${first}`)
  t.equal(oldest!.transaction_hash, bobs.body.data[0].transaction_hash, 'the trade\'s settlement transaction')
  t.same(await anonymous.getMarketTradesEvents(m1.conditionId), reply.body, 'clob-client-v2 getMarketTradesEvents')
  t.same((await get(server, `/compat/markets/live-activity/${m2.conditionId}`)).body, [], 'another market: none')
  isCatalogueError(t, await get(server, `/compat/markets/live-activity/0x${'0'.repeat(64)}`), 404, 'MARKET_NOT_FOUND',
    'an unknown market')
  t.equal((await get(server, `/compat/markets/${m1.conditionId}`)).body.condition_id, m1.conditionId,
    'GET /markets/:id still answers beside it')
  isCatalogueError(t, await get(server, '/compat/markets/live-activity'), 404, 'MARKET_NOT_FOUND',
    'without an id it is GET /markets/:id of "live-activity"')
  t.ok(LIVE_ACTIVITY_TRADES_MAX >= 2)
})

t.test('GET /compat/prices-history: every trade, or the last price per fidelity minutes; bad values are 400', async (t) => {
  const path = `/compat/prices-history?market=${m1.yesTokenId}`
  const ticks = [...server.predex.context.read.ticksOf(m1.yesTokenId).from(0)]
  t.ok(ticks.length >= 2, 'the trades of the live-activity test')
  const all = (await get(server, `${path}&interval=max`)).body.history
  t.same(all, ticks.map((tick) => ({ t: Math.floor(tick.timeMs / 1000), p: tick.priceMicros / 1_000_000 })), 'each trade')
  // One point per minute that had a trade: its last price, at the minute's start.
  const byMinute = new Map<number, number>()
  for (const tick of ticks) byMinute.set(Math.floor(tick.timeMs / 60_000) * 60, tick.priceMicros / 1_000_000)
  const expected = [...byMinute].map(([tSec, p]) => ({ t: tSec, p }))
  t.same((await get(server, `${path}&interval=1h&fidelity=1`)).body.history, expected, 'fidelity=1')
  const viaClient = await anonymous.getPricesHistory({ market: m1.yesTokenId, interval: PriceHistoryInterval.MAX, fidelity: 1 })
  t.same(viaClient, { history: expected }, 'clob-client-v2 getPricesHistory with fidelity (the body is wrapped)')
  const nowSec = Math.floor(Date.now() / 1000)
  t.same((await get(server, `${path}&startTs=${nowSec - 3_600}&endTs=${nowSec + 60}`)).body.history, all, 'a range')
  t.same((await get(server, `${path}&startTs=${nowSec + 60}&endTs=${nowSec + 120}`)).body.history, [], 'a later range')
  const refusals = [['interval=2h', 'interval'], ['interval=1h&startTs=1', 'interval'], ['fidelity=0', 'fidelity'],
    ['fidelity=1.5', 'fidelity'], ['fidelity=-1', 'fidelity'], [`fidelity=${PRICES_HISTORY_FIDELITY_MINUTES_MAX + 1}`, 'fidelity'],
    ['startTs=10&endTs=9', 'startTs'], ['startTs=soon', 'startTs'], ['endTs=1e99', 'endTs']] as const
  for (const [query, field] of refusals) {
    const refused = await get(server, `${path}&${query}`)
    isCatalogueError(t, refused, 400, 'INVALID_PARAMETER', query)
    t.equal(refused.body.field, field, `${query}: names ${field}`)
  }
  isCatalogueError(t, await get(server, '/compat/prices-history?market=12345'), 404, 'TOKEN_NOT_FOUND', 'an unknown token')
  isCatalogueError(t, await get(server, '/compat/prices-history'), 400, 'INVALID_PARAMETER', 'no market')
})

t.test('the ticks 0.005 and 0.0025: mts stringifies to the client\'s tick keys', async (t) => {
  for (const tickSizeMicros of [5_000, 2_500]) {
    const market = await server.createMarket({ tickSizeMicros })
    const tick = String(tickSizeMicros / USDC)
    t.equal((await anonymous.getClobMarketInfo(market.conditionId)).mts.toString(), tick, `mts of a ${tick} market`)
    t.equal(anonymous.tickSizes[market.yesTokenId], tick, `the client's tick key ${tick}`)
  }
})
