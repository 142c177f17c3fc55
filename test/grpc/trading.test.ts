/**
 * What TradingService says beyond the contract cases (which run over both faces): the engine
 * sequence number of each placement and cancel, client order ids (echoed, shown on the order, a
 * live one's repeat refused with ALREADY_EXISTS naming the original, cancel by client order id),
 * and the proto's defaults (owner "" is the caller's key, an unspecified time in force is GTC).
 */
import t from 'tap'
import { status } from '@grpc/grpc-js'
import { orderRequestInit } from '../../src/client/grpc/order-request.js'
import { GrpcCallError, GrpcTransport } from '../../src/client/grpc/transport.js'
import { signLimitOrder } from '../../src/client/orders.js'
import { TimeInForce } from '../../src/gen/predex/v1/common_pb.js'
import { TradingService } from '../../src/gen/predex/v1/trading_pb.js'
import { startServer, termsOf, USDC } from '../support/rest-harness.js'

const server = await startServer()
const transport = new GrpcTransport(`127.0.0.1:${server.predex.grpcPort}`)
t.teardown(async () => {
  transport.close()
  await server.stop()
})
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
const alice = await server.trader(100 * USDC)
const methods = TradingService.method

function bid(price: string) {
  return signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price, size: '2' })
}

async function refusalOf(call: Promise<unknown>): Promise<GrpcCallError> {
  try {
    await call
  } catch (error) {
    if (error instanceof GrpcCallError) return error
    throw error
  }
  throw new Error('not refused')
}

t.test('client order ids: echoed, on the order, a live repeat refused with the original, cancel by them', async (t) => {
  const first = bid('0.10')
  const placed = await transport.unary(methods.placeOrder,
    { order: orderRequestInit(first, { clientOrderId: 'quote-1' }) }, alice)
  t.equal(placed.placement?.orderId, first.orderId)
  t.equal(placed.placement?.status, 'live')
  t.equal(placed.placement?.clientOrderId, 'quote-1')
  const seq = placed.placement?.engineSeq ?? 0n
  t.ok(seq > 0n, 'the sequence number of the command that placed it')
  const order = await transport.unary(methods.getOrder, { orderId: first.orderId }, alice)
  t.equal(order.order?.clientOrderId, 'quote-1')

  const repeat = await refusalOf(transport.unary(methods.placeOrder,
    { order: orderRequestInit(bid('0.11'), { clientOrderId: 'quote-1' }) }, alice))
  t.equal(repeat.grpcCode, status.ALREADY_EXISTS)
  t.equal(repeat.code, 'CLIENT_ORDER_ID_DUPLICATED')
  t.match(repeat.context, { orderId: first.orderId, status: 'LIVE', clientOrderId: 'quote-1' }, 'names the original')

  const canceled = await transport.unary(methods.cancelByClientOrderIds, { clientOrderIds: ['quote-1', 'nope'] }, alice)
  t.same(canceled.result?.canceled, [first.orderId])
  t.same(Object.keys(canceled.result?.notCanceled ?? {}), ['nope'])
  t.ok((canceled.result?.engineSeq ?? 0n) > seq, 'a later command')
  const again = await transport.unary(methods.placeOrder,
    { order: orderRequestInit(bid('0.12'), { clientOrderId: 'quote-1' }) }, alice)
  t.equal(again.placement?.status, 'live', 'an ended order frees its client order id')

  const unprintable = await refusalOf(transport.unary(methods.cancelByClientOrderIds, { clientOrderIds: ['a\n'] }, alice))
  t.equal(unprintable.grpcCode, status.INVALID_ARGUMENT)
  t.equal(unprintable.code, 'INVALID_ORDER_PAYLOAD')
  t.equal(unprintable.context.field, 'clientOrderId')
  await transport.unary(methods.cancelAll, {}, alice)
})

t.test('a batch: one command, one sequence number for every order it placed', async (t) => {
  const orders = [bid('0.20'), bid('0.21')].map((signed) => orderRequestInit(signed))
  const batch = await transport.unary(methods.placeOrders, { orders: [...orders, {}] }, alice)
  t.equal(batch.totalSuccessful, 2)
  t.equal(batch.totalFailed, 1)
  const [a, b, refused] = batch.results
  t.equal(a?.result.case, 'placed')
  t.equal(b?.result.case, 'placed')
  if (a?.result.case === 'placed' && b?.result.case === 'placed') {
    t.ok(a.result.value.engineSeq > 0n)
    t.equal(a.result.value.engineSeq, b.result.value.engineSeq)
  }
  t.equal(refused?.result.case, 'refused', 'a request without an order fails alone')
  if (refused?.result.case === 'refused') t.match(refused.result.value, { code: 'INVALID_PARAMETER', context: { field: '"order"' } })
  const all = await transport.unary(methods.cancelAll, {}, alice)
  t.equal(all.result?.canceled.length, 2)
})

t.test('the proto\'s defaults: owner "" is the caller\'s key, an unspecified time in force is GTC', async (t) => {
  const signed = bid('0.30')
  const placed = await transport.unary(methods.placeOrder,
    { order: { ...orderRequestInit(signed), owner: '', orderType: TimeInForce.UNSPECIFIED } }, alice)
  t.equal(placed.placement?.status, 'live')
  const order = (await transport.unary(methods.getOrder, { orderId: signed.orderId }, alice)).order
  t.equal(order?.owner, alice.credentials.apiKey)
  t.equal(order?.orderType, TimeInForce.GTC)
  const other = await refusalOf(transport.unary(methods.placeOrder,
    { order: { ...orderRequestInit(bid('0.31')), owner: 'someone-else' } }, alice))
  t.equal(other.code, 'NOT_OWNER', 'another owner is refused as on REST')
  t.equal(other.grpcCode, status.PERMISSION_DENIED)
  await transport.unary(methods.cancelAll, {}, alice)
})
