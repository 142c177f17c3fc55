/**
 * Compatibility suite: an unmodified `@polymarket/clob-client` (v5.8.1) against a real Predex over
 * loopback, with `host = http://127.0.0.1:<port>/compat` and chain id 80002, signing with a viem
 * WalletClient (a local account: no RPC). Every call goes through the client's own request,
 * header, rounding and signing code; the assertions are on what it returns and on the engine's
 * exact balances. One server for the file; the subtests run in order and build on each other's
 * state (the balances are tracked through the whole file).
 */
import t, { type Test } from 'tap'
import type { WalletClient } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { AssetType, ClobClient, OrderType, Side, type ApiKeyCreds, type OpenOrder, type Trade } from '@polymarket/clob-client'
import type { MarketRecord } from '../../src/engine/event.js'
import { CHAIN_ID, USDC, startServer, type TestServer } from '../support/rest-harness.js'
import { engineHoldings, expectHoldings as expectHoldingsOf, ok, walletOf, type ExpectedHoldings, type HeldBy,
  type Holdings } from './support.js'

const MAX_ALLOWANCE = String(Number.MAX_SAFE_INTEGER)

interface Party {
  readonly name: string
  readonly wallet: WalletClient
  /** Lower-case, as the engine keys accounts. */
  readonly address: string
  readonly creds: ApiKeyCreds
  /** Authenticated (L1 + L2) client. */
  readonly client: ClobClient
}


let server: TestServer
let host: string
/** M1: tick 0.01, min size 5, no fee, the regular exchange. Where the trading happens. */
let m1: MarketRecord
/** M2: tick 0.001, neg-risk (orders signed for the neg-risk exchange). */
let m2: MarketRecord
/** M3: tick 0.1, a 150 bps fee. */
let m3: MarketRecord

async function party(name: string, usdcMicros = 0): Promise<Party> {
  const wallet = walletOf(generatePrivateKey())
  const address = wallet.account!.address.toLowerCase()
  const creds = await new ClobClient(host, CHAIN_ID, wallet).createOrDeriveApiKey()
  if (typeof creds.key !== 'string') throw new Error(`${name}: no API key: ${JSON.stringify(creds)}`)
  if (usdcMicros > 0) await server.fund(address, usdcMicros)
  return { name, wallet, address, creds, client: new ClobClient(host, CHAIN_ID, wallet, creds) }
}

function heldBy(p: Party): HeldBy {
  return { name: p.name, address: p.address, balanceOf: async (tokenId) => (await p.client.getBalanceAllowance(
    tokenId === null ? { asset_type: AssetType.COLLATERAL } : { asset_type: AssetType.CONDITIONAL, token_id: tokenId })).balance }
}

function expectHoldings(t: Test, p: Party, expected: ExpectedHoldings, what: string): Promise<void> {
  return expectHoldingsOf(t, server, heldBy(p), expected, what)
}

function holdings(address: string): Promise<Holdings> {
  return engineHoldings(server, address)
}

let alice: Party
let bob: Party
let carol: Party
let dave: Party
let aliceSell = ''
let bobBuy = ''
let firstTradeId = ''

t.before(async () => {
  server = await startServer()
  host = `${server.base}/compat`
  m1 = await server.createMarket()
  m2 = await server.createMarket({ tickSizeMicros: 1_000, negRisk: true })
  m3 = await server.createMarket({ tickSizeMicros: 100_000, feeRateBps: 150 })
  ;[alice, bob, carol, dave] = await Promise.all([party('alice', 100 * USDC), party('bob', 100 * USDC), party('carol', 100 * USDC),
    party('dave', 10 * USDC)])
  // Alice mints 50 full sets of M1: 50 Yes + 50 No for 50 USDC.
  await server.command({ kind: 'split', address: alice.address, marketId: m1.marketId, amountMicros: 50 * USDC })
})
t.teardown(() => server?.stop())

