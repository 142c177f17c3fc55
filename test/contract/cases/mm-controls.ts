/**
 * Contract of the market-maker controls, face-neutral (issue 31; docs/rest.md and docs/grpc.md):
 * amend (lower an open order's size, keeping its place in the queue) and cancel-replace (cancel
 * an open order and place a signed one in its stead, in one engine command). The same cases run
 * over REST (test/contract/mm-controls.test.ts) and gRPC (test/contract/grpc/mm-controls.test.ts).
 */
import { signLimitOrder, type LimitOrder } from '../../../src/client/orders.js'
import type { MarketRecord } from '../../../src/engine/event.js'
import { orderRequest, placeOn, termsOf, USDC, type ContractCase, type Driver, type OrderGroupCall, type Trader }
  from '../../support/driver.js'

interface Cast {
  readonly market: MarketRecord
  readonly alice: Trader
  readonly bob: Trader
  readonly carol: Trader
}

/** A market with a 1-share minimum; Alice and Carol with 1 000 USDC, Bob with 200 Yes and No to sell. */
async function cast(d: Driver): Promise<Cast> {
  const market = await d.createMarket({ minOrderSizeMicros: 1 * USDC })
  const alice = await d.trader(1_000 * USDC)
  const bob = await d.trader(1_000 * USDC)
  const carol = await d.trader(1_000 * USDC)
  await d.command({ kind: 'split', address: bob.address, marketId: market.marketId, amountMicros: 200 * USDC })
  return { market, alice, bob, carol }
}

async function bid(d: Driver, trader: Trader, market: MarketRecord, price: string, size: string): Promise<string> {
  const placed = await placeOn(d, trader, market, { side: 'BUY', price, size })
  if (placed.status !== 200 || placed.body.status !== 'live') throw new Error(`bid: ${JSON.stringify(placed.body)}`)
  return placed.body.order_id as string
}

/** POST /order's body for a new limit order of `trader` on the Yes token, and the order to cancel. */
function replaceRequest(trader: Trader, market: MarketRecord, orderId: string, order: Omit<LimitOrder, 'tokenId'>,
  postOnly = false): Record<string, unknown> {
  const signed = signLimitOrder(trader.wallet, termsOf(market), { tokenId: market.yesTokenId, ...order })
  return { ...(orderRequest(signed, trader.credentials.apiKey, 'GTC', postOnly) as object), orderID: orderId }
}

/** A signed limit order's POST /order body with a self-trade prevention mode (none: the field left out). */
function stpRequest(trader: Trader, market: MarketRecord, order: Omit<LimitOrder, 'tokenId'>, mode?: string): unknown {
  const signed = signLimitOrder(trader.wallet, termsOf(market), { tokenId: market.yesTokenId, ...order })
  const body = orderRequest(signed, trader.credentials.apiKey) as object
  return mode === undefined ? body : { ...body, selfTradePrevention: mode }
}

