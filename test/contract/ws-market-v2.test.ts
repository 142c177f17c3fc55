/**
 * The market channel's book hash and custom-feature events, over loopback with a real WebSocket
 * client and the unmodified @polymarket/clob-client-v2 hash function:
 * - each price_change entry's `hash` is the hash of the asset's book after the change: equal to
 *   a fresh GET /book's, a fresh snapshot's, and the hash a client computes on its local book
 *   (snapshot, then price_change, last_trade_price and tick_size_change applied), after each of
 *   several changes (placements, a mint, a cancel, a tick size change) and for every command of
 *   concurrent batches;
 * - `custom_feature_enabled` turns on best_bid_ask (on a change of best price, not of a deeper
 *   level; the seq of its price_change), new_market (POST /admin/markets) and market_resolved
 *   (resolve), for sockets that asked (on the first message or later), and for no other.
 * A hash covers the summary's timestamp (Polymarket's definition): a price_change's is its
 * command's time, a read's the time of the read, so a book read later is compared under the
 * price_change's timestamp, as a client checking its book against a REST read would.
 */
import t, { type Test } from 'tap'
import { ClobClient } from '@polymarket/clob-client-v2'
import { WsClient } from '../support/ws-client.js'
import { PredexClient } from '../../src/client/predex-client.js'
import type { Outcome } from '../../src/host/messages.js'
import { CHAIN_ID, USDC, get, l2, placeLimit, startServer } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())
const admin = new PredexClient({ baseUrl: server.base, adminKey: server.predex.adminKey })
const clob = new ClobClient({ host: `${server.base}/compat`, chain: CHAIN_ID })
const wsUrl = `ws://127.0.0.1:${server.predex.port}/ws/market`

async function open(t: Test, subscription?: Record<string, unknown>): Promise<WsClient> {
  const client = await WsClient.open(wsUrl)
  t.teardown(() => client.socket.close())
  if (subscription !== undefined) client.send({ type: 'market', ...subscription })
  return client
}

/** Whether the socket got nothing before the answer to a PING sent now. */
async function quiet(client: WsClient): Promise<string[]> {
  client.send('PING')
  const frames: string[] = []
  for (let frame = await client.next(); frame !== 'PONG'; frame = await client.next()) frames.push(frame)
  return frames
}

/** Frames can carry one event or an array of them. */
async function events(client: WsClient): Promise<any[]> {
  const value = await client.json()
  return Array.isArray(value) ? value : [value]
}

/** A client's copy of one asset's book, kept as a bot would from the channel, hashed by clob-client. */
class LocalBook {
  private readonly summary: Record<string, unknown>
  private readonly bids = new Map<string, string>()
  private readonly asks = new Map<string, string>()

  constructor(snapshot: any) {
    const { event_type: _type, seq: _seq, ...summary } = snapshot
    this.summary = summary
    for (const level of snapshot.bids) this.bids.set(level.price, level.size)
    for (const level of snapshot.asks) this.asks.set(level.price, level.size)
  }

  apply(event: any): void {
    if (event.event_type === 'price_change') {
      for (const change of event.price_changes) {
        if (change.asset_id !== this.summary.asset_id) continue
        const levels = change.side === 'BUY' ? this.bids : this.asks
        if (change.size === '0') levels.delete(change.price)
        else levels.set(change.price, change.size)
      }
      this.summary.timestamp = event.timestamp
    } else if (event.event_type === 'last_trade_price' && event.asset_id === this.summary.asset_id) {
      this.summary.last_trade_price = event.price
    } else if (event.event_type === 'tick_size_change' && event.asset_id === this.summary.asset_id) {
      this.summary.tick_size = event.new_tick_size
    }
  }

  /** The timestamp of the last change applied (the snapshot's at first). */
  timestamp(): string {
    return String(this.summary.timestamp)
  }

  best(): { best_bid: string; best_ask: string } {
    const bids = [...this.bids.keys()].sort((a, b) => Number(b) - Number(a))
    const asks = [...this.asks.keys()].sort((a, b) => Number(a) - Number(b))
    return { best_bid: bids[0] ?? '0', best_ask: asks[0] ?? '1' }
  }

