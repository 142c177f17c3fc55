/**
 * Compatibility suite: an unmodified `@polymarket/clob-client-v2` (1.1.0, Polymarket's current
 * client, protocol V2) against a real Predex over loopback, with `host = http://127.0.0.1:<port>/compat`
 * and chain id 80002, signing with a viem WalletClient (a local account: no RPC). Every call goes
 * through the client's own version look-up, request, header, rounding and signing code; the
 * assertions are on what it returns and on the engine's exact balances and holds. The V1 client
 * (`@polymarket/clob-client` 5.8.1) trades on the same server in the same run.
 *
 * One server for the file, on a TestClock (test/support/clock.ts): the heartbeat window passes
 * when the last subtest advances it, not in 15 real seconds. Every other subtest trades on markets
 * and with wallets of its own, so each one's balances start from what it funded.
 */
import t, { type Test } from 'tap'
import type { WalletClient } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import {
  AssetType, ClobClient, OrderType, Side, SignatureTypeV2, isV2Order,
  type ApiKeyCreds, type OpenOrder, type OrderResponse, type SignedOrder,
} from '@polymarket/clob-client-v2'
import { ClobClient as ClobClientV1, Side as SideV1 } from '@polymarket/clob-client'
import { orderDigest, type ExchangeVersion } from '../../src/crypto/eip712.js'
import { toHex } from '../../src/crypto/hex.js'
import type { MarketRecord } from '../../src/engine/event.js'
import { PAGE_LIMIT_DEFAULT } from '../../src/limits.js'
import { BATCH_ORDERS_MAX } from '../../src/engine/limits.js'
import { HEARTBEAT_WINDOW_MS } from '../../src/service/trading/heartbeats.js'
import { CHAIN_ID, USDC, startServer, type TestServer } from '../support/rest-harness.js'
import { TestClock } from '../support/clock.js'
import { expectHoldings as expectHoldingsOf, ok, walletOf, type ExpectedHoldings, type HeldBy } from './support.js'

const ZERO_BYTES32 = '0x' + '0'.repeat(64)
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const HASH = /^0x[0-9a-f]{64}$/

interface Party {
  readonly name: string
  readonly signer: WalletClient
  /** Lower-case, as the engine keys accounts. */
  readonly address: string
  readonly creds: ApiKeyCreds
  /** clob-client-v2, authenticated (L1 + L2). */
  readonly client: ClobClient
}

const clock = new TestClock()
let server: TestServer
let host: string

/** A wallet with an API key made by clob-client-v2 over L1, `usdcMicros` credited and approved. */
async function party(name: string, usdcMicros = 0, options: { useServerTime?: boolean } = {}): Promise<Party> {
  const signer = walletOf(generatePrivateKey())
  const address = signer.account!.address.toLowerCase()
  const creds = await new ClobClient({ host, chain: CHAIN_ID, signer, ...options }).createOrDeriveApiKey()
  if (typeof creds.key !== 'string') throw new Error(`${name}: no API key: ${JSON.stringify(creds)}`)
  if (usdcMicros > 0) await server.fund(address, usdcMicros)
  return { name, signer, address, creds, client: new ClobClient({ host, chain: CHAIN_ID, signer, creds, ...options }) }
}

/** Mints `sets` full sets of `market` for `p` (engine split): `sets` Yes and `sets` No for as many USDC. */
async function split(p: Party, market: MarketRecord, sets: number): Promise<void> {
  await server.command({ kind: 'split', address: p.address, marketId: market.marketId, amountMicros: sets * USDC })
}

function heldBy(p: Party): HeldBy {
  return { name: p.name, address: p.address, balanceOf: async (tokenId) => (await p.client.getBalanceAllowance(
    tokenId === null ? { asset_type: AssetType.COLLATERAL } : { asset_type: AssetType.CONDITIONAL, token_id: tokenId })).balance }
}

/** The engine's exact holdings of `p`, and its balances once more through getBalanceAllowance (support.ts). */
function expectHoldings(t: Test, p: Party, expected: ExpectedHoldings, what: string): Promise<void> {
  return expectHoldingsOf(t, server, heldBy(p), expected, what)
}

/** A client result that is the server's refusal: status, catalogue code, and the message matched. */
function refused(t: Test, result: unknown, expected: { status: number; code: string; error: RegExp | string; [field: string]: unknown },
  what: string): void {
  t.match(result, expected, `${what}: ${expected.status} ${expected.code}`)
}

/**
 * The EIP-712 digest of an order signed by the client, computed by Predex's own encoder
 * (src/crypto/eip712.ts) from the fields the client produced: the id the server must answer.
 */
function digestOf(order: SignedOrder, negRisk: boolean, version: ExchangeVersion = 2): string {
  if (!isV2Order(order)) throw new Error('not a V2 order')
  return toHex(orderDigest({
    version: 2, salt: String(order.salt), maker: order.maker, signer: order.signer, tokenId: order.tokenId,
    makerAmount: order.makerAmount, takerAmount: order.takerAmount, side: order.side === Side.BUY ? 0 : 1,
    signatureType: order.signatureType, timestamp: order.timestamp, metadata: order.metadata, builder: order.builder,
  }, CHAIN_ID, negRisk, version))
}

function ids(orders: readonly OpenOrder[]): string[] {
  return orders.map((o) => o.id)
}

t.before(async () => {
  server = await startServer({ clock })
  host = `${server.base}/compat`
})
t.teardown(() => server?.stop())