t.test('createOrDeriveApiKey: a credential, the same one again, usable at once', async (t) => {
  const wallet = walletOf(generatePrivateKey())
  const l1 = new ClobClient(host, CHAIN_ID, wallet)
  const first = await l1.createOrDeriveApiKey()
  t.match(first.key, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'the key is a UUID')
  t.match(first.secret, /^[A-Za-z0-9_-]{43}=$/, 'the secret is 32 bytes of url-safe base64 with padding')
  t.ok(typeof first.passphrase === 'string' && first.passphrase.length > 0, 'a passphrase')
  const second = await l1.createOrDeriveApiKey()
  t.same(second, first, 'the same wallet and nonce give the same credential')
  t.same(await l1.deriveApiKey(), first, 'deriveApiKey gives it too')
  const other = await l1.createOrDeriveApiKey(7)
  t.not(other.key, first.key, 'another nonce, another credential')
  const l2 = new ClobClient(host, CHAIN_ID, wallet, first)
  const keys = ok(t, await l2.getApiKeys(), 'getApiKeys') as unknown as { apiKeys: string[] }
  t.ok(keys.apiKeys.includes(first.key) && keys.apiKeys.includes(other.key), 'both keys are listed, over L2 with the new key')
  const fresh = walletOf(generatePrivateKey())
  const derived = await new ClobClient(host, CHAIN_ID, fresh).deriveApiKey()
  t.equal(derived.key, undefined, 'derive without a credential: nothing')
})

t.test('getOk, getServerTime, and a client that signs with the server\'s clock', async (t) => {
  const client = new ClobClient(host, CHAIN_ID)
  t.equal(await client.getOk(), 'OK')
  const time = await client.getServerTime()
  t.ok(Number.isInteger(time) && Math.abs(time - Date.now() / 1000) < 5, 'unix seconds, as a bare integer')
  const wallet = walletOf(generatePrivateKey())
  const creds = await new ClobClient(host, CHAIN_ID, wallet, undefined, undefined, undefined, undefined, true).createOrDeriveApiKey()
  t.type(creds.key, 'string', 'L1 with the server time')
  const l2 = new ClobClient(host, CHAIN_ID, wallet, creds, undefined, undefined, undefined, true)
  t.same(ok(t, await l2.getOpenOrders(), 'L2 with the server time'), [])
})

t.test('getTickSize, getNegRisk, getFeeRateBps', async (t) => {
  const client = new ClobClient(host, CHAIN_ID)
  t.equal(await client.getTickSize(m1.yesTokenId), '0.01')
  t.equal(await client.getTickSize(m2.noTokenId), '0.001')
  t.equal(await client.getTickSize(m3.yesTokenId), '0.1')
  t.equal(await client.getNegRisk(m1.yesTokenId), false)
  t.equal(await client.getNegRisk(m2.yesTokenId), true)
  t.equal(await client.getFeeRateBps(m1.yesTokenId), 0)
  t.equal(await client.getFeeRateBps(m3.noTokenId), 150)
  await t.rejects(client.getTickSize('12345'), 'an unknown token: the client throws the server\'s error')
})

t.test('limit orders: a resting SELL, a crossing BUY, a trade, exact balances', async (t) => {
  const Y = m1.yesTokenId
  const N = m1.noTokenId
  await expectHoldings(t, alice, { usdc: 50 * USDC, shares: { [Y]: [50 * USDC, 0], [N]: [50 * USDC, 0] } }, 'after the split')
  const sell = ok(t, await alice.client.createAndPostOrder({ tokenID: Y, side: Side.SELL, price: 0.6, size: 20 }), 'SELL 20 @ 0.60')
  t.equal(sell.success, true)
  t.equal(sell.status, 'live')
  t.equal(sell.errorMsg, '')
  t.match(sell.orderID, /^0x[0-9a-f]{64}$/)
  t.equal(sell.makingAmount, '')
  aliceSell = sell.orderID
  await expectHoldings(t, alice, { usdc: 50 * USDC, shares: { [Y]: [50 * USDC, 20 * USDC], [N]: [50 * USDC, 0] } }, 'resting SELL holds 20 Yes')

  const buy = ok(t, await bob.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.65, size: 10 }), 'BUY 10 @ 0.65')
  t.equal(buy.success, true)
  t.equal(buy.status, 'matched', 'the BUY crossed on entry')
  t.equal(buy.makingAmount, '6', 'Bob paid 10 x 0.60 (the maker\'s price)')
  t.equal(buy.takingAmount, '10', 'Bob got 10 shares')
  t.equal(buy.tradeIDs.length, 1)
  bobBuy = buy.orderID
  firstTradeId = buy.tradeIDs[0]

  await expectHoldings(t, alice, { usdc: 56 * USDC, shares: { [Y]: [40 * USDC, 10 * USDC], [N]: [50 * USDC, 0] } }, 'after the trade')
  await expectHoldings(t, bob, { usdc: 94 * USDC, shares: { [Y]: [10 * USDC, 0] } }, 'after the trade')
  const allowance = await bob.client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })
  t.equal(allowance.allowance, MAX_ALLOWANCE, 'the approved allowance')
})

