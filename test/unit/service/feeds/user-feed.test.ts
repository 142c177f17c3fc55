/**
 * The user feed's numbering is bounded like its retention: a wallet whose updates have all been
 * dropped (USER_FEED_WALLETS_MAX newer wallets came since) and that nobody follows is forgotten,
 * and numbered again from 1 in a new epoch, so a client's old (epoch, seq) cannot be mistaken for
 * a resumable point. A followed wallet keeps its numbering, and the feed tells a resume from an
 * old epoch with a gap. The read model is a stand-in: the feed reads only orders by id here.
 */
import t from 'tap'
import type { EngineEvent } from '../../../../src/engine/event.js'
import type { Outcome } from '../../../../src/host/messages.js'
import { USER_FEED_WALLETS_MAX } from '../../../../src/limits.js'
import type { ServiceContext } from '../../../../src/service/context.js'
import { UserFeed, type UserUpdate } from '../../../../src/service/feeds/user-feed.js'

function world() {
  const orders = new Map<string, { orderId: string; maker: string; originalSizeMicros: number }>()
  const read = { order: (orderId: string) => orders.get(orderId), trade: () => undefined, seq: 0,
    liveOrdersOfMaker: () => [], markets: new Map() }
  const feed = new UserFeed({ read } as unknown as ServiceContext)
  let seq = 0
  /** One durable command: an order of `maker` accepted. */
  const orderOf = (maker: string): void => {
    const orderId = `0x${(++seq).toString(16).padStart(64, '0')}`
    orders.set(orderId, { orderId, maker, originalSizeMicros: 5_000_000 })
    const event = { type: 'orderAccepted', orderId, maker } as unknown as EngineEvent
    feed.publish([{ requestId: seq, seq, timeMs: 0, result: { ok: true }, events: [event] } as unknown as Outcome])
  }
  return { feed, orderOf }
}

const wallet = (i: number): string => `0x${i.toString(16).padStart(40, '0')}`

t.test('a wallet nobody follows is forgotten with its updates, and numbered from 1 in a new epoch', (t) => {
  const { feed, orderOf } = world()
  const seen: UserUpdate[] = []
  const follower = feed.subscribe({ apiKey: 'k', address: wallet(0) }, { fromSeq: 0, epoch: '' },
    { update: (u) => seen.push(u), end: () => undefined })
  follower.unsubscribe()
  orderOf(wallet(1))
  orderOf(wallet(1))
  t.equal(feed.seqOf(wallet(1)), 2)
  for (let i = 2; i <= USER_FEED_WALLETS_MAX + 1; i++) orderOf(wallet(i))
  t.equal(feed.seqOf(wallet(1)), 0, 'the least recently updated wallet lost its updates and its number')
  t.ok(feed.numberedWallets <= USER_FEED_WALLETS_MAX, `numbering bounded (${feed.numberedWallets} wallets)`)
  const again = feed.subscribe({ apiKey: 'k', address: wallet(1) }, { fromSeq: 2, epoch: follower.epoch },
    { update: (u) => seen.push(u), end: () => undefined })
  t.equal(again.start.kind, 'snapshot', 'an old point cannot be resumed')
  t.not(again.epoch, follower.epoch, 'a new epoch')
  orderOf(wallet(1))
  t.same(seen.map((u) => [u.seq, u.epoch]), [[1, again.epoch]], 'numbered from 1 in the new epoch')
  again.unsubscribe()
  t.end()
})

t.test('a followed wallet keeps its numbering while its updates are dropped', (t) => {
  const { feed, orderOf } = world()
  const seen: UserUpdate[] = []
  const follower = feed.subscribe({ apiKey: 'k', address: wallet(1) }, { fromSeq: 0, epoch: '' },
    { update: (u) => seen.push(u), end: () => undefined })
  orderOf(wallet(1))
  for (let i = 2; i <= USER_FEED_WALLETS_MAX + 1; i++) orderOf(wallet(i))
  orderOf(wallet(1))
  t.same(seen.map((u) => [u.seq, u.epoch]), [[1, follower.epoch], [2, follower.epoch]], 'no gap, one epoch')
  follower.unsubscribe()
  t.end()
})

t.test('a live subscription (the WebSocket user channel) starts with the next update, nothing before it', (t) => {
  const { feed, orderOf } = world()
  orderOf(wallet(1))
  const seen: UserUpdate[] = []
  const live = feed.subscribe({ apiKey: 'k', address: wallet(1) }, 'live',
    { update: (u) => seen.push(u), end: () => undefined })
  t.same(live.start, { kind: 'live' }, 'no snapshot, no replay')
  t.equal(live.seq, 1, 'at the wallet\'s current number')
  orderOf(wallet(1))
  t.match(seen, [{ kind: 'order', seq: 2, placement: true, status: 'LIVE' }], 'the placement, told as one')
  live.unsubscribe()
  t.end()
})

t.test('a settlement change is an update that tells the status it changed to, live and on a resume', (t) => {
  const trade = { tradeId: 't1', seq: 1, takerAddress: wallet(1), makerAddress: wallet(2), timeMs: 0 }
  const read = { trade: (tradeId: string) => (tradeId === 't1' ? trade : undefined), seq: 0,
    liveOrdersOfMaker: () => [], markets: new Map() }
  const feed = new UserFeed({ read, nowMs: () => 5 } as unknown as ServiceContext)
  const seen: UserUpdate[] = []
  const follower = feed.subscribe({ apiKey: 'k', address: wallet(1) }, { fromSeq: 0, epoch: '' },
    { update: (u) => seen.push(u), end: () => undefined })
  const settlementAt = (status: 'MINED' | 'CONFIRMED') => ({ status, transactionHash: '0xab', blockNumber: 7,
    updatedMs: 5 })
  feed.settlementChanged('t1', settlementAt('MINED'))
  feed.settlementChanged('t1', settlementAt('CONFIRMED'))
  const statuses = (updates: readonly UserUpdate[]) => updates.map((u) => (u.kind === 'trade' ? u.settlement?.status
    : u.kind))
  t.same(statuses(seen), ['MINED', 'CONFIRMED'], 'live: each status once, in order')
  const fromFirst = feed.subscribe({ apiKey: 'k', address: wallet(1) }, { fromSeq: 1, epoch: follower.epoch },
    { update: () => undefined, end: () => undefined })
  t.same(statuses(fromFirst.start.kind === 'replay' ? fromFirst.start.updates : []), ['CONFIRMED'],
    'a resume from the first replays the second as it was told')
  for (const subscription of [follower, fromFirst]) subscription.unsubscribe()
  t.end()
})
