/**
 * The market channel over WebSocket (`/ws/market`), Polymarket's protocol (clob-compat.md
 * section 8): a client subscribes to asset (token) ids and gets a `book` snapshot of each, then
 * `price_change` when a level of its book changes, `last_trade_price` after a trade and
 * `tick_size_change`. Text `PING` is answered `PONG`.
 *
 * Each `price_change` entry carries `hash`, the hash of the asset's book after the command, as
 * the REST book and the `book` snapshot compute it (book-mirror.ts), with `best_bid`/`best_ask`
 * of that same book. `custom_feature_enabled: true` on a subscription message (the first or a
 * later one; absent leaves the socket as it was) turns on, for that socket, `best_bid_ask` of its
 * assets (after a command moved the best bid or best ask) and `new_market` / `market_resolved` of
 * every market (they are not per asset: a client learns of markets it does not follow yet).
 *
 * Every per-asset event carries `seq`, counted per asset: the snapshot carries the asset's
 * current count, each later event of that asset the next one, so a client sees a gap at once.
 * A `best_bid_ask` does not count: it carries the seq of the `price_change` it follows (the same
 * change, sent just after it), so a socket without the custom features sees no gap while one
 * with them still sees any lost price_change. `new_market` and `market_resolved` carry no seq:
 * they belong to no asset's stream, and a client that missed one reads GET /markets.
 *
 * The channel renders the service's book feed (src/service/feeds/book-feed.ts), as gRPC's book stream
 * does: it follows each asset some socket subscribes to, once, and turns the feed's updates (a
 * command's levels, its trades, a tick size change) and the markets' lifecycle into Polymarket's
 * events, numbered by the channel per asset. Each is published once per asset (uWS topics); the
 * feed hands out a command's updates after it is durable and in the read model, so a snapshot
 * and the events after it never disagree. A client that reads too slowly is closed at
 * WS_BACKPRESSURE_BYTES_MAX rather than buffered without end.
 */
import { bookOf } from '../../service/market-data/market-data.js'
import { checkTokensKnown, type BookFeed, type BookUpdate, type LevelsUpdate, type MarketChange, type TickChange,
  type TradePrint } from '../../service/feeds/book-feed.js'
import type { TemplatedApp, WebSocket, WebSocketBehavior } from 'uWebSockets.js'
import { transactionOf } from '../../chain/transaction.js'
import { WS_SNAPSHOT_WINDOW_MS, WS_SNAPSHOTS_PER_WINDOW, WS_SUBSCRIPTIONS_MAX } from '../../limits.js'
import { refilledTokens } from '../../stdx/token-bucket.js'
import type { ServiceContext } from '../../service/context.js'
import { ApiCode, PredexError } from '../../errors.js'
import { bookSummary, tickText } from '../format.js'
import { decimalOfMicros } from '../wire.js'
import type { MarketChannelEvents, WsAssetEvent, WsBook } from '../shapes/ws-market.js'
import { BookMirror } from './book-mirror.js'
import { bestBidAskEvent, bestTexts, marketResolvedEvent, newMarketEvent } from './market-events.js'
import { channelBehavior } from './socket.js'

interface SocketData {
  readonly assets: Set<string>
  /** custom_feature_enabled: best_bid_ask of its assets, new_market and market_resolved. */
  custom: boolean
  /** Snapshots it may still be sent (WS_SNAPSHOTS_PER_WINDOW, refilled over WS_SNAPSHOT_WINDOW_MS). */
  snapshotBudget: number
  /** When the budget was last refilled (monotonic ms). */
  snapshotBudgetMs: number
}

/** An event of an asset's stream before the channel numbers it (each event type without its seq). */
type Unnumbered<E> = E extends unknown ? Omit<E, 'seq'> : never

/**
 * Takes `count` snapshots from the socket's budget, refilled at WS_SNAPSHOTS_PER_WINDOW per
 * WS_SNAPSHOT_WINDOW_MS; RATE_LIMITED, with the wait, when it has not that many (nothing taken,
 * the subscribe not applied).
 */