t.test('createOrDeriveApiKey: a credential, the same one again, usable over L2 at once', async (t) => {
  const signer = walletOf(generatePrivateKey())
  const l1 = new ClobClient({ host, chain: CHAIN_ID, signer })
  const created = await l1.createOrDeriveApiKey()
  t.match(created.key, UUID, 'the key is a UUID')
  t.match(created.secret, /^[A-Za-z0-9_-]{43}=$/, 'the secret is 32 bytes of url-safe base64 with padding')
  t.ok(typeof created.passphrase === 'string' && created.passphrase.length > 0, 'a passphrase')
  t.same(await l1.createOrDeriveApiKey(), created, 'again: the same credential (created, then derived)')
  t.same(await l1.deriveApiKey(), created, 'deriveApiKey gives it too')
  const l2 = new ClobClient({ host, chain: CHAIN_ID, signer, creds: created })
  const keys = ok(t, await l2.getApiKeys(), 'getApiKeys') as unknown as { apiKeys: string[] }
  t.same(keys.apiKeys, [created.key], 'the key lists itself over L2')
  t.same(ok(t, await l2.getOpenOrders(), 'getOpenOrders'), [], 'no orders yet')
})

t.test('getVersion answers 2 through the client; getOk', async (t) => {
  const client = new ClobClient({ host, chain: CHAIN_ID })
  t.equal(await client.getVersion(), 2, 'the number 2: the client signs V2 orders')
  t.equal(await client.getOk(), 'OK')
})

t.test('limit orders of each type through createAndPostOrder and createOrder + postOrder; ids are the EIP-712 hashes', async (t) => {
  const market = await server.createMarket()
  const negRisk = await server.createMarket({ negRisk: true })
  const Y = market.yesTokenId
  const [alice, sam] = await Promise.all([party('alice', 100 * USDC), party('sam', 20 * USDC)])
  await split(sam, market, 20)

  // GTC through createAndPostOrder: the client asks /version, /tick-size, /neg-risk, then posts.
  const gtc = ok(t, await alice.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.4, size: 10 }), 'GTC BUY 10 @ 0.40')
  t.match(gtc, { success: true, errorMsg: '', status: 'live', orderID: HASH, transactionsHashes: [], tradeIDs: [] })
  t.match(await alice.client.getOrder(gtc.orderID), { id: gtc.orderID, status: 'LIVE', side: 'BUY', price: '0.4', original_size: '10',
    order_type: 'GTC', expiration: '0', asset_id: Y, market: market.conditionId, owner: alice.creds.key })

  // createOrder builds the 11-field V2 order; postOrder sends it; the id is its EIP-712 hash.
  const signed = await alice.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.41, size: 10 })
  t.ok(isV2Order(signed), 'a V2 order (the server said 2)')
  t.match(signed, { maker: alice.signer.account!.address, signer: alice.signer.account!.address, tokenId: Y,
    makerAmount: '4100000', takerAmount: '10000000', side: 'BUY', signatureType: 0, expiration: '0',
    metadata: ZERO_BYTES32, builder: ZERO_BYTES32 })
  t.ok(Math.abs(Number((signed as { timestamp: string }).timestamp) - clock.wallMs()) < 60_000, 'timestamp in milliseconds')
  for (const field of ['taker', 'nonce', 'feeRateBps']) t.notOk(field in signed, `no ${field} in a V2 order`)
  const posted = ok(t, await alice.client.postOrder(signed, OrderType.GTC), 'postOrder (GTC)')
  t.match(posted, { success: true, status: 'live' })
  t.equal(posted.orderID, digestOf(signed, false), 'the orderID is the V2 digest (domain "2", exchange V2)')
  t.not(posted.orderID, digestOf(signed, false, 3), '(not the V3 one)')

  // GTD: the expiration is sent (unsigned) and is the order's time.
  const expiration = Math.floor(clock.wallMs() / 1000) + 3_600
  const gtdOrder = await alice.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.39, size: 10, expiration })
  t.equal((gtdOrder as { expiration: string }).expiration, String(expiration))
  const gtd = ok(t, await alice.client.postOrder(gtdOrder, OrderType.GTD), 'postOrder (GTD)')
  t.equal(gtd.orderID, digestOf(gtdOrder, false))
  t.match(await alice.client.getOrder(gtd.orderID), { status: 'LIVE', order_type: 'GTD', expiration: String(expiration) })
  const gtcWithExpiration = await alice.client.postOrder(
    await alice.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.38, size: 10, expiration }), OrderType.GTC)
  refused(t, gtcWithExpiration, { status: 400, code: 'INVALID_ORDER_EXPIRATION', error: /expiration/i }, 'a GTC order with an expiration')

  // Neg-risk: the client signs for the V2 neg-risk exchange (it read /neg-risk); the id follows.
  const nr = await alice.client.createOrder({ tokenID: negRisk.yesTokenId, side: Side.BUY, price: 0.3, size: 10 })
  const nrPosted = ok(t, await alice.client.postOrder(nr), 'postOrder (neg-risk)')
  t.equal(nrPosted.orderID, digestOf(nr, true), 'the id is the digest under the V2 neg-risk exchange')

  // Post-only: rests when it does not cross; refused when it would.
  const postOnly = ok(t, await alice.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.42, size: 10 }, undefined,
    OrderType.GTC, true), 'post-only BUY 10 @ 0.42')
  t.equal(postOnly.status, 'live')
  const ask = ok(t, await sam.client.createAndPostOrder({ tokenID: Y, side: Side.SELL, price: 0.6, size: 10 }), 'SELL 10 @ 0.60')
  t.equal(ask.status, 'live')
  const crossing = await alice.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.6, size: 10 }, undefined, OrderType.GTC, true)
  refused(t, crossing, { status: 400, code: 'INVALID_POST_ONLY_ORDER', error: 'invalid post-only order: order crosses book' },
    'a post-only BUY at the ask')
  const fokOrder = await alice.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.6, size: 5 })
  await t.rejects(alice.client.postOrder(fokOrder, OrderType.FOK, true), /postOnly is not supported for FOK\/FAK orders/,
    'post-only FOK: the client refuses it before sending')

  // FOK and FAK limit orders: 5 fill whole; then 10 wanted, the 5 left fill and the rest is killed.
  const fok = ok(t, await alice.client.postOrder(fokOrder, OrderType.FOK), 'postOrder (FOK BUY 5 @ 0.60)')
  t.match(fok, { success: true, status: 'matched', makingAmount: '3', takingAmount: '5' })
  t.equal(fok.orderID, digestOf(fokOrder, false))
  const fakOrder = await alice.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.6, size: 10 })
  const fak = ok(t, await alice.client.postOrder(fakOrder, OrderType.FAK), 'postOrder (FAK BUY 10 @ 0.60)')
  t.match(fak, { success: true, status: 'matched', makingAmount: '3', takingAmount: '5' })
  t.match(await alice.client.getOrder(fak.orderID), { order_type: 'FAK', original_size: '10', size_matched: '5' })
  t.not((await alice.client.getOrder(fak.orderID)).status, 'LIVE', 'the rest of a FAK does not rest')

  // Resting: 4 + 4.1 + 3.9 (GTD) + 3 (neg-risk) + 4.2 (post-only) USDC; paid 3 + 3 for 10 Yes.
  await expectHoldings(t, alice, { usdc: 94 * USDC, usdcHeld: 19_200_000, shares: { [Y]: [10 * USDC, 0] } }, 'five resting bids, two fills')
  await expectHoldings(t, sam, { usdc: 6 * USDC, shares: { [Y]: [10 * USDC, 0], [market.noTokenId]: [20 * USDC, 0] } }, 'sold 10 Yes')
  t.same((await alice.client.getOpenOrders()).map((o) => o.id).sort(),
    [gtc.orderID, posted.orderID, gtd.orderID, nrPosted.orderID, postOnly.orderID].sort(), 'the five resting orders')
})

