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
 */
import type { WebSocket, WebSocketBehavior } from 'uWebSockets.js'
import type { EngineEvent, OrderGroupChanged } from '../../engine/event.js'
import type { Outcome } from '../../host/messages.js'
import type { Gate } from '../../auth/gate.js'
import { WS_SUBSCRIPTIONS_MAX } from '../../limits.js'
import type { ServiceContext } from '../../service/context.js'
import { walletOfKey } from '../../service/user-feed.js'
import { ApiCode, PredexError } from '../../errors.js'
import { AuthCode } from '../../errors.js'
import { orderInfo, tradeInfo } from '../format.js'
import type { WsError } from '../shapes/ws-socket.js'
import type { UserChannelEvents, WsOrder, WsTrade } from '../shapes/ws-user.js'
import { decimalOfMicros } from '../wire.js'
import { orderGroupEvent } from './order-group-event.js'
import type { WsGroupTriggered, WsOrderGroup } from '../shapes/ws-user.js'
import { channelBehavior } from './socket.js'

interface SocketData {
  readonly remoteAddress: string
  /** Lower-case wallet address once authenticated. */
  address: string | null
  /** The API key it authenticated with: its revocation ends the session. */
  apiKey: string | null
  /** Condition ids followed; empty: all of the user's markets. */
  readonly markets: Set<string>
  seq: number
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
  /** Address -> its authenticated sockets. */
  private readonly socketsByAddress = new Map<string, Set<WebSocket<SocketData>>>()
  private readonly sockets = new Set<WebSocket<SocketData>>()

  /**
   * `gate`: the REST face's, so failed authentications here and there share one budget per
   * (client address, API key) and one block.
   */
  /** Stops the pushes of trades' settlement statuses (a real chain's). */
  private readonly unfollowSettlement: () => void

  constructor(private readonly context: ServiceContext, private readonly gate: Gate) {
    this.unfollowSettlement = context.settlement?.onChange((tradeId) => this.publishSettlement(tradeId)) ??
      (() => undefined)
  }

  behavior(): WebSocketBehavior<SocketData> {
    return channelBehavior<SocketData>({ channel: 'user', metrics: this.context.metrics }, {
      data: (remoteAddress) => ({ remoteAddress, address: null, apiKey: null, markets: new Set(), seq: 0 }),
      open: (ws) => void this.sockets.add(ws),
      close: (ws) => this.forget(ws),
      message: (ws, body) => this.onMessage(ws, body),
      // The first message must authenticate: a socket that failed it is closed.
      afterError: (ws) => {
        if (ws.getUserData().address === null) ws.end(1008, 'authentication failed')
      },
    })
  }

  closeAll(): void {
    this.unfollowSettlement()
    for (const ws of [...this.sockets]) ws.end(1001, 'server shutting down')
  }

  /** Sends the users' order, trade and order-group events of durable commands (after the read model applied them). */
  publish(outcomes: readonly Outcome[]): void {
    if (this.socketsByAddress.size === 0) return
    for (const outcome of outcomes) {
      for (const event of outcome.events) this.publishEvent(event, String(outcome.timeMs))
    }
  }

  /** A trade to both its parties' sockets, with its settlement's status now. */
  private sendTrade(tradeId: string, timestamp: string): void {
    const read = this.context.read
    const trade = read.trade(tradeId)
    if (trade === undefined) return
    const conditionId = read.markets.get(trade.marketId)?.conditionId ?? ''
    for (const address of new Set([trade.takerAddress, trade.makerAddress])) {
      if (!this.socketsByAddress.has(address)) continue
      const info = tradeInfo(read, trade, address, true, this.context.chainId,
        this.context.settlement?.of(trade.tradeId, trade.timeMs) ?? null)
      this.sendTo(address, conditionId, { event_type: 'trade', type: 'TRADE', ...info,
        trade_owner: address === trade.takerAddress ? trade.takerOwner : trade.makerOwner, timestamp })
    }
  }

  /** On a real chain: a trade again, once its settlement moved on (MINED, CONFIRMED, RETRYING, FAILED). */
  private publishSettlement(tradeId: string): void {
    if (this.socketsByAddress.size > 0) this.sendTrade(tradeId, String(this.context.nowMs()))
  }