  /** Polymarket's hash of the book as this client holds it (the keys in the order the snapshot gave). */
  hash(): Promise<string> {
    const levels = (map: Map<string, string>, sign: number) => [...map]
      .sort((a, b) => sign * (Number(a[0]) - Number(b[0]))).map(([price, size]) => ({ price, size }))
    const book = { ...this.summary, bids: levels(this.bids, 1), asks: levels(this.asks, -1) }
    return clob.getOrderBookHash(book as never)
  }
}

/** Polymarket's hash of a book (a REST answer or a snapshot) as if it had been read at `timestamp`. */
function hashAt(book: any, timestamp: string): Promise<string> {
  const { event_type: _type, seq: _seq, ...summary } = book
  return clob.getOrderBookHash({ ...summary, timestamp, hash: '' })
}

/** Reads events into `book` until a price_change of `assetId`; returns it. */
async function nextChange(client: WsClient, book: LocalBook, assetId: string): Promise<any> {
  for (;;) {
    for (const event of await events(client)) {
      book.apply(event)
      if (event.event_type === 'price_change' && event.price_changes[0].asset_id === assetId) return event
    }
  }
}

t.test('each price_change carries the hash of the book after it: as GET /book, a snapshot and the local book', async (t) => {
  const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
  const yes = market.yesTokenId
  const [alice, bob] = [await server.trader(100 * USDC), await server.trader(100 * USDC)]
  const client = await open(t, { assets_ids: [yes] })
  const [snapshot] = await events(client)
  const book = new LocalBook(snapshot)
  t.equal(await book.hash(), snapshot.hash, 'the snapshot hashes as clob-client hashes it')
  let cancelId = ''
  const steps: [string, () => Promise<unknown>][] = [
    ['a bid', () => placeLimit(server, alice, market, { side: 'BUY', price: '0.40', size: '10' })],
    ['a better bid', async () => { cancelId = (await placeLimit(server, alice, market, { side: 'BUY', price: '0.45', size: '5' })).body.orderID }],
    ['a mint: Bob buys No at 0.55 against the 0.45 bid', () => placeLimit(server, bob, market, { outcome: 'No', side: 'BUY', price: '0.55', size: '2' })],
    ['an ask of the shares the mint gave', () => placeLimit(server, alice, market, { side: 'SELL', price: '0.70', size: '2' })],
    ['a cancel', () => l2(server, alice, 'DELETE', '/order', { orderID: cancelId })],
    ['a bid after a tick size change', async () => {
      await admin.updateMarket(market.marketId, { tick_size: '0.001' })
      const finer = server.predex.context.read.markets.get(market.marketId)!
      return placeLimit(server, alice, finer, { side: 'BUY', price: '0.401', size: '4' })
    }],
  ]
  for (const [name, step] of steps) {
    await step()
    const change = await nextChange(client, book, yes)
    const hash = change.price_changes.at(-1).hash
    t.match(hash, /^[0-9a-f]{40}$/, `${name}: a SHA-1`)
    t.ok(change.price_changes.every((entry: any) => entry.hash === hash), `${name}: one hash per asset and command`)
    const rest = (await get(server, `/book?token_id=${yes}`)).body
    t.equal(await hashAt(rest, rest.timestamp), rest.hash, `${name}: GET /book hashes as clob-client does`)
    t.equal(await hashAt(rest, change.timestamp), hash, `${name}: GET /book's hash (at the change's timestamp)`)
    const fresh = await open(t, { assets_ids: [yes] })
    const [snapshot] = await events(fresh)
    t.equal(await hashAt(snapshot, snapshot.timestamp), snapshot.hash, `${name}: so does a fresh snapshot`)
    t.equal(await hashAt(snapshot, change.timestamp), hash, `${name}: a fresh snapshot's hash (at the change's timestamp)`)
    fresh.socket.close()
    t.equal(await book.hash(), hash, `${name}: the local book's hash`)
    t.match(change.price_changes.at(-1), book.best(), `${name}: best_bid and best_ask of that book`)
  }
  t.equal(book.best().best_bid, '0.401')
})

