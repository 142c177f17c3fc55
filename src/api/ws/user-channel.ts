/**
 * The user channel over WebSocket (`/ws/user`), Polymarket's protocol (clob-compat.md 8.3): a
 * client authenticates with its API key, secret and passphrase in the first message, optionally
 * names the markets (condition ids) it wants, and gets its own `order` events (PLACEMENT,
 * UPDATE, CANCELLATION) and `trade` events (as taker or maker), in the read model's formats.
 *
 * It also gets the changes of its API key's order groups (`order_group` events, order-group-event.ts;
 * with `action: "triggered"`, the "group_triggered" event): to the sockets of that key only, on
 * the key's wallet, whatever markets they follow.
 *
 * Each socket numbers its messages (`seq` 1, 2, ...) so a gap shows at once. A trade is sent when
 * it matches: on the builtin chain with `status: "CONFIRMED"` (a match is final there); on a
 * real chain with its settlement's status then, usually MATCHED, and again at each later status
 * (MINED, CONFIRMED; RETRYING, FAILED), as Polymarket sends MATCHED, MINED, CONFIRMED. A failed
 * authentication is answered with an error event and the socket is closed; slow readers are
 * dropped at the same backlog bound as the market channel.
 *
 * The channel renders the service's user feed (src/service/feeds/user-feed.ts), as gRPC's user stream
 * does: each authenticated socket subscribes to its wallet's updates from now on ('live': no
 * snapshot, no resume), and when the feed ends it (its key was revoked) the socket is told why
 * and closed.
 */
import type { WebSocket, WebSocketBehavior } from 'uWebSockets.js'
import type { Gate } from '../../auth/gate.js'
import { WS_SUBSCRIPTIONS_MAX } from '../../limits.js'
import type { ServiceContext } from '../../service/context.js'
import { orderAfter, type OrderGroupUpdate, type OrderUpdate, type TradeUpdate, type UserFeed, type UserUpdate }
  from '../../service/feeds/user-feed.js'
import { ApiCode, PredexError } from '../../errors.js'
import { orderInfo, tradeInfo } from '../format.js'
import type { WsError } from '../shapes/ws-socket.js'
import type { UserChannelEvents, WsOrder, WsTrade } from '../shapes/ws-user.js'
import { orderGroupEvent } from './order-group-event.js'
import { channelBehavior } from './socket.js'

interface SocketData {
  readonly remoteAddress: string
  /** Lower-case wallet address once authenticated. */
  address: string | null
  /** Condition ids followed; empty: all of the user's markets. */
  readonly markets: Set<string>
  seq: number
  /** Ends its subscription to the user feed (once authenticated). */
  unsubscribe: () => void
}

/**
 * A socket may follow at most WS_SUBSCRIPTIONS_MAX markets: a message that would take it past
 * that is refused whole, before it changes anything (issue 14: checked after applying, each
 * refused message grew the socket's set without end).
 */
function checkMarketCount(count: number): void {
  if (count > WS_SUBSCRIPTIONS_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, `at most ${WS_SUBSCRIPTIONS_MAX} markets per connection`,
      { field: 'markets', max: WS_SUBSCRIPTIONS_MAX })
  }
}

export class UserChannel {
  private readonly sockets = new Set<WebSocket<SocketData>>()
  // The feed hands one update to every socket of its wallet in a row: it is rendered once.
  private lastUpdate: OrderUpdate | TradeUpdate | null = null
  private lastEvent: Omit<WsOrder, 'seq'> | Omit<WsTrade, 'seq'> | null = null

  /**
   * `gate`: the REST face's, so failed authentications here and there share one budget per
   * (client address, API key) and one block.
   */
  constructor(private readonly context: ServiceContext, private readonly gate: Gate, private readonly feed: UserFeed) {}

  behavior(): WebSocketBehavior<SocketData> {
    return channelBehavior<SocketData>({ channel: 'user', metrics: this.context.metrics }, {
      data: (remoteAddress) => ({ remoteAddress, address: null, markets: new Set(), seq: 0,
        unsubscribe: () => undefined }),
      open: (ws) => void this.sockets.add(ws),
      close: (ws) => {
        this.sockets.delete(ws)
        ws.getUserData().unsubscribe()
      },
      message: (ws, body) => this.onMessage(ws, body),
      // The first message must authenticate: a socket that failed it is closed.
      afterError: (ws) => {
        if (ws.getUserData().address === null) ws.end(1008, 'authentication failed')
      },
    })
  }

  closeAll(): void {
    for (const ws of [...this.sockets]) ws.end(1001, 'server shutting down')
  }

  /** One update of the socket's wallet, as its event: orders and trades of the markets it follows, its key's groups. */
  private render(ws: WebSocket<SocketData>, update: UserUpdate): void {
    if (update.kind === 'orderGroup') return this.sendGroupChange(ws, update)
    if (update !== this.lastUpdate) {
      this.lastEvent = update.kind === 'order' ? this.orderEvent(update) : this.tradeEvent(update)
      this.lastUpdate = update
    }
    this.sendIn(ws, update.kind === 'order' ? update.order.marketId : update.trade.marketId, this.lastEvent!)
  }