t.test('a normal, a mint and a merge match between V2 orders, exact balances; a matched postOrder answers at once', async (t) => {
  const market = await server.createMarket()
  const [Y, N] = [market.yesTokenId, market.noTokenId]
  const [seller, buyer, minter] = await Promise.all([party('seller', 10 * USDC), party('buyer', 100 * USDC), party('minter', 100 * USDC)])
  await split(seller, market, 10)

  // Normal: SELL Yes rests, BUY Yes takes it.
  const ask = ok(t, await seller.client.createAndPostOrder({ tokenID: Y, side: Side.SELL, price: 0.55, size: 10 }), 'SELL 10 Yes @ 0.55')
  t.equal(ask.status, 'live')
  await expectHoldings(t, seller, { usdc: 0, shares: { [Y]: [10 * USDC, 10 * USDC], [N]: [10 * USDC, 0] } }, 'the SELL holds 10 Yes')
  const bid = await buyer.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.55, size: 10 })
  await buyer.client.getVersion() // warm the connection: the time measured is the order's
  const started = performance.now()
  const normal = ok(t, await buyer.client.postOrder(bid), 'BUY 10 Yes @ 0.55')
  const elapsedMs = performance.now() - started
  t.ok(elapsedMs < 1_000, `the matched postOrder returned in ${elapsedMs.toFixed(0)} ms (the client polls /data/trades up to 30 s otherwise)`)
  t.match(normal, { success: true, status: 'matched', makingAmount: '5.5', takingAmount: '10', orderID: digestOf(bid, false) })
  t.equal(normal.tradeIDs?.length, 1, 'one trade')
  t.equal(normal.transactionsHashes?.length, 1, 'its transaction hash, in the answer')
  t.match(normal.transactionsHashes?.[0], HASH)
  const [trade] = ok(t, await buyer.client.getTrades({ id: normal.tradeIDs![0]! }), 'getTrades({id})')
  t.match(trade, { id: normal.tradeIDs![0], taker_order_id: normal.orderID, side: 'BUY', size: '10', price: '0.55',
    transaction_hash: normal.transactionsHashes![0], trader_side: 'TAKER', match_type: 'normal' })
  t.type(trade!.status, 'string', 'a string status: the client calls status.toUpperCase()')
  t.equal(trade!.maker_orders[0]!.order_id, ask.orderID)
  await expectHoldings(t, seller, { usdc: 5_500_000, shares: { [N]: [10 * USDC, 0] } }, 'after the normal match')
  await expectHoldings(t, buyer, { usdc: 94_500_000, shares: { [Y]: [10 * USDC, 0] } }, 'after the normal match')

  // Mint: BUY Yes @ 0.60 rests; BUY No @ 0.40 meets it: a full set is made for 0.60 + 0.40.
  const yesBid = ok(t, await buyer.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.6, size: 10 }), 'BUY 10 Yes @ 0.60')
  t.equal(yesBid.status, 'live')
  await expectHoldings(t, buyer, { usdc: 94_500_000, usdcHeld: 6 * USDC, shares: { [Y]: [10 * USDC, 0] } }, 'the bid holds 6 USDC')
  const mint = ok(t, await minter.client.createAndPostOrder({ tokenID: N, side: Side.BUY, price: 0.4, size: 10 }), 'BUY 10 No @ 0.40')
  t.match(mint, { status: 'matched', makingAmount: '4', takingAmount: '10' })
  t.match((await minter.client.getTrades({ id: mint.tradeIDs![0]! }))[0], { match_type: 'mint', side: 'BUY', price: '0.4', asset_id: N })
  await expectHoldings(t, buyer, { usdc: 88_500_000, shares: { [Y]: [20 * USDC, 0] } }, 'after the mint')
  await expectHoldings(t, minter, { usdc: 96 * USDC, shares: { [N]: [10 * USDC, 0] } }, 'after the mint')

  // Merge: SELL Yes @ 0.70 rests; SELL No @ 0.30 meets it: the set is redeemed for 0.70 + 0.30.
  const yesAsk = ok(t, await buyer.client.createAndPostOrder({ tokenID: Y, side: Side.SELL, price: 0.7, size: 10 }), 'SELL 10 Yes @ 0.70')
  t.equal(yesAsk.status, 'live')
  await expectHoldings(t, buyer, { usdc: 88_500_000, shares: { [Y]: [20 * USDC, 10 * USDC] } }, 'the SELL holds 10 Yes')
  const merge = ok(t, await seller.client.createAndPostOrder({ tokenID: N, side: Side.SELL, price: 0.3, size: 10 }), 'SELL 10 No @ 0.30')
  t.match(merge, { status: 'matched', makingAmount: '10', takingAmount: '3' })
  t.match((await seller.client.getTrades({ id: merge.tradeIDs![0]! }))[0], { match_type: 'merge', side: 'SELL', price: '0.3', asset_id: N })
  await expectHoldings(t, buyer, { usdc: 95_500_000, shares: { [Y]: [10 * USDC, 0] } }, 'after the merge')
  await expectHoldings(t, seller, { usdc: 8_500_000 }, 'after the merge')
  // 210 USDC funded: 200 in accounts, 10 behind the one set still out (10 Yes, 10 No).
  t.equal(95_500_000 + 8_500_000 + 96 * USDC + 10 * USDC, 210 * USDC, 'USDC is conserved')
})

