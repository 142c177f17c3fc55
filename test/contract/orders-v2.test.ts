/**
 * V1 and V2 orders side by side on the native API (and a V2 order over gRPC's TradingService):
 * one server, the same books and accounts. A V2 order's id is its EIP-712 hash under domain
 * version 2; a V1 order matches a V2 one with exact balances; a V2 order signs no fee and pays
 * the market's rate at match; its unsigned expiration is its GTD time; a deposit-wallet (type 3)
 * order is verified and refused for want of a registered wallet; a V3 order is Polymarket's
 * `order_version_mismatch`; a V2 order signed for the V1 domain is told apart, never a 500.
 */
import t from 'tap'
import { orderBody, orderBodyV2, signLimitOrder, signLimitOrderV2, type SignedOrderV2 } from '../../src/client/orders.js'
import { depositWalletDigest, nestSignature } from '../../src/crypto/deposit-wallet.js'
import { orderDigest, orderDomainSeparator, orderStructHash } from '../../src/crypto/eip712.js'
import { toHex } from '../../src/crypto/hex.js'
import { PredexGrpcClient } from '../../src/client/grpc/predex-grpc-client.js'
import { signDigest } from '../../src/crypto/signature.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { l2, placeLimit, startServer, termsOf, USDC, type TestServer, type Trader } from '../support/rest-harness.js'

let server: TestServer
let market: MarketRecord
let feeMarket: MarketRecord
let negRisk: MarketRecord

t.before(async () => {
  server = await startServer()
  market = await server.createMarket()
  feeMarket = await server.createMarket({ feeRateBps: 200 })
  negRisk = await server.createMarket({ negRisk: true })
})
t.teardown(() => server?.stop())

function signV2(trader: Trader, m: MarketRecord, order: { outcome?: 'Yes' | 'No'; side: 'BUY' | 'SELL'; price: string;
  size: string; expiration?: number }): SignedOrderV2 {
  const tokenId = order.outcome === 'No' ? m.noTokenId : m.yesTokenId
  return signLimitOrderV2(trader.wallet, termsOf(m), { tokenId, side: order.side, price: order.price, size: order.size,
    ...(order.expiration === undefined ? {} : { expiration: order.expiration }) })
}

async function postV2(trader: Trader, signed: SignedOrderV2, orderType: 'GTC' | 'GTD' | 'FOK' | 'FAK' = 'GTC',
  postOnly = false): Promise<{ status: number; body: any }> {
  return l2(server, trader, 'POST', '/order', orderBodyV2(signed, trader.credentials.apiKey, orderType, postOnly))
}

t.test('a V2 order rests under its V2 id; a V1 order takes it; exact balances', async (t) => {
  const [alice, bob] = await Promise.all([server.trader(100 * USDC), server.trader(100 * USDC)])
  const buy = signV2(alice, market, { side: 'BUY', price: '0.40', size: '10' })
  t.equal(buy.orderId, toHex(orderDigest(buy.order, 80002, false)), 'the id is the V2 digest')
  const placed = await postV2(alice, buy)
  t.equal(placed.status, 200, JSON.stringify(placed.body))
  t.match(placed.body, { success: true, orderID: buy.orderId, status: 'live' })
  t.equal((await server.account(alice.address)).heldMicros, 4 * USDC, 'the V2 buy holds 4 USDC')
  // Bob mints 10 sets to sell Yes against it with a V1 order.
  await server.command({ kind: 'split', address: bob.address, marketId: market.marketId, amountMicros: 10 * USDC })
  const sell = await placeLimit(server, bob, market, { side: 'SELL', price: '0.40', size: '10' })
  t.equal(sell.status, 200, JSON.stringify(sell.body))
  t.match(sell.body, { success: true, status: 'matched' })
  t.equal(sell.body.transactionsHashes.length, 1, 'a matched order carries its transaction hash')
  const a = await server.account(alice.address)
  const b = await server.account(bob.address)
  t.same([a.usdcMicros, a.heldMicros, a.shares.get(market.yesTokenId)], [96 * USDC, 0, 10 * USDC], 'alice: 4 USDC for 10 Yes')
  t.same([b.usdcMicros, b.shares.get(market.yesTokenId) ?? 0, b.shares.get(market.noTokenId)], [94 * USDC, 0, 10 * USDC],
    'bob: 90 + 4 USDC, his No kept')
  const order = await l2(server, alice, 'GET', `/data/order/${buy.orderId}`)
  t.match(order.body, { id: buy.orderId, status: 'MATCHED' })
})

