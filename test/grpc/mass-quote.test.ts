/**
 * Mass quotes over gRPC, through the SDK (src/client/grpc): the unary MassQuote and the
 * order-entry session's `mass_quote`. Asserted on the engine's real state: a ladder placed in one
 * command; re-quoted with half its levels changed, the levels sent again are kept (their place in
 * the queue too: queue_ahead, then a sell that fills them first), the levels not sent again are
 * cancelled and the new ones placed; a level filled meanwhile is reported gone; an empty ladder
 * pulls every quote. A request refused whole fails with its catalogue code and gRPC status and
 * journals nothing; a level refused (its parse, its tick) is answered in its place while the
 * others go. A session answers its mass quotes in request order, on POST /quotes' budget.
 */
import t from 'tap'
import { orderRequestInit } from '../../src/client/grpc/order-request.js'
import { SessionRequestError } from '../../src/client/grpc/order-entry-session.js'
import { signLimitOrder, type SignedOrder } from '../../src/client/orders.js'
import type { ErrorCode } from '../../src/errors.js'
import { TradingService, type MassQuoteResponse, type QuoteLevel } from '../../src/gen/predex/v1/trading_pb.js'
import { RATE_RULES } from '../../src/limits.js'
import { RATES } from '../../src/api/grpc/trading.js'
import { RATES as SESSION_RATES } from '../../src/api/grpc/session-messages.js'
import { tradingRoutes } from '../../src/api/rest/routes/trading.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { startServer, termsOf, USDC } from '../support/rest-harness.js'
import { sdkParties, type Party } from './sdk-parties.js'
import { refusalOf, isRefusal, within } from './refusals.js'

const server = await startServer()
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const other = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const { party, heldMicros, engineState } = sdkParties(server, market)

function limit(who: Party, side: 'BUY' | 'SELL', price: string, size = '10', on: MarketRecord = market): SignedOrder {
  return signLimitOrder(who.trader.wallet, termsOf(on), { tokenId: on.yesTokenId, side, price, size })
}

/** Each level as a short text: `kept <id>`, `gone <id> <reason>`, `placed <id>`, `refused <code>`. */
function levelsOf(answer: MassQuoteResponse): string[] {
  return answer.levels.map(levelText)
}

function levelText(level: QuoteLevel): string {
  const outcome = level.outcome
  switch (outcome.case) {
    case 'kept': return `kept ${outcome.value}`
    case 'gone': return `gone ${outcome.value.orderId} ${outcome.value.reason}`
    case 'placement': {
      const result = outcome.value.result
      if (result.case === 'placed') return `placed ${result.value.orderId}`
      if (result.case === 'refused') return `refused ${result.value.code}`
      return 'a placement without its result'
    }
    default: return 'a level without its outcome'
  }
}