t.test('getOrder: the resting maker and the filled taker', async (t) => {
  const maker = ok(t, await alice.client.getOrder(aliceSell), 'getOrder (maker)')
  t.match(maker, {
    id: aliceSell, status: 'LIVE', owner: alice.creds.key, market: m1.conditionId, asset_id: m1.yesTokenId, side: 'SELL',
    original_size: '20', size_matched: '10', price: '0.6', outcome: 'Yes', expiration: '0', order_type: 'GTC',
  })
  t.equal(maker.maker_address.toLowerCase(), alice.address)
  t.same(maker.associate_trades, [firstTradeId])
  t.type(maker.created_at, 'number')
  t.ok(Math.abs(maker.created_at - Date.now() / 1000) < 120, 'created_at is in seconds')
  const taker = ok(t, await bob.client.getOrder(bobBuy), 'getOrder (taker)')
  t.match(taker, { id: bobBuy, status: 'MATCHED', side: 'BUY', original_size: '10', size_matched: '10', price: '0.65' })
  const foreign = await bob.client.getOrder(aliceSell) as unknown as { error?: string; status?: number }
  t.equal(foreign.status, 404, 'another trader\'s order is not found')
  t.ok(typeof foreign.error === 'string' && foreign.error.length > 0)
})

t.test('getTrades: the taker\'s and the maker\'s view of the trade', async (t) => {
  const bobs = ok(t, await bob.client.getTrades(), 'getTrades (taker)')
  t.equal(bobs.length, 1)
  const trade = bobs[0]!
  t.match(trade, {
    id: firstTradeId, taker_order_id: bobBuy, market: m1.conditionId, asset_id: m1.yesTokenId, side: 'BUY', size: '10',
    price: '0.6', fee_rate_bps: '0', outcome: 'Yes', owner: bob.creds.key, trader_side: 'TAKER',
  })
  t.ok(['MATCHED', 'MINED', 'CONFIRMED'].includes(trade.status))
  t.match(trade.match_time, /^\d{10}$/, 'match_time in seconds')
  t.equal(trade.maker_orders.length, 1)
  t.match(trade.maker_orders[0], { order_id: aliceSell, owner: alice.creds.key, matched_amount: '10', price: '0.6',
    asset_id: m1.yesTokenId, outcome: 'Yes', side: 'SELL' })
  t.equal(trade.maker_orders[0]!.maker_address.toLowerCase(), alice.address)
  const alices = ok(t, await alice.client.getTrades(), 'getTrades (maker)')
  t.equal(alices.length, 1)
  t.equal(alices[0]!.id, firstTradeId)
  t.equal(alices[0]!.trader_side, 'MAKER')
  t.same((await bob.client.getTrades({ asset_id: m1.noTokenId })).length, 0, 'filter: another token')
  t.same((await bob.client.getTrades({ market: m1.conditionId })).map((x: Trade) => x.id), [firstTradeId], 'filter: the market')
  t.same(await carol.client.getTrades(), [], 'a trader without trades: an empty list')
})

