/**
 * The gRPC face's conversions (src/api/grpc/messages.ts) against REST's: an order request parses
 * to the very SignedOrder REST's parser gives for the same signed order, each malformed field is
 * refused with REST's code and field, and a cancel's answer carries REST's lists and the sequence.
 */
import t from 'tap'
import { create } from '@bufbuild/protobuf'
import { Wallet } from '../../src/crypto/wallet.js'
import { orderBody, signLimitOrder } from '../../src/client/orders.js'
import { cancelResultMessage, signedOrderOf } from '../../src/api/grpc/messages.js'
import { parseWireOrder } from '../../src/api/order-wire.js'
import { PredexError } from '../../src/errors.js'
import { TimeInForce } from '../../src/gen/predex/v1/common_pb.js'
import { OrderRequestSchema, type OrderRequest } from '../../src/gen/predex/v1/trading_pb.js'

const wallet = Wallet.random()
const trader = { apiKey: 'key-1', address: wallet.address.toLowerCase() }
const terms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: 80002 } as const
const signed = signLimitOrder(wallet, terms, { tokenId: '1234', side: 'SELL', price: '0.40', size: '10', expiration: 2e9 })

function request(change: Partial<Pick<OrderRequest, 'owner' | 'orderType' | 'clientOrderId'>> = {}): OrderRequest {
  const o = signed.order
  return create(OrderRequestSchema, {
    order: { ...o, signature: signed.signature },
    owner: trader.apiKey, orderType: TimeInForce.GTD, postOnly: true, clientOrderId: 'c-1', ...change,
  })
}

function refusal(fn: () => unknown): { code: string; field: unknown } {
  try {
    fn()
  } catch (error) {
    if (error instanceof PredexError) return { code: error.code, field: error.context?.['field'] }
    throw error
  }
  throw new Error('not refused')
}

t.test('an order request parses as REST parses the same signed order', async (t) => {
  const rest = parseWireOrder(JSON.parse(orderBody(signed, trader.apiKey, 'GTD', true)))
  t.same(signedOrderOf(request(), trader), { ...rest, clientOrderId: 'c-1' })
  const defaults = signedOrderOf(request({ owner: '', orderType: TimeInForce.UNSPECIFIED, clientOrderId: '' }), trader)
  t.equal(defaults.owner, trader.apiKey, 'owner "": the caller\'s key')
  t.equal(defaults.orderType, 'GTC', 'unspecified time in force: GTC')
  t.equal(defaults.clientOrderId, '')
})

t.test('each malformed field: REST\'s code and field', async (t) => {
  const base = request()
  const cases: [string, OrderRequest, string, string][] = [
    ['no order', create(OrderRequestSchema, { owner: 'x' }), 'INVALID_PARAMETER', 'order'],
    ['time in force 9', { ...base, orderType: 9 as TimeInForce }, 'INVALID_ORDER_PAYLOAD', 'orderType'],
    ['side 2', { ...base, order: { ...base.order!, side: 2 } }, 'INVALID_ORDER_PAYLOAD', 'side'],
    ['signature type 3', { ...base, order: { ...base.order!, signatureType: 3 } }, 'INVALID_ORDER_PAYLOAD', 'signatureType'],
    ['empty salt', { ...base, order: { ...base.order!, salt: '' } }, 'INVALID_ORDER_PAYLOAD', 'salt'],
    ['maker not an address', { ...base, order: { ...base.order!, maker: '0x12' } }, 'INVALID_ORDER_PAYLOAD', 'maker'],
    ['amount 2^256', { ...base, order: { ...base.order!, makerAmount: String(1n << 256n) } }, 'INVALID_ORDER_PAYLOAD',
      'makerAmount'],
    ['no signature', { ...base, order: { ...base.order!, signature: '' } }, 'INVALID_PARAMETER', 'signature'],
  ]
  for (const [name, message, code, field] of cases) t.same(refusal(() => signedOrderOf(message, trader)), { code, field }, name)
})

t.test('a V2 order request (timestamp, metadata, builder): parses as REST parses the same V2 order', async (t) => {
  const zero32 = '0x' + '0'.repeat(64)
  const v2 = { salt: '12345', maker: wallet.address, signer: wallet.address, tokenId: '1234', makerAmount: '10000000',
    takerAmount: '4000000', side: 1, signatureType: 0, timestamp: '1700000000000', expiration: '0', metadata: zero32,
    builder: '0x' + 'ab'.repeat(32), signature: signed.signature }
  const message = create(OrderRequestSchema, { order: v2, owner: trader.apiKey, orderType: TimeInForce.GTC })
  const rest = parseWireOrder({ order: { ...v2, side: 'SELL' }, owner: trader.apiKey, orderType: 'GTC' })
  const parsed = signedOrderOf(message, trader)
  t.same(parsed, { ...rest, clientOrderId: '' })
  t.equal(parsed.struct.version, 2)
  t.equal(parsed.amounts.feeRateBps, null, 'no fee rate signed')
  const type3 = create(OrderRequestSchema, { order: { ...v2, signatureType: 3 }, owner: trader.apiKey })
  t.equal(signedOrderOf(type3, trader).struct.signatureType, 3, 'type 3 (POLY_1271) parses in V2')
  const type4 = create(OrderRequestSchema, { order: { ...v2, signatureType: 4 }, owner: trader.apiKey })
  t.same(refusal(() => signedOrderOf(type4, trader)), { code: 'INVALID_ORDER_PAYLOAD', field: 'signatureType' })
  const badBuilder = create(OrderRequestSchema, { order: { ...v2, builder: '0x12' }, owner: trader.apiKey })
  t.same(refusal(() => signedOrderOf(badBuilder, trader)), { code: 'INVALID_ORDER_PAYLOAD', field: 'builder' })
})

t.test('a cancel result: REST\'s canceled and not_canceled, and the engine sequence', async (t) => {
  const message = cancelResultMessage({ ok: true, canceled: ['0xa'], notCanceled: [{ orderId: '0xb', reason: 'gone' }] }, 42)
  t.same(message, { canceled: ['0xa'], notCanceled: { '0xb': 'gone' }, engineSeq: 42n })
})