export const mmControlCases: readonly ContractCase[] = [
  {
    name: 'POST /order selfTradePrevention: CANCEL_MAKER (the default), CANCEL_TAKER and CANCEL_BOTH',
    async run(t, d) {
      const { market, alice, bob } = await cast(d)
      await d.command({ kind: 'split', address: alice.address, marketId: market.marketId, amountMicros: 50 * USDC })
      const ask = async (trader: Trader, price: string, size: string) =>
        (await placeOn(d, trader, market, { side: 'SELL', price, size })).body.order_id as string
      const status = async (trader: Trader, id: string) => (await d.order(trader, id)).body.status as string
      const buy = { side: 'BUY' as const, price: '0.42', size: '4' }
      for (const [mode, ownAsk, taker] of [[undefined, 'CANCELED', 'MATCHED'], ['CANCEL_MAKER', 'CANCELED', 'MATCHED'],
        ['CANCEL_TAKER', 'LIVE', 'CANCELED'], ['CANCEL_BOTH', 'CANCELED', 'CANCELED']] as const) {
        // Bob's 0.40 x 2 first, then Alice's own ask at 0.41, then Bob's 0.42 x 2.
        await ask(bob, '0.40', '2')
        const own = await ask(alice, '0.41', '3')
        await ask(bob, '0.42', '2')
        const placed = await d.placeOrder(alice, stpRequest(alice, market, buy, mode))
        t.equal(placed.status, 200, String(mode))
        t.equal(await status(alice, own), ownAsk, `${mode ?? 'absent'}: her own ask ${ownAsk}`)
        t.match((await d.order(alice, placed.body.order_id)).body, { status: taker, size_matched: mode === undefined ||
          mode === 'CANCEL_MAKER' ? '4' : '2' }, `${mode ?? 'absent'}: her buy ${taker}`)
        await d.cancelAll(alice)
        await d.cancelAll(bob)
      }
      const bad = await d.placeOrder(alice, stpRequest(alice, market, buy, 'CANCEL_NEWEST'))
      t.equal(bad.status, 400)
      t.match(bad.body, { code: 'INVALID_ORDER_PAYLOAD', field: 'selfTradePrevention' })
    },
  },
  {
    name: 'GET /data/order/:id and /data/orders: queue_ahead, the shares that fill before an open order',
    async run(t, d) {
      const { market, alice, bob, carol } = await cast(d)
      const first = await bid(d, carol, market, '0.40', '7')
      const mine = await bid(d, alice, market, '0.40', '5')
      // A No ask at 0.60 is a bid at 0.40 in the unified book: the same queue, behind Alice.
      const no = await placeOn(d, bob, market, { side: 'SELL', price: '0.60', size: '4', outcome: 'No' })
      t.equal(no.body.status, 'live')
      t.equal((await d.order(alice, mine)).body.queue_ahead, '7', 'Carol\'s 7 are ahead')
      t.equal((await d.order(bob, no.body.order_id)).body.queue_ahead, '12', 'Carol\'s 7 and Alice\'s 5')
      t.equal((await d.order(carol, first)).body.queue_ahead, '0')
      // Bob sells 3 Yes at 0.40: filled against Carol first.
      await placeOn(d, bob, market, { side: 'SELL', price: '0.40', size: '3' })
      t.equal((await d.order(alice, mine)).body.queue_ahead, '4')
      const amended = await d.amendOrder(carol, { orderID: first, new_size: '1' })
      t.equal(amended.status, 200)
      const open = await d.openOrders(alice)
      t.same(open.body.data.map((o: { id: string; queue_ahead: string }) => [o.id, o.queue_ahead]), [[mine, '1']],
        'the listing says the same, after an amend ahead')
      await d.cancelOrder(alice, { orderID: mine })
      t.equal((await d.order(alice, mine)).body.queue_ahead, null, 'an ended order has no place')
    },
  },
  {
    name: 'POST /order/amend: new_size and reduce_by lower an open order; it keeps its place in the queue',
    async run(t, d) {
      const { market, alice, bob, carol } = await cast(d)
      const first = await bid(d, alice, market, '0.40', '10')
      const second = await bid(d, carol, market, '0.40', '10')
      const amended = await d.amendOrder(alice, { orderID: first, new_size: '6' })
      t.equal(amended.status, 200)
      t.match(amended.body, { success: true, order_id: first, size_matched: '0', size_remaining: '6', reduced_by: '4' })
      t.equal(typeof amended.body.engine_seq, 'number')
      t.equal((await d.account(alice.address)).heldMicros, 2_400_000, 'the hold shrank to 6 x 0.40')
      const by = await d.amendOrder(alice, { orderID: first, reduce_by: '1.5' })
      t.match(by.body, { success: true, size_remaining: '4.5', reduced_by: '1.5' })
      // Bob sells 6: Alice's 4.5 first (she kept her place), then 1.5 of Carol's.
      await placeOn(d, bob, market, { side: 'SELL', price: '0.40', size: '6' })
      t.match((await d.order(alice, first)).body, { status: 'MATCHED', size_matched: '4.5' })
      t.match((await d.order(carol, second)).body, { status: 'LIVE', size_matched: '1.5' })
      const open = await d.openOrders(alice)
      t.same(open.body.data, [], 'nothing of Alice rests')
    },
  },
  {
    name: 'POST /order/amend: refusals name the fix; only a lower size of an own open order is an amend',
    async run(t, d) {
      const { market, alice, bob } = await cast(d)
      const id = await bid(d, alice, market, '0.40', '10')
      const refusals: [string, Record<string, unknown>, number, string][] = [
        ['both sizes', { orderID: id, new_size: '5', reduce_by: '1' }, 400, 'AMEND_SIZE_INVALID'],
        ['no size', { orderID: id }, 400, 'AMEND_SIZE_INVALID'],
        ['a size off the 0.01 grid', { orderID: id, new_size: '5.005' }, 400, 'AMEND_SIZE_INVALID'],
        ['a larger size', { orderID: id, new_size: '12' }, 400, 'AMEND_NOT_REDUCING'],
        ['reduce by all of it', { orderID: id, reduce_by: '10' }, 400, 'AMEND_NOT_REDUCING'],
        ['not a decimal', { orderID: id, new_size: 'five' }, 400, 'INVALID_PARAMETER'],
      ]
      for (const [what, request, status, code] of refusals) {
        const answer = await d.amendOrder(alice, request)
        t.equal(answer.status, status, what)
        t.equal(answer.body.code, code, what)
        if (code === 'AMEND_NOT_REDUCING') t.match(answer.body.error, /cancel-replace/, `${what}: says what to do instead`)
      }
      const other = await d.amendOrder(bob, { orderID: id, new_size: '5' })
      t.equal(other.body.code, 'ORDER_NOT_FOUND', "another trader's order is not found")
      t.equal((await d.account(alice.address)).heldMicros, 4 * USDC, 'nothing changed')
      const canceled = await d.cancelOrder(alice, { orderID: id })
      t.same(canceled.body.canceled, [id])
      const ended = await d.amendOrder(alice, { orderID: id, new_size: '5' })
      t.equal(ended.body.code, 'ORDER_ALREADY_CANCELED')
    },
  },
  {
    name: 'POST /order/replace: the old order is cancelled and the new one placed, in one command',
    async run(t, d) {
      const { market, alice } = await cast(d)
      const old = await bid(d, alice, market, '0.40', '10')
      const replaced = await d.replaceOrder(alice, replaceRequest(alice, market, old, { side: 'BUY', price: '0.45', size: '20' }))
      t.equal(replaced.status, 200)
      t.match(replaced.body, { canceled: { order_id: old, size_remaining: '10' },
        placement: { success: true, status: 'live' } })
      const newId = replaced.body.placement.order_id as string
      t.not(newId, old)
      t.match((await d.order(alice, old)).body, { status: 'CANCELED' })
      t.match((await d.order(alice, newId)).body, { status: 'LIVE', original_size: '20' })
      t.equal((await d.account(alice.address)).heldMicros, 9 * USDC, 'only the new order holds: 20 x 0.45')
    },
  },
  {
    name: 'POST /order/replace: a filled old order refuses the whole request and places nothing',
    async run(t, d) {
      const { market, alice, bob } = await cast(d)
      const old = await bid(d, alice, market, '0.40', '5')
      await placeOn(d, bob, market, { side: 'SELL', price: '0.40', size: '5' })
      const before = await d.engineState()
      const refused = await d.replaceOrder(alice, replaceRequest(alice, market, old, { side: 'BUY', price: '0.41', size: '5' }))
      t.equal(refused.status, 400)
      t.equal(refused.body.code, 'ORDER_ALREADY_MATCHED')
      t.same((await d.openOrders(alice)).body.data, [], 'no new order rests')
      t.same(await d.engineState(), before, 'nothing was journaled')
      const unknown = await d.replaceOrder(bob, replaceRequest(bob, market, old, { side: 'BUY', price: '0.41', size: '5' }))
      t.equal(unknown.body.code, 'ORDER_NOT_FOUND', "another trader's order is not found")
    },
  },
  {
    name: 'POST /order/replace: a new order the book refuses leaves the old one cancelled, and the answer says both',
    async run(t, d) {
      const { market, alice, bob } = await cast(d)
      const old = await bid(d, alice, market, '0.40', '5')
      await placeOn(d, bob, market, { side: 'SELL', price: '0.50', size: '5' })
      const crossing = await d.replaceOrder(alice,
        replaceRequest(alice, market, old, { side: 'BUY', price: '0.50', size: '5' }, true))
      t.equal(crossing.status, 200)
      t.match(crossing.body, { canceled: { order_id: old, size_remaining: '5' },
        placement: { success: false, code: 'INVALID_POST_ONLY_ORDER' } })
      t.match((await d.order(alice, old)).body, { status: 'CANCELED' })
      t.equal((await d.account(alice.address)).heldMicros, 0)
    },
  },
  {
    name: 'POST /quotes: a ladder set in one request; resting levels sent again keep their place, unsent ones are cancelled',
    async run(t, d) {
      const { market, alice, bob, carol } = await cast(d)
      const signed = (side: 'BUY' | 'SELL', price: string, size = '10') =>
        signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side, price, size })
      const body = (orders: readonly ReturnType<typeof signed>[]) =>
        ({ market: market.marketId, orders: orders.map((o) => orderRequest(o, alice.credentials.apiKey)) })
      const [b40, b39, a60, a61] = [signed('BUY', '0.40'), signed('BUY', '0.39'), signed('SELL', '0.60'),
        signed('SELL', '0.61')]
      await d.command({ kind: 'split', address: alice.address, marketId: market.marketId, amountMicros: 100 * USDC })
      const first = await d.massQuote(alice, body([b40, b39, a60, a61]))
      t.equal(first.status, 200)
      t.same(first.body.canceled, [])
      t.same(first.body.levels.map((l: { outcome: string }) => l.outcome), ['placed', 'placed', 'placed', 'placed'])
      t.equal(typeof first.body.engine_seq, 'number')
      const [idB40, idB39, idA60, idA61] = first.body.levels.map((l: { order_id: string }) => l.order_id)
      // Carol bids 0.40 behind Alice; Alice moves her 0.39 bid to 0.38 and drops the 0.61 ask.
      await placeOn(d, carol, market, { side: 'BUY', price: '0.40', size: '5' })
      const b38 = signed('BUY', '0.38')
      const second = await d.massQuote(alice, body([b40, b38, a60]))
      t.equal(second.status, 200)
      t.same(second.body.canceled, [idB39, idA61], 'the levels not sent again')
      t.match(second.body.levels, [{ outcome: 'kept', order_id: idB40 }, { outcome: 'placed', status: 'live' },
        { outcome: 'kept', order_id: idA60 }])
      t.equal((await d.order(alice, idB40)).body.queue_ahead, '0', 'the kept bid is still first at 0.40')
      // Bob sells 12 at 0.40: Alice's 10 first, then 2 of Carol's.
      await placeOn(d, bob, market, { side: 'SELL', price: '0.40', size: '12' })
      t.match((await d.order(alice, idB40)).body, { status: 'MATCHED' })
      const third = await d.massQuote(alice, body([b40, b38, a60]))
      t.match(third.body.levels[0], { outcome: 'gone', order_id: idB40, reason: 'Order already matched' },
        'a level filled meanwhile is reported, and not placed again')
      const pulled = await d.massQuote(alice, body([]))
      t.equal(pulled.body.canceled.length, 2, 'an empty ladder pulls the quotes')
      t.same((await d.openOrders(alice)).body.data, [])
    },
  },
  {
    name: 'POST /quotes: refusals, whole (nothing changed) or by level',
    async run(t, d) {
      const { market, alice, bob } = await cast(d)
      const other = await d.createMarket({ minOrderSizeMicros: 1 * USDC })
      const signedOn = (m: MarketRecord, price: string) =>
        signLimitOrder(alice.wallet, termsOf(m), { tokenId: m.yesTokenId, side: 'BUY', price, size: '5' })
      const request = (orders: readonly ReturnType<typeof signedOn>[], m: MarketRecord = market) =>
        ({ market: m.marketId, orders: orders.map((o) => orderRequest(o, alice.credentials.apiKey)) })
      const before = await d.engineState()
      const whole: [string, unknown, number, string][] = [
        ['an unknown market', { market: 'no-such-market', orders: [] }, 404, 'MARKET_NOT_FOUND'],
        ['an order of another market', request([signedOn(other, '0.40')]), 400, 'MASS_QUOTE_INVALID'],
        ['more than 20 a side', request(Array.from({ length: 21 }, (_, i) => signedOn(market, `0.${10 + i}`))), 400,
          'MASS_QUOTE_TOO_LARGE'],
        ['orders not a list', { market: market.marketId, orders: {} }, 400, 'INVALID_PARAMETER'],
      ]
      for (const [what, body, status, code] of whole) {
        const answer = await d.massQuote(alice, body)
        t.equal(answer.status, status, what)
        t.equal(answer.body.code, code, what)
      }
      t.same(await d.engineState(), before, 'nothing journaled')
      const offTick = signLimitOrder(alice.wallet, { ...termsOf(market), tickSize: '0.001' },
        { tokenId: market.yesTokenId, side: 'BUY', price: '0.405', size: '5' })
      const mixed = await d.massQuote(alice, request([signedOn(market, '0.40'), offTick]))
      t.equal(mixed.status, 200)
      t.match(mixed.body.levels, [{ outcome: 'placed' }, { outcome: 'refused', success: false,
        code: 'INVALID_ORDER_MIN_TICK_SIZE' }])
      const stranger = await d.massQuote(bob, request([signedOn(market, '0.30')]))
      t.equal(stranger.status, 200)
      t.match(stranger.body.levels, [{ outcome: 'refused', success: false }], "an order of another key's wallet")
    },
  },
  {
    name: 'order groups: a fill that reaches the limit cancels the group\'s orders; new ones are refused until reset',
    async run(t, d) {
      const { market, alice, bob } = await cast(d)
      const created = await d.orderGroup(alice, 'create', undefined, { group_id: 'mmp-1', contracts_limit: '5',
        window_ms: 15_000 })
      t.equal(created.status, 201)
      t.match(created.body, { group_id: 'mmp-1', contracts_limit: '5', notional_limit: '0', window_ms: 15_000,
        freeze_ms: 0, triggered: false, triggered_at: null, window_contracts: '0', resting_orders: 0 })
      const inGroup = (price: string, size: string) => {
        const signed = signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price,
          size })
        return d.placeOrder(alice, { ...(orderRequest(signed, alice.credentials.apiKey) as object),
          orderGroupId: 'mmp-1' })
      }
      const b1 = (await inGroup('0.45', '4')).body.order_id as string
      const b2 = (await inGroup('0.44', '4')).body.order_id as string
      const outside = await bid(d, alice, market, '0.43', '4')
      t.match((await d.orderGroup(alice, 'list')).body.data, [{ group_id: 'mmp-1', resting_orders: 2 }])
      // Bob sells 6: 4 of b1 and 2 of b2 reach 5 in the window; the rest of b2 is cancelled in the same step.
      const sold = await placeOn(d, bob, market, { side: 'SELL', price: '0.44', size: '6' })
      t.equal(sold.body.status, 'matched')
      t.match((await d.order(alice, b1)).body, { status: 'MATCHED' })
      t.match((await d.order(alice, b2)).body, { status: 'CANCELED', size_matched: '2' })
      t.match((await d.order(alice, outside)).body, { status: 'LIVE' }, 'an order outside the group stays')
      t.match((await d.orderGroup(alice, 'list')).body.data, [{ group_id: 'mmp-1', triggered: true,
        resting_orders: 0 }])
      const refused = await inGroup('0.40', '1')
      t.equal(refused.status, 400)
      t.equal(refused.body.code, 'ORDER_GROUP_TRIGGERED')
      t.match((await d.orderGroup(alice, 'reset', 'mmp-1')).body, { triggered: false, window_contracts: '0' })
      t.equal((await inGroup('0.40', '1')).body.status, 'live', 'taken again after the reset')
      t.match((await d.orderGroup(alice, 'update', 'mmp-1', { notional_limit: '100', freeze_ms: 30_000 })).body,
        { contracts_limit: '5', notional_limit: '100', freeze_ms: 30_000 })
      t.match((await d.orderGroup(alice, 'trigger', 'mmp-1')).body, { triggered: true, resting_orders: 0 })
      t.match((await d.orderGroup(alice, 'delete', 'mmp-1')).body, { deleted: true, group_id: 'mmp-1' })
      t.same((await d.orderGroup(alice, 'list')).body.data, [])
    },
  },
  {
    name: 'order groups: refusals',
    async run(t, d) {
      const { market, alice, bob } = await cast(d)
      const cases: [string, [OrderGroupCall, string?, unknown?], number, string][] = [
        ['no limit', ['create', undefined, { group_id: 'g', window_ms: 15_000 }], 400, 'ORDER_GROUP_INVALID'],
        ['a window too long', ['create', undefined, { group_id: 'g', contracts_limit: '1', window_ms: 120_000 }], 400,
          'ORDER_GROUP_INVALID'],
        ['an unknown group', ['trigger', 'nope'], 404, 'ORDER_GROUP_NOT_FOUND'],
        ['a window not a number', ['create', undefined, { group_id: 'g', contracts_limit: '1', window_ms: '15s' }], 400,
          'INVALID_PARAMETER'],
      ]
      for (const [what, args, status, code] of cases) {
        const answer = await d.orderGroup(alice, args[0], args[1], args[2])
        t.equal(answer.status, status, what)
        t.equal(answer.body.code, code, what)
      }
      await d.orderGroup(alice, 'create', undefined, { group_id: 'g', contracts_limit: '1', window_ms: 15_000 })
      const again = await d.orderGroup(alice, 'create', undefined, { group_id: 'g', contracts_limit: '1',
        window_ms: 15_000 })
      t.equal(again.status, 409)
      t.equal(again.body.code, 'ORDER_GROUP_EXISTS')
      t.equal((await d.orderGroup(bob, 'trigger', 'g')).body.code, 'ORDER_GROUP_NOT_FOUND', "another key's group")
      const signed = signLimitOrder(bob.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY',
        price: '0.40', size: '1' })
      const joined = await d.placeOrder(bob, { ...(orderRequest(signed, bob.credentials.apiKey) as object),
        orderGroupId: 'g' })
      t.equal(joined.body.code, 'ORDER_GROUP_NOT_FOUND', "an order cannot join another key's group")
    },
  },
]