t.test('MassQuote: a ladder placed, re-quoted with half its levels changed; kept levels keep their place',
  async (t) => {
    const alice = await party(100)
    const carol = await party()
    const bob = await party(100)
    const [b40, b39, a60, a61] = [limit(alice, 'BUY', '0.40'), limit(alice, 'BUY', '0.39'),
      limit(alice, 'SELL', '0.60'), limit(alice, 'SELL', '0.61')]
    const first = await alice.client.massQuote(market.marketId, [b40, { signed: b39, clientOrderId: 'b-2' }, a60, a61])
    t.same(first.canceled, [], 'nothing to cancel yet')
    t.same(levelsOf(first), [b40, b39, a60, a61].map((o) => `placed ${o.orderId}`), 'every level placed, in order')
    const second = first.levels[1]!.outcome
    if (second.case === 'placement' && second.value.result.case === 'placed') {
      t.equal(second.value.result.value.clientOrderId, 'b-2', 'a level\'s options travel with it')
      t.equal(second.value.result.value.engineSeq, first.engineSeq, 'one command: one sequence number')
    } else t.fail('the second level was not placed')
    t.ok(first.engineSeq > 0n)
    t.equal(await heldMicros(alice), 7_900_000, 'the bids hold 10 x 0.40 + 10 x 0.39')

    // Carol bids at 0.40 behind Alice; Alice moves her 0.39 bid to 0.38 and her 0.61 ask to 0.62.
    const carolBid = await carol.client.placeSigned(limit(carol, 'BUY', '0.40', '5'))
    t.equal((await carol.client.getOrder({ orderId: carolBid.orderId })).order?.queueAhead, '10',
      'Alice\'s 10 rest ahead of Carol')
    const [b38, a62] = [limit(alice, 'BUY', '0.38'), limit(alice, 'SELL', '0.62')]
    const requoted = await alice.client.massQuote(market.slug, [b40, b38, a60, { signed: a62, postOnly: true }])
    t.same(requoted.canceled, [b39.orderId, a61.orderId], 'the levels not sent again are cancelled')
    t.same(levelsOf(requoted), [`kept ${b40.orderId}`, `placed ${b38.orderId}`, `kept ${a60.orderId}`,
      `placed ${a62.orderId}`], 'the unchanged levels kept, the new ones placed, in the request\'s order')
    t.ok(requoted.engineSeq > first.engineSeq, 'its own command, after the first')
    t.equal((await alice.client.getOrder({ orderId: b40.orderId })).order?.queueAhead, '0',
      'the kept bid is still first at 0.40')
    t.equal((await carol.client.getOrder({ orderId: carolBid.orderId })).order?.queueAhead, '10',
      'and Carol still behind it')
    for (const gone of [b39, a61]) {
      t.equal((await alice.client.getOrder({ orderId: gone.orderId })).order?.status, 'CANCELED')
    }
    const open = (await alice.client.listOpenOrders({ market: market.marketId })).data.map((o) => o.id)
    t.same(open.sort(), [b40, b38, a60, a62].map((o) => o.orderId).sort(), 'the ladder rests as sent')
    t.equal(await heldMicros(alice), 7_800_000, 'the bids hold 10 x 0.40 + 10 x 0.38')

    // Bob sells 12 at 0.40: Alice's 10 first (she kept her place), then 2 of Carol's.
    await bob.client.placeSigned(limit(bob, 'SELL', '0.40', '12'))
    t.match((await alice.client.getOrder({ orderId: b40.orderId })).order, { status: 'MATCHED', sizeMatched: '10' })
    t.match((await carol.client.getOrder({ orderId: carolBid.orderId })).order, { status: 'LIVE', sizeMatched: '2' })

    const third = await alice.client.massQuote(market.conditionId, [b40, b38, a60, a62])
    t.same(levelsOf(third), [`gone ${b40.orderId} Order already matched`, `kept ${b38.orderId}`,
      `kept ${a60.orderId}`, `kept ${a62.orderId}`], 'a level filled meanwhile is reported, never placed again')
    t.same(third.canceled, [])
    const pulled = await alice.client.massQuote(market.marketId, [])
    t.same([...pulled.canceled].sort(), [b38, a60, a62].map((o) => o.orderId).sort(),
      'an empty ladder pulls the quotes')
    t.same(pulled.levels, [])
    t.same((await alice.client.listOpenOrders()).data, [], 'nothing of Alice rests')
    t.equal(await heldMicros(alice), 0)
    await carol.client.cancelAll()
  })

