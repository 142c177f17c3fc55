/**
 * Contract of trading, face-neutral (seed: OrderInfo, OrdersResponse, the trading endpoints;
 * api.md: "trading"): place one order, a batch (each order on its own), cancel one, several or
 * all, read an order (also after it ended: status and fills), the open orders (pagination,
 * filters, available_usdc), the trades, the client listing, and the dry run.
 *
 * Each case sets up its own state on its own markets and wallets: a `Story` replays the steps of
 * the trading story a case needs (a resting bid, a crossing ask, FOK and FAK fills, cancels...),
 * each step checking only that it went as the story needs; the case then asserts. Balances are
 * checked exactly, in micro-units.
 */
import type { Test } from 'tap'
import { signLimitOrder, signMarketOrder, type LimitOrder, type OrderType, type SignedOrder } from '../../../src/client/orders.js'
import type { MarketRecord } from '../../../src/engine/event.js'
import { ANONYMOUS, nowSec, orderRequest, termsOf, USDC, type ContractCase, type Driver, type Reply, type Trader }
  from '../../support/driver.js'
import { waitUntil } from '../../support/eventually.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ORDER_ID = /^0x[0-9a-f]{64}$/
const ORDER_INFO_KEYS = ['id', 'market', 'maker_address', 'owner', 'side', 'asset_id', 'price', 'original_size', 'size_matched',
  'status', 'outcome', 'order_type', 'created_at', 'expiration', 'order_hash', 'associate_trades']
const PLACED_KEYS = ['success', 'errorMsg', 'order_id', 'orderID', 'status', 'makingAmount', 'takingAmount', 'transactionsHashes', 'tradeIDs']
const LISTING_KEYS = ['id', 'market_id', 'token_id', 'outcome', 'side', 'price', 'size', 'size_remaining', 'status', 'created_at']

/** A signed order whose signature no longer matches it. */
function tampered(signed: SignedOrder): SignedOrder {
  const s = signed.signature
  const i = 20
  return { ...signed, signature: s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1) }
}

type Placed = Reply & { readonly signed: SignedOrder }

/** On a real chain: waits until every trade of `trader` is CONFIRMED on chain. */
async function settled(d: Driver, trader: Trader): Promise<void> {
  await waitUntil(async () => (await d.trades(trader)).body.data as { status: string }[],
    (trades) => trades.every((trade) => trade.status === 'CONFIRMED'), 'trades settled')
}

/**
 * The trading story's cast (two markets, Alice and Bob with 1 000 USDC each, Bob with 200 Yes
 * and No of the first market) and its steps, in the order they happen. A step that answers
 * other than the story needs throws: the case's setup broke, not its contract.
 */
class Story {
  readonly startSec = nowSec()
  A1 = ''
  B1 = ''
  B2 = ''
  B3 = ''
  FOK = ''
  T1 = ''
  T2 = ''
  T3 = ''
  R1 = ''
  D1 = ''
  D4 = ''
  E1 = ''
  E2 = ''
  GTD = ''
  gtdExpiration = 0
  readonly G: string[] = []

  private constructor(readonly d: Driver, readonly market: MarketRecord, readonly market2: MarketRecord,
    readonly alice: Trader, readonly bob: Trader) {}

  static async cast(d: Driver): Promise<Story> {
    const market = await d.createMarket({ minOrderSizeMicros: 1 * USDC })
    const market2 = await d.createMarket({ minOrderSizeMicros: 1 * USDC })
    const alice = await d.trader(1_000 * USDC)
    const bob = await d.trader(1_000 * USDC)
    await d.command({ kind: 'split', address: bob.address, marketId: market.marketId, amountMicros: 200 * USDC })
    return new Story(d, market, market2, alice, bob)
  }

  /** Signs a limit order of `trader` on `m` (the story's first market by default) and places it. */
  async limit(trader: Trader, order: Omit<LimitOrder, 'tokenId'> & { outcome?: 'Yes' | 'No' }, orderType: OrderType = 'GTC',
    postOnly = false, m: MarketRecord = this.market): Promise<Placed> {
    const tokenId = order.outcome === 'No' ? m.noTokenId : m.yesTokenId
    const { outcome: _outcome, ...terms } = order
    const signed = signLimitOrder(trader.wallet, termsOf(m), { tokenId, ...terms })
    return { signed, ...await this.d.placeOrder(trader, orderRequest(signed, trader.credentials.apiKey, orderType, postOnly)) }
  }

