/**
 * The soak's WebSocket readers: one on /ws/market for every token and one on /ws/user per trader,
 * each reconnecting (and subscribing again) whenever the server goes away, until stopped. Every
 * frame must be PONG or JSON; frames are counted, so the summary shows the channels kept flowing.
 */
import WebSocket from 'ws'
import type { Trader } from './workload.js'

export interface SocketTally {
  frames: number
  /** Frames that were neither PONG nor JSON: each one a failure of the run. */
  badFrames: string[]
  connects: number
}

export class SoakSockets {
  readonly tally: SocketTally = { frames: 0, badFrames: [], connects: 0 }
  private stopped = false
  private readonly sockets = new Set<WebSocket>()
  private readonly timers = new Set<NodeJS.Timeout>()

  constructor(private readonly port: number) {}

  market(tokens: readonly string[]): void {
    this.keep('/ws/market', { type: 'market', assets_ids: tokens })
  }

  user(trader: Trader): void {
    this.keep('/ws/user', { type: 'user', auth: trader.credentials, markets: [] })
  }

  stop(): void {
    this.stopped = true
    for (const timer of this.timers) clearInterval(timer)
    for (const socket of this.sockets) socket.terminate()
  }

  /** A socket on `path` that sends `subscription` on open, pings every 5 s and comes back after a close. */
  private keep(path: string, subscription: unknown): void {
    if (this.stopped) return
    const socket = new WebSocket(`ws://127.0.0.1:${this.port}${path}`)
    this.sockets.add(socket)
    let ping: NodeJS.Timeout | null = null
    socket.on('open', () => {
      this.tally.connects += 1
      socket.send(JSON.stringify(subscription))
      ping = setInterval(() => socket.send('PING'), 5_000)
      this.timers.add(ping)
    })
    socket.on('message', (data) => this.count(data.toString()))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      this.sockets.delete(socket)
      if (ping !== null) {
        clearInterval(ping)
        this.timers.delete(ping)
      }
      // The server is restarting: come back a moment later, as a client library would.
      const retry = setTimeout(() => {
        this.timers.delete(retry)
        this.keep(path, subscription)
      }, 250)
      this.timers.add(retry)
    })
  }

  private count(text: string): void {
    this.tally.frames += 1
    if (text === 'PONG') return
    try {
      JSON.parse(text)
    } catch {
      if (this.tally.badFrames.length < 10) this.tally.badFrames.push(text.slice(0, 200))
    }
  }
}
