/**
 * The market channel over WebSocket (`/ws/market`), Polymarket's protocol (clob-compat.md
 * section 8): a client subscribes to asset (token) ids and gets a `book` snapshot of each, then
 * `price_change` when a level of its book changes, `last_trade_price` after a trade and
 * `tick_size_change`. Text `PING` is answered `PONG`.
 *
 * Every event carries `seq`, counted per asset: the snapshot carries the asset's current count,
 * each later event of that asset the next one, so a client sees a gap at once. Events are
 * published once per asset (uWS topics) after their command is durable and in the read model,
 * so a snapshot and the events after it never disagree. A client that reads too slowly is
 * closed at WS_BACKPRESSURE_BYTES_MAX rather than buffered without end.
 */
import { bookOf } from '../../service/market-data.js'
import { isKnownToken } from '../../service/markets.js'
import type { TemplatedApp, WebSocket, WebSocketBehavior } from 'uWebSockets.js'
import type { EngineEvent, MarketRecord } from '../../engine/event.js'
import type { Outcome } from '../../host/messages.js'
import { transactionOf } from '../../chain/transaction.js'
import { WS_SUBSCRIPTIONS_MAX } from '../../limits.js'
import type { ServiceContext } from '../../service/context.js'
import { Code, CODE_MESSAGES } from '../../engine/codes.js'
import { ApiCode, PredexError } from '../../errors.js'
import { bookSummary, tickText } from '../format.js'
import { decimalOfMicros } from '../wire.js'
import { channelBehavior } from './socket.js'

interface SocketData {
  readonly assets: Set<string>
}

const topicOf = (assetId: string): string => `market:${assetId}`

export class MarketChannel {
  private readonly seqByAsset = new Map<string, number>()
  private readonly tickByMarket = new Map<string, number>()
  private readonly sockets = new Set<WebSocket<SocketData>>()

  constructor(private readonly app: TemplatedApp, private readonly context: ServiceContext) {
    for (const market of context.read.markets.values()) this.tickByMarket.set(market.marketId, market.tickSizeMicros)
  }