t.test('market data: getOrderBook, getMidpoint, getPrice, getSpread, getLastTradePrice', async (t) => {
  const Y = m1.yesTokenId
  const bid = ok(t, await bob.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.4, size: 10 }), 'BUY 10 @ 0.40')
  t.equal(bid.status, 'live')
  const client = new ClobClient(host, CHAIN_ID)
  const book = ok(t, await client.getOrderBook(Y), 'getOrderBook')
  t.match(book, { market: m1.conditionId, asset_id: Y, min_order_size: '5', tick_size: '0.01', neg_risk: false, last_trade_price: '0.6' })
  t.same(book.bids, [{ price: '0.4', size: '10' }])
  t.same(book.asks, [{ price: '0.6', size: '10' }])
  t.match(book.timestamp, /^\d{13}$/, 'timestamp in milliseconds')
  t.equal(await client.getOrderBookHash({ ...book }), book.hash, 'the hash is the one clob-client computes')
  t.same(ok(t, await client.getMidpoint(Y), 'getMidpoint').mid, '0.5')
  t.same(ok(t, await client.getPrice(Y, Side.BUY), 'getPrice BUY').price, '0.4', 'BUY: the best bid')
  t.same(ok(t, await client.getPrice(Y, Side.SELL), 'getPrice SELL').price, '0.6', 'SELL: the best ask')
  t.same(ok(t, await client.getSpread(Y), 'getSpread').spread, '0.2')
  t.same(ok(t, await client.getLastTradePrice(Y), 'getLastTradePrice'), { price: '0.6', side: 'BUY' })
  // The batch forms.
  const books = ok(t, await client.getOrderBooks([{ token_id: Y, side: Side.BUY }, { token_id: m2.yesTokenId, side: Side.BUY }]), 'getOrderBooks')
  t.same(books.map((b) => [b.asset_id, b.bids.length, b.asks.length, b.tick_size]), [[Y, 1, 1, '0.01'], [m2.yesTokenId, 0, 0, '0.001']])
  t.same(ok(t, await client.getMidpoints([{ token_id: Y, side: Side.BUY }]), 'getMidpoints'), { [Y]: '0.5' })
  t.same(ok(t, await client.getPrices([{ token_id: Y, side: Side.BUY }, { token_id: Y, side: Side.SELL }]), 'getPrices'),
    { [Y]: { BUY: '0.4', SELL: '0.6' } })
  t.same(ok(t, await client.getSpreads([{ token_id: Y, side: Side.BUY }]), 'getSpreads'), { [Y]: '0.2' })
  t.same(ok(t, await client.getLastTradesPrices([{ token_id: Y, side: Side.BUY }]), 'getLastTradesPrices'), [{ token_id: Y, price: '0.6', side: 'BUY' }])
  const market = ok(t, await client.getMarket(m1.conditionId), 'getMarket')
  t.match(market, { condition_id: m1.conditionId, neg_risk: false, accepting_orders: true, minimum_tick_size: 0.01 })
  t.same(market.tokens.map((x: any) => [x.token_id, x.outcome]), [[Y, 'Yes'], [m1.noTokenId, 'No']])
  // The No book of the same market is its own: Alice's and Bob's Yes orders are not in it.
  const noBook = ok(t, await client.getOrderBook(m1.noTokenId), 'getOrderBook (No)')
  t.same([noBook.bids, noBook.asks], [[], []])
  await expectHoldings(t, bob, { usdc: 94 * USDC, usdcHeld: 4 * USDC, shares: { [Y]: [10 * USDC, 0] } }, 'the bid holds 4 USDC')
})

