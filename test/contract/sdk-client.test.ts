/**
 * The SDK's native REST client against a real server: every method is called, and what it
 * returns is checked against the engine's own state (balances, book) or the action just taken,
 * and against its declared shape (src/api/shapes): an answer with a key its shape does not
 * declare, or without one it declares, fails here, natively and under /compat.
 */
import t, { type Test } from 'tap'
import { PredexClient, type ApiCredentials } from '../../src/client/predex-client.js'
import { PredexApiError, RestTransport } from '../../src/client/rest-transport.js'
import * as keys from '../../src/api/shapes/keys.js'
import { keyDrift, type ShapeKeys } from '../../src/api/shapes/keys.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { USDC, startServer, type TestServer } from '../support/rest-harness.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { decimalOfMicros } from '../../src/stdx/decimal.js'

let server: TestServer
let market: MarketRecord
let maker: PredexClient
let taker: PredexClient
let makerWallet: Wallet
let takerWallet: Wallet
let makerCredentials: ApiCredentials

/** The body has exactly the keys of its declared shape (optional ones may be absent). */
function fits<T>(t: Test, body: unknown, shape: ShapeKeys<T>, label: string): void {
  t.same(keyDrift(body, shape), [], `${label}: the keys of its shape`)
}

/** Each item of a list fits its shape (and there is at least one, or nothing was checked). */
function allFit<T>(t: Test, items: readonly unknown[], shape: ShapeKeys<T>, label: string): void {
  t.ok(items.length > 0, `${label}: some items to check`)
  for (const item of items) fits(t, item, shape, label)
}

t.before(async () => {
  server = await startServer()
  market = await server.createMarket({ question: 'Will the SDK work?', slug: 'sdk-works' })
  makerWallet = Wallet.random()
  takerWallet = Wallet.random()
  maker = new PredexClient({ baseUrl: server.base, wallet: makerWallet })
  taker = new PredexClient({ baseUrl: server.base, wallet: takerWallet })
  await server.fund(makerWallet.address.toLowerCase(), 1_000 * USDC)
  await server.fund(takerWallet.address.toLowerCase(), 1_000 * USDC)
  await server.command({ kind: 'split', address: makerWallet.address.toLowerCase(), marketId: market.marketId, amountMicros: 100 * USDC })
})
t.teardown(() => server.stop())

t.test('health, readiness, metrics, time and the OpenAPI document', async (t) => {
  const health = await maker.health()
  t.equal(health.status, 'ok')
  t.equal(typeof health.seq, 'number')
  fits(t, health, keys.HEALTH_KEYS, 'GET /health')
  fits(t, await maker.ready(), keys.READINESS_KEYS, 'GET /ready')
  t.match(await maker.metrics(), /predex_engine_seq \d+/)
  const time = await maker.serverTime()
  t.ok(Math.abs(time - Date.now() / 1000) < 60, 'server time is unix seconds')
  t.same(await maker.version(), { version: 2 }, 'GET /version')
  const document = await maker.openApi()
  t.equal(document.openapi, '3.1.0')
})

t.test('markets by id, condition id and slug; upcoming and resolving', async (t) => {
  const page = await maker.markets({ limit: 10 })
  t.equal(page.next_cursor, 'LTE=')
  t.same(page.data.map((m) => m.id), [market.marketId])
  fits(t, page, keys.PAGE_KEYS, 'GET /markets')
  allFit(t, page.data, keys.NATIVE_MARKET_KEYS, 'GET /markets data')
  allFit(t, page.data[0]!.tokens, keys.NATIVE_MARKET_TOKEN_KEYS, 'a market token')
  for (const id of [market.marketId, market.conditionId, 'sdk-works']) t.equal((await maker.market(id)).id, market.marketId, id)
  const upcoming = await server.createMarket({ status: 'Upcoming', slug: 'later' })
  t.same((await maker.upcomingMarkets(5)).map((m) => m.id), [upcoming.marketId])
  t.same(await maker.resolvingMarkets(), [])
  const missing = await maker.market('no-such-market').catch((error: unknown) => error)
  t.ok(missing instanceof PredexApiError)
  t.equal((missing as PredexApiError).status, 404)
  const errorBody = (missing as PredexApiError).body as Record<string, unknown>
  t.same(keyDrift({ error: errorBody.error, code: errorBody.code }, keys.ERROR_KEYS), [], 'an error body')
  t.equal(typeof errorBody.error, 'string')
  t.equal(errorBody.code, 'MARKET_NOT_FOUND')
})