t.test("fees: a V2 order signs none; the taker pays the market's rate at match; a BUY needs the fee bound available", async (t) => {
  const market = await server.createMarket({ feeRateBps: 150 })
  const [Y, N] = [market.yesTokenId, market.noTokenId]
  const [maker, taker] = await Promise.all([party('maker', 10 * USDC), party('taker', 100 * USDC)])
  await split(maker, market, 10)
  const info = ok(t, await taker.client.getClobMarketInfo(market.conditionId), 'getClobMarketInfo')
  t.match(info, { mts: 0.01, t: [{ t: Y, o: 'Yes' }, { t: N, o: 'No' }] })

  // A BUY must have its cost and the most fee it can owe (150 bps of the cost) available, since it
  // may take; what rests holds its cost only (a maker pays no fee).
  const poor = await party('poor', 2 * USDC)
  refused(t, await poor.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.2, size: 10 }),
    { status: 400, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', error: 'not enough balance / allowance', requiredMicros: 2_030_000,
      availableMicros: 2 * USDC },
    'BUY 10 @ 0.20 with 2 USDC: 2 + 0.03 needed')
  const low = ok(t, await taker.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.2, size: 10 }), 'BUY 10 @ 0.20')
  t.equal(low.status, 'live')
  await expectHoldings(t, taker, { usdc: 100 * USDC, usdcHeld: 2 * USDC }, 'the resting bid holds its cost')
  t.ok(ok(t, await taker.client.cancelOrder({ orderID: low.orderID }), 'cancelOrder').canceled.includes(low.orderID))

  const ask = ok(t, await maker.client.createAndPostOrder({ tokenID: Y, side: Side.SELL, price: 0.7, size: 10 }), 'SELL 10 @ 0.70')
  t.equal(ask.status, 'live')
  const order = await taker.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.7, size: 10 })
  t.notOk('feeRateBps' in order, 'no fee in the signed order')
  const buy = ok(t, await taker.client.postOrder(order), 'BUY 10 @ 0.70')
  // 150 bps x min(0.7, 0.3) x 10 shares = 0.045 USDC, paid by the taker; the maker pays none.
  t.match(buy, { status: 'matched', makingAmount: '7', takingAmount: '10', fee: '0.045' })
  const [trade] = await taker.client.getTrades({ id: buy.tradeIDs![0]! })
  t.match(trade, { fee_rate_bps: '150', trader_side: 'TAKER', price: '0.7', size: '10' })
  await expectHoldings(t, taker, { usdc: 92_955_000, shares: { [Y]: [10 * USDC, 0] } }, '7 USDC and a 0.045 fee for 10 Yes')
  await expectHoldings(t, maker, { usdc: 7 * USDC, shares: { [N]: [10 * USDC, 0] } }, 'the maker gets 7, no fee')
})

t.test(`postOrders: a batch of ${BATCH_ORDERS_MAX} is placed whole; ${BATCH_ORDERS_MAX + 1} is BATCH_TOO_LARGE`, async (t) => {
  const market = await server.createMarket()
  const Y = market.yesTokenId
  const trader = await party('batcher', 10 * USDC)
  // Bids of 5 at 0.01, 0.02, … 0.15: 5 x 1.20 = 6 USDC held.
  const orders = await Promise.all(Array.from({ length: BATCH_ORDERS_MAX },
    (_, i) => trader.client.createOrder({ tokenID: Y, side: Side.BUY, price: (i + 1) / 100, size: 5 })))
  const results = ok(t, await trader.client.postOrders(orders.map((order) => ({ order, orderType: OrderType.GTC }))), 'postOrders (15)')
  t.ok(Array.isArray(results), 'an array of results')
  t.same(results.map((r) => [r.success, r.status]), orders.map(() => [true, 'live']), 'every order placed')
  t.same(results.map((r) => r.orderID), orders.map((o) => digestOf(o, false)), 'each id is its order\'s V2 digest, in order')
  await expectHoldings(t, trader, { usdc: 10 * USDC, usdcHeld: 6 * USDC }, 'fifteen bids')

  const more = await Promise.all(Array.from({ length: BATCH_ORDERS_MAX + 1 },
    () => trader.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.01, size: 5 })))
  const tooMany = await trader.client.postOrders(more.map((order) => ({ order, orderType: OrderType.GTC })))
  refused(t, tooMany, { status: 400, code: 'BATCH_TOO_LARGE', error: `Too many orders in payload: ${BATCH_ORDERS_MAX + 1}, max allowed: ${BATCH_ORDERS_MAX}` },
    'sixteen orders')
  t.equal((await trader.client.getOpenOrders()).length, BATCH_ORDERS_MAX, 'none of the sixteen was placed')
  await expectHoldings(t, trader, { usdc: 10 * USDC, usdcHeld: 6 * USDC }, 'after the refused batch')
})

