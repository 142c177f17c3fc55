/**
 * The book feed every face's market data stream renders (gRPC's book stream, the WebSocket
 * market channel): per token, the trades and the level changes of each command, numbered per
 * token; a tick size change, not numbered (it carries the token's current number, so a stream
 * that shows no message for it sees no gap); and the markets' lifecycle after the command's
 * levels (a resolution's cancelled orders first, then the resolution). A real engine and read
 * model (fake-context.ts), every command's outcome handed to the feed as the fan-out does.
 */
import t from 'tap'
import type { OrderInput, UnstampedCommand } from '../../../../src/engine/command.js'
import type { Outcome } from '../../../../src/host/messages.js'
import { createMarket } from '../../../../src/service/admin/admin.js'
import { BookFeed, type BookUpdate, type MarketChange } from '../../../../src/service/feeds/book-feed.js'
import { PredexError } from '../../../../src/errors.js'
import { USDC, fakeWorld } from '../fake-context.js'

const alice = `0x${'a'.repeat(40)}`
const bob = `0x${'b'.repeat(40)}`
const TERMS = { question: 'Will it feed?', slug: null, description: '', tickSizeMicros: 10_000, minOrderSizeMicros: USDC,
  feeRateBps: 0, negRisk: false, endDateMs: 0, status: 'Active' } as const

async function world() {
  const { context } = fakeWorld()
  const market = await createMarket(context, TERMS) // before the feed: read from the read model when it is made
  const feed = new BookFeed(context)
  const run = async (command: UnstampedCommand): Promise<void> => {
    feed.publish([{ ...(await context.host.submit(command)), recorded: true } as unknown as Outcome])
  }
  for (const address of [alice, bob]) {
    await run({ kind: 'credit', address, usdcMicros: 1_000 * USDC, gasMicros: 0 })
    await run({ kind: 'approve', address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
  }
  let salt = 0
  /** A BUY of `shares` of `tokenId` at `priceMicros` for `maker`. */
  const buy = (maker: string, tokenId: string, priceMicros: number, shares: number): Promise<void> => {
    const order: OrderInput = { orderId: `0x${(++salt).toString(16).padStart(64, '0')}`, owner: `key-${maker}`, maker,
      signer: maker, tokenId, side: 'BUY', makerAmountMicros: (priceMicros * shares), takerAmountMicros: shares * USDC,
      expirationSec: 0, feeRateBps: 0, timeInForce: 'GTC', postOnly: false, clientOrderId: '' }
    return run({ kind: 'placeOrder', order })
  }
  return { context, market, feed, run, buy }
}

t.test('levels and trades are numbered per token; a tick size change carries the current number', async (t) => {
  const { market, feed, run, buy } = await world()
  const seen: BookUpdate[] = []
  const { snapshots } = feed.subscribe([market.yesTokenId, market.noTokenId], { update: (u) => seen.push(u) })
  t.same(snapshots.map((s) => [s.tokenId, s.seq]), [[market.yesTokenId, 0], [market.noTokenId, 0]], 'snapshots at 0')
  await buy(alice, market.yesTokenId, 400_000, 10)
  await run({ kind: 'setTickSize', marketId: market.marketId, tickSizeMicros: 1_000 })
  await buy(bob, market.noTokenId, 600_000, 4) // a mint: prices both tokens
  const rows = seen.map((u) => [u.kind, u.tokenId === market.yesTokenId ? 'yes' : 'no', u.seq])
  t.same(rows, [
    ['levels', 'yes', 1],
    ['tick', 'yes', 1], ['tick', 'no', 0],
    ['trade', 'no', 1], ['trade', 'yes', 2], ['levels', 'yes', 3],
  ], 'the trades first, then the command\'s levels; the ticks not numbered')
  const tick = seen.find((u) => u.kind === 'tick')
  t.match(tick, { oldTickSizeMicros: 10_000, tickSizeMicros: 1_000, marketId: market.marketId })
  const trade = seen.find((u) => u.kind === 'trade' && u.tokenId === market.yesTokenId)
  t.match(trade, { priceMicros: 400_000, sizeMicros: 4 * USDC, side: 'BUY', feeRateBps: 0 })
  t.ok(seen.every((u) => u.timeMs > 0 && u.engineSeq > 0), 'each with its command\'s time and seq')
})

t.test('the lifecycle: a market created; a resolution after the levels its cancels changed', async (t) => {
  const { context, market, feed, run, buy } = await world()
  const order: string[] = []
  const unfollow = feed.followMarkets((change: MarketChange) => order.push(`${change.kind} ${change.market.marketId}`))
  feed.subscribe([market.yesTokenId], { update: (u) => order.push(`${u.kind} ${u.seq}`) })
  await buy(alice, market.yesTokenId, 400_000, 10)
  const another = { ...market, marketId: 'another', conditionId: `0x${'c'.repeat(64)}`, slug: 'another',
    yesTokenId: '1001', noTokenId: '1002', tickSizeMicros: 10_000, minOrderSizeMicros: USDC, feeRateBps: 0,
    negRisk: false, endDateMs: 0, status: 'Active' as const }
  await run({ kind: 'createMarket', market: another })
  await run({ kind: 'resolveMarket', marketId: market.marketId, outcome: 'Yes' })
  t.same(order, ['levels 1', 'created another', 'levels 2', `resolved ${market.marketId}`],
    'the cancelled level, then the resolution')
  unfollow()
  await run({ kind: 'resolveMarket', marketId: 'another', outcome: 'No' })
  t.equal(order.length, 4, 'nothing after the unfollow')
  t.equal(context.read.markets.get('another')?.status, 'Resolved', 'though it was resolved')
})

t.test('an unknown token is refused before anything is registered, naming it', async (t) => {
  const { market, feed } = await world()
  const error = t.throws(() => feed.subscribe([market.yesTokenId, '999'], { update: () => undefined })) as PredexError
  t.match(error, { code: 'TOKEN_NOT_FOUND', context: { tokenId: '999' } })
  t.equal(feed.subscribersOf(market.yesTokenId), 0, 'nothing registered')
})