t.test('credentials: create is idempotent, derive finds the same key, list and delete', async (t) => {
  const created = await maker.createApiKey()
  makerCredentials = created
  fits(t, created, keys.API_CREDENTIALS_KEYS, 'POST /auth/api-key')
  fits(t, await maker.apiKeys(), keys.API_KEYS_KEYS, 'GET /auth/api-keys')
  t.same(await maker.createApiKey(), created, 'the same wallet and nonce give the same credential')
  t.same(await maker.deriveApiKey(), created)
  t.same(await maker.apiKeys(), { apiKeys: [created.apiKey] })
  const spare = new PredexClient({ baseUrl: server.base, wallet: makerWallet })
  await spare.createApiKey(7)
  const deleted = await spare.deleteApiKey()
  t.same(deleted, { deleted: true })
  fits(t, deleted, keys.API_KEY_DELETED_KEYS, 'DELETE /auth/api-key')
  t.same((await maker.apiKeys()).apiKeys, [created.apiKey], 'the deleted key is gone, the first remains')
  await taker.createApiKey()
})

t.test('a resting order, the book, prices, a crossing trade, and the account afterwards', async (t) => {
  const ask = await maker.placeLimitOrder({ tokenId: market.yesTokenId, side: 'SELL', price: '0.60', size: '20' })
  t.equal(ask.success, true)
  t.equal(ask.status, 'live')
  fits(t, ask, keys.ORDER_PLACEMENT_KEYS, 'POST /order')
  const bid = await maker.placeLimitOrder({ tokenId: market.yesTokenId, side: 'BUY', price: '0.40', size: '10', postOnly: true })
  t.equal(bid.status, 'live')

  const book = await taker.book(market.yesTokenId)
  t.same(book.bids, [{ price: '0.4', size: '10' }])
  t.same(book.asks, [{ price: '0.6', size: '20' }])
  t.same(Object.keys(book), keys.ORDER_BOOK_SUMMARY_KEYS.all, 'GET /book: its keys in the declared order (the hash depends on it)')
  allFit(t, [...book.bids, ...book.asks], keys.BOOK_LEVEL_KEYS, 'a book level')
  const [batchBook] = await taker.books([market.yesTokenId])
  t.same({ ...batchBook, timestamp: '', hash: '' }, { ...book, timestamp: '', hash: '' }, 'POST /books gives the same book')
  const unified = await taker.unifiedBook(market.noTokenId)
  t.same(unified.asks, [{ price: '0.6', size: '10' }], 'the Yes bid at 0.40 is a No ask at 0.60')
  t.same(await taker.midpoint(market.yesTokenId), { mid: '0.5', mid_price: '0.5' })
  t.same(await taker.midpoints([market.yesTokenId]), { [market.yesTokenId]: '0.5' })
  t.same(await taker.price(market.yesTokenId, 'BUY'), { price: '0.4' })
  t.same(await taker.price(market.yesTokenId, 'SELL'), { price: '0.6' })
  t.same(await taker.prices([{ tokenId: market.yesTokenId, side: 'BUY' }, { tokenId: market.yesTokenId, side: 'SELL' }]),
    { [market.yesTokenId]: { BUY: '0.4', SELL: '0.6' } })
  t.same(await taker.spread(market.yesTokenId), { spread: '0.2' })
  t.same(await taker.tickSize(market.yesTokenId), { minimum_tick_size: 0.01 })
  t.same(await taker.feeRate(market.yesTokenId), { base_fee: 0 })
  fits(t, await taker.midpoint(market.yesTokenId), keys.MIDPOINT_KEYS, 'GET /midpoint')
  fits(t, await taker.price(market.yesTokenId, 'BUY'), keys.PRICE_KEYS, 'GET /price')
  fits(t, await taker.spread(market.yesTokenId), keys.SPREAD_KEYS, 'GET /spread')
  fits(t, await taker.tickSize(market.yesTokenId), keys.TICK_SIZE_KEYS, 'GET /tick-size')
  fits(t, await taker.feeRate(market.yesTokenId), keys.FEE_RATE_KEYS, 'GET /fee-rate')

  const fill = await taker.placeMarketOrder({ tokenId: market.yesTokenId, side: 'BUY', amount: '6', price: '0.60' })
  t.equal(fill.status, 'matched')
  t.equal(fill.makingAmount, '6')
  t.equal(fill.takingAmount, '10')
  fits(t, fill, keys.ORDER_PLACEMENT_KEYS, 'POST /order (matched)')
  t.same(await taker.lastTradePrice(market.yesTokenId), { price: '0.6', side: 'BUY' })
  fits(t, await taker.lastTradePrice(market.yesTokenId), keys.LAST_TRADE_PRICE_KEYS, 'GET /last-trade-price')

  const takerUsdc = await taker.balanceAllowance('COLLATERAL')
  t.equal(takerUsdc.balance, String(994 * USDC), 'the taker paid exactly 6 USDC')
  fits(t, takerUsdc, keys.BALANCE_ALLOWANCE_KEYS, 'GET /balance-allowance')
  const takerYes = await taker.balanceAllowance('CONDITIONAL', market.yesTokenId)
  t.equal(takerYes.balance, String(10 * USDC), 'and got exactly 10 Yes')
  const makerAccount = await server.account(makerWallet.address.toLowerCase())
  t.equal(makerAccount.usdcMicros, (1_000 - 100 + 6) * USDC, 'the maker got exactly 6 USDC')
  t.equal(makerAccount.shares.get(market.yesTokenId), 90 * USDC)

  const trades = await taker.trades()
  t.equal(trades.data.length, 1)
  t.equal(trades.data[0]!.trader_side, 'TAKER')
  t.equal(trades.data[0]!.price, '0.6')
  fits(t, trades, keys.PAGE_KEYS, 'GET /data/trades')
  allFit(t, trades.data, keys.TRADE_KEYS, 'a trade')
  allFit(t, trades.data[0]!.maker_orders, keys.MAKER_ORDER_KEYS, "a trade's maker order")
  t.equal((await maker.trades()).data[0]!.trader_side, 'MAKER')

  const resting = await maker.order(ask.order_id)
  t.equal(resting.status, 'LIVE')
  t.equal(resting.size_matched, '10')
  t.equal(resting.size_remaining, '10')
  fits(t, resting, keys.NATIVE_ORDER_KEYS, 'GET /data/order/:id')
})