t.test('market orders through createAndPostMarketOrder: with and without a price; a FOK that cannot fill is refused', async (t) => {
  const market = await server.createMarket()
  const [Y, N] = [market.yesTokenId, market.noTokenId]
  const [seller, buyer, bidder] = await Promise.all([party('seller', 10 * USDC), party('buyer', 20 * USDC), party('bidder', 10 * USDC)])
  await split(seller, market, 10)
  t.equal(ok(t, await seller.client.createAndPostOrder({ tokenID: Y, side: Side.SELL, price: 0.5, size: 10 }), 'SELL 10 @ 0.50').status, 'live')

  // Without a price the client reads /markets-by-token, /clob-markets and /book, prices at 0.50.
  const byBook = ok(t, await buyer.client.createAndPostMarketOrder({ tokenID: Y, side: Side.BUY, amount: 3 }, undefined, OrderType.FOK),
    'FOK BUY $3, no price')
  t.match(byBook, { success: true, status: 'matched', makingAmount: '3', takingAmount: '6' })
  t.match(await buyer.client.getOrder(byBook.orderID), { status: 'MATCHED', order_type: 'FOK', price: '0.5', size_matched: '6' })

  // $10 at 0.50 wants 20 shares, 4 are offered. With a price the order reaches the server, which kills it.
  const killed = await buyer.client.createAndPostMarketOrder({ tokenID: Y, side: Side.BUY, amount: 10, price: 0.5 }, undefined, OrderType.FOK)
  refused(t, killed, { status: 400, code: 'FOK_ORDER_NOT_FILLED', error: "order couldn't be fully filled. FOK orders are fully filled or killed." },
    'FOK BUY $10 @ 0.50 (the server\'s verdict)')
  // Without a price the client walks the book itself, finds too little, and sends nothing.
  await t.rejects(buyer.client.createAndPostMarketOrder({ tokenID: Y, side: Side.BUY, amount: 10 }, undefined, OrderType.FOK),
    /^no match$/, 'FOK BUY $10, no price: the client\'s own "no match"')
  t.same((await buyer.client.getOrderBook(Y)).asks, [{ price: '0.5', size: '4' }], 'the book is unchanged')
  await expectHoldings(t, buyer, { usdc: 17 * USDC, shares: { [Y]: [6 * USDC, 0] } }, 'after the FOKs')

  // FAK with a price: takes the 4 left, the rest is killed.
  const fak = ok(t, await buyer.client.createAndPostMarketOrder({ tokenID: Y, side: Side.BUY, amount: 10, price: 0.5 }, undefined, OrderType.FAK),
    'FAK BUY $10 @ 0.50')
  t.match(fak, { success: true, status: 'matched', makingAmount: '2', takingAmount: '4' })
  t.same((await buyer.client.getOrderBook(Y)).asks, [], 'no asks left')
  const nothing = await buyer.client.createAndPostMarketOrder({ tokenID: Y, side: Side.BUY, amount: 5, price: 0.5 }, undefined, OrderType.FAK)
  refused(t, nothing, { status: 400, code: 'FAK_ORDER_NOT_FILLED', error: /^no orders found to match with FAK order/ }, 'a FAK with nothing to meet')

  // A market SELL without a price: the client prices it at the best bid.
  t.equal(ok(t, await bidder.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.45, size: 10 }), 'BUY 10 @ 0.45').status, 'live')
  const sell = ok(t, await buyer.client.createAndPostMarketOrder({ tokenID: Y, side: Side.SELL, amount: 6 }, undefined, OrderType.FOK),
    'FOK SELL 6 shares, no price')
  t.match(sell, { success: true, status: 'matched', makingAmount: '6', takingAmount: '2.7' })

  await expectHoldings(t, seller, { usdc: 5 * USDC, shares: { [N]: [10 * USDC, 0] } }, 'sold 10 Yes at 0.50')
  await expectHoldings(t, buyer, { usdc: 17_700_000, shares: { [Y]: [4 * USDC, 0] } }, 'bought 10 for 5, sold 6 for 2.70')
  await expectHoldings(t, bidder, { usdc: 7_300_000, usdcHeld: 1_800_000, shares: { [Y]: [6 * USDC, 0] } }, '6 of 10 filled at 0.45')
})