t.test('MassQuote refusals: whole ones with their status and nothing journaled; a level\'s in its place',
  async (t) => {
    const alice = await party()
    const resting = await alice.client.placeSigned(limit(alice, 'BUY', '0.30', '5'))
    const bid = (price: string) => limit(alice, 'BUY', price, '5')
    const before = await engineState()
    const b41 = bid('0.41')
    const quote = (ref: string, orders: readonly SignedOrder[]) => () => alice.client.massQuote(ref, orders)
    const cases: [string, () => Promise<unknown>, ErrorCode, Record<string, unknown>?][] = [
      ['an unknown market', quote('no-such-market', [b41]), 'MARKET_NOT_FOUND'],
      ['no market', quote('', [b41]), 'INVALID_PARAMETER', { field: 'market' }],
      ['an order of another market', quote(market.marketId, [b41, limit(alice, 'BUY', '0.40', '5', other)]),
        'MASS_QUOTE_INVALID', { reason: 'an order of another market' }],
      ['an order named twice', quote(market.marketId, [b41, b41]), 'MASS_QUOTE_INVALID',
        { orderId: b41.orderId, reason: 'named twice' }],
      ['21 bids', quote(market.marketId, Array.from({ length: 21 }, (_, i) => bid(`0.${10 + i}`))),
        'MASS_QUOTE_TOO_LARGE', { max: 20, bids: 21, asks: 0 }],
      ['41 orders (refused before any is parsed)', quote(market.marketId,
        Array.from({ length: 41 }, (_, i) => bid(`0.${10 + (i % 40)}`))), 'MASS_QUOTE_TOO_LARGE', { max: 20 }],
    ]
    for (const [what, call, code, context] of cases) {
      const refused = await refusalOf(call())
      isRefusal(t, refused, code, what)
      if (context !== undefined) t.match(refused.context, context, `${what}: its context`)
    }
    t.same(await engineState(), before, 'nothing was journaled')
    t.equal((await alice.client.getOrder({ orderId: resting.orderId })).order?.status, 'LIVE',
      'the order a quote would have cancelled still rests')
    t.equal(await heldMicros(alice), 1_500_000, 'its hold is unchanged')

    // A level that does not parse (no order), and one off the tick: each refused in its place, the others placed.
    const offTick = signLimitOrder(alice.trader.wallet, { ...termsOf(market), tickSize: '0.001' },
      { tokenId: market.yesTokenId, side: 'BUY', price: '0.405', size: '5' })
    const b42 = bid('0.42')
    const mixed = await alice.client.transport.unary(TradingService.method.massQuote, { market: market.marketId,
      orders: [orderRequestInit(b41), {}, orderRequestInit(offTick), orderRequestInit(b42)] },
    { credentials: alice.trader.credentials, address: alice.trader.address })
    t.same(levelsOf(mixed), [`placed ${b41.orderId}`, 'refused INVALID_PARAMETER',
      'refused INVALID_ORDER_MIN_TICK_SIZE', `placed ${b42.orderId}`], 'each level in its place')
    const noOrder = mixed.levels[1]!.outcome
    t.equal(noOrder.case === 'placement' && noOrder.value.result.case === 'refused'
      ? noOrder.value.result.value.context.field : undefined, '"order"', 'the parse error names the field')
    t.same(mixed.canceled, [resting.orderId], 'the resting order not named is cancelled')
    await alice.client.cancelAll()
  })

