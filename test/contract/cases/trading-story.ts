/**
 * What the trading contract cases share (trading.ts, trading-reads.ts): the trading story a case
 * replays, the checks of a placement and a cancel, the fields every answer carries.
 */
import type { Test } from 'tap'
import { signLimitOrder, signMarketOrder, type LimitOrder, type OrderType, type SignedOrder } from '../../../src/client/orders.js'
import type { MarketRecord } from '../../../src/engine/event.js'
import { nowSec, orderRequest, termsOf, USDC, type Driver, type Reply, type Trader } from '../../support/driver.js'
import { waitUntil } from '../../support/eventually.js'

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const ORDER_ID = /^0x[0-9a-f]{64}$/
export const ORDER_INFO_KEYS = ['id', 'market', 'maker_address', 'owner', 'side', 'asset_id', 'price', 'original_size', 'size_matched',
  'status', 'outcome', 'order_type', 'created_at', 'expiration', 'order_hash', 'associate_trades']
export const PLACED_KEYS = ['success', 'errorMsg', 'order_id', 'orderID', 'status', 'makingAmount', 'takingAmount', 'transactionsHashes', 'tradeIDs']
export const LISTING_KEYS = ['id', 'market_id', 'token_id', 'outcome', 'side', 'price', 'size', 'size_remaining', 'status', 'created_at']

/** A signed order whose signature no longer matches it. */
export function tampered(signed: SignedOrder): SignedOrder {
  const s = signed.signature
  const i = 20
  return { ...signed, signature: s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1) }
}

export type Placed = Reply & { readonly signed: SignedOrder }

/** On a real chain: waits until every trade of `trader` is CONFIRMED on chain. */
export async function settled(d: Driver, trader: Trader): Promise<void> {
  await waitUntil(async () => (await d.trades(trader)).body.data as { status: string }[],
    (trades) => trades.every((trade) => trade.status === 'CONFIRMED'), 'trades settled')
}

/**
 * The trading story's cast (two markets, Alice and Bob with 1 000 USDC each, Bob with 200 Yes
 * and No of the first market) and its steps, in the order they happen. A step that answers
 * other than the story needs throws: the case's setup broke, not its contract.
 */
export class Story {
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

export function expectStatus(placed: Placed, status: 'live' | 'matched'): Placed {
  if (placed.status !== 200 || placed.body.status !== status) {
    throw new Error(`story: expected a ${status} order, got ${placed.status} ${JSON.stringify(placed.body)}`)
  }
  return placed
}

export function expectCanceled(reply: Reply, ids: readonly string[]): void {
  if (reply.status !== 200 || JSON.stringify(reply.body.canceled) !== JSON.stringify(ids)) {
    throw new Error(`story: expected ${ids.join(', ')} canceled, got ${reply.status} ${JSON.stringify(reply.body)}`)
  }
}
