/**
 * Client order ids in the services, without any face: a signed order's optional clientOrderId
 * reaches the engine ('' when absent); a repeat while the original lives is the catalogue error
 * CLIENT_ORDER_ID_DUPLICATED (409, gRPC ALREADY_EXISTS) that names the original, even once its
 * market stopped taking orders; the read model finds a key's live order by it; and
 * cancelByClientOrderIds cancels by it. Signatures are not the subject: the pool is a stand-in
 * that takes every signature and names the order after its salt.
 */
import t from 'tap'
import type { OrderStruct } from '../../../../src/crypto/eip712.js'
import { Code } from '../../../../src/engine/codes.js'
import { CATALOGUE, Grpc, PredexError } from '../../../../src/errors.js'
import type { OrderRecord } from '../../../../src/read/read-model.js'
import { ReadModel } from '../../../../src/read/read-model.js'
import { createMarket } from '../../../../src/service/admin/admin.js'
import type { ServiceContext } from '../../../../src/service/context.js'
import type { SignedOrder } from '../../../../src/service/trading/order-intake.js'
import {
  cancelByClientOrderIds,
  clientOrderIdDuplicateOf,
  orderOfClientOrderId,
  placeOrder,
  placeOrders,
  type Trader,
} from '../../../../src/service/trading/trading.js'
import { USDC, fakeWorld, type FakeWorld } from '../fake-context.js'

const alice = '0x' + '1'.repeat(40)
const trader: Trader = { apiKey: 'key-alice', address: alice }

