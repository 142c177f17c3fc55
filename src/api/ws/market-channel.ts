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
 * Events are published once per asset (uWS topics) after their command is durable and in the
 * read model, so a snapshot and the events after it never disagree. A client that reads too
 * slowly is closed at WS_BACKPRESSURE_BYTES_MAX rather than buffered without end.
 */
import { bookOf } from '../../service/market-data.js'
import { isKnownToken } from '../../service/markets.js'
import type { TemplatedApp, WebSocket, WebSocketBehavior } from 'uWebSockets.js'
import type { MarketStatus } from '../../engine/command.js'
import type { BookLevel, EngineEvent, MarketUpdated, Trade } from '../../engine/event.js'
import type { Outcome } from '../../host/messages.js'
import { transactionOf } from '../../chain/transaction.js'
import { WS_SNAPSHOT_WINDOW_MS, WS_SNAPSHOTS_PER_WINDOW, WS_SUBSCRIPTIONS_MAX } from '../../limits.js'
import type { ServiceContext } from '../../service/context.js'
import { Code, CODE_MESSAGES } from '../../engine/codes.js'
import { ApiCode, PredexError } from '../../errors.js'
import { bookSummary, tickText } from '../format.js'
import { decimalOfMicros } from '../wire.js'
import type { MarketChannelEvents, WsAssetEvent, WsBook, WsMarketResolved, WsNewMarket, WsPriceChangeEntry }
  from '../shapes/ws-market.js'
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

/** What the channel remembers of a market, to tell a change of tick size or a resolution. */
interface MarketState {
  readonly tickSizeMicros: number
  readonly status: MarketStatus
}

/** The level changes of one asset in one command: one price_change. */
interface AssetChange {
  readonly marketId: string
  readonly levels: Omit<WsPriceChangeEntry, 'hash' | 'best_bid' | 'best_ask'>[]
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
  const refill = ((nowMs - data.snapshotBudgetMs) * WS_SNAPSHOTS_PER_WINDOW) / WS_SNAPSHOT_WINDOW_MS
  data.snapshotBudget = Math.min(WS_SNAPSHOTS_PER_WINDOW, data.snapshotBudget + refill)
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
  private readonly marketStates = new Map<string, MarketState>()
  /** The assets someone subscribes to: their book as of the command being published, and how many sockets. */
  private readonly followed = new Map<string, { readonly mirror: BookMirror; sockets: number }>()
  private readonly sockets = new Set<WebSocket<SocketData>>()

