/**
 * The SDK's native REST client against a real server: every method is called, and what it
 * returns is checked against the engine's own state (balances, book) or the action just taken.
 */
import t from 'tap'
import { PredexClient } from '../../src/client/predex-client.js'
import { PredexApiError } from '../../src/client/rest-transport.js'
import { Wallet } from '../../src/client/wallet.js'
import { USDC, startServer, type TestServer } from '../rest-harness.js'
import type { MarketRecord } from '../../src/engine/event.js'

let server: TestServer
let market: MarketRecord
let maker: PredexClient
let taker: PredexClient
let makerWallet: Wallet
let takerWallet: Wallet

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
  t.match(await maker.metrics(), /predex_engine_seq \d+/)
  const time = await maker.serverTime()
  t.ok(Math.abs(time - Date.now() / 1000) < 60, 'server time is unix seconds')
  const document = await maker.openApi()
  t.equal(document.openapi, '3.1.0')
})

t.test('markets by id, condition id and slug; upcoming and resolving', async (t) => {
  const page = await maker.markets({ limit: 10 })
  t.equal(page.next_cursor, 'LTE=')
  t.same(page.data.map((m) => m.id), [market.marketId])
  for (const id of [market.marketId, market.conditionId, 'sdk-works']) t.equal((await maker.market(id)).id, market.marketId, id)
  const upcoming = await server.createMarket({ status: 'Upcoming', slug: 'later' })
  t.same((await maker.upcomingMarkets(5)).map((m) => m.id), [upcoming.marketId])
  t.same(await maker.resolvingMarkets(), [])
  const missing = await maker.market('no-such-market').catch((error: unknown) => error)
  t.ok(missing instanceof PredexApiError)
  t.equal((missing as PredexApiError).status, 404)
})

t.test('credentials: create is idempotent, derive finds the same key, list and delete', async (t) => {
  const created = await maker.createApiKey()
  t.same(await maker.createApiKey(), created, 'the same wallet and nonce give the same credential')
  t.same(await maker.deriveApiKey(), created)
  t.same(await maker.apiKeys(), { apiKeys: [created.apiKey] })
  const spare = new PredexClient({ baseUrl: server.base, wallet: makerWallet })
  await spare.createApiKey(7)
  t.same(await spare.deleteApiKey(), { deleted: true })
  t.same((await maker.apiKeys()).apiKeys, [created.apiKey], 'the deleted key is gone, the first remains')
  await taker.createApiKey()
})

t.test('a resting order, the book, prices, a crossing trade, and the account afterwards', async (t) => {
  const ask = await maker.placeLimitOrder({ tokenId: market.yesTokenId, side: 'SELL', price: '0.60', size: '20' })
  t.equal(ask.success, true)
  t.equal(ask.status, 'live')
  const bid = await maker.placeLimitOrder({ tokenId: market.yesTokenId, side: 'BUY', price: '0.40', size: '10', postOnly: true })
  t.equal(bid.status, 'live')

  const book = await taker.book(market.yesTokenId)
  t.same(book.bids, [{ price: '0.4', size: '10' }])
  t.same(book.asks, [{ price: '0.6', size: '20' }])
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

  const fill = await taker.placeMarketOrder({ tokenId: market.yesTokenId, side: 'BUY', amount: '6', price: '0.60' })
  t.equal(fill.status, 'matched')
  t.equal(fill.makingAmount, '6')
  t.equal(fill.takingAmount, '10')
  t.same(await taker.lastTradePrice(market.yesTokenId), { price: '0.6', side: 'BUY' })

  const takerUsdc = await taker.balanceAllowance('COLLATERAL')
  t.equal(takerUsdc.balance, String(994 * USDC), 'the taker paid exactly 6 USDC')
  const takerYes = await taker.balanceAllowance('CONDITIONAL', market.yesTokenId)
  t.equal(takerYes.balance, String(10 * USDC), 'and got exactly 10 Yes')
  const makerAccount = await server.account(makerWallet.address.toLowerCase())
  t.equal(makerAccount.usdcMicros, (1_000 - 100 + 6) * USDC, 'the maker got exactly 6 USDC')
  t.equal(makerAccount.shares.get(market.yesTokenId), 90 * USDC)

  const trades = await taker.trades()
  t.equal(trades.data.length, 1)
  t.equal(trades.data[0]!.trader_side, 'TAKER')
  t.equal(trades.data[0]!.price, '0.6')
  t.equal((await maker.trades()).data[0]!.trader_side, 'MAKER')

  const resting = await maker.order(ask.order_id)
  t.equal(resting.status, 'LIVE')
  t.equal(resting.size_matched, '10')
  t.equal(resting.size_remaining, '10')
})

t.test('batches, verification, listings over pages and every kind of cancel', async (t) => {
  const signed = await Promise.all([0.30, 0.31, 0.32].map((price) =>
    maker.signLimitOrder({ tokenId: market.yesTokenId, side: 'BUY', price, size: 5 })))
  const verdict = await maker.verifyOrder({ signed: signed[0]!, orderType: 'GTC' })
  t.equal(verdict.valid, true)
  t.equal(verdict.orderID, signed[0]!.orderId)
  t.same(await maker.openOrders({ id: signed[0]!.orderId }).then((r) => r.data), [], 'verify placed nothing')

  const batch = await maker.placeOrders(signed.map((s) => ({ signed: s, orderType: 'GTC' as const })))
  t.equal(batch.total_successful, 3)
  t.equal(batch.total_failed, 0)

  const first = await maker.openOrders({ limit: 2 })
  t.equal(first.data.length, 2)
  t.not(first.next_cursor, 'LTE=')
  t.equal(first.available_usdc, String((1_000 - 100 + 6 - 4) * USDC - 1_500_000 - 1_550_000 - 1_600_000), 'available USDC is the balance less holds')
  const all = await maker.allOpenOrders()
  t.equal(all.length, 5, 'the ask, the 0.40 bid and three batch bids')

  t.same(await maker.cancelOrder(signed[0]!.orderId), { canceled: [signed[0]!.orderId], not_canceled: {} })
  const two = await maker.cancelOrders([signed[1]!.orderId, signed[0]!.orderId])
  t.same(two.canceled, [signed[1]!.orderId])
  t.same(Object.keys(two.not_canceled), [signed[0]!.orderId], 'an ended order is reported, not cancelled twice')
  const listing = await maker.orders({ status: 'canceled' })
  t.same(listing.data.map((o) => o.id).sort(), [signed[0]!.orderId, signed[1]!.orderId].sort())
  const rest = await maker.cancelAll()
  t.equal(rest.canceled.length, 3)
  t.same((await maker.openOrders()).data, [])
  const account = await server.account(makerWallet.address.toLowerCase())
  t.equal(account.heldMicros, 0, 'every hold is released')
})