t.test('batches, verification, listings over pages and every kind of cancel', async (t) => {
  const signed = await Promise.all([0.30, 0.31, 0.32].map((price) =>
    maker.signLimitOrder({ tokenId: market.yesTokenId, side: 'BUY', price, size: 5 })))
  const verdict = await maker.verifyOrder({ signed: signed[0]!, orderType: 'GTC' })
  t.equal(verdict.valid, true)
  t.equal(verdict.orderID, signed[0]!.orderId)
  fits(t, verdict, keys.VERIFY_RESULT_KEYS, 'POST /order/verify')
  allFit(t, verdict.checks, keys.VERIFY_CHECK_KEYS, 'a verification check')
  t.same(await maker.openOrders({ id: signed[0]!.orderId }).then((r) => r.data), [], 'verify placed nothing')

  const batch = await maker.placeOrders(signed.map((s) => ({ signed: s, orderType: 'GTC' as const })))
  t.equal(batch.total_successful, 3)
  t.equal(batch.total_failed, 0)
  fits(t, batch, keys.BATCH_PLACEMENT_KEYS, 'POST /orders')
  allFit(t, batch.results, keys.ORDER_PLACEMENT_KEYS, 'a batch placement')

  const first = await maker.openOrders({ limit: 2 })
  t.equal(first.data.length, 2)
  t.not(first.next_cursor, 'LTE=')
  fits(t, first, keys.NATIVE_ORDERS_PAGE_KEYS, 'GET /data/orders')
  allFit(t, first.data, keys.NATIVE_ORDER_KEYS, 'an open order')
  t.equal(first.available_usdc, decimalOfMicros((1_000 - 100 + 6 - 4) * USDC - 1_500_000 - 1_550_000 - 1_600_000),
    'available USDC is the balance less holds, a decimal')
  const all = await maker.allOpenOrders()
  t.equal(all.length, 5, 'the ask, the 0.40 bid and three batch bids')

  const canceled = await maker.cancelOrder(signed[0]!.orderId)
  t.same(canceled, { canceled: [signed[0]!.orderId], not_canceled: {} })
  fits(t, canceled, keys.CANCEL_RESULT_KEYS, 'DELETE /order')
  const two = await maker.cancelOrders([signed[1]!.orderId, signed[0]!.orderId])
  t.same(two.canceled, [signed[1]!.orderId])
  t.same(Object.keys(two.not_canceled), [signed[0]!.orderId], 'an ended order is reported, not cancelled twice')
  const listing = await maker.orders({ status: 'canceled' })
  t.same(listing.data.map((o) => o.id).sort(), [signed[0]!.orderId, signed[1]!.orderId].sort())
  fits(t, listing, keys.CLIENT_ORDERS_KEYS, 'GET /orders')
  allFit(t, listing.data, keys.CLIENT_ORDER_KEYS, 'a listed order')
  const beat = await maker.heartbeat()
  t.match(beat, { heartbeat_id: /^[0-9a-f-]{36}$/, status: 'ok' }, 'POST /heartbeats starts a chain')
  t.not((await maker.heartbeat(beat.heartbeat_id)).heartbeat_id, beat.heartbeat_id, 'and chains with a new id')
  const rest = await maker.cancelAll()
  t.equal(rest.canceled.length, 3)
  t.same((await maker.openOrders()).data, [])
  const account = await server.account(makerWallet.address.toLowerCase())
  t.equal(account.heldMicros, 0, 'every hold is released')
})

