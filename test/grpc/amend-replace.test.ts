/**
 * Amend and cancel-replace over gRPC, through the SDK (src/client/grpc): the unary AmendOrder and
 * CancelReplace, and the order-entry session's `amend` and `cancel_replace`. Asserted on the
 * engine's real state: an amended order keeps its place in the queue (a later sell fills it before
 * an order that came after it), its hold shrinks by what was taken off, each refusal carries its
 * catalogue code and gRPC status (and changes nothing), a cancel-replace of a filled order is
 * refused with ORDER_ALREADY_MATCHED and places nothing, a replacement may reuse the old order's
 * client order id, a new order refused after the cancel is reported beside the cancel, and a
 * session answers both in request order, each with its REST route's budget.
 */
import t from 'tap'
import type { PredexGrpcClient } from '../../src/client/grpc/predex-grpc-client.js'
import { orderRequestInit } from '../../src/client/grpc/order-request.js'
import { SessionRequestError } from '../../src/client/grpc/order-entry-session.js'
import { signLimitOrder, type SignedOrder } from '../../src/client/orders.js'
import type { ErrorCode } from '../../src/errors.js'
import { RATE_RULES } from '../../src/limits.js'
import { RATES } from '../../src/api/grpc/trading.js'
import { RATES as SESSION_RATES } from '../../src/api/grpc/session-messages.js'
import { tradingRoutes } from '../../src/api/rest/routes/trading.js'
import { startServer, termsOf, USDC } from '../support/rest-harness.js'
import { sdkParties, type Party } from './sdk-parties.js'
import { refusalOf, isRefusal, within } from './refusals.js'

const UNKNOWN_ID = `0x${'ab'.repeat(32)}`

const server = await startServer()
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const { party, heldMicros, engineState } = sdkParties(server, market)

function limit(who: Party, side: 'BUY' | 'SELL', price: string, size: string): SignedOrder {
  return signLimitOrder(who.trader.wallet, termsOf(market), { tokenId: market.yesTokenId, side, price, size })
}

t.test('AmendOrder: the order keeps its place in the queue, its hold shrinks', async (t) => {
  const alice = await party()
  const carol = await party()
  const bob = await party(100)
  const first = await alice.client.placeSigned(limit(alice, 'BUY', '0.40', '10'))
  const second = await carol.client.placeSigned(limit(carol, 'BUY', '0.40', '10'))
  t.equal(await heldMicros(alice), 4 * USDC, '10 x 0.40 held')
  const available = BigInt((await alice.client.listOpenOrders()).availableUsdcMicros)

  const amended = await alice.client.amendOrder({ orderId: first.orderId, newSize: '6' })
  t.match(amended, { orderId: first.orderId, sizeMatched: '0', sizeRemaining: '6', reducedBy: '4' },
    'new_size 6: 4 taken off')
  t.ok(amended.engineSeq > first.engineSeq, 'the amend\'s own engine command, after the placement')
  t.equal(await heldMicros(alice), 2_400_000, 'the hold shrank to 6 x 0.40')
  t.equal(BigInt((await alice.client.listOpenOrders()).availableUsdcMicros), available + 1_600_000n,
    'available USDC grew by what was released')

  const by = await alice.client.amendOrder({ orderId: first.orderId, reduceBy: '1.5' })
  t.match(by, { sizeRemaining: '4.5', reducedBy: '1.5' }, 'reduce_by 1.5')
  t.equal(await heldMicros(alice), 1_800_000, '4.5 x 0.40 held')
  t.equal((await alice.client.getOrder({ orderId: first.orderId })).order?.sizeRemaining, '4.5',
    'GetOrder shows the lower size')

  // Bob sells 6: Alice's 4.5 first (she kept her place ahead of Carol), then 1.5 of Carol's.
  await bob.client.placeSigned(limit(bob, 'SELL', '0.40', '6'))
  t.match((await alice.client.getOrder({ orderId: first.orderId })).order, { status: 'MATCHED', sizeMatched: '4.5' })
  t.match((await carol.client.getOrder({ orderId: second.orderId })).order, { status: 'LIVE', sizeMatched: '1.5' })
  t.equal(await heldMicros(alice), 0, 'nothing of Alice rests or is held')

  isRefusal(t, await refusalOf(alice.client.amendOrder({ orderId: first.orderId, newSize: '1' })),
    'ORDER_ALREADY_MATCHED', 'a filled order')
  await carol.client.cancelOrder({ orderId: second.orderId })
  isRefusal(t, await refusalOf(carol.client.amendOrder({ orderId: second.orderId, reduceBy: '1' })),
    'ORDER_ALREADY_CANCELED', 'a cancelled order')
})

