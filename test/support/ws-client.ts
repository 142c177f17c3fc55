/**
 * A WebSocket test client (the `ws` package) that queues every frame as text, with waits for the
 * next ones. Every frame a test reads is checked against the AsyncAPI document of the channel it
 * came from (GET /asyncapi.json; test/support/asyncapi-validator.ts): a channel that sends a
 * message its types do not describe fails the test that read it.
 */
import WebSocket from 'ws'
import { freshCompiled } from './compiled.js'
import { WsMessageValidator } from './asyncapi-validator.js'

let validator: Promise<WsMessageValidator> | null = null

/**
 * The document is built in-process from the same module the server serves it from (as
 * test/support/rest-harness.ts builds the OpenAPI document), the build's when it is up to date.
 */
function documentValidator(): Promise<WsMessageValidator> {
  validator ??= (async () => {
    const compiled = freshCompiled('src/api/rest/routes.js', ['src'])
    const routes: typeof import('../../src/api/rest/routes.js') =
      await import(compiled !== null ? compiled : '../../src/api/rest/routes.js')
    return new WsMessageValidator(routes.wsApiDocument())
  })()
  return validator
}

/** A client that queues every frame, text, with a wait for the next ones. */
export class WsClient {
  readonly frames: string[] = []
  private waiters: (() => void)[] = []
  readonly closed: Promise<number>

  constructor(readonly socket: WebSocket, private readonly check: { validator: WsMessageValidator; address: string }) {
    socket.on('message', (data) => {
      this.frames.push(data.toString())
      for (const wake of this.waiters.splice(0)) wake()
    })
    this.closed = new Promise((resolve) => socket.on('close', (code) => resolve(code)))
  }

  static async open(url: string): Promise<WsClient> {
    const check = { validator: await documentValidator(), address: new URL(url).pathname }
    const socket = new WebSocket(url)
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    return new WsClient(socket, check)
  }

  send(value: unknown): void {
    this.socket.send(typeof value === 'string' ? value : JSON.stringify(value))
  }

  /** The next frame (text), waiting at most `timeoutMs`; throws when it does not fit GET /asyncapi.json. */
  async next(timeoutMs = 5_000): Promise<string> {
    const deadline = Date.now() + timeoutMs
    while (this.frames.length === 0) {
      if (Date.now() > deadline) throw new Error('no frame in time')
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve)
        setTimeout(resolve, 50)
      })
    }
    const frame = this.frames.shift()!
    const mismatch = this.check.validator.mismatch(this.check.address, frame)
    if (mismatch !== null) throw new Error(`the channel does not fit GET /asyncapi.json: ${mismatch}`)
    return frame
  }

  async json(): Promise<any> {
    return JSON.parse(await this.next())
  }
}