t.test('the market-maker controls: amend, replace, mass quote, order groups, self-trade prevention', async (t) => {
  const bid = (price: number) => maker.signLimitOrder({ tokenId: market.yesTokenId, side: 'BUY', price, size: 10 })
  const [first, second] = await Promise.all([bid(0.21), bid(0.22)])
  const placed = await maker.placeOrder({ signed: first, orderType: 'GTC' })
  const amended = await maker.amendOrder(placed.order_id, { newSize: '6' })
  t.match(amended, { success: true, size_remaining: '6', reduced_by: '4' })
  fits(t, amended, keys.ORDER_AMENDED_KEYS, 'POST /order/amend')
  t.equal((await maker.amendOrder(placed.order_id, { reduceBy: '1' })).size_remaining, '5')
  t.equal((await maker.order(placed.order_id)).queue_ahead, '0', 'GET /data/order/:id: its place in the queue')
  const replaced = await maker.replaceOrder(placed.order_id, { signed: second, orderType: 'GTC' })
  t.match(replaced, { canceled: { order_id: placed.order_id, size_remaining: '5' }, placement: { success: true } })
  fits(t, replaced, keys.ORDER_REPLACED_KEYS, 'POST /order/replace')
  const third = await bid(0.23)
  const quoted = await maker.massQuote(market.marketId, [{ signed: second, orderType: 'GTC' },
    { signed: third, orderType: 'GTC' }])
  t.match(quoted.levels, [{ outcome: 'kept', order_id: second.orderId }, { outcome: 'placed', status: 'live' }])
  fits(t, quoted, keys.QUOTES_RESULT_KEYS, 'POST /quotes')
  t.same([...(await maker.massQuote(market.marketId, [])).canceled].sort(), [second.orderId, third.orderId].sort())

  const group = await maker.createOrderGroup({ group_id: 'sdk', contracts_limit: '5', window_ms: 10_000 })
  t.match(group, { group_id: 'sdk', triggered: false })
  fits(t, group, keys.ORDER_GROUP_KEYS, 'POST /order-groups')
  const joined = await maker.placeLimitOrder({ tokenId: market.yesTokenId, side: 'BUY', price: 0.2, size: 5,
    orderGroupId: 'sdk' })
  t.equal(joined.status, 'live')
  t.match((await maker.orderGroups()).data, [{ group_id: 'sdk', resting_orders: 1 }])
  t.match(await maker.updateOrderGroup('sdk', { freeze_ms: 1_000 }), { freeze_ms: 1_000 })
  t.match(await maker.triggerOrderGroup('sdk'), { triggered: true, resting_orders: 0 })
  t.match(await maker.resetOrderGroup('sdk'), { triggered: false })
  t.same(await maker.deleteOrderGroup('sdk'), { deleted: true, group_id: 'sdk' })
  const stp = await maker.placeLimitOrder({ tokenId: market.yesTokenId, side: 'BUY', price: 0.2, size: 5,
    selfTradePrevention: 'CANCEL_TAKER' })
  t.equal(stp.status, 'live', 'selfTradePrevention goes with the order')
  await maker.cancelOrder(stp.order_id)
})