t.test('market orders: FOK fills, FOK is killed, FAK fills partly', async (t) => {
  const Y = m1.yesTokenId
  const N = m1.noTokenId
  // Book: asks 10 @ 0.60 (Alice), bids 10 @ 0.40 (Bob).
  const fok = ok(t, await bob.client.createAndPostMarketOrder({ tokenID: Y, side: Side.BUY, amount: 3 }, undefined, OrderType.FOK),
    'FOK BUY $3 (price from the book)')
  t.match(fok, { success: true, status: 'matched', makingAmount: '3', takingAmount: '5' })
  await expectHoldings(t, bob, { usdc: 91 * USDC, usdcHeld: 4 * USDC, shares: { [Y]: [15 * USDC, 0] } }, 'after the FOK')
  await expectHoldings(t, alice, { usdc: 59 * USDC, shares: { [Y]: [35 * USDC, 5 * USDC], [N]: [50 * USDC, 0] } }, 'after the FOK')

  // $1 at 0.60: the client signs 1 USDC for 1.6666 shares; whole lots only, so 1.66 shares fill for
  // 0.996 USDC and the 0.004 left cannot buy another lot: filled.
  const odd = ok(t, await bob.client.createAndPostMarketOrder({ tokenID: Y, side: Side.BUY, amount: 1 }, undefined, OrderType.FOK),
    'FOK BUY $1 (a fractional share count)')
  t.match(odd, { success: true, status: 'matched', makingAmount: '0.996', takingAmount: '1.66' })
  t.match(await bob.client.getOrder(odd.orderID), { status: 'MATCHED', order_type: 'FOK', size_matched: '1.66' })
  await expectHoldings(t, bob, { usdc: 90_004_000, usdcHeld: 4 * USDC, shares: { [Y]: [16_660_000, 0] } }, 'after the $1 FOK')
  await expectHoldings(t, alice, { usdc: 59_996_000, shares: { [Y]: [33_340_000, 3_340_000], [N]: [50 * USDC, 0] } }, 'after the $1 FOK')

  // $10 at 0.60 needs 16.66 shares; 3.34 are offered: killed, nothing changes.
  const bookBefore = await bob.client.getOrderBook(Y)
  const killed = await bob.client.createAndPostMarketOrder({ tokenID: Y, side: Side.BUY, amount: 10, price: 0.6 }, undefined, OrderType.FOK)
  t.match(killed, { status: 400, error: "order couldn't be fully filled. FOK orders are fully filled or killed." }, 'the FOK is killed')
  t.same((await bob.client.getOrderBook(Y)).asks, bookBefore.asks, 'the book is unchanged')
  await expectHoldings(t, bob, { usdc: 90_004_000, usdcHeld: 4 * USDC, shares: { [Y]: [16_660_000, 0] } }, 'after the killed FOK')
  await expectHoldings(t, alice, { usdc: 59_996_000, shares: { [Y]: [33_340_000, 3_340_000], [N]: [50 * USDC, 0] } }, 'after the killed FOK')

  // FAK: $6 at 0.60 wants 10 shares, 3.34 are there: it takes them and the rest is cancelled.
  const fak = ok(t, await bob.client.createAndPostMarketOrder({ tokenID: Y, side: Side.BUY, amount: 6, price: 0.6 }, undefined, OrderType.FAK),
    'FAK BUY $6 @ 0.60')
  t.match(fak, { success: true, status: 'matched', makingAmount: '2.004', takingAmount: '3.34' })
  const fakOrder = ok(t, await bob.client.getOrder(fak.orderID), 'getOrder (FAK)')
  t.match(fakOrder, { order_type: 'FAK', side: 'BUY', original_size: '10', size_matched: '3.34' })
  t.not(fakOrder.status, 'LIVE', 'the rest of a FAK does not rest')
  t.equal((await alice.client.getOrder(aliceSell)).status, 'MATCHED', 'Alice\'s SELL is now filled')
  t.same((await bob.client.getOrderBook(Y)).asks, [], 'no asks left')
  await expectHoldings(t, bob, { usdc: 88 * USDC, usdcHeld: 4 * USDC, shares: { [Y]: [20 * USDC, 0] } }, 'after the FAK BUY')
  await expectHoldings(t, alice, { usdc: 62 * USDC, shares: { [Y]: [30 * USDC, 0], [N]: [50 * USDC, 0] } }, 'after the FAK BUY')

  // FAK SELL of 15 shares into Bob's 10 @ 0.40 (price from the book): 10 sell, 5 are cancelled. (The
  // client reads the order type for its price discovery from the order itself, not from the argument.)
  const fakSell = ok(t, await alice.client.createAndPostMarketOrder({ tokenID: Y, side: Side.SELL, amount: 15, orderType: OrderType.FAK },
    undefined, OrderType.FAK),
    'FAK SELL 15')
  t.match(fakSell, { success: true, status: 'matched', makingAmount: '10', takingAmount: '4' })
  const sold = ok(t, await alice.client.getOrder(fakSell.orderID), 'getOrder (FAK SELL)')
  t.match(sold, { order_type: 'FAK', side: 'SELL', original_size: '15', size_matched: '10' })
  await expectHoldings(t, alice, { usdc: 66 * USDC, shares: { [Y]: [20 * USDC, 0], [N]: [50 * USDC, 0] } }, 'after the FAK SELL')
  await expectHoldings(t, bob, { usdc: 84 * USDC, shares: { [Y]: [30 * USDC, 0] } }, 'after the FAK SELL')

  // A FAK with nothing to meet is refused whole.
  const nothing = await alice.client.createAndPostMarketOrder({ tokenID: Y, side: Side.SELL, amount: 5, price: 0.4 }, undefined, OrderType.FAK)
  t.match(nothing, { status: 400, error: /^no orders found to match with FAK order/ }, 'a FAK with no match')
  await expectHoldings(t, alice, { usdc: 66 * USDC, shares: { [Y]: [20 * USDC, 0], [N]: [50 * USDC, 0] } }, 'after the unmatched FAK')

  const bobsTrades = await bob.client.getTrades({ asset_id: Y })
  t.same(bobsTrades.map((x: Trade) => [x.side, x.size, x.price, x.trader_side]), [['BUY', '10', '0.6', 'TAKER'], ['BUY', '5', '0.6', 'TAKER'],
    ['BUY', '1.66', '0.6', 'TAKER'], ['BUY', '3.34', '0.6', 'TAKER'], ['SELL', '10', '0.4', 'MAKER']],
  'Bob: the limit trade, the two FOKs, the FAK BUY, and his bid as maker')
  t.same((await bob.client.getLastTradePrice(Y)), { price: '0.4', side: 'SELL' })
})