function spendSnapshots(data: SocketData, count: number): void {
  const nowMs = performance.now()
  data.snapshotBudget = refilledTokens(data.snapshotBudget, WS_SNAPSHOTS_PER_WINDOW, WS_SNAPSHOT_WINDOW_MS,
    data.snapshotBudgetMs, nowMs)
  data.snapshotBudgetMs = nowMs
  if (data.snapshotBudget >= count) {
    data.snapshotBudget -= count
    return
  }
  const waitMs = ((count - data.snapshotBudget) * WS_SNAPSHOT_WINDOW_MS) / WS_SNAPSHOTS_PER_WINDOW
  throw new PredexError(ApiCode.RATE_LIMITED, `at most ${WS_SNAPSHOTS_PER_WINDOW} book snapshots per ` +
    `${WS_SNAPSHOT_WINDOW_MS / 1000} s on a connection: subscribe with initial_dump false, or wait`,
  { limit: WS_SNAPSHOTS_PER_WINDOW, windowSeconds: WS_SNAPSHOT_WINDOW_MS / 1000,
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) })
}

const topicOf = (assetId: string): string => `market:${assetId}`
/** An asset's best_bid_ask: its sockets with the custom features on. */
const bestTopicOf = (assetId: string): string => `best:${assetId}`
/** new_market and market_resolved: every socket with the custom features on. */
const LIFECYCLE_TOPIC = 'lifecycle'

export class MarketChannel {
  private readonly seqByAsset = new Map<string, number>()
  /** The assets someone subscribes to: their book as of the update being rendered, and how many sockets. */
  private readonly followed = new Map<string, { readonly mirror: BookMirror; sockets: number;
    readonly unsubscribe: () => void }>()
  private readonly sockets = new Set<WebSocket<SocketData>>()
  private readonly sink = { update: (update: BookUpdate): void => this.render(update) }
  private readonly unfollowMarkets: () => void

  constructor(private readonly app: TemplatedApp, private readonly context: ServiceContext,
    private readonly feed: BookFeed) {
    this.unfollowMarkets = feed.followMarkets((change) => this.renderMarketChange(change))
  }

  behavior(): WebSocketBehavior<SocketData> {
    return channelBehavior<SocketData>({ channel: 'market', metrics: this.context.metrics }, {
      data: () => ({ assets: new Set(), custom: false, snapshotBudget: WS_SNAPSHOTS_PER_WINDOW,
        snapshotBudgetMs: performance.now() }),
      open: (ws) => void this.sockets.add(ws),
      close: (ws) => {
        this.sockets.delete(ws)
        for (const asset of ws.getUserData().assets) this.unfollow(asset)
      },
      message: (ws, body) => this.onMessage(ws, body),
    })
  }

  /** Closes every socket and stops following the feed (server shutdown). */
  closeAll(): void {
    this.unfollowMarkets()
    for (const ws of [...this.sockets]) ws.end(1001, 'server shutting down')
  }

  private onMessage(ws: WebSocket<SocketData>, body: Record<string, unknown>): void {
    const request = body as { type?: unknown; operation?: unknown; assets_ids?: unknown; initial_dump?: unknown
      custom_feature_enabled?: unknown }
    const operation = typeof request.operation === 'string' ? request.operation.toLowerCase() : 'subscribe'
    if (request.operation === undefined && String(request.type ?? 'market').toLowerCase() !== 'market') {
      throw new PredexError(ApiCode.BAD_REQUEST, 'this is the market channel: type must be "market"', { field: 'type' })
    }
    if (operation !== 'subscribe' && operation !== 'unsubscribe') {
      throw new PredexError(ApiCode.BAD_REQUEST, 'operation must be "subscribe" or "unsubscribe"',
        { field: 'operation' })
    }
    const assets = this.assetsOf(request.assets_ids)
    const custom = customFlagOf(request.custom_feature_enabled)
    if (operation === 'unsubscribe') {
      for (const asset of assets) this.unsubscribe(ws, asset)
      if (custom !== undefined) this.setCustom(ws, custom)
    } else {
      this.subscribe(ws, assets, request.initial_dump !== false, custom)
    }
  }

