/**
 * Contract of trading, face-neutral, the reads: an order after it ended, the open orders
 * (pagination, filters, available_usdc), the trades, the client listing, the dry run, and every
 * read again after a restart. The placements and cancels are in trading.ts; the story in
 * trading-story.ts.
 */
import { signLimitOrder } from '../../../src/client/orders.js'
import { ANONYMOUS, nowSec, orderRequest, termsOf, USDC, type ContractCase, type Trader } from '../../support/driver.js'
import { LISTING_KEYS, tampered, settled, Story } from './trading-story.js'

export const tradingReadCases: readonly ContractCase[] = [
  {
    name: 'GET /data/order/:id: every order stays readable after it ended, with its status and fills',
    async run(t, d) {
      const s = await Story.cast(d)
      await s.trades()
      await s.restingBids()
      await s.cancelRestingBids()
      await s.bobCancelsAll()
      const { A1, B2, B3, FOK, D1, T1, T2, T3, alice, bob } = s
      s.checkOrderInfo(t, (await s.orderOf(alice, A1)).body,
        { id: A1, trader: alice, side: 'BUY', price: '0.4', original: '10', matched: '10', status: 'MATCHED', type: 'GTC', trades: [T1, T3] })
      s.checkOrderInfo(t, (await s.orderOf(alice, FOK)).body,
        { id: FOK, trader: alice, side: 'BUY', price: '0.6', original: '5', matched: '5', status: 'MATCHED', type: 'FOK', trades: [T2] })
      s.checkOrderInfo(t, (await s.orderOf(bob, B3)).body,
        { id: B3, trader: bob, side: 'SELL', price: '0.3', original: '10', matched: '6', status: 'CANCELED', type: 'FAK', trades: [T3] })
      s.checkOrderInfo(t, (await s.orderOf(bob, B2)).body,
        { id: B2, trader: bob, side: 'SELL', price: '0.6', original: '10', matched: '5', status: 'CANCELED', type: 'GTC', trades: [T2] })
      s.checkOrderInfo(t, (await s.orderOf(alice, D1)).body,
        { id: D1, trader: alice, side: 'BUY', price: '0.3', original: '5', matched: '0', status: 'CANCELED', type: 'GTC', trades: [] })

      const gtd = await s.goodTillDate()
      const GTD = s.GTD
      t.equal(gtd.body.status, 'live')
      s.checkOrderInfo(t, (await s.orderOf(alice, GTD)).body, { id: GTD, trader: alice, side: 'BUY', price: '0.1', original: '5', matched: '0',
        status: 'LIVE', type: 'GTD', expiration: String(s.gtdExpiration * 1000), trades: [] })

      const foreign = await s.orderOf(bob, A1)
      t.equal(foreign.status, 404, 'another trader\'s order')
      t.equal(foreign.body.code, 'ORDER_UNKNOWN')
      const unknown = await s.orderOf(alice, '0x' + '12'.repeat(32))
      t.equal(unknown.status, 404)
      t.equal(typeof unknown.body.error, 'string')
      const upper = await s.orderOf(alice, A1.toUpperCase().replace('0X', '0x'))
      t.equal(upper.body.id, A1, 'ids are case-insensitive')
      t.equal((await d.order(ANONYMOUS, A1)).status, 401)
    },
  },
  {
    name: 'GET /data/orders: the caller\'s open orders, paginated and filtered, with available_usdc',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, market2, alice, bob } = s
      await s.trades()
      await s.bobCancelsAll()
      await s.goodTillDate()
      for (const placed of await s.openBids()) t.equal(placed.body.status, 'live')
      const { A1, GTD, G } = s
      const open = [GTD, ...G]
      const all = await d.openOrders(alice)
      t.equal(all.status, 200)
      t.same(all.body.data.map((o: any) => o.id), open, 'open orders only, oldest first')
      t.equal(all.body.next_cursor, 'LTE=')
      t.equal(typeof all.body.available_usdc, 'string')
      t.equal(all.body.available_usdc, '990', '993 USDC less the 3 held (a decimal, as in /wallet-status)')
      const account = await d.account(alice.address)
      t.equal(account.heldMicros, 3 * USDC)
      s.checkOrderInfo(t, all.body.data[3], { id: G[2]!, trader: alice, outcome: 'No', side: 'BUY', price: '0.13', original: '5', matched: '0',
        status: 'LIVE', type: 'GTC', trades: [] })
      s.checkOrderInfo(t, all.body.data[4], { id: G[3]!, trader: alice, m: market2, side: 'BUY', price: '0.14', original: '5', matched: '0',
        status: 'LIVE', type: 'GTC', trades: [] })

      const pages: string[][] = []
      const cursors: string[] = []
      let cursor = 'MA=='
      while (cursor !== 'LTE=' && pages.length < 5) {
        const page = await d.openOrders(alice, { limit: 2, next_cursor: cursor })
        t.equal(page.status, 200)
        pages.push(page.body.data.map((o: any) => o.id))
        cursor = page.body.next_cursor
        cursors.push(cursor)
      }
      t.same(pages, [open.slice(0, 2), open.slice(2, 4), open.slice(4)])
      t.same(cursors, ['Mg==', 'NA==', 'LTE='])

      const ids = async (query: Record<string, string>) => (await d.openOrders(alice, query)).body.data.map((o: any) => o.id)
      t.same(await ids({ market: market.marketId }), open.slice(0, 4))
      t.same(await ids({ market: market.conditionId }), open.slice(0, 4), 'market by condition id')
      t.same(await ids({ market: market2.slug }), [G[3]], 'market by slug')
      t.same(await ids({ asset_id: market.noTokenId }), [G[2]])
      t.same(await ids({ id: G[1]! }), [G[1]])
      t.same(await ids({ id: A1 }), [], 'an ended order is not open')
      t.same(await ids({ market: market.marketId, asset_id: market2.yesTokenId }), [])
      const unknownMarket = await d.openOrders(alice, { market: 'nope' })
      t.equal(unknownMarket.status, 404)
      t.equal(unknownMarket.body.code, 'MARKET_NOT_FOUND')
      t.equal((await d.openOrders(alice, { limit: 0 })).status, 400)
      t.same((await d.openOrders(bob)).body.data, [], 'only the caller\'s orders')
      const unauthenticated = await d.openOrders(ANONYMOUS)
      t.equal(unauthenticated.status, 401, 'the seed: 401 when signature authentication fails')
      const badSignature = await d.openOrders({ forged: alice })
      t.equal(badSignature.status, 401)
      t.equal(badSignature.body.code, 'AUTH_SIGNATURE')
    },
  },
  {
    name: 'GET /data/orders: available_usdc is what the engine can hold: min(balance, allowance) - held',
    async run(t, d) {
      const s = await Story.cast(d)
      const dave = await d.trader()
      await d.command({ kind: 'credit', address: dave.address, usdcMicros: 10 * USDC, gasMicros: 0 })
      await d.command({ kind: 'approve', address: dave.address, usdcAllowanceMicros: 4 * USDC })
      t.equal((await d.openOrders(dave)).body.available_usdc, '4')
      const placed = await s.limit(dave, { side: 'BUY', price: '0.40', size: '5' }, 'GTC', false, s.market2)
      t.equal(placed.body.status, 'live')
      t.equal((await d.openOrders(dave)).body.available_usdc, '2', 'an order for more than 2 USDC would be refused')
      const refused = await s.limit(dave, { side: 'BUY', price: '0.41', size: '5' }, 'GTC', false, s.market2)
      t.equal(refused.body.code, 'INVALID_ORDER_NOT_ENOUGH_BALANCE')
      t.equal(refused.body.availableMicros, 2 * USDC, 'the engine agrees')
      const nobody = await d.trader()
      t.equal((await d.openOrders(nobody)).body.available_usdc, '0')
    },
  },
  {
    name: 'GET /data/trades: the caller\'s trades as taker or maker, paginated and filtered',
    async run(t, d) {
      const s = await Story.cast(d)
      await s.trades()
      const { market, market2, alice, bob, A1, B2, FOK, T1, T2, T3, startSec } = s
      const trades = await d.trades(alice)
      t.equal(trades.status, 200)
      t.equal(trades.body.next_cursor, 'LTE=')
      t.ok(Array.isArray(trades.body.data))
      t.same(trades.body.data.map((x: any) => x.id), [T1, T2, T3])
      t.same(trades.body.data.map((x: any) => x.trader_side), ['MAKER', 'TAKER', 'MAKER'])
      const t2 = trades.body.data[1]
      t.equal(t2.taker_order_id, FOK)
      t.equal(t2.market, market.marketId)
      t.equal(t2.asset_id, market.yesTokenId)
      t.equal(t2.side, 'BUY', 'the taker\'s side')
      t.equal(t2.size, '5')
      t.equal(t2.price, '0.6')
      t.equal(t2.outcome, 'Yes')
      t.equal(t2.owner, alice.credentials.apiKey)
      t.equal(t2.fee_rate_bps, '0')
      t.equal(typeof t2.status, 'string')
      t.match(t2.match_time, /^\d{10}$/, 'match_time: unix seconds as a string')
      t.ok(Number(t2.match_time) >= startSec - 1 && Number(t2.match_time) <= nowSec() + 1)
      t.same(t2.maker_orders, [{ order_id: B2, owner: bob.credentials.apiKey, maker_address: bob.address, matched_amount: '5', price: '0.6',
        fee_rate_bps: '0', asset_id: market.yesTokenId, outcome: 'Yes', side: 'SELL' }])
      const bobs = await d.trades(bob)
      t.same(bobs.body.data.map((x: any) => [x.id, x.trader_side]), [[T1, 'TAKER'], [T2, 'MAKER'], [T3, 'TAKER']])
      const t3 = bobs.body.data[2]
      t.equal(t3.side, 'SELL')
      t.equal(t3.size, '6')
      t.equal(t3.price, '0.4')
      t.same(t3.maker_orders.map((m: any) => [m.order_id, m.side, m.matched_amount]), [[A1, 'BUY', '6']])

      const first = await d.trades(alice, { limit: 2 })
      t.same(first.body.data.map((x: any) => x.id), [T1, T2])
      t.equal(first.body.next_cursor, 'Mg==')
      const second = await d.trades(alice, { limit: 2, next_cursor: first.body.next_cursor })
      t.same(second.body.data.map((x: any) => x.id), [T3])
      t.equal(second.body.next_cursor, 'LTE=')
      const ids = async (query: Record<string, string | number>) => (await d.trades(alice, query)).body.data.map((x: any) => x.id)
      t.same(await ids({ id: T2 }), [T2])
      t.same(await ids({ market: market.marketId }), [T1, T2, T3])
      t.same(await ids({ market: market2.marketId }), [])
      t.same(await ids({ asset_id: market.yesTokenId }), [T1, T2, T3])
      t.same(await ids({ asset_id: market.noTokenId }), [])
      t.same(await ids({ after: nowSec() + 10 }), [])
      t.same(await ids({ before: nowSec() + 10 }), [T1, T2, T3])
      t.same(await ids({ after: startSec - 10 }), [T1, T2, T3])
      t.same((await d.trades(await d.trader())).body, { limit: 100, count: 0, next_cursor: 'LTE=', data: [] })
      t.equal((await d.trades(ANONYMOUS)).status, 401)
    },
  },
  {
    name: 'GET /orders: the client listing, filtered by market_id and status',
    async run(t, d) {
      const s = await Story.cast(d)
      await s.everything()
      const { market, market2, alice, startSec, A1, FOK, R1, D1, D4, E1, E2, GTD, G } = s
      const listing = await d.orders(alice)
      t.equal(listing.status, 200)
      t.equal(listing.body.next_cursor, 'LTE=')
      const ended = [A1, FOK, R1, D1, D4, E1, E2]
      t.same(listing.body.data.map((o: any) => o.id).sort(), [...ended, GTD, ...G].sort(),
        'every order, ended ones too (rejected ones were never orders)')
      for (const order of listing.body.data) t.same(Object.keys(order).sort(), [...LISTING_KEYS].sort())
      const a1 = listing.body.data.find((o: any) => o.id === A1)
      t.same(a1, { id: A1, market_id: market.marketId, token_id: market.yesTokenId, outcome: 'Yes', side: 'BUY', price: '0.4', size: '10',
        size_remaining: '0', status: 'MATCHED', created_at: a1.created_at })
      t.ok(Number.isSafeInteger(a1.created_at) && a1.created_at >= startSec - 1)
      const g3 = listing.body.data.find((o: any) => o.id === G[2])
      t.same({ ...g3, created_at: 0 }, { id: G[2], market_id: market.marketId, token_id: market.noTokenId, outcome: 'No', side: 'BUY',
        price: '0.13', size: '5', size_remaining: '5', status: 'LIVE', created_at: 0 })

      const ids = async (query: Record<string, string>) => (await d.orders(alice, query)).body.data.map((o: any) => o.id).sort()
      t.same(await ids({ status: 'open' }), [GTD, ...G].sort())
      t.same(await ids({ status: 'OPEN' }), [GTD, ...G].sort(), 'status in any case')
      t.same(await ids({ status: 'matched' }), [A1, FOK].sort())
      t.same(await ids({ status: 'canceled' }), [R1, D1, D4, E1, E2].sort())
      t.same(await ids({ status: 'all' }), (await ids({})))
      t.same(await ids({ market_id: market2.marketId }), [G[3]])
      t.same(await ids({ market_id: market.marketId, status: 'open' }), [GTD, G[0], G[1], G[2]].sort())
      const bad = await d.orders(alice, { status: 'live' })
      t.equal(bad.status, 400)
      t.equal(bad.body.code, 'INVALID_PARAMETER')
      const page = await d.orders(alice, { limit: 4 })
      t.equal(page.body.data.length, 4)
      t.equal(page.body.next_cursor, 'NA==')
      t.equal((await d.orders(ANONYMOUS)).status, 401)
    },
  },
  {
    name: 'POST /order/verify: a dry run that reports each check and places nothing',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, alice, bob } = s
      const signed = signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.15', size: '5' })
      const body = orderRequest(signed, alice.credentials.apiKey, 'GTC')
      const heldBefore = (await d.account(alice.address)).heldMicros
      const ok = await d.verifyOrder(alice, body)
      t.equal(ok.status, 200)
      t.equal(ok.body.valid, true)
      t.equal(ok.body.orderID, signed.orderId)
      t.ok(Array.isArray(ok.body.checks) && ok.body.checks.length >= 4)
      t.same(ok.body.checks.map((c: any) => c.check), ['shape', 'ownership', 'market', 'signature', 'rules'])
      for (const check of ok.body.checks) {
        t.equal(check.ok, true)
        t.equal(typeof check.message, 'string')
      }
      t.equal((await s.orderOf(alice, signed.orderId)).status, 404, 'nothing placed')
      t.equal((await d.account(alice.address)).heldMicros, heldBefore, 'nothing held')
      t.equal((await d.placeOrder(alice, body)).body.status, 'live', 'the verified order can still be placed')

      const forged = await d.verifyOrder(alice, orderRequest(tampered(signed), alice.credentials.apiKey, 'GTC'))
      t.equal(forged.status, 200)
      t.equal(forged.body.valid, false)
      t.equal(forged.body.orderID, null)
      t.same(forged.body.checks.map((c: any) => [c.check, c.ok]), [['shape', true], ['ownership', true], ['market', true], ['signature', false]])
      const foreign = await d.verifyOrder(bob, body)
      t.equal(foreign.body.valid, false)
      t.same(foreign.body.checks.find((c: any) => c.check === 'ownership')?.ok, false)
      const shapeless = await d.verifyOrder(alice, { order: {} })
      t.equal(shapeless.body.valid, false)
      t.same(shapeless.body.checks.map((c: any) => [c.check, c.ok]), [['shape', false]])
      t.equal((await d.verifyOrder(ANONYMOUS, body)).status, 401)

      // A well-signed order that breaks a market rule: the dry run names the rule and its code.
      const offTick = signLimitOrder(alice.wallet, { ...termsOf(market), tickSize: '0.001' },
        { tokenId: market.yesTokenId, side: 'BUY', price: '0.155', size: '5' })
      const ruled = await d.verifyOrder(alice, orderRequest(offTick, alice.credentials.apiKey, 'GTC'))
      t.equal(ruled.body.valid, false)
      t.same(ruled.body.checks.map((c: any) => [c.check, c.ok]),
        [['shape', true], ['ownership', true], ['market', true], ['signature', true], ['rules', false]])
      t.equal(ruled.body.checks[4].code, 'INVALID_ORDER_MIN_TICK_SIZE')
    },
  },
  {
    name: 'GET /data/trades: a malformed time filter is a 400, not an empty list',
    async run(t, d) {
      const alice = await d.trader(1_000 * USDC)
      for (const [key, value] of [['before', 'abc'], ['after', '1.5'], ['before', '-1']] as const) {
        const query = `${key}=${value}`
        const answer = await d.trades(alice, { [key]: value })
        t.equal(answer.status, 400, query)
        t.equal(answer.body.code, 'INVALID_PARAMETER', query)
      }
    },
  },
  {
    name: 'after a restart: orders (ended ones too), trades, books and balances read the same',
    async run(t, d) {
      const s = await Story.cast(d)
      await s.everything()
      const { market, alice, bob, A1, FOK, B3, E2, GTD } = s
      const reads = async () => ({
        orders: await Promise.all([[alice, A1], [alice, FOK], [bob, B3], [alice, E2], [alice, GTD]].map(async ([trader, id]) =>
          (await d.order(trader as Trader, id as string)).body)),
        trades: (await d.trades(bob)).body,
        open: (await d.openOrders(alice)).body,
        listing: (await d.orders(alice)).body,
        book: { ...(await d.tokenRead('unifiedBook', { token_id: market.noTokenId })).body, timestamp: '', hash: '' },
        balance: (await d.balance(alice, { asset_type: 'COLLATERAL' })).body,
      })
      // On a real chain trades settle after they match: read once they have, or the restart is not what changed them.
      if (d.chain === 'local') await settled(d, bob)
      const before = await reads()
      t.equal(before.orders[0].status, 'MATCHED')
      await d.restart()
      const after = await reads()
      t.same(after, before)
    },
  },
]