t.test('users, candles, cancel by market, the test network and admin: each answer and its shape', async (t) => {
  const makerAddress = makerWallet.address.toLowerCase()
  const bid = await maker.placeLimitOrder({ tokenId: market.yesTokenId, side: 'BUY', price: '0.30', size: '5' })
  fits(t, await maker.negRisk(market.yesTokenId), keys.NEG_RISK_KEYS, 'GET /neg-risk')
  t.same(await maker.negRisk(market.yesTokenId), { neg_risk: false })
  const candles = await maker.candles('sdk-works', { interval: '1d' })
  t.same(candles.map((c) => [c.close, c.volume]), [['0.6', '10']], 'one interval: the one trade of the Yes token')
  allFit(t, candles, keys.CANDLE_KEYS, 'GET /ticks/:symbol')

  const profile = await maker.user(makerAddress)
  t.equal(profile.trades_count, 1)
  fits(t, profile, keys.USER_PROFILE_KEYS, 'GET /users/:address')
  const history = await maker.portfolioHistory(makerAddress)
  fits(t, history, keys.PORTFOLIO_HISTORY_KEYS, 'GET /users/:address/portfolio-history')
  allFit(t, history.milestones, keys.MILESTONE_KEYS, 'a milestone')
  const activity = await maker.activity(makerAddress)
  fits(t, activity, keys.PAGE_KEYS, 'GET /users/:address/activity')
  t.same(activity.data, [...history.milestones].reverse(), 'the milestones newest first')
  const open = await maker.userOrders(makerAddress)
  t.same(open.data.map((o) => o.id), [bid.order_id])
  allFit(t, open.data, keys.PUBLIC_ORDER_KEYS, 'GET /users/:address/orders (no owner)')
  const trades = await maker.userTrades(makerAddress)
  allFit(t, trades.data, keys.PUBLIC_TRADE_KEYS, 'GET /users/:address/trades (no owner)')
  allFit(t, trades.data[0]!.maker_orders, keys.PUBLIC_MAKER_ORDER_KEYS, 'its maker order (no owner)')
  const balances = await maker.userBalances(makerAddress)
  fits(t, balances, keys.USER_BALANCES_KEYS, 'GET /users/:address/balances')
  allFit(t, balances.tokens, keys.USER_TOKEN_BALANCE_KEYS, 'a token balance')
  const events = await maker.userEvents(makerAddress)
  t.same(events.data.map((e) => e.action), ['credit', 'approve', 'split'])
  allFit(t, events.data, keys.LEDGER_EVENT_KEYS, 'GET /users/:address/events')
  fits(t, await maker.redemptions(makerAddress), keys.PAGE_KEYS, 'GET /users/:address/redemptions')

  const byMarket = await maker.cancelMarketOrders({ market: market.marketId })
  t.same(byMarket, { canceled: [bid.order_id], not_canceled: {} })

  const newcomer = new PredexClient({ baseUrl: server.base, wallet: Wallet.random() })
  const credit = await newcomer.faucet('100')
  t.equal(credit.usdc_credited, '100')
  fits(t, credit, keys.FAUCET_CREDIT_KEYS, 'POST /faucet')
  const approval = await newcomer.approve(50 * USDC)
  t.equal(approval.status, 'CONFIRMED')
  fits(t, approval, keys.RELAY_RECEIPT_KEYS, 'POST /relay')
  const status = await newcomer.walletStatus()
  t.equal(status.relay_nonce, 1)
  t.equal(await newcomer.relayNonce(), 1)
  fits(t, status, keys.WALLET_STATUS_KEYS, 'GET /wallet-status')
  const nonce: unknown = await (await fetch(`${server.base}/relay/nonce?address=${status.address}`)).json()
  fits(t, nonce, keys.RELAY_NONCE_KEYS, 'GET /relay/nonce')

  const admin = new PredexClient({ baseUrl: server.base, adminKey: server.predex.adminKey })
  const resolvable = await admin.createMarket({ question: 'Shapes of a resolved market?', slug: 'shapes-resolved' })
  const resolved = await admin.resolveMarket(resolvable.id, 'No')
  t.same(resolved.resolution?.outcome, 'No')
  fits(t, resolved, keys.NATIVE_MARKET_KEYS, 'POST /admin/markets/:id/resolve')
  fits(t, resolved.resolution, keys.MARKET_RESOLUTION_KEYS, "a market's resolution")
  const stats = await admin.adminStats()
  t.equal(stats.markets, 3)
  fits(t, stats, keys.EXCHANGE_STATS_KEYS, 'GET /admin/stats')
  const hash = await admin.adminStateHash()
  t.ok(hash.seq >= stats.seq && /^[0-9a-f]{64}$/.test(hash.state_hash) && hash.invariants_hold, 'a state hash at a seq')
  t.same(await admin.adminStateHash(), hash, 'nothing applied between two reads: the same hash')
  fits(t, hash, keys.ENGINE_STATE_HASH_KEYS, 'GET /admin/state-hash')
})