  async marketOrder(trader: Trader, side: 'BUY' | 'SELL', amount: string, price: string, type: OrderType): Promise<Placed> {
    const signed = signMarketOrder(trader.wallet, termsOf(this.market), { tokenId: this.market.yesTokenId, side, amount, price })
    return { signed, ...await this.d.placeOrder(trader, orderRequest(signed, trader.credentials.apiKey, type)) }
  }

  orderOf(trader: Trader, id: string): Promise<Reply> {
    return this.d.order(trader, id)
  }

  /** Alice bids 10 Yes at 0.40: it rests. */
  async restingBid(): Promise<Placed> {
    const placed = expectStatus(await this.limit(this.alice, { side: 'BUY', price: '0.40', size: '10' }), 'live')
    this.A1 = placed.signed.orderId
    return placed
  }

  /** Bob sells 4 Yes at 0.40: trade T1 with Alice's bid. */
  async crossingAsk(): Promise<Placed> {
    const placed = expectStatus(await this.limit(this.bob, { side: 'SELL', price: '0.40', size: '4' }), 'matched')
    this.B1 = placed.signed.orderId
    this.T1 = placed.body.tradeIDs[0]
    return placed
  }

  /** Bob asks 10 Yes at 0.60: it rests. */
  async restingAsk(): Promise<Placed> {
    const placed = expectStatus(await this.limit(this.bob, { side: 'SELL', price: '0.60', size: '10' }), 'live')
    this.B2 = placed.signed.orderId
    return placed
  }

  /** Alice buys 3 USDC of Yes, fill or kill: 5 from Bob's ask (trade T2). */
  async fillOrKill(): Promise<Placed> {
    const placed = expectStatus(await this.marketOrder(this.alice, 'BUY', '3', '0.60', 'FOK'), 'matched')
    this.FOK = placed.signed.orderId
    this.T2 = placed.body.tradeIDs[0]
    return placed
  }

  /** Bob sells 10 Yes down to 0.30, fill and kill: 6 to Alice's bid (trade T3), the rest canceled. */
  async fillAndKill(): Promise<Placed> {
    const placed = expectStatus(await this.marketOrder(this.bob, 'SELL', '10', '0.30', 'FAK'), 'matched')
    this.B3 = placed.signed.orderId
    this.T3 = placed.body.tradeIDs[0]
    return placed
  }

  /** The three trades: Alice ends with 993 USDC and 15 Yes, nothing held; Bob's ask rests with 5 left. */
  async trades(): Promise<void> {
    await this.restingBid()
    await this.crossingAsk()
    await this.restingAsk()
    await this.fillOrKill()
    await this.fillAndKill()
  }

  /** Alice bids 5 at 0.05 (R1) and cancels it. */
  async canceledBid(): Promise<void> {
    const placed = expectStatus(await this.limit(this.alice, { side: 'BUY', price: '0.05', size: '5' }), 'live')
    this.R1 = placed.signed.orderId
    expectCanceled(await this.d.cancelOrder(this.alice, { orderID: this.R1 }), [this.R1])
  }

  /** Alice bids 5 at 0.30 (D1) and 5 at 0.31 (D4): both rest. */
  async restingBids(): Promise<void> {
    const d1 = expectStatus(await this.limit(this.alice, { side: 'BUY', price: '0.30', size: '5' }), 'live')
    const d4 = expectStatus(await this.limit(this.alice, { side: 'BUY', price: '0.31', size: '5' }), 'live')
    this.D1 = d1.signed.orderId
    this.D4 = d4.signed.orderId
  }

  async cancelRestingBids(): Promise<void> {
    expectCanceled(await this.d.cancelOrders(this.alice, [this.D1, this.D4]), [this.D1, this.D4])
  }

  /** Alice bids 5 Yes (E1) and 5 No (E2) at 0.20 and cancels all. */
  async cancelAll(): Promise<void> {
    const e1 = expectStatus(await this.limit(this.alice, { side: 'BUY', price: '0.20', size: '5' }), 'live')
    const e2 = expectStatus(await this.limit(this.alice, { outcome: 'No', side: 'BUY', price: '0.20', size: '5' }), 'live')
    this.E1 = e1.signed.orderId
    this.E2 = e2.signed.orderId
    expectCanceled(await this.d.cancelAll(this.alice), [this.E1, this.E2])
  }

