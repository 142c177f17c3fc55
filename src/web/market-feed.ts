/**
 * The market channel for one market's two tokens: a WebSocket to /ws/market on this server,
 * the books kept by BookState, a resync (unsubscribe, then subscribe with a fresh snapshot) on a
 * gap, PING every 10 s (the server closes a socket silent for 60 s), and a reconnect with backoff
 * (at most 10 s apart) when the socket closes. Listeners hear after every message that changed
 * something.
 */
import { BookState, type FeedEvent } from './book-state.js'
import type { WsLastTradePrice } from '../api/shapes/ws-market.js'

const PING_INTERVAL_MS = 10_000
const RECONNECT_DELAY_MS_MAX = 10_000

export type FeedStatus = 'connecting' | 'live' | 'resyncing' | 'closed'

export class MarketFeed {
  readonly books: ReadonlyMap<string, BookState>
  status: FeedStatus = 'connecting'
  /** Trades heard on the channel, newest first (at most 50). */
  readonly trades: WsLastTradePrice[] = []
  private socket: WebSocket | null = null
  private ping: ReturnType<typeof setInterval> | null = null
  private reconnectDelayMs = 500
  private stopped = false
  private readonly listeners = new Set<() => void>()

  constructor(private readonly tokenIds: readonly string[]) {
    this.books = new Map(tokenIds.map((id) => [id, new BookState(id)]))
    this.connect()
  }

  get resyncs(): number {
    let count = 0
    for (const book of this.books.values()) count += book.resyncs
    return count
  }

  listen(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  stop(): void {
    this.stopped = true
    if (this.ping !== null) clearInterval(this.ping)
    this.socket?.close()
  }

  private connect(): void {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
    const socket = new WebSocket(`${scheme}://${location.host}/ws/market`)
    this.socket = socket
    socket.onopen = () => {
      this.reconnectDelayMs = 500
      socket.send(JSON.stringify({ type: 'market', assets_ids: this.tokenIds, initial_dump: true }))
      this.ping = setInterval(() => socket.send('PING'), PING_INTERVAL_MS)
    }
    socket.onmessage = (message) => this.onMessage(String(message.data))
    socket.onclose = () => {
      if (this.ping !== null) clearInterval(this.ping)
      this.setStatus('closed')
      if (this.stopped) return
      setTimeout(() => this.connect(), this.reconnectDelayMs)
      this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, RECONNECT_DELAY_MS_MAX)
    }
  }

  private onMessage(text: string): void {
    if (text === 'PONG') return
    const parsed = JSON.parse(text) as FeedEvent | FeedEvent[] | { event_type: string }
    const events = Array.isArray(parsed) ? parsed : [parsed]
    for (const event of events) this.onEvent(event)
    this.setStatus([...this.books.values()].some((book) => book.seq === null) ? 'resyncing' : 'live')
  }

  private onEvent(event: FeedEvent | { event_type: string }): void {
    if (event.event_type !== 'book' && event.event_type !== 'price_change' && event.event_type !== 'last_trade_price') {
      return
    }
    const known = event as FeedEvent
    const tokenId = known.event_type === 'price_change' ? known.price_changes[0]?.asset_id : known.asset_id
    const book = tokenId === undefined ? undefined : this.books.get(tokenId)
    if (book === undefined) return
    const verdict = book.apply(known)
    if (verdict === 'gap') this.resync(book.tokenId)
    if (verdict === 'applied' && known.event_type === 'last_trade_price') {
      this.trades.unshift(known)
      this.trades.length = Math.min(this.trades.length, 50)
    }
  }

  private resync(tokenId: string): void {
    this.socket?.send(JSON.stringify({ operation: 'unsubscribe', assets_ids: [tokenId] }))
    this.socket?.send(JSON.stringify({ operation: 'subscribe', assets_ids: [tokenId], initial_dump: true }))
  }

  private setStatus(status: FeedStatus): void {
    this.status = status
    for (const listener of this.listeners) listener()
  }
}
