/**
 * Contract of trading, face-neutral (seed: OrderInfo, OrdersResponse, the trading endpoints;
 * api.md: "trading"): place one order, a batch (each order on its own), cancel one, several or
 * all; then the reads (trading-reads.ts): an order after it ended, the open orders, the trades,
 * the client listing, the dry run. `tradingCases` runs them all, in that order.
 *
 * Each case sets up its own state on its own markets and wallets: a `Story` replays the steps of
 * the trading story a case needs (a resting bid, a crossing ask, FOK and FAK fills, cancels...),
 * each step checking only that it went as the story needs; the case then asserts. Balances are
 * checked exactly, in micro-units.
 */
import { signLimitOrder } from '../../../src/client/orders.js'
import { ANONYMOUS, orderRequest, termsOf, USDC, type ContractCase } from '../../support/driver.js'
import { PLACED_KEYS, tampered, Story } from './trading-story.js'
import { tradingReadCases } from './trading-reads.js'

export const tradingCases: readonly ContractCase[] = [
  {
    name: 'POST /order: a resting order answers live, with the placement fields and order_id',
    async run(t, d) {
      const s = await Story.cast(d)
      const placed = await s.restingBid()
      const A1 = s.A1
      t.equal(placed.status, 200)
      for (const key of PLACED_KEYS) t.ok(key in placed.body, `has ${key}`)
      t.equal(placed.body.success, true)
      t.equal(placed.body.errorMsg, '')
      t.equal(placed.body.order_id, A1, 'order_id: the order hash')
      t.equal(placed.body.orderID, A1)
      t.equal(placed.body.status, 'live')
      t.equal(placed.body.makingAmount, '')
      t.equal(placed.body.takingAmount, '')
      t.same(placed.body.transactionsHashes, [])
      t.same(placed.body.tradeIDs, [])
      const account = await d.account(s.alice.address)
      t.equal(account.usdcMicros, 1_000 * USDC)
      t.equal(account.heldMicros, 4 * USDC, '10 x 0.40 held')
      const info = await s.orderOf(s.alice, A1)
      t.equal(info.status, 200)
      s.checkOrderInfo(t, info.body,
        { id: A1, trader: s.alice, side: 'BUY', price: '0.4', original: '10', matched: '0', status: 'LIVE', type: 'GTC', trades: [] })
    },
  },
  {
    name: 'POST /order: a crossing order matches at the maker\'s price; balances move exactly',
    async run(t, d) {
      const s = await Story.cast(d)
      await s.restingBid()
      const placed = await s.crossingAsk()
      const { A1, B1, market, alice, bob } = s
      t.equal(placed.status, 200)
      t.equal(placed.body.success, true)
      t.equal(placed.body.status, 'matched')
      t.equal(placed.body.makingAmount, '4', 'gave 4 shares')
      t.equal(placed.body.takingAmount, '1.6', 'got 1.6 USDC')
      t.equal(placed.body.tradeIDs.length, 1)
      const T1 = placed.body.tradeIDs[0]
      t.equal(typeof T1, 'string')
      const a = await d.account(alice.address)
      t.equal(a.usdcMicros, 998_400_000)
      t.equal(a.heldMicros, 2_400_000)
      t.equal(a.shares.get(market.yesTokenId), 4 * USDC)
      const b = await d.account(bob.address)
      t.equal(b.usdcMicros, 801_600_000)
      t.equal(b.shares.get(market.yesTokenId), 196 * USDC)
      s.checkOrderInfo(t, (await s.orderOf(alice, A1)).body,
        { id: A1, trader: alice, side: 'BUY', price: '0.4', original: '10', matched: '4', status: 'LIVE', type: 'GTC', trades: [T1] })
      s.checkOrderInfo(t, (await s.orderOf(bob, B1)).body,
        { id: B1, trader: bob, side: 'SELL', price: '0.4', original: '4', matched: '4', status: 'MATCHED', type: 'GTC', trades: [T1] })
    },
  },
  {
    name: 'POST /order: post-only, FOK and FAK behave as the seed says; every rejection is {error, code}',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, alice, bob } = s
      await s.restingBid()
      await s.crossingAsk()
      const ask = await s.restingAsk()
      t.equal(ask.body.status, 'live')

      const postOnly = await s.limit(alice, { side: 'BUY', price: '0.60', size: '5' }, 'GTC', true)
      t.equal(postOnly.status, 400, 'a post-only order that would match is rejected')
      t.equal(postOnly.body.code, 'INVALID_POST_ONLY_ORDER')
      t.equal(typeof postOnly.body.error, 'string')
      t.equal((await s.orderOf(alice, postOnly.signed.orderId)).status, 404, 'a rejected order was never placed')

      const fokTooBig = await s.marketOrder(alice, 'BUY', '100', '0.60', 'FOK')
      t.equal(fokTooBig.status, 400, 'a FOK order that cannot fill entirely is rejected')
      t.equal(fokTooBig.body.code, 'FOK_ORDER_NOT_FILLED')
      const fok = await s.fillOrKill()
      t.equal(fok.status, 200)
      t.equal(fok.body.status, 'matched')
      t.equal(fok.body.makingAmount, '3', 'spent 3 USDC')
      t.equal(fok.body.takingAmount, '5', 'got 5 shares at 0.60')
      t.equal(fok.body.tradeIDs.length, 1)

      const fak = await s.fillAndKill()
      t.equal(fak.status, 200)
      t.equal(fak.body.success, true)
      t.equal(fak.body.status, 'matched', 'partly filled: matched, the rest cancelled')
      t.equal(fak.body.makingAmount, '6', 'sold the 6 shares bid')
      t.equal(fak.body.takingAmount, '2.4')
      const fakNone = await s.marketOrder(alice, 'BUY', '1', '0.10', 'FAK')
      t.equal(fakNone.status, 400)
      t.equal(fakNone.body.code, 'FAK_ORDER_NOT_FILLED')

      const a = await d.account(alice.address)
      t.equal(a.usdcMicros, 993 * USDC, '1000 - 1.6 - 3 - 2.4')
      t.equal(a.heldMicros, 0)
      t.equal(a.shares.get(market.yesTokenId), 15 * USDC)
      const b = await d.account(bob.address)
      t.equal(b.usdcMicros, 807 * USDC, '800 + 1.6 + 3 + 2.4')
      t.equal(b.shares.get(market.yesTokenId), 185 * USDC)
    },
  },
  {
    name: 'POST /order: other rejections with their status and code',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, alice, bob } = s
      const poor = await d.trader(1 * USDC)
      const broke = await s.limit(poor, { side: 'BUY', price: '0.50', size: '10' })
      t.equal(broke.status, 400)
      t.equal(broke.body.code, 'INVALID_ORDER_NOT_ENOUGH_BALANCE')
      t.equal(broke.body.requiredMicros, 5 * USDC, 'context: what it needs')
      t.equal(broke.body.availableMicros, 1 * USDC, 'context: what is available')
      t.equal(broke.body.heldMicros, 0)
      t.match(broke.body, { shortOf: 'balance', missingMicros: 4 * USDC, fix: /POST \/faucet/ }, 'context: the fix')

      // A new wallet has no allowance, as on a chain: the refusal names the approve that mends it.
      const unapproved = await d.trader()
      await d.command({ kind: 'credit', address: unapproved.address, usdcMicros: 100 * USDC, gasMicros: 0 })
      await d.command({ kind: 'approve', address: unapproved.address, usdcAllowanceMicros: 2 * USDC })
      const short = await s.limit(unapproved, { side: 'BUY', price: '0.50', size: '10' })
      t.equal(short.body.code, 'INVALID_ORDER_NOT_ENOUGH_BALANCE')
      t.equal(short.body.error, 'not enough balance / allowance', "Polymarket's message, which clients match on")
      t.match(short.body, { shortOf: 'allowance', missingMicros: 3 * USDC, balanceMicros: 100 * USDC,
        allowanceMicros: 2 * USDC, fix: /POST \/relay \(action "approve".* for at least 5000000 micro-USDC/ })

      const first = signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.05', size: '5' })
      const body = orderRequest(first, alice.credentials.apiKey, 'GTC')
      t.equal((await d.placeOrder(alice, body)).status, 200)
      const again = await d.placeOrder(alice, body)
      t.equal(again.status, 409, 'the same signed order twice')
      t.equal(again.body.code, 'INVALID_ORDER_DUPLICATED')
      t.equal((await d.cancelOrder(alice, { orderID: first.orderId })).body.canceled[0], first.orderId)

      const signed = signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.06', size: '5' })
      const notOwner = await d.placeOrder(alice, orderRequest(signed, bob.credentials.apiKey, 'GTC'))
      t.equal(notOwner.status, 403)
      t.equal(notOwner.body.code, 'NOT_OWNER')
      const bobSends = await d.placeOrder(bob, orderRequest(signed, bob.credentials.apiKey, 'GTC'))
      t.equal(bobSends.status, 403, 'the signer must be the key\'s address')
      t.equal(bobSends.body.code, 'NOT_OWNER')
      const badSignature = await d.placeOrder(alice, orderRequest(tampered(signed), alice.credentials.apiKey, 'GTC'))
      t.equal(badSignature.status, 400)
      t.equal(badSignature.body.code, 'INVALID_SIGNATURE')
      t.equal(typeof badSignature.body.check, 'string', 'names the check that failed')
      const unsigned = await d.placeOrder(ANONYMOUS, orderRequest(signed, alice.credentials.apiKey, 'GTC'))
      t.equal(unsigned.status, 401, 'no L2 headers')
      t.equal(typeof unsigned.body.code, 'string')
      t.equal(typeof unsigned.body.error, 'string')

      const offTick = signLimitOrder(alice.wallet, { ...termsOf(market), tickSize: '0.001' },
        { tokenId: market.yesTokenId, side: 'BUY', price: '0.405', size: '10' })
      const tick = await d.placeOrder(alice, orderRequest(offTick, alice.credentials.apiKey, 'GTC'))
      t.equal(tick.status, 400)
      t.equal(tick.body.code, 'INVALID_ORDER_MIN_TICK_SIZE')
      const unknownToken = signLimitOrder(alice.wallet, termsOf(market), { tokenId: '77', side: 'BUY', price: '0.40', size: '10' })
      const unknown = await d.placeOrder(alice, orderRequest(unknownToken, alice.credentials.apiKey, 'GTC'))
      t.equal(unknown.status, 404)
      t.equal(unknown.body.code, 'TOKEN_NOT_FOUND')
      const malformed = await d.placeOrder(alice, { order: { side: 'BUY' }, owner: alice.credentials.apiKey, orderType: 'GTC' })
      t.equal(malformed.status, 400)
      t.equal(malformed.body.code, 'INVALID_ORDER_PAYLOAD')

      const upcoming = await d.createMarket({ status: 'Upcoming' })
      const early = await s.limit(alice, { side: 'BUY', price: '0.40', size: '10' }, 'GTC', false, upcoming)
      t.equal(early.status, 400)
      t.equal(early.body.code, 'MARKET_NOT_READY')
      const paused = await d.createMarket()
      await d.command({ kind: 'setMarketStatus', marketId: paused.marketId, status: 'Paused' })
      const cancelOnly = await s.limit(alice, { side: 'BUY', price: '0.40', size: '10' }, 'GTC', false, paused)
      t.equal(cancelOnly.status, 503)
      t.equal(cancelOnly.body.code, 'MARKET_CANCEL_ONLY')
    },
  },
  {
    name: 'POST /orders: a batch where each order stands alone; total_successful and total_failed',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, alice } = s
      const sign = (price: string, postOnly = false) => {
        const signed = signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price, size: '5' })
        return { signed, item: orderRequest(signed, alice.credentials.apiKey, 'GTC', postOnly) }
      }
      // Bob's ask at 0.60 makes the post-only bid at 0.60 one that would match.
      await s.restingAsk()
      const d1 = sign('0.30')
      const d2 = sign('0.31')
      const d3 = sign('0.60', true)
      const d4 = sign('0.31')
      const D1 = d1.signed.orderId
      const D4 = d4.signed.orderId
      const broken = orderRequest(tampered(d2.signed), alice.credentials.apiKey, 'GTC')
      const batch = await d.placeOrders(alice, [d1.item, broken, d3.item, d4.item, d1.item, 42])
      t.equal(batch.status, 200)
      t.same(Object.keys(batch.body).sort(), ['results', 'total_failed', 'total_successful'])
      t.equal(batch.body.total_successful, 2)
      t.equal(batch.body.total_failed, 4)
      const results = batch.body.results
      t.equal(results.length, 6, 'one result per order, in order')
      t.equal(results[0].success, true)
      t.equal(results[0].order_id, D1)
      t.equal(results[0].status, 'live')
      t.equal(results[1].success, false)
      t.equal(results[1].code, 'INVALID_SIGNATURE')
      t.ok(results[1].errorMsg.length > 0, 'errorMsg says why')
      t.equal(results[2].success, false)
      t.equal(results[2].code, 'INVALID_POST_ONLY_ORDER')
      t.equal(results[2].orderID, d3.signed.orderId)
      t.equal(results[3].success, true)
      t.equal(results[3].orderID, D4)
      t.equal(results[4].success, false)
      t.equal(results[4].code, 'INVALID_ORDER_DUPLICATED')
      t.equal(results[5].success, false, 'not even an order: fails alone')
      t.equal(typeof results[5].code, 'string')
      t.ok(results[5].errorMsg.length > 0)
      for (const result of results) {
        t.equal(typeof result.success, 'boolean')
        t.equal(typeof result.errorMsg, 'string')
        t.equal(typeof result.orderID, 'string')
      }
      t.same((await d.tokenRead('book', { token_id: market.yesTokenId })).body.bids, [{ price: '0.3', size: '5' }, { price: '0.31', size: '5' }],
        'the two good orders rest')
      t.equal((await d.account(alice.address)).heldMicros, 3_050_000)

      const empty = await d.placeOrders(alice, [])
      t.equal(empty.status, 200)
      t.same(empty.body, { total_successful: 0, total_failed: 0, results: [] })
      const tooMany = await d.placeOrders(alice, Array.from({ length: 11 }, () => sign('0.20').item))
      t.equal(tooMany.status, 400, 'at most 10 orders')
      t.equal(tooMany.body.code, 'BATCH_TOO_LARGE')
      t.equal((await d.account(alice.address)).heldMicros, 3_050_000, 'nothing of a refused batch was placed')
      const notArray = await d.placeOrders(alice, d1.item)
      t.equal(notArray.status, 400)
      t.equal(notArray.body.code, 'INVALID_PARAMETER')
    },
  },
  {
    name: 'DELETE /order, DELETE /orders, DELETE /cancel-all: canceled ids and not_canceled reasons',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, alice, bob } = s
      await s.trades()
      await s.restingBids()
      const { A1, B2, D1, D4 } = s
      const one = await d.cancelOrder(alice, { orderID: D1 })
      t.equal(one.status, 200)
      t.same(one.body, { canceled: [D1], not_canceled: {} })
      const twice = await d.cancelOrder(alice, { orderId: D1 })
      t.same(twice.body, { canceled: [], not_canceled: { [D1]: 'the order is already canceled' } }, 'orderId accepted too')
      const foreign = await d.cancelOrder(bob, { orderID: D4 })
      t.same(foreign.body, { canceled: [], not_canceled: { [D4]: 'Order not found or already canceled' } }, 'not someone else\'s order')
      t.equal((await s.orderOf(alice, D4)).body.status, 'LIVE')
      const matched = await d.cancelOrder(alice, { orderID: A1 })
      t.same(matched.body, { canceled: [], not_canceled: { [A1]: 'Order already matched' } })
      for (const bad of [{ orderID: 'abc' }, {}, { orderID: 12 }]) {
        const response = await d.cancelOrder(alice, bad)
        t.equal(response.status, 400, JSON.stringify(bad))
        t.equal(response.body.code, 'INVALID_PARAMETER')
      }

      const unknown = '0x' + 'ab'.repeat(32)
      const several = await d.cancelOrders(alice, [D4, unknown, D4])
      t.equal(several.status, 200)
      t.same(several.body, { canceled: [D4], not_canceled: { [unknown]: 'Order not found or already canceled' } })
      const tooMany = await d.cancelOrders(alice, Array.from({ length: 1001 }, () => unknown))
      t.equal(tooMany.status, 400)
      t.equal(tooMany.body.code, 'CANCEL_TOO_MANY')
      t.equal((await d.cancelOrders(alice, { orderID: D4 })).status, 400, 'the body is an array')

      const e = [signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.20', size: '5' }),
        signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.noTokenId, side: 'BUY', price: '0.20', size: '5' })]
      const E1 = e[0]!.orderId
      const E2 = e[1]!.orderId
      const placed = await d.placeOrders(alice, e.map((signed) => orderRequest(signed, alice.credentials.apiKey, 'GTC')))
      t.equal(placed.body.total_successful, 2)
      t.equal((await d.account(alice.address)).heldMicros, 2 * USDC)
      const all = await d.cancelAll(alice)
      t.equal(all.status, 200)
      t.same(all.body, { canceled: [E1, E2], not_canceled: {} }, 'oldest first')
      t.equal((await d.account(alice.address)).heldMicros, 0, 'holds released')
      t.same((await d.cancelAll(alice)).body, { canceled: [], not_canceled: {} })
      t.same((await d.cancelAll(bob)).body, { canceled: [B2], not_canceled: {} }, 'only the caller\'s orders')
      const info = await s.orderOf(alice, E2)
      s.checkOrderInfo(t, info.body,
        { id: E2, trader: alice, outcome: 'No', side: 'BUY', price: '0.2', original: '5', matched: '0', status: 'CANCELED', type: 'GTC', trades: [] })
      t.equal((await d.cancelAll(ANONYMOUS)).status, 401)
    },
  },
  ...tradingReadCases,
]