t.test('a V2 taker pays the market\'s fee at match (it signed none); a V1 order must still sign it', async (t) => {
  const [maker, taker] = await Promise.all([server.trader(100 * USDC), server.trader(100 * USDC)])
  await server.command({ kind: 'split', address: maker.address, marketId: feeMarket.marketId, amountMicros: 10 * USDC })
  const ask = await placeLimit(server, maker, feeMarket, { side: 'SELL', price: '0.50', size: '10' })
  t.equal(ask.status, 200, JSON.stringify(ask.body))
  const buy = await postV2(taker, signV2(taker, feeMarket, { side: 'BUY', price: '0.50', size: '10' }))
  t.equal(buy.status, 200, JSON.stringify(buy.body))
  t.match(buy.body, { status: 'matched' })
  // 200 bps x min(0.5, 0.5) x 10 shares = 0.1 USDC.
  t.equal((await server.account(taker.address)).usdcMicros, 100 * USDC - 5 * USDC - 100_000, 'cost 5 + fee 0.1')
  t.equal(buy.body.fee, '0.1')
  const wrongFee = signLimitOrder(taker.wallet, { ...termsOf(feeMarket), feeRateBps: 0 },
    { tokenId: feeMarket.yesTokenId, side: 'BUY', price: '0.10', size: '5' })
  const v1 = await l2(server, taker, 'POST', '/order', orderBody(wrongFee, taker.credentials.apiKey, 'GTC'))
  t.equal(v1.status, 400)
  t.equal(v1.body.code, 'INVALID_ORDER_FEE_RATE', 'a V1 order still signs the market\'s fee rate')
})

t.test('GTD: the unsigned expiration is the order\'s time; GTC with one is refused', async (t) => {
  const alice = await server.trader(10 * USDC)
  const expiration = Math.floor(Date.now() / 1000) + 3_600
  const gtd = await postV2(alice, signV2(alice, market, { side: 'BUY', price: '0.10', size: '5', expiration }), 'GTD')
  t.equal(gtd.status, 200, JSON.stringify(gtd.body))
  const order = await l2(server, alice, 'GET', `/data/order/${gtd.body.orderID}`)
  t.equal(order.body.expiration, String(expiration * 1000), 'native expiration in ms')
  const gtc = await postV2(alice, signV2(alice, market, { side: 'BUY', price: '0.10', size: '5', expiration }), 'GTC')
  t.equal(gtc.status, 400)
  t.equal(gtc.body.code, 'INVALID_ORDER_EXPIRATION')
})

t.test('neg-risk: a V2 order verifies under the V2 neg-risk exchange only', async (t) => {
  const alice = await server.trader(10 * USDC)
  const good = await postV2(alice, signV2(alice, negRisk, { side: 'BUY', price: '0.10', size: '5' }))
  t.equal(good.status, 200, JSON.stringify(good.body))
  const wrong = signLimitOrderV2(alice.wallet, { ...termsOf(negRisk), negRisk: false },
    { tokenId: negRisk.yesTokenId, side: 'BUY', price: '0.10', size: '5' })
  const refused = await postV2(alice, wrong)
  t.equal(refused.status, 400)
  t.match(refused.body, { code: 'INVALID_SIGNATURE', check: 'signature-domain',
    expected: '0xe2222d279d744050d28e00520010520000310F59' })
})

t.test('a V3 order is order_version_mismatch; a V2 struct signed for the V1 domain is someone else\'s', async (t) => {
  const alice = await server.trader(10 * USDC)
  const v2 = signV2(alice, market, { side: 'BUY', price: '0.10', size: '5' })
  const key = (alice.wallet as unknown as { privateKey: Uint8Array }).privateKey
  const v3 = { ...v2, signature: signDigest(orderDigest(v2.order, 80002, false, 3), key) }
  const mismatch = await postV2(alice, v3)
  t.equal(mismatch.status, 400)
  t.equal(mismatch.body.code, 'ORDER_VERSION_MISMATCH')
  t.match(mismatch.body.error, /^order_version_mismatch/, 'the string clob-client-v2 looks for, at the top level')
  const v1Domain = { ...v2, signature: signDigest(orderDigest(v2.order, 80002, false, 1), key) }
  const wrong = await postV2(alice, v1Domain)
  t.equal(wrong.status, 400)
  t.match(wrong.body, { code: 'INVALID_SIGNATURE', check: 'signature-signer' })
})