  private assetsOf(value: unknown): string[] {
    if (!Array.isArray(value) || value.some((asset) => typeof asset !== 'string')) {
      throw new PredexError(ApiCode.INVALID_PARAMETER, 'assets_ids must be an array of token ids',
        { field: 'assets_ids' })
    }
    checkTokensKnown(this.context, value as string[])
    return [...new Set(value as string[])]
  }

  private subscribe(ws: WebSocket<SocketData>, assets: readonly string[], initialDump: boolean,
    custom: boolean | undefined): void {
    const data = ws.getUserData()
    if (initialDump && assets.length > 0) spendSnapshots(data, assets.length)
    const added = assets.filter((asset) => !data.assets.has(asset))
    if (data.assets.size + added.length > WS_SUBSCRIPTIONS_MAX) {
      throw new PredexError(ApiCode.INVALID_PARAMETER, `at most ${WS_SUBSCRIPTIONS_MAX} assets per connection`,
        { max: WS_SUBSCRIPTIONS_MAX })
    }
    if (custom !== undefined) this.setCustom(ws, custom)
    for (const asset of added) {
      data.assets.add(asset)
      this.follow(asset)
      ws.subscribe(topicOf(asset))
      if (data.custom) ws.subscribe(bestTopicOf(asset))
    }
    // The snapshot is taken now, on this thread, between two published batches: the events that
    // follow it are exactly those with a higher seq.
    if (initialDump && assets.length > 0) {
      const dump: MarketChannelEvents['book'] = assets.map((asset) => this.snapshot(asset))
      ws.send(JSON.stringify(dump))
    }
  }

  private unsubscribe(ws: WebSocket<SocketData>, asset: string): void {
    const data = ws.getUserData()
    if (!data.assets.delete(asset)) return
    this.unfollow(asset)
    ws.unsubscribe(topicOf(asset))
    ws.unsubscribe(bestTopicOf(asset))
  }

  /** Turns the custom features of a socket on or off, for its assets now and later. */
  private setCustom(ws: WebSocket<SocketData>, on: boolean): void {
    const data = ws.getUserData()
    if (data.custom === on) return
    data.custom = on
    for (const topic of [LIFECYCLE_TOPIC, ...[...data.assets].map(bestTopicOf)]) {
      if (on) ws.subscribe(topic)
      else ws.unsubscribe(topic)
    }
  }

  /**
   * One more socket follows `assetId`: the first one subscribes the channel to the asset's feed and
   * starts its mirror from the feed's snapshot. An asset nobody follows costs nothing: the feed
   * builds no update of it, and the channel's seq counts only what was sent, which is all a
   * subscriber's snapshot-then-events continuity needs.
   */
  private follow(assetId: string): void {
    const entry = this.followed.get(assetId)
    if (entry !== undefined) {
      entry.sockets += 1
      return
    }
    const { snapshots: [snapshot], unsubscribe } = this.feed.subscribe([assetId], this.sink)
    const lastTrade = this.context.read.tokenStats.get(assetId)?.lastTradePriceMicros ?? null
    this.followed.set(assetId, { mirror: new BookMirror(snapshot!.market, assetId, snapshot!.book, lastTrade),
      sockets: 1, unsubscribe })
  }

  private unfollow(assetId: string): void {
    const entry = this.followed.get(assetId)
    if (entry === undefined) return
    entry.sockets -= 1
    if (entry.sockets > 0) return
    this.followed.delete(assetId)
    entry.unsubscribe()
  }

  private snapshot(assetId: string): WsBook {
    const summary = bookSummary(this.context.read, bookOf(this.context, assetId, false).book, this.context.nowMs())
    return { event_type: 'book', ...summary, seq: this.seqByAsset.get(assetId) ?? 0 }
  }