t.test('cancels of every kind; getOrder', async (t) => {
  const [m1, m2] = await Promise.all([server.createMarket(), server.createMarket()])
  const trader = await party('canceller', 20 * USDC)
  const specs: Array<[string, number]> = [[m1.yesTokenId, 0.1], [m1.yesTokenId, 0.11], [m1.noTokenId, 0.12], [m1.noTokenId, 0.13],
    [m2.yesTokenId, 0.14], [m2.noTokenId, 0.15], [m2.yesTokenId, 0.16], [m1.yesTokenId, 0.17]]
  const orders = await Promise.all(specs.map(([tokenID, price]) => trader.client.createOrder({ tokenID, side: Side.BUY, price, size: 10 })))
  const posted = ok(t, await trader.client.postOrders(orders.map((order) => ({ order, orderType: OrderType.GTC }))), 'postOrders')
  const [o1, o2, o3, o4, o5, o6, o7, o8] = posted.map((r: OrderResponse) => r.orderID) as [string, string, string, string, string, string, string, string]
  await expectHoldings(t, trader, { usdc: 20 * USDC, usdcHeld: 10_800_000 }, 'eight bids (10 x 1.08)')
  t.match(ok(t, await trader.client.getOrder(o5), 'getOrder'), { id: o5, status: 'LIVE', market: m2.conditionId, asset_id: m2.yesTokenId,
    side: 'BUY', price: '0.14', original_size: '10', size_matched: '0', outcome: 'Yes', order_type: 'GTC', associate_trades: [] })

  t.same(ok(t, await trader.client.cancelOrder({ orderID: o1 }), 'cancelOrder'), { canceled: [o1], not_canceled: {} })
  t.equal((await trader.client.getOrder(o1)).status, 'CANCELED', 'getOrder: CANCELED')
  const unknown = '0x' + 'ab'.repeat(32)
  const many = ok(t, await trader.client.cancelOrders([o2, o3, unknown]), 'cancelOrders')
  t.same(many.canceled.sort(), [o2, o3].sort())
  t.same(Object.keys(many.not_canceled), [unknown], 'the unknown id is not canceled, with a reason')
  await expectHoldings(t, trader, { usdc: 20 * USDC, usdcHeld: 10_800_000 - 1_000_000 - 1_100_000 - 1_200_000 }, 'after three cancels')

  t.same(ok(t, await trader.client.cancelMarketOrders({ asset_id: m1.noTokenId }), 'cancelMarketOrders({asset_id})'),
    { canceled: [o4], not_canceled: {} }, 'only that token\'s order')
  const byMarket = ok(t, await trader.client.cancelMarketOrders({ market: m2.conditionId }), 'cancelMarketOrders({market})')
  t.same(byMarket.canceled.sort(), [o5, o6, o7].sort(), 'both tokens of that market')
  t.same(ids(await trader.client.getOpenOrders()), [o8], 'one order left')
  await expectHoldings(t, trader, { usdc: 20 * USDC, usdcHeld: 1_700_000 }, 'one bid left')
  t.same(ok(t, await trader.client.cancelAll(), 'cancelAll'), { canceled: [o8], not_canceled: {} })
  t.same(await trader.client.cancelAll(), { canceled: [], not_canceled: {} }, 'nothing left to cancel')
  t.same(await trader.client.getOpenOrders(), [])
  await expectHoldings(t, trader, { usdc: 20 * USDC }, 'after cancelAll')
})

t.test(`getOpenOrders over several pages (${PAGE_LIMIT_DEFAULT} a page); cancelOrders of them all in one request`, async (t) => {
  const market = await server.createMarket()
  const Y = market.yesTokenId
  const trader = await party('pager', 10 * USDC)
  const count = PAGE_LIMIT_DEFAULT + 5
  const signed = await Promise.all(Array.from({ length: count }, () => trader.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.01, size: 5 })))
  const placed: string[] = []
  for (let i = 0; i < count; i += BATCH_ORDERS_MAX) {
    const results = ok(t, await trader.client.postOrders(signed.slice(i, i + BATCH_ORDERS_MAX).map((order) => ({ order, orderType: OrderType.GTC }))),
      `postOrders #${i / BATCH_ORDERS_MAX}`)
    if (!results.every((r) => r.success === true)) t.fail(`batch ${i / BATCH_ORDERS_MAX}: ${JSON.stringify(results)}`)
    placed.push(...results.map((r) => r.orderID))
  }
  t.equal(new Set(placed).size, count)
  const firstPage = ok(t, await trader.client.getOpenOrders({ asset_id: Y }, true), 'getOpenOrders (first page only)')
  t.equal(firstPage.length, PAGE_LIMIT_DEFAULT, 'one page')
  const all = ok(t, await trader.client.getOpenOrders({ asset_id: Y }), 'getOpenOrders (every page)')
  t.same(ids(all), placed, 'the client followed next_cursor to LTE=: every order once, in placement order')
  t.same(ids(await trader.client.getOpenOrders({ market: market.conditionId })), placed, 'filter by market')
  t.same(ids(await trader.client.getOpenOrders({ id: placed[42]! })), [placed[42]], 'filter by id')
  await expectHoldings(t, trader, { usdc: 10 * USDC, usdcHeld: count * 50_000 }, `${count} bids of 5 @ 0.01`)

  const canceled = ok(t, await trader.client.cancelOrders(placed), `cancelOrders (${count} ids)`)
  t.same(canceled.canceled.sort(), [...placed].sort(), 'all canceled')
  t.same(canceled.not_canceled, {})
  t.same(await trader.client.getOpenOrders(), [])
  await expectHoldings(t, trader, { usdc: 10 * USDC }, 'after cancelOrders')
})