t.test('AmendOrder refusals: each its code and status, nothing changed', async (t) => {
  const alice = await party()
  const bob = await party()
  const order = await alice.client.placeSigned(limit(alice, 'BUY', '0.40', '10'))
  const before = await engineState()
  const id = order.orderId
  const cases: [string, Parameters<PredexGrpcClient['amendOrder']>[0], ErrorCode, string?][] = [
    ['both sizes', { orderId: id, newSize: '5', reduceBy: '1' }, 'AMEND_SIZE_INVALID'],
    ['no size ("" is not given)', { orderId: id }, 'AMEND_SIZE_INVALID'],
    ['a size off the 0.01 grid', { orderId: id, newSize: '5.005' }, 'AMEND_SIZE_INVALID'],
    ['a zero size', { orderId: id, newSize: '0' }, 'AMEND_SIZE_INVALID'],
    ['a larger size', { orderId: id, newSize: '12' }, 'AMEND_NOT_REDUCING'],
    ['the same size', { orderId: id, newSize: '10' }, 'AMEND_NOT_REDUCING'],
    ['reduce by all of it', { orderId: id, reduceBy: '10' }, 'AMEND_NOT_REDUCING'],
    ['new_size not a decimal', { orderId: id, newSize: 'five' }, 'INVALID_PARAMETER', 'new_size'],
    ['reduce_by negative', { orderId: id, reduceBy: '-1' }, 'INVALID_PARAMETER', 'reduce_by'],
    ['no order id', { newSize: '5' }, 'INVALID_PARAMETER', 'orderID'],
    ['an unknown order', { orderId: UNKNOWN_ID, newSize: '5' }, 'ORDER_NOT_FOUND'],
  ]
  for (const [what, request, code, field] of cases) {
    const refused = await refusalOf(alice.client.amendOrder(request))
    isRefusal(t, refused, code, what)
    if (field !== undefined) t.equal(refused.context.field, field, `${what}: names the field`)
  }
  isRefusal(t, await refusalOf(bob.client.amendOrder({ orderId: id, newSize: '5' })), 'ORDER_NOT_FOUND',
    'another trader\'s order')
  const notReducing = await refusalOf(alice.client.amendOrder({ orderId: id, newSize: '12' }))
  t.match(notReducing.message, /cancel-replace/, 'AMEND_NOT_REDUCING says what to do instead')
  t.equal(await heldMicros(alice), 4 * USDC, 'the hold is unchanged')
  t.equal((await alice.client.getOrder({ orderId: id })).order?.sizeRemaining, '10', 'the order is unchanged')
  t.same(await engineState(), before, 'the engine\'s state and sequence are unchanged')
  await alice.client.cancelAll()
})

t.test('CancelReplace: the old order cancelled, the new one placed, its client order id reused', async (t) => {
  const alice = await party()
  const old = await alice.client.placeSigned(limit(alice, 'BUY', '0.30', '10'), { clientOrderId: 'quote-1' })
  const fresh = limit(alice, 'BUY', '0.32', '20')
  const replaced = await alice.client.cancelReplaceSigned(old.orderId, fresh, { clientOrderId: 'quote-1' })
  t.equal(replaced.canceledOrderId, old.orderId)
  t.equal(replaced.canceledSizeRemaining, '10', 'the size the old order had left')
  t.equal(replaced.placement?.orderId, fresh.orderId)
  const placement = replaced.placement?.result
  t.equal(placement?.case, 'placed')
  if (placement?.case === 'placed') {
    t.match(placement.value, { orderId: fresh.orderId, status: 'live', clientOrderId: 'quote-1' })
    t.equal(placement.value.engineSeq, replaced.engineSeq, 'one command: one sequence number')
  }
  t.ok(replaced.engineSeq > old.engineSeq)
  t.equal((await alice.client.getOrder({ orderId: old.orderId })).order?.status, 'CANCELED')
  t.match((await alice.client.getOrder({ orderId: fresh.orderId })).order,
    { status: 'LIVE', originalSize: '20', clientOrderId: 'quote-1' }, 'the new order took the client order id')
  t.equal(await heldMicros(alice), 6_400_000, 'only the new order holds: 20 x 0.32')
  const byClientId = await alice.client.cancelByClientOrderIds({ clientOrderIds: ['quote-1'] })
  t.same(byClientId.result?.canceled, [fresh.orderId], 'the client order id names the new order')
})