  private publishEvent(event: EngineEvent, timestamp: string): void {
    const read = this.context.read
    const attach = (address: string): boolean => this.socketsByAddress.has(address)
    switch (event.type) {
      case 'orderAccepted':
      case 'orderUpdate': {
        if (!attach(event.maker)) return
        const order = read.order(event.orderId)
        if (order === undefined) return
        const type = event.type === 'orderAccepted' ? 'PLACEMENT'
          : event.status === 'CANCELED' ? 'CANCELLATION' : 'UPDATE'
        // The read model holds the order as it is after the whole command: report this event's own state.
        const state: Pick<WsOrder, 'status' | 'size_matched'> = event.type === 'orderUpdate'
          ? { status: event.status, size_matched: decimalOfMicros(event.sizeMatchedMicros) }
          : { status: 'LIVE', size_matched: '0' }
        const market = read.markets.get(order.marketId)
        const info = orderInfo(read, order, true)
        this.sendTo(order.maker, market?.conditionId ?? '', { event_type: 'order', type, ...info, ...state,
          order_owner: order.owner, timestamp })
        return
      }
      case 'trade':
        this.sendTrade(event.tradeId, timestamp)
        return
      case 'apiKey': {
        if (event.action === 'revoked') this.endSessionsOf(event.address, event.apiKey)
        return
      }
      case 'orderGroup':
        this.sendGroupChange(event, timestamp)
        return
      default: return
    }
  }

  /**
   * A revoked key's sessions end (reliability-anchors: a revoked credential must stop working
   * everywhere, at once): each is told why, then closed; the wallet's other keys keep theirs.
   */
  private endSessionsOf(address: string, apiKey: string): void {
    const error = new PredexError(AuthCode.AUTH_UNKNOWN_KEY, 'the API key was revoked: this session has ended')
    for (const ws of [...(this.socketsByAddress.get(address) ?? [])]) {
      if (ws.getUserData().apiKey !== apiKey) continue
      const revoked: WsError = { event_type: 'error', ...error.body() }
      ws.send(JSON.stringify(revoked))
      ws.end(1008, 'API key revoked')
    }
  }

  /** A change of an order group to its key's sockets (on the key's wallet), whatever markets they follow. */
  private sendGroupChange(change: OrderGroupChanged, timestamp: string): void {
    const address = walletOfKey(this.context, change.owner)
    const sockets = address === undefined ? undefined : this.socketsByAddress.get(address)
    if (sockets === undefined) return
    const event = orderGroupEvent(change, timestamp)
    for (const ws of sockets) {
      const data = ws.getUserData()
      if (data.apiKey !== change.owner) continue
      data.seq++
      const numbered: WsOrderGroup | WsGroupTriggered = { ...event, seq: data.seq }
      ws.send(JSON.stringify(numbered))
    }
  }

  /** Sends an event to the address's sockets that follow its market, each numbered by its socket. */
  private sendTo(address: string, conditionId: string, event: Omit<WsOrder, 'seq'> | Omit<WsTrade, 'seq'>): void {
    for (const ws of this.socketsByAddress.get(address) ?? []) {
      const data = ws.getUserData()
      if (data.markets.size > 0 && !data.markets.has(conditionId)) continue
      data.seq++
      const numbered: UserChannelEvents['order'] | UserChannelEvents['trade'] = { ...event, seq: data.seq }
      ws.send(JSON.stringify(numbered))
    }
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
      data.address = this.authenticate(data.remoteAddress, request.auth)
      data.apiKey = (request.auth as { apiKey: string }).apiKey
      let sockets = this.socketsByAddress.get(data.address)
      if (sockets === undefined) this.socketsByAddress.set(data.address, sockets = new Set())
      sockets.add(ws)
      for (const market of markets) data.markets.add(market)
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

  /** The wallet address of a valid {apiKey, secret, passphrase}, through the gate (its blocks and failure budget). */
  private authenticate(remoteAddress: string, auth: unknown): string {
    const given = (auth ?? {}) as { apiKey?: unknown; secret?: unknown; passphrase?: unknown }
    const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
    const credential = { apiKey: text(given.apiKey), secret: text(given.secret), passphrase: text(given.passphrase) }
    return this.gate.pass({ credentials: { kind: 'secret', credential }, remoteAddress, rate: null })!.address
  }

  private forget(ws: WebSocket<SocketData>): void {
    this.sockets.delete(ws)
    const address = ws.getUserData().address
    if (address === null) return
    const sockets = this.socketsByAddress.get(address)
    sockets?.delete(ws)
    if (sockets?.size === 0) this.socketsByAddress.delete(address)
  }
}
