/**
 * The page's book of a token (src/web/book-state.ts): the snapshot, price changes, the rule that
 * a seq out of order means a resync (events dropped until the fresh snapshot), and the unified
 * Yes view that mirrors the No token's levels at 1 - p.
 */
import t from 'tap'
import { BookState, unifiedLevels } from '../../../src/web/book-state.js'
import type { WsBook, WsLastTradePrice, WsPriceChange } from '../../../src/api/shapes/ws-market.js'

const YES = '111'
const NO = '222'

function book(assetId: string, seq: number, bids: [string, string][], asks: [string, string][]): WsBook {
  return { event_type: 'book', market: '0xabc', asset_id: assetId, timestamp: '1', hash: '', seq,
    bids: bids.map(([price, size]) => ({ price, size })), asks: asks.map(([price, size]) => ({ price, size })),
    min_order_size: '5', tick_size: '0.01', neg_risk: false, last_trade_price: '' }
}

function change(assetId: string, seq: number, side: 'BUY' | 'SELL', price: string, size: string): WsPriceChange {
  return { event_type: 'price_change', market: '0xabc', timestamp: '2', seq,
    price_changes: [{ asset_id: assetId, price, size, side, hash: '', best_bid: '0', best_ask: '1' }] }
}

function trade(assetId: string, seq: number, price: string): WsLastTradePrice {
  return { event_type: 'last_trade_price', market: '0xabc', fee_rate_bps: '0', size: '1', timestamp: '3',
    transaction_hash: '0x0', asset_id: assetId, price, side: 'BUY', seq }
}

const levelsText = (state: BookState, side: 'bids' | 'asks'): string[] =>
  state.levels(side).map((l) => `${l.priceMicros}x${l.sizeMicros}`)

t.test('a snapshot, then changes in order: applied; best first on each side', async (t) => {
  const state = new BookState(YES)
  t.equal(state.apply(change(YES, 5, 'BUY', '0.4', '1')), 'ignored', 'nothing before the first snapshot')
  t.equal(state.apply(book(YES, 7, [['0.3', '10'], ['0.4', '5']], [['0.6', '2']])), 'applied')
  t.equal(state.apply(change(YES, 8, 'BUY', '0.45', '3')), 'applied')
  t.equal(state.apply(change(YES, 9, 'BUY', '0.3', '0')), 'applied', 'size 0: the level is gone')
  t.equal(state.apply(trade(YES, 10, '0.6')), 'applied')
  t.same(levelsText(state, 'bids'), ['450000x3000000', '400000x5000000'])
  t.same(levelsText(state, 'asks'), ['600000x2000000'])
  t.equal(state.lastTradePriceMicros, 600_000n)
  t.equal(state.seq, 10)
  t.equal(state.resyncs, 0)
})

t.test('a gap: the verdict says resync, and events are dropped until the next snapshot', async (t) => {
  const state = new BookState(YES)
  state.apply(book(YES, 1, [['0.3', '10']], []))
  t.equal(state.apply(change(YES, 3, 'BUY', '0.35', '1')), 'gap', 'seq 3 after 1')
  t.equal(state.resyncs, 1)
  t.equal(state.seq, null)
  t.equal(state.apply(change(YES, 4, 'BUY', '0.36', '1')), 'ignored', 'nothing applied while resyncing')
  t.same(levelsText(state, 'bids'), ['300000x10000000'], 'the book is as the last trusted event left it')
  t.equal(state.apply(book(YES, 4, [['0.35', '1'], ['0.36', '1']], [])), 'applied', 'the fresh snapshot')
  t.equal(state.apply(change(YES, 5, 'SELL', '0.7', '2')), 'applied', 'and what follows it')
  t.same(levelsText(state, 'bids'), ['360000x1000000', '350000x1000000'])
  t.equal(state.apply(change(YES, 5, 'SELL', '0.7', '3')), 'gap', 'a repeated seq is a gap too')
})

t.test('the unified Yes book mirrors the No book at 1 - p and says what is implied', async (t) => {
  const yes = new BookState(YES)
  const no = new BookState(NO)
  yes.apply(book(YES, 1, [['0.4', '10']], [['0.7', '4']]))
  no.apply(book(NO, 1, [['0.3', '6'], ['0.2', '1']], [['0.6', '5']]))
  const bids = unifiedLevels(yes, no, 'bids').map((l) => [l.priceMicros, l.sizeMicros, l.impliedMicros])
  const asks = unifiedLevels(yes, no, 'asks').map((l) => [l.priceMicros, l.sizeMicros, l.impliedMicros])
  t.same(bids, [[400_000n, 15_000_000n, 5_000_000n]], 'a No ask at 0.6 is a Yes bid at 0.4, added to the own 10')
  t.same(asks, [[700_000n, 10_000_000n, 6_000_000n], [800_000n, 1_000_000n, 1_000_000n]],
    'No bids at 0.3 and 0.2 are Yes asks at 0.7 and 0.8')
})