t.test('CancelReplace refusals: a filled old order (ORDER_ALREADY_MATCHED) places nothing', async (t) => {
  const alice = await party()
  const bob = await party(100)
  const old = await alice.client.placeSigned(limit(alice, 'BUY', '0.40', '5'))
  await bob.client.placeSigned(limit(bob, 'SELL', '0.40', '5'))
  t.equal((await alice.client.getOrder({ orderId: old.orderId })).order?.status, 'MATCHED')
  const before = await engineState()
  const fresh = limit(alice, 'BUY', '0.41', '5')
  const filled = await refusalOf(alice.client.cancelReplaceSigned(old.orderId, fresh))
  isRefusal(t, filled, 'ORDER_ALREADY_MATCHED', 'the old order was filled')
  t.same((await alice.client.listOpenOrders()).data, [], 'no new order rests')
  isRefusal(t, await refusalOf(alice.client.getOrder({ orderId: fresh.orderId })), 'ORDER_UNKNOWN',
    'the new order was never placed')
  t.equal(await heldMicros(alice), 0, 'nothing held')
  t.same(await engineState(), before, 'nothing was journaled')

  const live = await alice.client.placeSigned(limit(alice, 'BUY', '0.20', '5'), { clientOrderId: 'old' })
  await alice.client.placeSigned(limit(alice, 'BUY', '0.19', '5'), { clientOrderId: 'other' })
  const bid = (price: string, size = '5', clientOrderId = '') =>
    orderRequestInit(limit(alice, 'BUY', price, size), { clientOrderId })
  const cases: [string, Parameters<PredexGrpcClient['cancelReplace']>[0], ErrorCode, string?][] = [
    ['no order id', { order: bid('0.21') }, 'INVALID_PARAMETER', 'orderID'],
    ['no new order', { orderId: live.orderId }, 'INVALID_PARAMETER', 'order'],
    ['an unknown old order', { orderId: UNKNOWN_ID, order: bid('0.21') }, 'ORDER_NOT_FOUND'],
    ['a new order below the minimum size', { orderId: live.orderId, order: bid('0.21', '0.5') },
      'INVALID_ORDER_MIN_SIZE'],
    ['a client order id of another live order', { orderId: live.orderId, order: bid('0.21', '5', 'other') },
      'CLIENT_ORDER_ID_DUPLICATED'],
  ]
  const beforeRefusals = await engineState()
  for (const [what, request, code, field] of cases) {
    const refused = await refusalOf(alice.client.cancelReplace(request))
    isRefusal(t, refused, code, what)
    if (field !== undefined) t.equal(refused.context.field, field, `${what}: names the field`)
  }
  isRefusal(t, await refusalOf(bob.client.cancelReplaceSigned(live.orderId, limit(bob, 'BUY', '0.21', '5'))),
    'ORDER_NOT_FOUND', 'another trader\'s order')
  t.equal((await alice.client.getOrder({ orderId: live.orderId })).order?.status, 'LIVE',
    'after every refusal the old order still rests')
  t.same(await engineState(), beforeRefusals, 'and the engine\'s state and sequence are unchanged')
  await alice.client.cancelAll()
})

t.test('a session: amend and cancel_replace answered in request order, each with its budget', async (t) => {
  const alice = await party()
  const session = await alice.client.session()
  const settled: string[] = []
  const track = <T>(name: string, promise: Promise<T>): Promise<T> => {
    promise.then(() => settled.push(name), () => settled.push(name))
    return promise
  }
  const first = limit(alice, 'BUY', '0.20', '10')
  const replacement = limit(alice, 'BUY', '0.21', '8')
  // Pipelined: each applies after the one before it (the amend of the replacement finds it live).
  const placed = track('place', session.place(first, { clientOrderId: 's-1' }))
  const amended = track('amend', session.amend(first.orderId, { newSize: '4' }))
  const replaced = track('replace', session.cancelReplace(first.orderId, replacement, { clientOrderId: 's-1' }))
  const late = track('amend the old', session.amend(first.orderId, { reduceBy: '1' }))
  const again = track('amend the new', session.amend(replacement.orderId, { reduceBy: '3' }))
  const unknown = track('replace unknown', session.cancelReplace(UNKNOWN_ID, limit(alice, 'BUY', '0.22', '5')))
  const offGrid = track('amend off grid', session.amend(replacement.orderId, { newSize: '1.005' }))
  const ping = track('ping', session.ping())
  const all = [placed, amended, replaced, late, again, unknown, offGrid, ping]
  const results = await within(Promise.allSettled(all), 'the answers')
  t.same(settled, ['place', 'amend', 'replace', 'amend the old', 'amend the new', 'replace unknown', 'amend off grid',
    'ping'], 'settled in the order of the requests')
  t.same(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected',
    'rejected', 'fulfilled'])

  const amend = await amended
  t.match(amend.value, { orderId: first.orderId, sizeMatched: '0', sizeRemaining: '4', reducedBy: '6' })
  t.equal(amend.value.engineSeq, amend.engineSeq, 'the answer\'s sequence number is the amend\'s')
  t.equal(amend.rateLimit?.limit, RATE_RULES.cancel.burst, 'an amend draws on a cancel\'s budget')
  const replace = await replaced
  t.match(replace.value, { canceledOrderId: first.orderId, canceledSizeRemaining: '4',
    order: { orderId: replacement.orderId, clientOrderId: 's-1', status: 'live' } },
  'the old order cancelled with what the amend left; the new one placed with the reused client order id')
  t.equal(replace.value.order?.error, undefined, 'the new order was not refused')
  t.equal(replace.rateLimit?.limit, RATE_RULES.order.burst, 'a cancel-replace draws on an order\'s budget')
  t.match((await again).value, { orderId: replacement.orderId, sizeRemaining: '5', reducedBy: '3' })
  const seqs = [await placed, amend, replace, await again].map((reply) => reply.engineSeq)
  t.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!), `engine sequence numbers grow: ${seqs.join(', ')}`)
  const refusals: [PromiseSettledResult<unknown> | undefined, ErrorCode][] = [[results[3], 'ORDER_ALREADY_CANCELED'],
    [results[5], 'ORDER_NOT_FOUND'], [results[6], 'AMEND_SIZE_INVALID']]
  for (const [result, code] of refusals) {
    const error = (result as PromiseRejectedResult).reason as SessionRequestError
    t.ok(error instanceof SessionRequestError, `${code}: a SessionRequestError`)
    isRefusal(t, error, code, 'in the session')
  }
  const notDecimal = await refusalOf(session.amend(replacement.orderId, { newSize: 'x' }))
  isRefusal(t, notDecimal, 'INVALID_PARAMETER', 'a size that is no decimal')
  t.equal(notDecimal.context.field, 'newSize', 'named as the session names fields')
  t.equal(await heldMicros(alice), 1_050_000, 'only the replacement holds, at its amended size: 5 x 0.21')
  t.equal((await alice.client.getOrder({ orderId: first.orderId })).order?.status, 'CANCELED')
  await within(session.close(), 'a clean close')
  await alice.client.cancelAll()
})