t.test('in concurrent batches, each command\'s price_change hashes the book after that command', async (t) => {
  const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
  const yes = market.yesTokenId
  const traders = await Promise.all(Array.from({ length: 4 }, () => server.trader(1_000 * USDC)))
  for (const trader of traders) {
    await server.command({ kind: 'split', address: trader.address, marketId: market.marketId, amountMicros: 100 * USDC })
  }
  // Batches as the host hands them out: how many commands of one batch changed the Yes book.
  const perBatch: number[] = []
  const stop = server.predex.context.host.subscribe((outcomes: readonly Outcome[]) => {
    perBatch.push(outcomes.filter((o) => o.events.some((e) => e.type === 'bookLevel' && e.tokenId === yes)).length)
  })
  t.teardown(stop)
  const client = await open(t, { assets_ids: [yes], custom_feature_enabled: true })
  const book = new LocalBook((await events(client))[0])
  const orders = Array.from({ length: 40 }, (_, i) => ({
    side: i % 2 === 0 ? 'BUY' as const : 'SELL' as const,
    price: (i % 2 === 0 ? 0.1 + (i % 20) / 100 : 0.6 + (i % 20) / 100).toFixed(2), size: String(1 + (i % 3)) }))
  const placed = await Promise.all(orders.map((order, i) => placeLimit(server, traders[i % 4]!, market, order)))
  t.ok(placed.every((p) => p.status === 200), 'all placed')
  let changes = 0
  let bestMoves = 0
  while (changes < orders.length) {
    for (const event of await events(client)) {
      if (event.event_type === 'best_bid_ask') t.fail(`a best_bid_ask (seq ${event.seq}) without a move`)
      const before = book.best()
      book.apply(event)
      if (event.event_type !== 'price_change') continue
      changes++
      const hash = await book.hash()
      if (event.price_changes[0].hash !== hash) t.fail(`price_change seq ${event.seq}: hash of another book`)
      t.match(event.price_changes[0], book.best())
      const moved = JSON.stringify(before) !== JSON.stringify(book.best())
      if (moved) {
        // The best_bid_ask follows at once.
        const [next] = await events(client)
        t.match(next, { event_type: 'best_bid_ask', seq: event.seq, ...book.best() })
        bestMoves++
      }
    }
  }
  t.ok(bestMoves > 0, `${bestMoves} moves of the best prices`)
  t.same(await quiet(client), [], 'nothing more')
  const shared = perBatch.filter((count) => count > 1).length
  t.comment(`${perBatch.length} batches; ${shared} with several commands changing the Yes book (max ${Math.max(...perBatch)})`)
  const rest = (await get(server, `/book?token_id=${yes}`)).body
  t.equal(await hashAt(rest, book.timestamp()), await book.hash(), 'the end: GET /book')
})