t.test('a trade with a fee: the taker pays it, exactly', async (t) => {
  // M3: tick 0.1, 150 bps. The client signs feeRateBps = the market's base fee (GET /fee-rate).
  const [frank, grace] = await Promise.all([party('frank', 100 * USDC), party('grace', 100 * USDC)])
  await server.command({ kind: 'split', address: frank.address, marketId: m3.marketId, amountMicros: 20 * USDC })
  const Y = m3.yesTokenId
  const N = m3.noTokenId
  const sell = ok(t, await frank.client.createAndPostOrder({ tokenID: Y, side: Side.SELL, price: 0.7, size: 10 }), 'SELL 10 @ 0.7')
  t.equal(sell.status, 'live')
  const buy = ok(t, await grace.client.createAndPostOrder({ tokenID: Y, side: Side.BUY, price: 0.7, size: 10 }), 'BUY 10 @ 0.7')
  t.match(buy, { status: 'matched', makingAmount: '7', takingAmount: '10' })
  // fee = 150 bps x min(0.7, 0.3) x 10 shares = 0.045 USDC, paid by the taker.
  await expectHoldings(t, grace, { usdc: 92_955_000, shares: { [Y]: [10 * USDC, 0] } }, 'after buying with a fee')
  await expectHoldings(t, frank, { usdc: 87 * USDC, shares: { [Y]: [10 * USDC, 0], [N]: [20 * USDC, 0] } }, 'after selling as maker')
  const [trade] = await grace.client.getTrades({ market: m3.conditionId })
  t.match(trade, { side: 'BUY', size: '10', price: '0.7', fee_rate_bps: '150', trader_side: 'TAKER' })
  t.equal(trade!.maker_orders[0]!.order_id, sell.orderID)
})

let batch: string[] = []

t.test('postOrders: a batch, each order on its own', async (t) => {
  const Y = m1.yesTokenId
  const N = m1.noTokenId
  const orders = await Promise.all([
    carol.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.3, size: 10 }),
    carol.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.31, size: 10 }),
    carol.client.createOrder({ tokenID: N, side: Side.BUY, price: 0.2, size: 5 }),
    carol.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.3, size: 1 }),
  ])
  const results = ok(t, await carol.client.postOrders(orders.map((order) => ({ order, orderType: OrderType.GTC }))), 'postOrders')
  t.ok(Array.isArray(results), 'compat: an array of results')
  t.same(results.map((r: any) => [r.success, r.status ?? null]), [[true, 'live'], [true, 'live'], [true, 'live'], [false, null]])
  t.match(results[3].errorMsg, /Size.*lower than the minimum/i, 'the too-small order fails with its reason')
  batch = results.slice(0, 3).map((r: any) => r.orderID)
  t.equal(new Set(batch).size, 3)
  const open = ok(t, await carol.client.getOpenOrders(), 'getOpenOrders')
  t.same(open.map((o: OpenOrder) => o.id).sort(), [...batch].sort())
  t.same(open.map((o: OpenOrder) => [o.asset_id, o.price, o.original_size]).sort(),
    [[Y, '0.3', '10'], [Y, '0.31', '10'], [N, '0.2', '5']].sort())
  // 3 + 3.10 + 1 USDC held; the balance is whole.
  await expectHoldings(t, carol, { usdc: 100 * USDC, usdcHeld: 7_100_000 }, 'after the batch')
})