  constructor(private readonly app: TemplatedApp, private readonly context: ServiceContext) {
    for (const market of context.read.markets.values()) this.rememberMarket(market.marketId, market)
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

  /** Closes every socket (server shutdown). */
  closeAll(): void {
    for (const ws of [...this.sockets]) ws.end(1001, 'server shutting down')
  }

  /** Publishes the events of durable commands (after the read model applied them). */
  publish(outcomes: readonly Outcome[]): void {
    for (const outcome of outcomes) this.publishCommand(outcome.seq, outcome.timeMs, outcome.events)
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
    const unknown = value.find((asset: string) => !isKnownToken(this.context, asset))
    // The catalogue's message, as REST's: one rule, one wording.
    if (unknown !== undefined) {
      throw new PredexError(Code.TOKEN_NOT_FOUND, CODE_MESSAGES.TOKEN_NOT_FOUND, { asset_id: unknown })
    }
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

  /** One more socket follows `assetId`: the first one starts its mirror from the read model. */
  private follow(assetId: string): void {
    const entry = this.followed.get(assetId)
    if (entry !== undefined) {
      entry.sockets += 1
      return
    }
    const { book, market } = bookOf(this.context, assetId, false)
    const lastTrade = this.context.read.tokenStats.get(assetId)?.lastTradePriceMicros ?? null
    this.followed.set(assetId, { mirror: new BookMirror(market, assetId, book, lastTrade), sockets: 1 })
  }

  private unfollow(assetId: string): void {
    const entry = this.followed.get(assetId)
    if (entry === undefined) return
    entry.sockets -= 1
    if (entry.sockets === 0) this.followed.delete(assetId)
  }

  private snapshot(assetId: string): WsBook {
    const summary = bookSummary(this.context.read, bookOf(this.context, assetId, false).book, this.context.nowMs())
    return { event_type: 'book', ...summary, seq: this.seqByAsset.get(assetId) ?? 0 }
  }

  /**
   * The mirror of `assetId` if anyone follows it. Events nobody would receive are not built
   * (they cost a JSON string each, on the front end's thread, for every order); the seq then
   * counts only what was sent, which is all a subscriber's snapshot-then-events continuity needs.
   */
  private mirrorOf(assetId: string): BookMirror | undefined {
    return this.followed.get(assetId)?.mirror
  }

  /** Sends a per-asset event with the asset's next seq; returns that seq. */
  private send(assetId: string, event: Unnumbered<WsAssetEvent>): number {
    const seq = (this.seqByAsset.get(assetId) ?? 0) + 1
    this.seqByAsset.set(assetId, seq)
    const numbered: WsAssetEvent = { ...event, seq }
    this.app.publish(topicOf(assetId), JSON.stringify(numbered))
    return seq
  }

  private publishCommand(seq: number, timeMs: number, events: readonly EngineEvent[]): void {
    const timestamp = String(timeMs)
    const changes = new Map<string, AssetChange>()
    const lifecycle: (WsNewMarket | WsMarketResolved)[] = []
    for (const event of events) {
      switch (event.type) {
        case 'bookLevel': this.onLevel(event, changes); break
        case 'trade': this.onTrade(seq, event, timestamp); break
        case 'marketCreated':
          this.rememberMarket(event.market.marketId, event.market)
          lifecycle.push(newMarketEvent(event.market, timestamp))
          break
        case 'marketUpdated': {
          const resolved = this.onMarketUpdated(event, timestamp)
          if (resolved !== null) lifecycle.push(resolved)
          break
        }
        default: break
      }
    }
    for (const [assetId, change] of changes) this.publishChange(assetId, change, timeMs, timestamp)
    // After the command's book changes: a resolution's cancelled orders first, then the resolution.
    if (lifecycle.length > 0 && this.app.numSubscribers(LIFECYCLE_TOPIC) > 0) {
      for (const event of lifecycle) this.app.publish(LIFECYCLE_TOPIC, JSON.stringify(event))
    }
  }

  private onLevel(event: BookLevel, changes: Map<string, AssetChange>): void {
    const mirror = this.mirrorOf(event.tokenId)
    if (mirror === undefined) return
    mirror.level(event.side, event.priceMicros, event.sizeMicros)
    let change = changes.get(event.tokenId)
    if (change === undefined) changes.set(event.tokenId, change = { marketId: event.marketId, levels: [] })
    change.levels.push({ asset_id: event.tokenId, price: decimalOfMicros(event.priceMicros),
      size: decimalOfMicros(event.sizeMicros), side: event.side })
  }

  private onTrade(seq: number, event: Trade, timestamp: string): void {
    const market = this.context.read.markets.get(event.marketId)
    const common = { event_type: 'last_trade_price' as const, market: market?.conditionId ?? event.marketId,
      fee_rate_bps: String(event.feeRateBps), size: decimalOfMicros(event.sizeMicros), timestamp,
      transaction_hash: transactionOf(this.context.chainId, seq).transactionHash }
    const taker = this.mirrorOf(event.tokenId)
    if (taker !== undefined) {
      taker.trade(event.priceMicros)
      this.send(event.tokenId, { ...common, asset_id: event.tokenId, price: decimalOfMicros(event.priceMicros),
        side: event.side })
    }
    // A mint or merge trade also prices the other token, at its maker's price.
    const maker = event.makerTokenId === event.tokenId ? undefined : this.mirrorOf(event.makerTokenId)
    if (maker !== undefined) {
      maker.trade(event.makerPriceMicros)
      this.send(event.makerTokenId, { ...common, asset_id: event.makerTokenId,
        price: decimalOfMicros(event.makerPriceMicros), side: event.makerSide })
    }
  }

  /**
   * One price_change for the asset's changes in one command, its entries with the hash and best
   * prices of the book after the command; then, for sockets with the custom features, a
   * best_bid_ask with the same seq if the command moved the best bid or ask.
   */
  private publishChange(assetId: string, change: AssetChange, timeMs: number, timestamp: string): void {
    const mirror = this.mirrorOf(assetId)!
    const market = this.context.read.markets.get(change.marketId)?.conditionId ?? change.marketId
    const hash = mirror.hash(timeMs)
    const best = bestTexts(mirror.best())
    const seq = this.send(assetId, { event_type: 'price_change', market, timestamp,
      price_changes: change.levels.map((level) => ({ ...level, hash, ...best })) })
    // Taken whoever listens, so the next change compares with the book, not with what was sent.
    const moved = mirror.takeBestChange()
    const topic = bestTopicOf(assetId)
    if (moved !== null && this.app.numSubscribers(topic) > 0) {
      const best: MarketChannelEvents['best_bid_ask'] = { ...bestBidAskEvent(market, assetId, moved, timestamp), seq }
      this.app.publish(topic, JSON.stringify(best))
    }
  }

  private rememberMarket(marketId: string, state: MarketState): void {
    this.marketStates.set(marketId, { tickSizeMicros: state.tickSizeMicros, status: state.status })
  }

  /** A tick size change is told per asset; a resolution is returned, to be told after the book's changes. */
  private onMarketUpdated(event: MarketUpdated, timestamp: string): WsMarketResolved | null {
    const market = this.context.read.markets.get(event.marketId)
    if (market === undefined) return null
    const old = this.marketStates.get(market.marketId)
    this.rememberMarket(market.marketId, event)
    for (const assetId of [market.yesTokenId, market.noTokenId]) this.mirrorOf(assetId)?.tick(event.tickSizeMicros)
    if (old !== undefined && old.tickSizeMicros !== event.tickSizeMicros) {
      for (const assetId of [market.yesTokenId, market.noTokenId]) {
        this.send(assetId, { event_type: 'tick_size_change', asset_id: assetId, market: market.conditionId,
          old_tick_size: tickText(old.tickSizeMicros), new_tick_size: tickText(event.tickSizeMicros), timestamp })
      }
    }
    const resolvedNow = event.status === 'Resolved' && old?.status !== 'Resolved' && event.winningOutcome !== null
    return resolvedNow ? marketResolvedEvent(market, event.winningOutcome, timestamp) : null
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