t.test('POLY_1271 (type 3): verified, then refused: no deposit wallet is registered; never a 500', async (t) => {
  const alice = await server.trader(10 * USDC)
  const wallet = '0x' + 'de'.repeat(20)
  const base = signLimitOrderV2(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.10',
    size: '5' }, { maker: wallet })
  const order = { ...base.order, signer: wallet, signatureType: 3 as const }
  const key = (alice.wallet as unknown as { privateKey: Uint8Array }).privateKey
  const separator = orderDomainSeparator(80002, false, 2)
  const inner = signDigest(depositWalletDigest(separator, orderStructHash(order), 80002, wallet), key)
  const signed: SignedOrderV2 = { ...base, order, signature: nestSignature(inner, separator, orderStructHash(order)) }
  const refused = await postV2(alice, signed)
  t.equal(refused.status, 400, JSON.stringify(refused.body))
  t.match(refused.body, { code: 'INVALID_SIGNATURE', check: 'signature-type', message: undefined,
    error: /registers no deposit wallets/, signedBy: alice.address })
  const bob = await server.trader(0)
  const notHis = await l2(server, bob, 'POST', '/order', orderBodyV2(signed, bob.credentials.apiKey, 'GTC'))
  t.equal(notHis.status, 403, 'signed by alice\'s EOA, sent with bob\'s key')
  t.equal(notHis.body.code, 'NOT_OWNER')
  const garbled = await postV2(alice, { ...signed, signature: signed.signature.slice(0, -4) + '00bb' })
  t.equal(garbled.status, 400)
  t.match(garbled.body, { code: 'INVALID_SIGNATURE', check: 'signature-nested' })
  const typeOneV1 = await l2(server, alice, 'POST', '/order', JSON.stringify({ order: { ...JSON.parse(
    orderBodyV2(signed, alice.credentials.apiKey, 'GTC')).order, timestamp: undefined }, owner: alice.credentials.apiKey }))
  t.equal(typeOneV1.status, 400, 'without a timestamp it is read as V1, where type 3 does not exist')
  t.match(typeOneV1.body, { code: 'INVALID_ORDER_PAYLOAD', field: 'signatureType' })
})

t.test('malformed V2 fields name the field', async (t) => {
  const alice = await server.trader(10 * USDC)
  const body = JSON.parse(orderBodyV2(signV2(alice, market, { side: 'BUY', price: '0.10', size: '5' }),
    alice.credentials.apiKey, 'GTC'))
  for (const [field, value] of [['timestamp', '-1'], ['metadata', '0x12'], ['builder', 7]] as const) {
    const reply = await l2(server, alice, 'POST', '/order', { ...body, order: { ...body.order, [field]: value } })
    t.equal(reply.status, 400, field)
    t.match(reply.body, { code: 'INVALID_ORDER_PAYLOAD', field }, field)
  }
})

t.test('a V2 order over gRPC (TradingService.PlaceOrder): the same id, on the same book', async (t) => {
  const alice = await server.trader(10 * USDC)
  const signed = signV2(alice, market, { side: 'BUY', price: '0.11', size: '5' })
  const client = new PredexGrpcClient({ target: `127.0.0.1:${server.predex.grpcPort}`,
    signer: { credentials: alice.credentials, address: alice.address } })
  t.teardown(() => client.close())
  const o = signed.order
  const { placement } = await client.placeOrder({ order: { order: { salt: o.salt, maker: o.maker, signer: o.signer,
    tokenId: o.tokenId, makerAmount: o.makerAmount, takerAmount: o.takerAmount, side: o.side,
    signatureType: o.signatureType, timestamp: o.timestamp, metadata: o.metadata, builder: o.builder,
    expiration: signed.expiration, signature: signed.signature } } })
  t.equal(placement?.orderId, signed.orderId)
  const order = await l2(server, alice, 'GET', `/data/order/${signed.orderId}`)
  t.match(order.body, { id: signed.orderId, status: 'LIVE' })
})

t.test('admin: a market with tick 0.005, then 0.0025; /tick-size and /compat/clob-markets say so', async (t) => {
  const admin = { 'exchange-admin-key': server.predex.adminKey, 'content-type': 'application/json' }
  const created = await fetch(`${server.base}/admin/markets`, { method: 'POST', headers: admin,
    body: JSON.stringify({ question: 'Half-cent ticks?', tick_size: '0.005', min_order_size: '5', fee_rate_bps: 0 }) })
  t.equal(created.status, 201)
  const market = (await created.json()) as { id: string; condition_id: string; tokens: { token_id: string }[] }
  const token = market.tokens[0]!.token_id
  const tick = await (await fetch(`${server.base}/tick-size?token_id=${token}`)).json() as { minimum_tick_size: number }
  t.equal(String(tick.minimum_tick_size), '0.005', 'the tick string clob-client-v2 keys its rounding by')
  const patched = await fetch(`${server.base}/admin/markets/${market.id}`, { method: 'PATCH', headers: admin,
    body: JSON.stringify({ tick_size: '0.0025' }) })
  t.equal(patched.status, 200)
  const finer = await (await fetch(`${server.base}/tick-size?token_id=${token}`)).json() as { minimum_tick_size: number }
  t.equal(String(finer.minimum_tick_size), '0.0025')
  const info = await (await fetch(`${server.base}/compat/clob-markets/${market.condition_id}`)).json() as { mts: number }
  t.equal(String(info.mts), '0.0025', 'clob-markets mts, the tick createMarketOrder reads')
  const bad = await fetch(`${server.base}/admin/markets/${market.id}`, { method: 'PATCH', headers: admin,
    body: JSON.stringify({ tick_size: '0.003' }) })
  t.equal(bad.status, 400, '0.003 is no tick')
})