t.test('the V1 client (clob-client 5.8.1) on the same server: V1 and V2 orders match both ways', async (t) => {
  const market = await server.createMarket()
  const [Y, N] = [market.yesTokenId, market.noTokenId]
  const v2 = await party('v2', 100 * USDC)
  const v1Signer = walletOf(generatePrivateKey())
  const v1Address = v1Signer.account!.address.toLowerCase()
  const v1Creds = await new ClobClientV1(host, CHAIN_ID, v1Signer).createOrDeriveApiKey()
  const v1Client = new ClobClientV1(host, CHAIN_ID, v1Signer, v1Creds)
  const v1: Party = { name: 'v1', signer: v1Signer, address: v1Address, creds: v1Creds,
    // expectHoldings reads balances through a V2 client: the same key, the same account.
    client: new ClobClient({ host, chain: CHAIN_ID, signer: v1Signer, creds: v1Creds }) }
  await server.fund(v1Address, 10 * USDC)
  await split(v1, market, 10)

  // V1 SELL rests (signed by 5.8.1: 12 fields, domain "1"); a V2 BUY takes it.
  const v1Sell = await v1Client.createAndPostOrder({ tokenID: Y, side: SideV1.SELL, price: 0.55, size: 10 })
  t.match(v1Sell, { success: true, status: 'live' }, 'V1 SELL 10 @ 0.55 rests')
  const v2Buy = ok(t, await v2.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.55, size: 10 }), 'V2 BUY 10 @ 0.55')
  t.match(v2Buy, { status: 'matched', makingAmount: '5.5', takingAmount: '10' })
  const [trade] = await v2.client.getTrades({ id: v2Buy.tradeIDs![0]! })
  t.equal(trade!.maker_orders[0]!.order_id, v1Sell.orderID, 'the V2 taker met the V1 maker')
  await expectHoldings(t, v1, { usdc: 5_500_000, shares: { [N]: [10 * USDC, 0] } }, 'V1 seller after the match')
  await expectHoldings(t, v2, { usdc: 94_500_000, shares: { [Y]: [10 * USDC, 0] } }, 'V2 buyer after the match')

  // The other way: a V2 SELL rests; a V1 BUY takes it.
  const v2Sell = ok(t, await v2.client.createAndPostOrder({ tokenID: Y, side: Side.SELL, price: 0.6, size: 5 }), 'V2 SELL 5 @ 0.60')
  t.equal(v2Sell.status, 'live')
  const v1Buy = await v1Client.createAndPostOrder({ tokenID: Y, side: SideV1.BUY, price: 0.6, size: 5 })
  t.match(v1Buy, { success: true, status: 'matched', makingAmount: '3', takingAmount: '5' }, 'V1 BUY 5 @ 0.60 takes it')
  const v1Trades = await v1Client.getTrades({ market: market.conditionId })
  // A trade's side is its taker's, as on Polymarket; the maker's own side is in maker_orders.
  t.same(v1Trades.map((x) => [x.trader_side, x.side, x.size, x.price, x.maker_orders[0]!.side]).sort(),
    [['MAKER', 'BUY', '10', '0.55', 'SELL'], ['TAKER', 'BUY', '5', '0.6', 'SELL']], 'the V1 client sees both trades')
  await expectHoldings(t, v1, { usdc: 2_500_000, shares: { [Y]: [5 * USDC, 0], [N]: [10 * USDC, 0] } }, 'V1 after buying 5 back')
  await expectHoldings(t, v2, { usdc: 97_500_000, shares: { [Y]: [5 * USDC, 0] } }, 'V2 after selling 5')
})

t.test('order_version_mismatch: a V3 order is refused in the shape the client checks; its retry recovers', async (t) => {
  const market = await server.createMarket()
  const Y = market.yesTokenId
  const trader = await party('v3', 10 * USDC)
  const v3 = await trader.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.1, size: 10 }, { version: 3 })
  t.ok(isV2Order(v3), 'the V3 wire shape is the V2 one')
  const answer = await trader.client.postOrder(v3)
  refused(t, answer, { status: 400, code: 'ORDER_VERSION_MISMATCH', error: /^order_version_mismatch/ }, 'a V3 order')
  const client = trader.client as unknown as { _isOrderVersionMismatch(resp: unknown): boolean; cachedVersion?: number }
  t.equal(client._isOrderVersionMismatch(answer), true, 'the client\'s own test recognises it (a top-level error string)')
  const batch = await trader.client.postOrders([{ order: v3, orderType: OrderType.GTC }])
  t.equal(client._isOrderVersionMismatch(batch), false, 'in a batch the verdict is per order, which the client does not read')
  t.match(batch, [{ success: false, errorMsg: /^order_version_mismatch/ }], '… but it is there, per order')
  t.same(await trader.client.getOpenOrders(), [], 'nothing placed')

  // A client that believed the server spoke V3 (as if /version had said 3 when it looked): its
  // createAndPostOrder signs V3, is told order_version_mismatch, re-reads /version (2), and
  // signs and posts again: placed, under the V2 id.
  client.cachedVersion = 3
  const retried = ok(t, await trader.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.1, size: 10 }), 'createAndPostOrder, cached 3')
  t.match(retried, { success: true, status: 'live' }, 'the second attempt is placed')
  t.equal(client.cachedVersion, 2, 'the client now knows the server speaks 2')
  t.same(ids(await trader.client.getOpenOrders()), [retried.orderID], 'one order: the V3 attempt left nothing behind')
  await expectHoldings(t, trader, { usdc: 10 * USDC, usdcHeld: 1 * USDC }, 'one bid of 1 USDC')
})