t.test('a session: mass quotes answered in request order, on POST /quotes\' budget', async (t) => {
  const alice = await party(100)
  const carol = await party()
  const session = await alice.client.session()
  const settled: string[] = []
  const track = <T>(name: string, promise: Promise<T>): Promise<T> => {
    promise.then(() => settled.push(name), () => settled.push(name))
    return promise
  }
  const single = limit(alice, 'BUY', '0.20')
  const [b30, b29, a70, a71] = [limit(alice, 'BUY', '0.30'), limit(alice, 'BUY', '0.29'),
    limit(alice, 'SELL', '0.70'), limit(alice, 'SELL', '0.71')]
  const offTick = signLimitOrder(alice.trader.wallet, { ...termsOf(market), tickSize: '0.001' },
    { tokenId: market.yesTokenId, side: 'SELL', price: '0.725', size: '5' })
  // Pipelined: each applies after the one before it (the quote cancels the order placed just before it).
  const placed = track('place', session.place(single))
  const quoted = track('quote', session.massQuote(market.marketId, [b30, b29, a70, a71, offTick]))
  const unknown = track('unknown market', session.massQuote('no-such-market', [b30]))
  const foreign = track('another market', session.massQuote(market.marketId, [limit(alice, 'BUY', '0.1', '5', other)]))
  const ping = track('ping', session.ping())
  const results = await within(Promise.allSettled([placed, quoted, unknown, foreign, ping]), 'the answers')
  t.same(settled, ['place', 'quote', 'unknown market', 'another market', 'ping'],
    'settled in the order of the requests')
  t.same(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled'])

  const quote = await quoted
  t.same(quote.value.canceled, [single.orderId], 'the order placed just before, not named, is cancelled')
  t.same(levelsOf(quote.value), [...[b30, b29, a70, a71].map((o) => `placed ${o.orderId}`),
    'refused INVALID_ORDER_MIN_TICK_SIZE'], 'each level in its place, a refused one too')
  t.equal(quote.engineSeq, quote.value.engineSeq, 'the answer\'s sequence number is the quote\'s')
  t.ok(quote.engineSeq > (await placed).engineSeq, 'applied after the place')
  t.equal(quote.rateLimit?.limit, RATE_RULES.batch.burst, 'a mass quote draws on a batch\'s budget')
  for (const [result, code] of [[results[2], 'MARKET_NOT_FOUND'], [results[3], 'MASS_QUOTE_INVALID']] as const) {
    const error = (result as PromiseRejectedResult).reason as SessionRequestError
    t.ok(error instanceof SessionRequestError, `${code}: a SessionRequestError`)
    isRefusal(t, error, code, 'in the session')
  }
  const tooMany = await refusalOf(session.massQuote(market.marketId,
    Array.from({ length: 41 }, (_, i) => limit(alice, 'BUY', `0.${10 + (i % 40)}`))))
  isRefusal(t, tooMany, 'MASS_QUOTE_TOO_LARGE', 'more than 40 orders')

  // Re-quoted once the first answer is in: half the levels changed, the kept ones keep their place.
  const carolBid = await carol.client.placeSigned(limit(carol, 'BUY', '0.30', '5'))
  const [b28, a72] = [limit(alice, 'BUY', '0.28'), limit(alice, 'SELL', '0.72')]
  const requoted = await session.massQuote(market.marketId, [b30, b28, a70, a72])
  t.same(requoted.value.canceled, [b29.orderId, a71.orderId], 'the levels not sent again are cancelled')
  t.same(levelsOf(requoted.value), [`kept ${b30.orderId}`, `placed ${b28.orderId}`, `kept ${a70.orderId}`,
    `placed ${a72.orderId}`])
  t.ok(requoted.engineSeq > quote.engineSeq)
  t.equal((await alice.client.getOrder({ orderId: b30.orderId })).order?.queueAhead, '0',
    'the kept bid is still first at 0.30')
  t.equal((await carol.client.getOrder({ orderId: carolBid.orderId })).order?.queueAhead, '10',
    'Carol still behind it')
  const pulled = await session.massQuote(market.marketId, [])
  t.equal(pulled.value.canceled.length, 4, 'an empty ladder pulls the quotes')
  await within(session.close(), 'a clean close')
  t.same((await alice.client.listOpenOrders()).data, [], 'nothing of Alice rests')
  await carol.client.cancelAll()
})

t.test('budgets: REST POST /quotes\' (batch), on both gRPC paths', async (t) => {
  const route = tradingRoutes.find((r) => r.method === 'POST' && r.path === '/quotes')
  t.same(RATES.massQuote, { bucket: 'POST /quotes', rule: route?.rate }, 'MassQuote: POST /quotes')
  t.equal(RATES.massQuote.rule, 'batch')
  t.equal(SESSION_RATES.massQuote, RATES.massQuote, 'the session\'s mass_quote: the same budget')
})