  /** Bob cancels all: his ask B2, with 5 left after the trades. */
  async bobCancelsAll(): Promise<void> {
    expectCanceled(await this.d.cancelAll(this.bob), [this.B2])
  }

  /** Alice bids 5 at 0.10 good till an hour from now. */
  async goodTillDate(): Promise<Placed> {
    this.gtdExpiration = nowSec() + 3600
    const placed = await this.limit(this.alice, { side: 'BUY', price: '0.10', size: '5', expiration: this.gtdExpiration }, 'GTD')
    this.GTD = expectStatus(placed, 'live').signed.orderId
    return placed
  }

  /** Alice bids 5 at 0.11 and 0.12 Yes, 0.13 No on the first market, 0.14 Yes on the second. */
  async openBids(): Promise<Placed[]> {
    const specs = [[this.market, 'Yes', '0.11'], [this.market, 'Yes', '0.12'], [this.market, 'No', '0.13'], [this.market2, 'Yes', '0.14']] as const
    const placed: Placed[] = []
    for (const [m, outcome, price] of specs) {
      placed.push(expectStatus(await this.limit(this.alice, { outcome, side: 'BUY', price, size: '5' }, 'GTC', false, m), 'live'))
      this.G.push(placed.at(-1)!.signed.orderId)
    }
    return placed
  }

  /** The whole story: every order Alice ever had, ended or open. */
  async everything(): Promise<void> {
    await this.trades()
    await this.canceledBid()
    await this.restingBids()
    await this.cancelRestingBids()
    await this.cancelAll()
    await this.bobCancelsAll()
    await this.goodTillDate()
    await this.openBids()
  }

  /** Checks an OrderInfo field by field (the seed's table). */
  checkOrderInfo(t: Test, info: any, expected: { id: string; trader: Trader; m?: MarketRecord; outcome?: 'Yes' | 'No'; side: string;
    price: string; original: string; matched: string; status: string; type: string; expiration?: string | null; trades?: string[] }): void {
    const m = expected.m ?? this.market
    t.same(Object.keys(info).filter((k) => ORDER_INFO_KEYS.includes(k)).sort(), [...ORDER_INFO_KEYS].sort(), 'every OrderInfo field is present')
    t.equal(info.id, expected.id)
    t.match(info.id, ORDER_ID)
    t.equal(info.market, m.marketId, 'market: the UUID natively')
    t.match(info.market, UUID)
    t.equal(info.maker_address.toLowerCase(), expected.trader.address)
    t.equal(info.owner, expected.trader.credentials.apiKey)
    t.equal(info.side, expected.side)
    t.equal(info.asset_id, expected.outcome === 'No' ? m.noTokenId : m.yesTokenId)
    t.match(info.asset_id, /^\d+$/, 'asset_id: a decimal string')
    t.equal(info.price, expected.price)
    t.equal(info.original_size, expected.original)
    t.equal(info.size_matched, expected.matched)
    t.equal(info.status, expected.status)
    t.equal(info.outcome, expected.outcome ?? 'Yes')
    t.equal(info.order_type, expected.type)
    t.ok(Number.isSafeInteger(info.created_at), 'created_at: an integer')
    t.ok(info.created_at >= this.startSec - 1 && info.created_at <= nowSec() + 1, 'created_at: epoch seconds')
    t.equal(info.expiration, expected.expiration ?? null)
    t.equal(info.order_hash, expected.id)
    if (expected.trades !== undefined) t.same(info.associate_trades, expected.trades)
    else t.ok(info.associate_trades === null || Array.isArray(info.associate_trades))
  }
}

function expectStatus(placed: Placed, status: 'live' | 'matched'): Placed {
  if (placed.status !== 200 || placed.body.status !== status) {
    throw new Error(`story: expected a ${status} order, got ${placed.status} ${JSON.stringify(placed.body)}`)
  }
  return placed
}

function expectCanceled(reply: Reply, ids: readonly string[]): void {
  if (reply.status !== 200 || JSON.stringify(reply.body.canceled) !== JSON.stringify(ids)) {
    throw new Error(`story: expected ${ids.join(', ')} canceled, got ${reply.status} ${JSON.stringify(reply.body)}`)
  }
}