t.test('cancelOrder and cancelOrders', async (t) => {
  const [first, second, third] = batch as [string, string, string]
  t.same(ok(t, await carol.client.cancelOrder({ orderID: first }), 'cancelOrder'), { canceled: [first], not_canceled: {} })
  t.same(await carol.client.cancelOrder({ orderID: first }), { canceled: [], not_canceled: { [first]: 'the order is already canceled' } },
    'again: already canceled')
  t.equal((await carol.client.getOrder(first)).status, 'CANCELED')
  await expectHoldings(t, carol, { usdc: 100 * USDC, usdcHeld: 4_100_000 }, 'after cancelOrder')
  t.same(await bob.client.cancelOrder({ orderID: second }), { canceled: [], not_canceled: { [second]: 'Order not found or already canceled' } },
    'another trader cannot cancel it')

  const unknown = '0x' + 'ab'.repeat(32)
  const canceled = ok(t, await carol.client.cancelOrders([second, third, unknown]), 'cancelOrders')
  t.same(canceled.canceled.sort(), [second, third].sort())
  t.same(canceled.not_canceled, { [unknown]: 'Order not found or already canceled' })
  t.same(await carol.client.getOpenOrders(), [])
  await expectHoldings(t, carol, { usdc: 100 * USDC }, 'after cancelOrders')
})

t.test('cancelMarketOrders: by market, then by token', async (t) => {
  const orders = await Promise.all([
    carol.client.createOrder({ tokenID: m1.yesTokenId, side: Side.BUY, price: 0.2, size: 5 }),
    carol.client.createOrder({ tokenID: m1.noTokenId, side: Side.BUY, price: 0.25, size: 5 }),
    carol.client.createOrder({ tokenID: m2.yesTokenId, side: Side.BUY, price: 0.123, size: 5 }),
    carol.client.createOrder({ tokenID: m2.noTokenId, side: Side.BUY, price: 0.456, size: 5 }),
  ])
  const posted = ok(t, await carol.client.postOrders(orders.map((order) => ({ order, orderType: OrderType.GTC }))), 'postOrders')
  t.same(posted.map((r: any) => r.success), [true, true, true, true], 'M2 orders verify under the neg-risk exchange domain')
  const ids = posted.map((r: any) => r.orderID) as string[]
  await expectHoldings(t, carol, { usdc: 100 * USDC, usdcHeld: 1_000_000 + 1_250_000 + 615_000 + 2_280_000 }, 'four orders resting')

  const byMarket = ok(t, await carol.client.cancelMarketOrders({ market: m1.conditionId }), 'cancelMarketOrders (market)')
  t.same(byMarket, { canceled: [ids[0], ids[1]], not_canceled: {} }, 'only M1\'s orders')
  t.same((await carol.client.getOpenOrders()).map((o: OpenOrder) => o.id).sort(), [ids[2], ids[3]].sort())
  const byToken = ok(t, await carol.client.cancelMarketOrders({ asset_id: m2.noTokenId }), 'cancelMarketOrders (asset_id)')
  t.same(byToken, { canceled: [ids[3]], not_canceled: {} }, 'only that token\'s order')
  t.same((await carol.client.getOpenOrders()).map((o: OpenOrder) => o.id), [ids[2]])
  await expectHoldings(t, carol, { usdc: 100 * USDC, usdcHeld: 615_000 }, 'one order left')
  t.same(ok(t, await carol.client.cancelAll(), 'cancelAll'), { canceled: [ids[2]], not_canceled: {} })
})