t.test('a session: the amended order keeps its place; a replacement the book refuses is reported', async (t) => {
  const alice = await party()
  const carol = await party()
  const bob = await party(100)
  const session = await alice.client.session()
  const mine = limit(alice, 'BUY', '0.33', '10')
  await session.place(mine)
  const theirs = await carol.client.placeSigned(limit(carol, 'BUY', '0.33', '10'))
  t.match((await session.amend(mine.orderId, { newSize: '2' })).value, { sizeRemaining: '2', reducedBy: '8' })
  await bob.client.placeSigned(limit(bob, 'SELL', '0.33', '3'))
  t.match((await alice.client.getOrder({ orderId: mine.orderId })).order, { status: 'MATCHED', sizeMatched: '2' },
    'Alice\'s 2 filled first: she kept her place ahead of Carol')
  t.match((await carol.client.getOrder({ orderId: theirs.orderId })).order, { status: 'LIVE', sizeMatched: '1' })

  const quote = limit(alice, 'BUY', '0.10', '5')
  await session.place(quote)
  await bob.client.placeSigned(limit(bob, 'SELL', '0.50', '5'))
  const crossing = limit(alice, 'BUY', '0.50', '5')
  const replaced = await session.cancelReplace(quote.orderId, crossing, { postOnly: true })
  t.equal(replaced.value.canceledOrderId, quote.orderId, 'resolves: the old order was cancelled')
  t.equal(replaced.value.order?.error?.code, 'INVALID_POST_ONLY_ORDER', 'the new order\'s refusal in its ack')
  t.equal(replaced.value.order?.orderId, crossing.orderId)
  t.equal((await alice.client.getOrder({ orderId: quote.orderId })).order?.status, 'CANCELED')
  t.equal(await heldMicros(alice), 0, 'nothing of Alice rests')
  await within(session.close(), 'a clean close')
  await carol.client.cancelAll()
  await bob.client.cancelAll()
})

t.test('budgets: each the REST route\'s of the same use case, on both gRPC paths', async (t) => {
  const restRate = (path: string) => {
    const route = tradingRoutes.find((r) => r.method === 'POST' && r.path === path)
    return route === undefined ? undefined : { bucket: `${route.method} ${route.path}`, rule: route.rate }
  }
  t.same(RATES.amend, restRate('/order/amend'), 'AmendOrder: POST /order/amend (cancel)')
  t.same(RATES.replace, restRate('/order/replace'), 'CancelReplace: POST /order/replace (order)')
  t.equal(RATES.amend.rule, 'cancel')
  t.equal(RATES.replace.rule, 'order')
  t.equal(SESSION_RATES.amend, RATES.amend, 'the session\'s amend: the same budget')
  t.equal(SESSION_RATES.cancelReplace, RATES.replace, 'the session\'s cancel_replace: the same budget')
})