t.test('under /compat, Polymarket shapes: markets, books, prices, orders, trades', async (t) => {
  const compat = `${server.base}/compat`
  const read = async (path: string, init?: RequestInit): Promise<any> => (await fetch(compat + path, init)).json()
  t.equal(await read('/'), 'OK')
  const markets = await read('/markets')
  fits(t, markets, keys.PAGE_KEYS, 'GET /compat/markets')
  allFit(t, markets.data, keys.COMPAT_MARKET_KEYS, 'a compat market')
  const one = await read(`/markets/${market.conditionId}`)
  fits(t, one, keys.COMPAT_MARKET_KEYS, 'GET /compat/markets/:id')
  allFit(t, one.tokens, keys.COMPAT_MARKET_TOKEN_KEYS, 'a compat market token')
  fits(t, one.rewards, keys.COMPAT_REWARDS_KEYS, "a compat market's rewards")
  const book = await read(`/book?token_id=${market.yesTokenId}`)
  t.same(Object.keys(book), keys.ORDER_BOOK_SUMMARY_KEYS.all, 'GET /compat/book')
  fits(t, await read(`/neg-risk?token_id=${market.yesTokenId}`), keys.NEG_RISK_KEYS, 'GET /compat/neg-risk')
  const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body) })
  const lasts = await read('/last-trades-prices', post([{ token_id: market.yesTokenId }]))
  t.same(lasts, [{ token_id: market.yesTokenId, price: '0.6', side: 'BUY' }])
  allFit(t, lasts, keys.TOKEN_LAST_TRADE_PRICE_KEYS, 'POST /compat/last-trades-prices')
  const history = await read(`/prices-history?market=${market.yesTokenId}`)
  fits(t, history, keys.PRICES_HISTORY_KEYS, 'GET /compat/prices-history')
  allFit(t, history.history, keys.PRICE_POINT_KEYS, 'a price point')

  const bid = await maker.placeLimitOrder({ tokenId: market.yesTokenId, side: 'BUY', price: '0.30', size: '5' })
  const transport = new RestTransport({ baseUrl: compat, headerFamily: 'POLY' })
  const l2 = { kind: 'l2', credentials: makerCredentials, address: makerWallet.address } as const
  const orders = await transport.request<any>('GET', '/data/orders', l2)
  fits(t, orders, keys.PAGE_KEYS, 'GET /compat/data/orders (no available_usdc)')
  allFit(t, orders.data, keys.COMPAT_ORDER_KEYS, 'an OpenOrder')
  const order = await transport.request<any>('GET', `/data/order/${bid.order_id}`, l2)
  t.equal(order.market, market.conditionId, 'the condition id')
  t.equal(order.expiration, '0', 'seconds, "0" for none')
  fits(t, order, keys.COMPAT_ORDER_KEYS, 'GET /compat/data/order/:id')
  const trades = await transport.request<any>('GET', '/data/trades', l2)
  allFit(t, trades.data, keys.TRADE_KEYS, 'GET /compat/data/trades')
  t.equal(await transport.request('GET', '/balance-allowance/update', l2), null)
  const canceled = await transport.request<any>('DELETE', '/cancel-market-orders', l2, { asset_id: market.yesTokenId })
  t.same(canceled, { canceled: [bid.order_id], not_canceled: {} })
})