export const tradingCases: readonly ContractCase[] = [
  {
    name: 'POST /order: a resting order answers live, with the placement fields and order_id',
    async run(t, d) {
      const s = await Story.cast(d)
      const placed = await s.restingBid()
      const A1 = s.A1
      t.equal(placed.status, 200)
      for (const key of PLACED_KEYS) t.ok(key in placed.body, `has ${key}`)
      t.equal(placed.body.success, true)
      t.equal(placed.body.errorMsg, '')
      t.equal(placed.body.order_id, A1, 'order_id: the order hash')
      t.equal(placed.body.orderID, A1)
      t.equal(placed.body.status, 'live')
      t.equal(placed.body.makingAmount, '')
      t.equal(placed.body.takingAmount, '')
      t.same(placed.body.transactionsHashes, [])
      t.same(placed.body.tradeIDs, [])
      const account = await d.account(s.alice.address)
      t.equal(account.usdcMicros, 1_000 * USDC)
      t.equal(account.heldMicros, 4 * USDC, '10 x 0.40 held')
      const info = await s.orderOf(s.alice, A1)
      t.equal(info.status, 200)
      s.checkOrderInfo(t, info.body,
        { id: A1, trader: s.alice, side: 'BUY', price: '0.4', original: '10', matched: '0', status: 'LIVE', type: 'GTC', trades: [] })
    },
  },
  {
    name: 'POST /order: a crossing order matches at the maker\'s price; balances move exactly',
    async run(t, d) {
      const s = await Story.cast(d)
      await s.restingBid()
      const placed = await s.crossingAsk()
      const { A1, B1, market, alice, bob } = s
      t.equal(placed.status, 200)
      t.equal(placed.body.success, true)
      t.equal(placed.body.status, 'matched')
      t.equal(placed.body.makingAmount, '4', 'gave 4 shares')
      t.equal(placed.body.takingAmount, '1.6', 'got 1.6 USDC')
      t.equal(placed.body.tradeIDs.length, 1)
      const T1 = placed.body.tradeIDs[0]
      t.equal(typeof T1, 'string')
      const a = await d.account(alice.address)
      t.equal(a.usdcMicros, 998_400_000)
      t.equal(a.heldMicros, 2_400_000)
      t.equal(a.shares.get(market.yesTokenId), 4 * USDC)
      const b = await d.account(bob.address)
      t.equal(b.usdcMicros, 801_600_000)
      t.equal(b.shares.get(market.yesTokenId), 196 * USDC)
      s.checkOrderInfo(t, (await s.orderOf(alice, A1)).body,
        { id: A1, trader: alice, side: 'BUY', price: '0.4', original: '10', matched: '4', status: 'LIVE', type: 'GTC', trades: [T1] })
      s.checkOrderInfo(t, (await s.orderOf(bob, B1)).body,
        { id: B1, trader: bob, side: 'SELL', price: '0.4', original: '4', matched: '4', status: 'MATCHED', type: 'GTC', trades: [T1] })
    },
  },
  {
    name: 'POST /order: post-only, FOK and FAK behave as the seed says; every rejection is {error, code}',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, alice, bob } = s
      await s.restingBid()
      await s.crossingAsk()
      const ask = await s.restingAsk()
      t.equal(ask.body.status, 'live')

      const postOnly = await s.limit(alice, { side: 'BUY', price: '0.60', size: '5' }, 'GTC', true)
      t.equal(postOnly.status, 400, 'a post-only order that would match is rejected')
      t.equal(postOnly.body.code, 'INVALID_POST_ONLY_ORDER')
      t.equal(typeof postOnly.body.error, 'string')
      t.equal((await s.orderOf(alice, postOnly.signed.orderId)).status, 404, 'a rejected order was never placed')

      const fokTooBig = await s.marketOrder(alice, 'BUY', '100', '0.60', 'FOK')
      t.equal(fokTooBig.status, 400, 'a FOK order that cannot fill entirely is rejected')
      t.equal(fokTooBig.body.code, 'FOK_ORDER_NOT_FILLED')
      const fok = await s.fillOrKill()
      t.equal(fok.status, 200)
      t.equal(fok.body.status, 'matched')
      t.equal(fok.body.makingAmount, '3', 'spent 3 USDC')
      t.equal(fok.body.takingAmount, '5', 'got 5 shares at 0.60')
      t.equal(fok.body.tradeIDs.length, 1)

      const fak = await s.fillAndKill()
      t.equal(fak.status, 200)
      t.equal(fak.body.success, true)
      t.equal(fak.body.status, 'matched', 'partly filled: matched, the rest cancelled')
      t.equal(fak.body.makingAmount, '6', 'sold the 6 shares bid')
      t.equal(fak.body.takingAmount, '2.4')
      const fakNone = await s.marketOrder(alice, 'BUY', '1', '0.10', 'FAK')
      t.equal(fakNone.status, 400)
      t.equal(fakNone.body.code, 'FAK_ORDER_NOT_FILLED')

      const a = await d.account(alice.address)
      t.equal(a.usdcMicros, 993 * USDC, '1000 - 1.6 - 3 - 2.4')
      t.equal(a.heldMicros, 0)
      t.equal(a.shares.get(market.yesTokenId), 15 * USDC)
      const b = await d.account(bob.address)
      t.equal(b.usdcMicros, 807 * USDC, '800 + 1.6 + 3 + 2.4')
      t.equal(b.shares.get(market.yesTokenId), 185 * USDC)
    },
  },
  {
    name: 'POST /order: other rejections with their status and code',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, alice, bob } = s
      const poor = await d.trader(1 * USDC)
      const broke = await s.limit(poor, { side: 'BUY', price: '0.50', size: '10' })
      t.equal(broke.status, 400)
      t.equal(broke.body.code, 'INVALID_ORDER_NOT_ENOUGH_BALANCE')
      t.equal(broke.body.requiredMicros, 5 * USDC, 'context: what it needs')
      t.equal(broke.body.availableMicros, 1 * USDC, 'context: what is available')
      t.equal(broke.body.heldMicros, 0)
      t.match(broke.body, { shortOf: 'balance', missingMicros: 4 * USDC, fix: /POST \/faucet/ }, 'context: the fix')

      // A new wallet has no allowance, as on a chain: the refusal names the approve that mends it.
      const unapproved = await d.trader()
      await d.command({ kind: 'credit', address: unapproved.address, usdcMicros: 100 * USDC, gasMicros: 0 })
      await d.command({ kind: 'approve', address: unapproved.address, usdcAllowanceMicros: 2 * USDC })
      const short = await s.limit(unapproved, { side: 'BUY', price: '0.50', size: '10' })
      t.equal(short.body.code, 'INVALID_ORDER_NOT_ENOUGH_BALANCE')
      t.equal(short.body.error, 'not enough balance / allowance', "Polymarket's message, which clients match on")
      t.match(short.body, { shortOf: 'allowance', missingMicros: 3 * USDC, balanceMicros: 100 * USDC,
        allowanceMicros: 2 * USDC, fix: /POST \/relay \(action "approve".* for at least 5000000 micro-USDC/ })

      const first = signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.05', size: '5' })
      const body = orderRequest(first, alice.credentials.apiKey, 'GTC')
      t.equal((await d.placeOrder(alice, body)).status, 200)
      const again = await d.placeOrder(alice, body)
      t.equal(again.status, 409, 'the same signed order twice')
      t.equal(again.body.code, 'INVALID_ORDER_DUPLICATED')
      t.equal((await d.cancelOrder(alice, { orderID: first.orderId })).body.canceled[0], first.orderId)

      const signed = signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.06', size: '5' })
      const notOwner = await d.placeOrder(alice, orderRequest(signed, bob.credentials.apiKey, 'GTC'))
      t.equal(notOwner.status, 403)
      t.equal(notOwner.body.code, 'NOT_OWNER')
      const bobSends = await d.placeOrder(bob, orderRequest(signed, bob.credentials.apiKey, 'GTC'))
      t.equal(bobSends.status, 403, 'the signer must be the key\'s address')
      t.equal(bobSends.body.code, 'NOT_OWNER')
      const badSignature = await d.placeOrder(alice, orderRequest(tampered(signed), alice.credentials.apiKey, 'GTC'))
      t.equal(badSignature.status, 400)
      t.equal(badSignature.body.code, 'INVALID_SIGNATURE')
      t.equal(typeof badSignature.body.check, 'string', 'names the check that failed')
      const unsigned = await d.placeOrder(ANONYMOUS, orderRequest(signed, alice.credentials.apiKey, 'GTC'))
      t.equal(unsigned.status, 401, 'no L2 headers')
      t.equal(typeof unsigned.body.code, 'string')
      t.equal(typeof unsigned.body.error, 'string')

      const offTick = signLimitOrder(alice.wallet, { ...termsOf(market), tickSize: '0.001' },
        { tokenId: market.yesTokenId, side: 'BUY', price: '0.405', size: '10' })
      const tick = await d.placeOrder(alice, orderRequest(offTick, alice.credentials.apiKey, 'GTC'))
      t.equal(tick.status, 400)
      t.equal(tick.body.code, 'INVALID_ORDER_MIN_TICK_SIZE')
      const unknownToken = signLimitOrder(alice.wallet, termsOf(market), { tokenId: '77', side: 'BUY', price: '0.40', size: '10' })
      const unknown = await d.placeOrder(alice, orderRequest(unknownToken, alice.credentials.apiKey, 'GTC'))
      t.equal(unknown.status, 404)
      t.equal(unknown.body.code, 'TOKEN_NOT_FOUND')
      const malformed = await d.placeOrder(alice, { order: { side: 'BUY' }, owner: alice.credentials.apiKey, orderType: 'GTC' })
      t.equal(malformed.status, 400)
      t.equal(malformed.body.code, 'INVALID_ORDER_PAYLOAD')

      const upcoming = await d.createMarket({ status: 'Upcoming' })
      const early = await s.limit(alice, { side: 'BUY', price: '0.40', size: '10' }, 'GTC', false, upcoming)
      t.equal(early.status, 400)
      t.equal(early.body.code, 'MARKET_NOT_READY')
      const paused = await d.createMarket()
      await d.command({ kind: 'setMarketStatus', marketId: paused.marketId, status: 'Paused' })
      const cancelOnly = await s.limit(alice, { side: 'BUY', price: '0.40', size: '10' }, 'GTC', false, paused)
      t.equal(cancelOnly.status, 503)
      t.equal(cancelOnly.body.code, 'MARKET_CANCEL_ONLY')
    },
  },
  {
    name: 'POST /orders: a batch where each order stands alone; total_successful and total_failed',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, alice } = s
      const sign = (price: string, postOnly = false) => {
        const signed = signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price, size: '5' })
        return { signed, item: orderRequest(signed, alice.credentials.apiKey, 'GTC', postOnly) }
      }
      // Bob's ask at 0.60 makes the post-only bid at 0.60 one that would match.
      await s.restingAsk()
      const d1 = sign('0.30')
      const d2 = sign('0.31')
      const d3 = sign('0.60', true)
      const d4 = sign('0.31')
      const D1 = d1.signed.orderId
      const D4 = d4.signed.orderId
      const broken = orderRequest(tampered(d2.signed), alice.credentials.apiKey, 'GTC')
      const batch = await d.placeOrders(alice, [d1.item, broken, d3.item, d4.item, d1.item, 42])
      t.equal(batch.status, 200)
      t.same(Object.keys(batch.body).sort(), ['results', 'total_failed', 'total_successful'])
      t.equal(batch.body.total_successful, 2)
      t.equal(batch.body.total_failed, 4)
      const results = batch.body.results
      t.equal(results.length, 6, 'one result per order, in order')
      t.equal(results[0].success, true)
      t.equal(results[0].order_id, D1)
      t.equal(results[0].status, 'live')
      t.equal(results[1].success, false)
      t.equal(results[1].code, 'INVALID_SIGNATURE')
      t.ok(results[1].errorMsg.length > 0, 'errorMsg says why')
      t.equal(results[2].success, false)
      t.equal(results[2].code, 'INVALID_POST_ONLY_ORDER')
      t.equal(results[2].orderID, d3.signed.orderId)
      t.equal(results[3].success, true)
      t.equal(results[3].orderID, D4)
      t.equal(results[4].success, false)
      t.equal(results[4].code, 'INVALID_ORDER_DUPLICATED')
      t.equal(results[5].success, false, 'not even an order: fails alone')
      t.equal(typeof results[5].code, 'string')
      t.ok(results[5].errorMsg.length > 0)
      for (const result of results) {
        t.equal(typeof result.success, 'boolean')
        t.equal(typeof result.errorMsg, 'string')
        t.equal(typeof result.orderID, 'string')
      }
      t.same((await d.tokenRead('book', { token_id: market.yesTokenId })).body.bids, [{ price: '0.3', size: '5' }, { price: '0.31', size: '5' }],
        'the two good orders rest')
      t.equal((await d.account(alice.address)).heldMicros, 3_050_000)

      const empty = await d.placeOrders(alice, [])
      t.equal(empty.status, 200)
      t.same(empty.body, { total_successful: 0, total_failed: 0, results: [] })
      const tooMany = await d.placeOrders(alice, Array.from({ length: 11 }, () => sign('0.20').item))
      t.equal(tooMany.status, 400, 'at most 10 orders')
      t.equal(tooMany.body.code, 'BATCH_TOO_LARGE')
      t.equal((await d.account(alice.address)).heldMicros, 3_050_000, 'nothing of a refused batch was placed')
      const notArray = await d.placeOrders(alice, d1.item)
      t.equal(notArray.status, 400)
      t.equal(notArray.body.code, 'INVALID_PARAMETER')
    },
  },
  {
    name: 'DELETE /order, DELETE /orders, DELETE /cancel-all: canceled ids and not_canceled reasons',
    async run(t, d) {
      const s = await Story.cast(d)
      const { market, alice, bob } = s
      await s.trades()
      await s.restingBids()
      const { A1, B2, D1, D4 } = s
      const one = await d.cancelOrder(alice, { orderID: D1 })
      t.equal(one.status, 200)
      t.same(one.body, { canceled: [D1], not_canceled: {} })
      const twice = await d.cancelOrder(alice, { orderId: D1 })
      t.same(twice.body, { canceled: [], not_canceled: { [D1]: 'the order is already canceled' } }, 'orderId accepted too')
      const foreign = await d.cancelOrder(bob, { orderID: D4 })
      t.same(foreign.body, { canceled: [], not_canceled: { [D4]: 'Order not found or already canceled' } }, 'not someone else\'s order')
      t.equal((await s.orderOf(alice, D4)).body.status, 'LIVE')
      const matched = await d.cancelOrder(alice, { orderID: A1 })
      t.same(matched.body, { canceled: [], not_canceled: { [A1]: 'Order already matched' } })
      for (const bad of [{ orderID: 'abc' }, {}, { orderID: 12 }]) {
        const response = await d.cancelOrder(alice, bad)
        t.equal(response.status, 400, JSON.stringify(bad))
        t.equal(response.body.code, 'INVALID_PARAMETER')
      }

      const unknown = '0x' + 'ab'.repeat(32)
      const several = await d.cancelOrders(alice, [D4, unknown, D4])
      t.equal(several.status, 200)
      t.same(several.body, { canceled: [D4], not_canceled: { [unknown]: 'Order not found or already canceled' } })
      const tooMany = await d.cancelOrders(alice, Array.from({ length: 1001 }, () => unknown))
      t.equal(tooMany.status, 400)
      t.equal(tooMany.body.code, 'CANCEL_TOO_MANY')
      t.equal((await d.cancelOrders(alice, { orderID: D4 })).status, 400, 'the body is an array')

      const e = [signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.20', size: '5' }),
        signLimitOrder(alice.wallet, termsOf(market), { tokenId: market.noTokenId, side: 'BUY', price: '0.20', size: '5' })]
      const E1 = e[0]!.orderId
      const E2 = e[1]!.orderId
      const placed = await d.placeOrders(alice, e.map((signed) => orderRequest(signed, alice.credentials.apiKey, 'GTC')))
      t.equal(placed.body.total_successful, 2)
      t.equal((await d.account(alice.address)).heldMicros, 2 * USDC)
      const all = await d.cancelAll(alice)
      t.equal(all.status, 200)
      t.same(all.body, { canceled: [E1, E2], not_canceled: {} }, 'oldest first')
      t.equal((await d.account(alice.address)).heldMicros, 0, 'holds released')
      t.same((await d.cancelAll(alice)).body, { canceled: [], not_canceled: {} })
      t.same((await d.cancelAll(bob)).body, { canceled: [B2], not_canceled: {} }, 'only the caller\'s orders')
      const info = await s.orderOf(alice, E2)
      s.checkOrderInfo(t, info.body,
        { id: E2, trader: alice, outcome: 'No', side: 'BUY', price: '0.2', original: '5', matched: '0', status: 'CANCELED', type: 'GTC', trades: [] })
      t.equal((await d.cancelAll(ANONYMOUS)).status, 401)
    },
  },
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