/** A world whose pool accepts every signature: the order id is the salt, as 32 bytes of hex. */
async function world(): Promise<{ w: FakeWorld; context: ServiceContext; yes: string; marketId: string }> {
  const w = fakeWorld()
  const pool = {
    admit: (): void => undefined,
    verify: async (task: { order: OrderStruct }) =>
      ({ ok: true, orderId: `0x${BigInt(task.order.salt).toString(16).padStart(64, '0')}` }),
  }
  const context = { ...w.context, pool } as unknown as ServiceContext
  const market = await createMarket(context, { question: 'Will it work?', slug: null, description: '',
    tickSizeMicros: 10_000, minOrderSizeMicros: USDC, feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active' })
  await context.host.submit({ kind: 'credit', address: alice, usdcMicros: 1_000 * USDC, gasMicros: 0 })
  await context.host.submit({ kind: 'approve', address: alice, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
  return { w, context, yes: market.yesTokenId, marketId: market.marketId }
}

let salt = 0

/** A BUY of 10 shares at 0.40 (a new salt, so a new order id, each time). */
function signed(tokenId: string, clientOrderId?: string): SignedOrder {
  const struct: OrderStruct = {
    salt: String(++salt), maker: alice, signer: alice, taker: '0x' + '0'.repeat(40), tokenId,
    makerAmount: String(4 * USDC), takerAmount: String(10 * USDC), expiration: '0', nonce: '0', feeRateBps: '0',
    side: 0, signatureType: 0,
  }
  return { struct, signature: '0x', orderType: 'GTC', postOnly: false, owner: trader.apiKey,
    amounts: { maker: 4n * BigInt(USDC), taker: 10n * BigInt(USDC), expiration: 0n, feeRateBps: 0n },
    ...(clientOrderId === undefined ? {} : { clientOrderId }) }
}

async function refusal(what: () => Promise<unknown>): Promise<PredexError> {
  // Some services throw before they return a promise (a count checked at once): both are refusals.
  const error = await Promise.resolve().then(what).then(() => null, (e: unknown) => e)
  if (!(error instanceof PredexError)) throw new Error(`expected a PredexError, got ${String(error)}`)
  return error
}

t.test('the client order id reaches the engine and the read model; absent is \'\'', async (t) => {
  const { context, yes } = await world()
  const tagged = await placeOrder(context, signed(yes, 'mine-1'), trader)
  t.equal(tagged.input.clientOrderId, 'mine-1')
  t.equal(context.read.order(tagged.result.orderId)?.clientOrderId, 'mine-1', 'on the order record')
  t.equal(orderOfClientOrderId(context, trader, 'mine-1').orderId, tagged.result.orderId, 'found by it')
  const plain = await placeOrder(context, signed(yes), trader)
  t.equal(plain.input.clientOrderId, '')
  t.equal(context.read.order(plain.result.orderId)?.clientOrderId, '')
  const unknown = await refusal(async () => orderOfClientOrderId(context, trader, 'nope'))
  t.equal(unknown.code, 'ORDER_UNKNOWN')
  const otherKey = await refusal(async () => orderOfClientOrderId(context, { ...trader, apiKey: 'key-2' }, 'mine-1'))
  t.equal(otherKey.code, 'ORDER_UNKNOWN', 'another key\'s client order ids are not this key\'s')
})

t.test('a repeat while the original lives: CLIENT_ORDER_ID_DUPLICATED naming it, nothing placed', async (t) => {
  const { w, context, yes, marketId } = await world()
  const original = await placeOrder(context, signed(yes, 'once'), trader)
  const error = await refusal(() => placeOrder(context, signed(yes, 'once'), trader))
  t.equal(error.code, Code.CLIENT_ORDER_ID_DUPLICATED)
  t.equal(error.status, 409)
  t.strictSame(CATALOGUE[Code.CLIENT_ORDER_ID_DUPLICATED], { http: 409, grpc: Grpc.ALREADY_EXISTS })
  t.strictSame(clientOrderIdDuplicateOf(error), { orderId: original.result.orderId, status: 'LIVE', clientOrderId: 'once' })
  t.equal(clientOrderIdDuplicateOf(new PredexError(Code.INVALID_ORDER_DUPLICATED, 'x', { orderId: 'a' })), null)
  t.equal(clientOrderIdDuplicateOf(new Error('x')), null)
  t.equal(w.engine.openOrderCount, 1, 'still one order')
  // Once the market stops taking orders, a repeat still learns which order it placed (the edge
  // leaves it to the engine), while a new client order id is refused by the rules at the edge.
  await context.host.submit({ kind: 'setMarketStatus', marketId, status: 'Paused' })
  const paused = await refusal(() => placeOrder(context, signed(yes, 'once'), trader))
  t.equal(paused.code, Code.CLIENT_ORDER_ID_DUPLICATED)
  const journaled = w.commands.length
  const fresh = await refusal(() => placeOrder(context, signed(yes, 'fresh'), trader))
  t.equal(fresh.code, Code.MARKET_CANCEL_ONLY)
  t.equal(w.commands.length, journaled, 'refused before the engine: nothing journaled')
})

t.test('a batch: each order on its own, a repeat refused with the original', async (t) => {
  const { context, yes } = await world()
  const entries = await placeOrders(context, [signed(yes, 'b1'), signed(yes, 'b1'), signed(yes, 'b2')], trader)
  t.strictSame(entries.map((e) => (e.ok ? e.placement.result.status : e.error.code)),
    ['LIVE', Code.CLIENT_ORDER_ID_DUPLICATED, 'LIVE'])
  const first = entries[0]!
  const second = entries[1]!
  t.ok(first.ok && !second.ok)
  if (first.ok && !second.ok) {
    t.equal(clientOrderIdDuplicateOf(second.error)?.orderId, first.placement.result.orderId)
  }
})

t.test('cancelByClientOrderIds: the key\'s live orders by their ids, then the ids are free', async (t) => {
  const { w, context, yes } = await world()
  const a = await placeOrder(context, signed(yes, 'a'), trader)
  const b = await placeOrder(context, signed(yes, 'b'), trader)
  const result = await cancelByClientOrderIds(context, trader, ['a', 'missing', 'b'])
  t.strictSame({ canceled: result.canceled, notCanceled: result.notCanceled },
    { canceled: [a.result.orderId, b.result.orderId],
      notCanceled: [{ orderId: 'missing', reason: 'Order not found or already canceled' }] })
  t.equal(context.read.order(a.result.orderId)?.status, 'CANCELED')
  t.equal((await refusal(async () => orderOfClientOrderId(context, trader, 'a'))).code, 'ORDER_UNKNOWN')
  const again = await placeOrder(context, signed(yes, 'a'), trader)
  t.equal(orderOfClientOrderId(context, trader, 'a').orderId, again.result.orderId, 'reused')
  const otherKey = await cancelByClientOrderIds(context, { ...trader, apiKey: 'key-2' }, ['a'])
  t.strictSame(otherKey.canceled, [], 'another key of the same wallet does not name this key\'s orders')
  const journaled = w.commands.length
  const tooMany = await refusal(() => cancelByClientOrderIds(context, trader, Array.from({ length: 1_001 }, (_, i) => `c${i}`)))
  t.strictSame([tooMany.code, tooMany.context], [Code.CANCEL_TOO_MANY, { max: 1_000 }])
  t.equal(w.commands.length, journaled, 'refused before the engine')
})

t.test('the read model: records stored before client order ids load with \'\'; the live index is rebuilt', (t) => {
  const record = (orderId: string, clientOrderId: string | undefined, status: OrderRecord['status']): OrderRecord => {
    const base = { orderId, marketId: 'm', tokenId: 't', outcome: 'Yes', side: 'BUY', owner: 'k', maker: alice, signer: alice,
      priceMicros: 1, originalSizeMicros: 1, makerAmountMicros: 1, takerAmountMicros: 1, timeInForce: 'GTC',
      postOnly: false, expirationSec: 0, createdMs: 0, seq: 1, sizeMatchedMicros: 0, remainingMicros: 1, status,
      reason: null, associateTrades: [] }
    return (clientOrderId === undefined ? base : { ...base, clientOrderId }) as unknown as OrderRecord
  }
  const read = new ReadModel()
  read.loadRecords([record('0x1', undefined, 'LIVE'), record('0x2', 'x', 'CANCELED'), record('0x3', 'x', 'LIVE')], [])
  t.equal(read.order('0x1')?.clientOrderId, '', 'an old record has none')
  t.equal(read.liveOrderOfClient('k', 'x')?.orderId, '0x3', 'the live one, not the ended one')
  t.equal(read.liveOrderOfClient('k', ''), undefined)
  read.apply(2, [{ type: 'orderUpdate', orderId: '0x3', maker: alice, status: 'MATCHED', sizeMatchedMicros: 1,
    remainingMicros: 0, reason: null }], 0)
  t.equal(read.liveOrderOfClient('k', 'x'), undefined, 'gone once it ended')
  t.end()
})

t.test('an order the rules take costs no lookup of its id; one they refuse is looked up, and a known one goes to the engine', async (t) => {
  const { context, yes, marketId } = await world()
  const read = context.read
  const lookedUp: string[] = []
  const order = read.order.bind(read)
  read.order = (orderId) => {
    lookedUp.push(orderId)
    return order(orderId)
  }
  const first = signed(yes)
  const placed = await placeOrder(context, first, trader)
  t.equal(placed.result.status, 'LIVE')
  // For a new order the lookup misses the read model's memory and reads the read store's disk.
  t.same(lookedUp, [], 'a new order that passes the rules is not looked up')

  await context.host.submit({ kind: 'setMarketStatus', marketId, status: 'Paused' })
  const again = await refusal(() => placeOrder(context, first, trader))
  t.equal(again.code, Code.INVALID_ORDER_DUPLICATED, 'the engine answers a known order, whatever the market now')
  t.same(lookedUp, [placed.result.orderId], 'looked up once the rules refused it')
  const fresh = await refusal(() => placeOrder(context, signed(yes), trader))
  t.equal(fresh.code, Code.MARKET_CANCEL_ONLY, 'a new one is refused by the rules at the edge')
})