t.test('signature type 3 (POLY_1271): the client builds it with funderAddress; refused with a clear reason, never a 500', async (t) => {
  const market = await server.createMarket()
  const trader = await party('depositor', 10 * USDC)
  const depositWallet = walletOf(generatePrivateKey()).account!.address
  const client = new ClobClient({ host, chain: CHAIN_ID, signer: trader.signer, creds: trader.creds,
    signatureType: SignatureTypeV2.POLY_1271, funderAddress: depositWallet })
  const order = await client.createOrder({ tokenID: market.yesTokenId, side: Side.BUY, price: 0.1, size: 10 })
  t.match(order, { signatureType: 3, maker: depositWallet, signer: depositWallet }, 'maker = signer = the wallet')
  t.equal(order.signature.length, 2 + 2 * 317, 'the nested ERC-7739 signature: 65 + 32 + 32 + 186 + 2 bytes')
  const answer = await client.postOrder(order)
  refused(t, answer, { status: 400, code: 'INVALID_SIGNATURE', error: /deposit wallet/, signatureType: 3,
    wallet: depositWallet.toLowerCase(), signedBy: trader.address }, 'a deposit-wallet order, naming the wallet and the EOA it recovered to')
  t.same(await trader.client.getOpenOrders(), [])
})

t.test('ticks 0.005 and 0.0025: the client rounds to decimals only; the server enforces the tick', async (t) => {
  const [half, quarter] = await Promise.all([server.createMarket({ tickSizeMicros: 5_000 }), server.createMarket({ tickSizeMicros: 2_500 })])
  const trader = await party('ticker', 20 * USDC)
  t.equal(await trader.client.getTickSize(half.yesTokenId), '0.005')
  t.equal(await trader.client.getTickSize(quarter.yesTokenId), '0.0025')
  refused(t, await trader.client.createAndPostOrder({ tokenID: half.yesTokenId, side: Side.BUY, price: 0.503, size: 10 }),
    { status: 400, code: 'INVALID_ORDER_MIN_TICK_SIZE', error: 'order is invalid. Price breaks minimum tick size rule' }, '0.503 on 0.005')
  const good = ok(t, await trader.client.createAndPostOrder({ tokenID: half.yesTokenId, side: Side.BUY, price: 0.505, size: 10 }), '0.505 on 0.005')
  t.match(good, { success: true, status: 'live' })
  t.match(await trader.client.getOrder(good.orderID), { price: '0.505', original_size: '10' })
  refused(t, await trader.client.createAndPostOrder({ tokenID: quarter.yesTokenId, side: Side.BUY, price: 0.2501, size: 10 }),
    { status: 400, code: 'INVALID_ORDER_MIN_TICK_SIZE', error: /tick size/ }, '0.2501 on 0.0025')
  const quarterGood = ok(t, await trader.client.createAndPostOrder({ tokenID: quarter.yesTokenId, side: Side.BUY, price: 0.2525, size: 10 }),
    '0.2525 on 0.0025')
  t.match(await trader.client.getOrder(quarterGood.orderID), { price: '0.2525', status: 'LIVE' })
  await t.rejects(trader.client.createOrder({ tokenID: half.yesTokenId, side: Side.BUY, price: 0.004, size: 10 }), /invalid price/,
    'below one tick: the client refuses it itself')
  await expectHoldings(t, trader, { usdc: 20 * USDC, usdcHeld: 5_050_000 + 2_525_000 }, 'the two bids')
})

// Last: it moves the server's clock past a heartbeat window.
t.test('heartbeats: postHeartbeat() chains; when they stop, the key\'s open orders are cancelled within the window', async (t) => {
  const market = await server.createMarket()
  const Y = market.yesTokenId
  const heartbeats = server.predex.context.heartbeats
  // The clock moves: the clients sign with the server's time.
  const [beater, other] = await Promise.all([party('beater', 10 * USDC, { useServerTime: true }), party('other', 10 * USDC, { useServerTime: true })])
  const mine = [
    ok(t, await beater.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.1, size: 10 }), 'BUY @ 0.10').orderID,
    ok(t, await beater.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.2, size: 10 }), 'BUY @ 0.20').orderID,
  ].sort()
  const theirs = ok(t, await other.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.15, size: 10 }), 'other BUY').orderID

  const first = ok(t, await beater.client.postHeartbeat(), 'postHeartbeat()')
  t.match(first, { heartbeat_id: UUID })
  let id = first.heartbeat_id
  for (let i = 0; i < 3; i++) {
    clock.advance(HEARTBEAT_WINDOW_MS - 1)
    t.equal(await heartbeats.sweep(), 0, `window ${i + 1}: the chain is alive`)
    const next = ok(t, await beater.client.postHeartbeat(id), `postHeartbeat(id) #${i + 1}`)
    t.not(next.heartbeat_id, id, 'a new id each time')
    id = next.heartbeat_id
  }
  t.same(ids(await beater.client.getOpenOrders()).sort(), mine, 'kept alive')

  // The heartbeats stop. 1 ms before the window ends nothing happens; at its end, the orders go.
  clock.advance(HEARTBEAT_WINDOW_MS - 1)
  t.equal(await heartbeats.sweep(), 0, `${HEARTBEAT_WINDOW_MS - 1} ms after the last heartbeat: nothing`)
  t.same(ids(await beater.client.getOpenOrders()).sort(), mine)
  clock.advance(1)
  t.equal(await heartbeats.sweep(), 1, `${HEARTBEAT_WINDOW_MS} ms (10 s + grace): the chain lapses`)
  t.same(await beater.client.getOpenOrders(), [], 'no open orders')
  for (const orderId of mine) t.equal((await beater.client.getOrder(orderId)).status, 'CANCELED')
  t.same(ids(await other.client.getOpenOrders()), [theirs], 'a key without a chain is untouched')
  await expectHoldings(t, beater, { usdc: 10 * USDC }, 'nothing held')
  const after = ok(t, await beater.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.1, size: 10 }), 'a new order').orderID
  clock.advance(2 * HEARTBEAT_WINDOW_MS)
  t.equal(await heartbeats.sweep(), 0, 'the chain is over until the next heartbeat')
  t.same(ids(await beater.client.getOpenOrders()), [after])
})