  /** Sends a per-asset event with the asset's next seq; returns that seq. */
  private send(assetId: string, event: Unnumbered<WsAssetEvent>): number {
    const seq = (this.seqByAsset.get(assetId) ?? 0) + 1
    this.seqByAsset.set(assetId, seq)
    const numbered: WsAssetEvent = { ...event, seq }
    this.app.publish(topicOf(assetId), JSON.stringify(numbered))
    return seq
  }

  /** One update of a followed asset, as its event; the mirror follows it first. */
  private render(update: BookUpdate): void {
    const mirror = this.followed.get(update.tokenId)?.mirror
    if (mirror === undefined) return
    const conditionId = this.context.read.markets.get(update.marketId)?.conditionId ?? update.marketId
    switch (update.kind) {
      case 'levels': this.renderLevels(mirror, conditionId, update); break
      case 'trade': this.renderTrade(mirror, conditionId, update); break
      case 'tick': this.renderTick(mirror, conditionId, update); break
    }
  }

  private renderTrade(mirror: BookMirror, conditionId: string, trade: TradePrint): void {
    mirror.trade(trade.priceMicros)
    this.send(trade.tokenId, { event_type: 'last_trade_price', asset_id: trade.tokenId, market: conditionId,
      fee_rate_bps: String(trade.feeRateBps), price: decimalOfMicros(trade.priceMicros), side: trade.side,
      size: decimalOfMicros(trade.sizeMicros), timestamp: String(trade.timeMs),
      transaction_hash: transactionOf(this.context.chainId, trade.engineSeq).transactionHash })
  }

  private renderTick(mirror: BookMirror, conditionId: string, tick: TickChange): void {
    mirror.tick(tick.tickSizeMicros)
    this.send(tick.tokenId, { event_type: 'tick_size_change', asset_id: tick.tokenId, market: conditionId,
      old_tick_size: tickText(tick.oldTickSizeMicros), new_tick_size: tickText(tick.tickSizeMicros),
      timestamp: String(tick.timeMs) })
  }

  /**
   * One price_change for the asset's changes in one command, its entries with the hash and best
   * prices of the book after the command; then, for sockets with the custom features, a
   * best_bid_ask with the same seq if the command moved the best bid or ask.
   */
  private renderLevels(mirror: BookMirror, conditionId: string, levels: LevelsUpdate): void {
    const assetId = levels.tokenId
    for (const change of levels.changes) mirror.level(change.side, change.priceMicros, change.sizeMicros)
    const timestamp = String(levels.timeMs)
    const hash = mirror.hash(levels.timeMs)
    const best = bestTexts(mirror.best())
    const seq = this.send(assetId, { event_type: 'price_change', market: conditionId, timestamp,
      price_changes: levels.changes.map((change) => ({ asset_id: assetId, price: decimalOfMicros(change.priceMicros),
        size: decimalOfMicros(change.sizeMicros), side: change.side, hash, ...best })) })
    // Taken whoever listens, so the next change compares with the book, not with what was sent.
    const moved = mirror.takeBestChange()
    const topic = bestTopicOf(assetId)
    if (moved !== null && this.app.numSubscribers(topic) > 0) {
      const event: MarketChannelEvents['best_bid_ask'] = { ...bestBidAskEvent(conditionId, assetId, moved, timestamp),
        seq }
      this.app.publish(topic, JSON.stringify(event))
    }
  }

  /** new_market and market_resolved, to every socket with the custom features on. */
  private renderMarketChange(change: MarketChange): void {
    if (this.app.numSubscribers(LIFECYCLE_TOPIC) === 0) return
    const timestamp = String(change.timeMs)
    const event = change.kind === 'created' ? newMarketEvent(change.market, timestamp)
      : marketResolvedEvent(change.market, change.winningOutcome, timestamp)
    this.app.publish(LIFECYCLE_TOPIC, JSON.stringify(event))
  }
}

/** custom_feature_enabled: true or false, or absent (null too) to leave the socket as it is. */
function customFlagOf(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'boolean') {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'custom_feature_enabled must be true or false',
      { field: 'custom_feature_enabled' })
  }
  return value
}