  behavior(): WebSocketBehavior<SocketData> {
    return channelBehavior<SocketData>({
      data: () => ({ assets: new Set() }),
      open: (ws) => void this.sockets.add(ws),
      close: (ws) => void this.sockets.delete(ws),
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
    const request = body as { type?: unknown; operation?: unknown; assets_ids?: unknown; initial_dump?: unknown }
    const operation = typeof request.operation === 'string' ? request.operation.toLowerCase() : 'subscribe'
    if (request.operation === undefined && String(request.type ?? 'market').toLowerCase() !== 'market') {
      throw new PredexError(ApiCode.BAD_REQUEST, 'this is the market channel: type must be "market"', { field: 'type' })
    }
    const assets = this.assetsOf(request.assets_ids)
    if (operation === 'unsubscribe') {
      for (const asset of assets) this.unsubscribe(ws, asset)
    } else if (operation === 'subscribe') {
      this.subscribe(ws, assets, request.initial_dump !== false)
    } else {
      throw new PredexError(ApiCode.BAD_REQUEST, 'operation must be "subscribe" or "unsubscribe"',
        { field: 'operation' })
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

  private subscribe(ws: WebSocket<SocketData>, assets: readonly string[], initialDump: boolean): void {
    const data = ws.getUserData()
    const added = assets.filter((asset) => !data.assets.has(asset))
    if (data.assets.size + added.length > WS_SUBSCRIPTIONS_MAX) {
      throw new PredexError(ApiCode.INVALID_PARAMETER, `at most ${WS_SUBSCRIPTIONS_MAX} assets per connection`,
        { max: WS_SUBSCRIPTIONS_MAX })
    }
    for (const asset of added) {
      data.assets.add(asset)
      ws.subscribe(topicOf(asset))
    }
    // The snapshot is taken now, on this thread, between two published batches: the events that
    // follow it are exactly those with a higher seq.
    if (initialDump && assets.length > 0) ws.send(JSON.stringify(assets.map((asset) => this.snapshot(asset))))
  }

  private unsubscribe(ws: WebSocket<SocketData>, asset: string): void {
    ws.getUserData().assets.delete(asset)
    ws.unsubscribe(topicOf(asset))
  }

  private snapshot(assetId: string): Record<string, unknown> {
    const summary = bookSummary(this.context.read, bookOf(this.context, assetId, false).book, this.context.nowMs())
    return { event_type: 'book', ...summary, seq: this.seqByAsset.get(assetId) ?? 0 }
  }

  /**
   * Whether anyone follows `assetId`. Events nobody would receive are not built (they cost a
   * JSON string each, on the front end's thread, for every order); the seq then counts only
   * what was sent, which is all a subscriber's snapshot-then-events continuity needs.
   */
  private listened(assetId: string): boolean {
    return this.app.numSubscribers(topicOf(assetId)) > 0
  }

  private send(assetId: string, event: Record<string, unknown>): void {
    const seq = (this.seqByAsset.get(assetId) ?? 0) + 1
    this.seqByAsset.set(assetId, seq)
    this.app.publish(topicOf(assetId), JSON.stringify({ ...event, seq }))
  }

  private publishCommand(seq: number, timeMs: number, events: readonly EngineEvent[]): void {
    const read = this.context.read
    const timestamp = String(timeMs)
    // Level changes of one command, grouped per asset: one price_change each.
    const changes = new Map<string, { marketId: string; levels: Record<string, unknown>[] }>()
    for (const event of events) {
      switch (event.type) {
        case 'bookLevel': {
          if (!this.listened(event.tokenId)) break
          let entry = changes.get(event.tokenId)
          if (entry === undefined) changes.set(event.tokenId, entry = { marketId: event.marketId, levels: [] })
          entry.levels.push({ asset_id: event.tokenId, price: decimalOfMicros(event.priceMicros),
            size: decimalOfMicros(event.sizeMicros), side: event.side })
          break
        }
        case 'trade': {
          const market = read.markets.get(event.marketId)
          const common = { event_type: 'last_trade_price', market: market?.conditionId ?? event.marketId,
            fee_rate_bps: String(event.feeRateBps), size: decimalOfMicros(event.sizeMicros), timestamp,
            transaction_hash: transactionOf(this.context.chainId, seq).transactionHash }
          if (this.listened(event.tokenId)) {
            this.send(event.tokenId, { ...common, asset_id: event.tokenId, price: decimalOfMicros(event.priceMicros),
              side: event.side })
          }
          // A mint or merge trade also prices the other token, at its maker's price.
          if (event.makerTokenId !== event.tokenId && this.listened(event.makerTokenId)) {
            this.send(event.makerTokenId, { ...common, asset_id: event.makerTokenId,
              price: decimalOfMicros(event.makerPriceMicros), side: event.makerSide })
          }
          break
        }
        case 'marketCreated': this.tickByMarket.set(event.market.marketId, event.market.tickSizeMicros); break
        case 'marketUpdated':
          this.onMarketUpdated(read.markets.get(event.marketId), event.tickSizeMicros, timestamp)
          break
        default: break
      }
    }
    for (const [assetId, { marketId, levels }] of changes) {
      const { bidMicros, askMicros } = read.bestPrices(assetId)
      const best = { best_bid: bidMicros === null ? '0' : decimalOfMicros(bidMicros),
        best_ask: askMicros === null ? '1' : decimalOfMicros(askMicros) }
      this.send(assetId, { event_type: 'price_change', market: read.markets.get(marketId)?.conditionId ?? marketId,
        timestamp,
        price_changes: levels.map((level) => ({ ...level, ...best })) })
    }
  }

  private onMarketUpdated(market: MarketRecord | undefined, tickSizeMicros: number, timestamp: string): void {
    if (market === undefined) return
    const old = this.tickByMarket.get(market.marketId)
    this.tickByMarket.set(market.marketId, tickSizeMicros)
    if (old === undefined || old === tickSizeMicros) return
    for (const assetId of [market.yesTokenId, market.noTokenId]) {
      this.send(assetId, { event_type: 'tick_size_change', asset_id: assetId, market: market.conditionId,
        old_tick_size: tickText(old),
        new_tick_size: tickText(tickSizeMicros), timestamp })
    }
  }
}
