/**
 * A raw WebSocket client for the live fuzz (test/fuzz/ws-live.test.ts): the HTTP upgrade and the
 * frames written byte by byte over a plain TCP socket, so a test can send what a well-behaved
 * client library refuses to (reserved bits, unknown opcodes, unmasked or fragmented control frames,
 * invalid close codes, a length the payload never reaches, a disconnect in the middle of a frame)
 * and see exactly what the server answers: its frames, its close code, or the connection's end.
 */
import { connect, type Socket } from 'node:net'
import { randomBytes } from 'node:crypto'
import { Waker } from '../support/waker.js'

export const Opcode = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const

export interface FrameOptions {
  /** FIN bit (default true). */
  readonly fin?: boolean
  /** RSV1-3 as a 3-bit number (default 0). */
  readonly rsv?: number
  /** Mask the payload, as a client must (default true). */
  readonly mask?: boolean
  /** The length written in the header, whatever the payload's (default: the payload's). */
  readonly declaredLength?: number
}

/** One frame's bytes, as a client writes it. */
export function frameBytes(opcode: number, payload: Uint8Array, options: FrameOptions = {}): Buffer {
  const { fin = true, rsv = 0, mask = true } = options
  const length = options.declaredLength ?? payload.length
  const head: number[] = [(fin ? 0x80 : 0) | ((rsv & 7) << 4) | (opcode & 0x0f)]
  const maskBit = mask ? 0x80 : 0
  let extended = Buffer.alloc(0)
  if (length < 126) head.push(maskBit | length)
  else if (length < 65_536) {
    head.push(maskBit | 126)
    extended = Buffer.alloc(2)
    extended.writeUInt16BE(length)
  } else {
    head.push(maskBit | 127)
    extended = Buffer.alloc(8)
    extended.writeBigUInt64BE(BigInt(length))
  }
  const key = mask ? randomBytes(4) : Buffer.alloc(0)
  const body = Buffer.from(payload)
  if (mask) for (let i = 0; i < body.length; i++) body[i]! ^= key[i % 4]!
  return Buffer.concat([Buffer.from(head), extended, key, body])
}

/** A close frame's payload: the code (2 bytes) and the reason. */
export function closePayload(code: number, reason: Uint8Array = new Uint8Array(0)): Buffer {
  const payload = Buffer.alloc(2 + reason.length)
  payload.writeUInt16BE(code & 0xffff)
  payload.set(reason, 2)
  return payload
}

export interface ServerFrame {
  readonly opcode: number
  readonly payload: Buffer
}

export class RawWebSocket {
  readonly frames: ServerFrame[] = []
  /** The close code of the server's close frame, if it sent one. */
  closeCode: number | null = null
  /** Resolves when the TCP connection has ended (either side). */
  readonly ended: Promise<void>
  private buffered = Buffer.alloc(0)
  private readonly waker = new Waker()
  private gone = false

  private constructor(readonly socket: Socket, rest: Buffer) {
    this.ended = new Promise((resolve) => socket.once('close', () => {
      this.gone = true
      this.waker.wake()
      resolve()
    }))
    socket.on('data', (chunk: Buffer) => this.take(chunk))
    socket.on('error', () => undefined)
    if (rest.length > 0) this.take(rest)
  }

  /** Connects and upgrades `path` (a malformed handshake: `handshake` below); throws if refused. */
  static async open(port: number, path: string, timeoutMs: number): Promise<RawWebSocket> {
    const key = randomBytes(16).toString('base64')
    const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`
    const { socket, head, rest } = await handshake(port, Buffer.from(request), timeoutMs)
    if (!head.startsWith('HTTP/1.1 101')) {
      socket.destroy()
      throw new Error(`upgrade refused: ${head.split('\r\n')[0]}`)
    }
    return new RawWebSocket(socket, rest)
  }

  write(bytes: Uint8Array): void {
    if (!this.gone) this.socket.write(bytes)
  }

  send(opcode: number, payload: Uint8Array, options?: FrameOptions): void {
    this.write(frameBytes(opcode, payload, options))
  }

  destroy(): void {
    this.socket.destroy()
  }

  get isEnded(): boolean {
    return this.gone
  }

  /** Waits until `check` holds or the connection ends; false if neither happens within `timeoutMs`. */
  async until(check: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs
    while (!check() && !this.gone) {
      const left = deadline - performance.now()
      if (left <= 0) return false
      await this.waker.sleep(left)
    }
    return true
  }

  private take(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk])
    for (;;) {
      const frame = parseFrame(this.buffered)
      if (frame === null) break
      this.buffered = this.buffered.subarray(frame.size)
      if (frame.opcode === Opcode.close) {
        this.closeCode = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005 // 1005: no code given
      }
      this.frames.push({ opcode: frame.opcode, payload: frame.payload })
    }
    this.waker.wake()
  }
}

/** Writes `request` to a new connection and reads up to the end of the HTTP answer's head. */
export function handshake(port: number, request: Uint8Array, timeoutMs: number):
  Promise<{ socket: Socket; head: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    socket.setNoDelay(true)
    let received = Buffer.alloc(0)
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer to the upgrade within ${timeoutMs} ms`))
    }, timeoutMs)
    const finish = (head: string, rest: Buffer): void => {
      clearTimeout(timer)
      socket.removeAllListeners('data')
      resolve({ socket, head, rest })
    }
    socket.on('error', () => undefined)
    socket.on('connect', () => socket.write(request))
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const end = received.indexOf('\r\n\r\n')
      if (end >= 0) finish(received.subarray(0, end).toString('latin1'), received.subarray(end + 4))
    })
    socket.on('close', () => finish(received.toString('latin1'), Buffer.alloc(0)))
  })
}

/** A server frame (unmasked) at the start of `bytes`, or null if it is not all there yet. */
function parseFrame(bytes: Buffer): (ServerFrame & { size: number }) | null {
  if (bytes.length < 2) return null
  const opcode = bytes[0]! & 0x0f
  let length = bytes[1]! & 0x7f
  let offset = 2
  if (length === 126) {
    if (bytes.length < 4) return null
    length = bytes.readUInt16BE(2)
    offset = 4
  } else if (length === 127) {
    if (bytes.length < 10) return null
    length = Number(bytes.readBigUInt64BE(2))
    offset = 10
  }
  if ((bytes[1]! & 0x80) !== 0) offset += 4 // a server never masks; skip a key if one did
  if (bytes.length < offset + length) return null
  return { opcode, payload: Buffer.from(bytes.subarray(offset, offset + length)), size: offset + length }
}