t.test('custom_feature_enabled: best_bid_ask on a change of best price only, to the sockets that asked', async (t) => {
  const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
  const yes = market.yesTokenId
  const alice = await server.trader(100 * USDC)
  await server.command({ kind: 'split', address: alice.address, marketId: market.marketId, amountMicros: 20 * USDC })
  const featured = await open(t, { assets_ids: [yes], custom_feature_enabled: true })
  const plain = await open(t, { assets_ids: [yes] })
  const later = await open(t, { assets_ids: [yes], custom_feature_enabled: false })
  await events(featured)
  await events(plain)
  await events(later)
  // A later operation turns the features on, without a snapshot.
  later.send({ operation: 'subscribe', assets_ids: [yes], custom_feature_enabled: true, initial_dump: false })
  t.same(await quiet(later), [])

  await placeLimit(server, alice, market, { side: 'BUY', price: '0.40', size: '10' })
  for (const client of [featured, later]) {
    const [change] = await events(client)
    t.match(change, { event_type: 'price_change', seq: 1 })
    const best = await client.json()
    t.same(best, { event_type: 'best_bid_ask', market: market.conditionId, asset_id: yes, best_bid: '0.4', best_ask: '1',
      spread: '0.6', timestamp: change.timestamp, seq: 1 }, 'the fields of Polymarket, the time and seq of the change')
  }
  t.match(await plain.json(), { event_type: 'price_change', seq: 1 })
  t.same(await quiet(plain), [], 'no best_bid_ask without the flag')

  // A deeper bid: the best prices stay, so no best_bid_ask.
  await placeLimit(server, alice, market, { side: 'BUY', price: '0.30', size: '10' })
  for (const client of [featured, plain, later]) {
    t.match(await client.json(), { event_type: 'price_change', seq: 2, price_changes: [{ price: '0.3', best_bid: '0.4' }] })
    t.same(await quiet(client), [], 'nothing for a deeper level')
  }
  // An ask moves the best ask; the flag turned off on a later unsubscribe-free operation stops it.
  later.send({ operation: 'subscribe', assets_ids: [], custom_feature_enabled: false })
  t.same(await quiet(later), [])
  await placeLimit(server, alice, market, { side: 'SELL', price: '0.90', size: '10' })
  const ask = await featured.json()
  t.match(ask, { event_type: 'price_change', seq: 3 })
  t.match(await featured.json(), { event_type: 'best_bid_ask', best_bid: '0.4', best_ask: '0.9', spread: '0.5', seq: 3 })
  t.same((await quiet(later)).map((frame) => JSON.parse(frame).event_type), ['price_change'], 'turned off: no best_bid_ask')
  const seqs = (await quiet(plain)).map((frame) => JSON.parse(frame).seq)
  t.same(seqs, [3], 'without the flag the seq has no gap')

  featured.send({ type: 'market', assets_ids: [yes], custom_feature_enabled: 'yes' })
  t.match(await featured.json(), { event_type: 'error', code: 'INVALID_PARAMETER', field: 'custom_feature_enabled' })
})

t.test('new_market and market_resolved go to every socket with the flag, whatever its assets, and to no other', async (t) => {
  const other = await server.createMarket({ minOrderSizeMicros: 1 * USDC })
  const featured = await open(t, { assets_ids: [], custom_feature_enabled: true })
  const following = await open(t, { assets_ids: [other.yesTokenId], custom_feature_enabled: true })
  const plain = await open(t, { assets_ids: [other.yesTokenId] })
  await events(following)
  await events(plain)
  t.same(await quiet(featured), [], 'no assets: no snapshot')

  const listed = await admin.createMarket({ question: 'Will the channel tell?', slug: 'will-the-channel-tell',
    description: 'a market listed by the admin API' } as never)
  const created = server.predex.context.read.marketsBySlug.get('will-the-channel-tell')!
  const expected = { event_type: 'new_market', id: created.marketId, question: 'Will the channel tell?',
    market: created.conditionId, slug: 'will-the-channel-tell', description: 'a market listed by the admin API',
    assets_ids: [created.yesTokenId, created.noTokenId], outcomes: ['Yes', 'No'], timestamp: String(created.createdMs) }
  t.ok(listed, 'listed')
  for (const client of [featured, following]) t.same(await client.json(), expected, 'new_market, without seq')
  t.same(await quiet(plain), [], 'not without the flag')

  // Resolution: the resting order is cancelled (price_change) and then the market is resolved.
  const alice = await server.trader(100 * USDC)
  await placeLimit(server, alice, created, { side: 'BUY', price: '0.50', size: '5' })
  const watcher = await open(t, { assets_ids: [created.yesTokenId], custom_feature_enabled: true })
  await events(watcher)
  await admin.resolveMarket(created.marketId, 'No')
  const { resolvedMs } = server.predex.context.read.markets.get(created.marketId)!
  const resolved = { ...expected, event_type: 'market_resolved', winning_asset_id: created.noTokenId,
    winning_outcome: 'No', timestamp: String(resolvedMs) }
  for (const client of [featured, following]) t.same(await client.json(), resolved, 'market_resolved, without seq')
  const [cancelled, best, last] = [await watcher.json(), await watcher.json(), await watcher.json()]
  t.match(cancelled, { event_type: 'price_change', price_changes: [{ price: '0.5', size: '0', best_bid: '0' }] })
  t.match(best, { event_type: 'best_bid_ask', best_bid: '0', best_ask: '1', spread: '1' })
  t.same(last, resolved, 'after the book emptied')
  t.same(await quiet(plain), [], 'not without the flag')
})
