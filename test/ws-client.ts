/** A WebSocket test client (the `ws` package) that queues every frame as text, with waits for the next ones. */
import WebSocket from 'ws'

/** A client that queues every frame, text, with a wait for the next ones. */
export class WsClient {
  readonly frames: string[] = []
  private waiters: (() => void)[] = []
  readonly closed: Promise<number>

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(data.toString())
      for (const wake of this.waiters.splice(0)) wake()
    })
    this.closed = new Promise((resolve) => socket.on('close', (code) => resolve(code)))
  }

  static async open(url: string): Promise<WsClient> {
    const socket = new WebSocket(url)
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    return new WsClient(socket)
  }

  send(value: unknown): void {
    this.socket.send(typeof value === 'string' ? value : JSON.stringify(value))
  }

  /** The next frame (text), waiting at most `timeoutMs`. */
  async next(timeoutMs = 5_000): Promise<string> {
    const deadline = Date.now() + timeoutMs
    while (this.frames.length === 0) {
      if (Date.now() > deadline) throw new Error('no frame in time')
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve)
        setTimeout(resolve, 50)
      })
    }
    return this.frames.shift()!
  }

  async json(): Promise<any> {
    return JSON.parse(await this.next())
  }
}