  private orderEvent(update: OrderUpdate): Omit<WsOrder, 'seq'> {
    const type = update.placement ? 'PLACEMENT' : update.status === 'CANCELED' ? 'CANCELLATION' : 'UPDATE'
    return { event_type: 'order', type, ...orderInfo(this.context.read, orderAfter(update), true),
      order_owner: update.order.owner, timestamp: String(update.timeMs) }
  }

  /** A trade from the wallet's side, with the settlement status the update tells. */
  private tradeEvent({ trade, address, timeMs, settlement }: TradeUpdate): Omit<WsTrade, 'seq'> {
    const info = tradeInfo(this.context.read, trade, address, true, this.context.chainId, settlement)
    return { event_type: 'trade', type: 'TRADE', ...info,
      trade_owner: address === trade.takerAddress ? trade.takerOwner : trade.makerOwner, timestamp: String(timeMs) }
  }

  /** A change of one of the socket's key's order groups, whatever markets it follows. */
  private sendGroupChange(ws: WebSocket<SocketData>, update: OrderGroupUpdate): void {
    const data = ws.getUserData()
    data.seq++
    const event: UserChannelEvents['order_group'] | UserChannelEvents['group_triggered'] =
      { ...orderGroupEvent(update.change, String(update.timeMs)), seq: data.seq }
    ws.send(JSON.stringify(event))
  }

  /** Sends an event of `marketId` if the socket follows that market, numbered by the socket. */
  private sendIn(ws: WebSocket<SocketData>, marketId: string, event: Omit<WsOrder, 'seq'> | Omit<WsTrade, 'seq'>):
    void {
    const data = ws.getUserData()
    if (data.markets.size > 0) {
      const conditionId = this.context.read.markets.get(marketId)?.conditionId ?? ''
      if (!data.markets.has(conditionId)) return
    }
    data.seq++
    const numbered: UserChannelEvents['order'] | UserChannelEvents['trade'] = { ...event, seq: data.seq }
    ws.send(JSON.stringify(numbered))
  }

  /**
   * A revoked key's sessions end (reliability-anchors: a revoked credential must stop working
   * everywhere, at once): each is told why, then closed; the wallet's other keys keep theirs.
   */
  private end(ws: WebSocket<SocketData>, error: PredexError): void {
    const revoked: WsError = { event_type: 'error', ...error.body() }
    ws.send(JSON.stringify(revoked))
    ws.end(1008, 'API key revoked')
  }

  private onMessage(ws: WebSocket<SocketData>, body: Record<string, unknown>): void {
    const data = ws.getUserData()
    const request = body as { type?: unknown; operation?: unknown; auth?: unknown; markets?: unknown }
    const markets = this.marketsOf(request.markets)
    if (data.address === null) {
      if (String(request.type ?? '').toLowerCase() !== 'user') {
        throw new PredexError(ApiCode.BAD_REQUEST,
          'this is the user channel: the first message is {type: "user", auth, markets}', { field: 'type' })
      }
      // Checked before anything is applied: a refused message changes nothing (and here authenticates nothing).
      checkMarketCount(new Set(markets).size)
      const trader = this.authenticate(data.remoteAddress, request.auth)
      data.address = trader.address
      for (const market of markets) data.markets.add(market)
      data.unsubscribe = this.feed.subscribe(trader, 'live', {
        update: (update) => this.render(ws, update),
        end: (error) => this.end(ws, error),
      }).unsubscribe
    } else if (String(request.operation ?? 'subscribe').toLowerCase() === 'unsubscribe') {
      for (const market of markets) data.markets.delete(market)
    } else {
      checkMarketCount(data.markets.size + new Set(markets.filter((market) => !data.markets.has(market))).size)
      for (const market of markets) data.markets.add(market)
    }
  }

  private marketsOf(value: unknown): string[] {
    if (value === undefined || value === null) return []
    if (!Array.isArray(value) || value.some((market) => typeof market !== 'string')) {
      throw new PredexError(ApiCode.INVALID_PARAMETER, 'markets must be an array of condition ids',
        { field: 'markets' })
    }
    return (value as string[]).map((market) => market.toLowerCase())
  }

  /** The trader of a valid {apiKey, secret, passphrase}, through the gate (its blocks and failure budget). */
  private authenticate(remoteAddress: string, auth: unknown): { address: string; apiKey: string } {
    const given = (auth ?? {}) as { apiKey?: unknown; secret?: unknown; passphrase?: unknown }
    const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
    const credential = { apiKey: text(given.apiKey), secret: text(given.secret), passphrase: text(given.passphrase) }
    const address = this.gate.pass({ credentials: { kind: 'secret', credential }, remoteAddress, rate: null })!.address
    return { address, apiKey: credential.apiKey! }
  }
}