t.test('getOpenOrders over several pages, then cancelAll', async (t) => {
  const Y = m1.yesTokenId
  const count = 105 // the compat page is 100 orders: two pages
  const signed = await Promise.all(Array.from({ length: count }, () => dave.client.createOrder({ tokenID: Y, side: Side.BUY, price: 0.01, size: 5 })))
  const ids: string[] = []
  for (let i = 0; i < count; i += 10) {
    const results = ok(t, await dave.client.postOrders(signed.slice(i, i + 10).map((order) => ({ order, orderType: OrderType.GTC }))), `postOrders #${i / 10}`)
    if (!results.every((r: any) => r.success === true)) t.fail(`batch ${i / 10}: ${JSON.stringify(results)}`)
    ids.push(...results.map((r: any) => r.orderID))
  }
  t.equal(new Set(ids).size, count)
  await expectHoldings(t, dave, { usdc: 10 * USDC, usdcHeld: count * 50_000 }, `${count} bids of 5 @ 0.01`)

  const firstPage = ok(t, await dave.client.getOpenOrders({ asset_id: Y }, true), 'getOpenOrders (first page only)')
  t.equal(firstPage.length, 100, 'one page holds 100 orders')
  const all = ok(t, await dave.client.getOpenOrders({ asset_id: Y }), 'getOpenOrders (every page)')
  t.equal(all.length, count, 'the client followed next_cursor to the end')
  t.same(all.map((o: OpenOrder) => o.id), ids, 'every order once, in placement order')
  t.ok(all.every((o: OpenOrder) => o.status === 'LIVE' && o.price === '0.01' && o.original_size === '5' && o.size_matched === '0'))
  t.same((await dave.client.getOpenOrders({ market: m1.conditionId })).length, count, 'filter by market (condition id)')
  t.same(await dave.client.getOpenOrders({ asset_id: m1.noTokenId }), [], 'filter by another token: none')
  t.same((await dave.client.getOpenOrders({ id: ids[42]! })).map((o: OpenOrder) => o.id), [ids[42]], 'filter by id')

  const canceled = ok(t, await dave.client.cancelAll(), 'cancelAll')
  t.same(canceled.canceled, ids, 'every open order, in acceptance order')
  t.same(canceled.not_canceled, {})
  t.same(await dave.client.getOpenOrders(), [])
  t.same(await dave.client.cancelAll(), { canceled: [], not_canceled: {} }, 'nothing left to cancel')
  await expectHoldings(t, dave, { usdc: 10 * USDC }, 'after cancelAll')
})

t.test('getBalanceAllowance and updateBalanceAllowance', async (t) => {
  const collateral = ok(t, await bob.client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL }), 'COLLATERAL')
  t.match(collateral, { balance: '84000000', allowance: MAX_ALLOWANCE })
  const yes = ok(t, await bob.client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: m1.yesTokenId }), 'CONDITIONAL')
  t.equal(yes.balance, '30000000')
  t.ok(BigInt(yes.allowance) > 0n, 'outcome tokens approved')
  const no = ok(t, await bob.client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: m1.noTokenId }), 'CONDITIONAL (none)')
  t.equal(no.balance, '0')

  const updated = await bob.client.updateBalanceAllowance({ asset_type: AssetType.COLLATERAL })
  t.ok(updated === null || updated === undefined || (updated as unknown) === '', 'update: a trivial body, no error')
  const updatedToken = await bob.client.updateBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: m1.yesTokenId })
  t.ok(updatedToken === null || updatedToken === undefined || (updatedToken as unknown) === '', 'update (token): a trivial body')
  t.same(await bob.client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL }), collateral, 'unchanged after the update')

  // A new wallet: nothing, and no allowance until it approves.
  const fresh = await party('erin')
  t.match(ok(t, await fresh.client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL }), 'fresh COLLATERAL'), { balance: '0', allowance: '0' })
  const unknown = await fresh.client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: '12345' }) as unknown as { status?: number; error?: string }
  t.ok(unknown.status === 400 || unknown.status === 404, 'an unknown token is an error')
  t.ok(typeof unknown.error === 'string')

  // Where every USDC is: 200 credited to Alice and Bob, 50 of it in M1's collateral.
  const [a, b] = [await holdings(alice.address), await holdings(bob.address)]
  t.equal(a.usdc + b.usdc + 50 * USDC, 200 * USDC, 'USDC is conserved')
  t.equal((a.shares[m1.yesTokenId]?.balance ?? 0) + (b.shares[m1.yesTokenId]?.balance ?? 0), 50 * USDC, 'Yes shares are conserved')
})
