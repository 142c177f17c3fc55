/**
 * Unary gRPC calls on a raw TCP socket, HTTP/2 framed by hand: the benchmark's unary load, as
 * REST's generator (http-load.ts) writes HTTP/1.1 by hand. The server sees what any gRPC client
 * sends (RFC 9113 frames; grpc/doc/PROTOCOL-HTTP2.md): a HEADERS frame (POST, the method's path,
 * `content-type: application/grpc`, `te: trailers` and the call's L2 headers) and a DATA frame with
 * the framed message, on a new stream per call.
 *
 * Why: node:http2's client makes a stream object per call (a Duplex with its events and buffers),
 * and bench:grpc's CPU table gave the lean client (grpc-wire.ts) 0.15-0.20 ms a unary call on the
 * cores the server shares, against 0.05-0.08 ms a request for REST's generator: the unary figure
 * was a comparison of two load generators as much as of two faces.
 *
 * What it leaves out, on purpose:
 * - Header blocks are written without compression state (literals, static-table indices, no
 *   Huffman: RFC 7541 section 6) and the server's are not decoded. So a call's status is not read:
 *   a call that brings back a message succeeded (a gRPC server sends a unary answer only with
 *   status OK), one that ends without one was refused or failed (`answer` null). The lean client
 *   (grpc-wire.ts) and the SDK read statuses; the benchmark's unary loop only counts outcomes.
 * - A request must fit one DATA frame (16 379 bytes of message, the default frame size) and its
 *   stream's window, and the server may not limit concurrent streams below the calls in flight
 *   (all three asserted), so a stream's own send window never needs tracking.
 * Flow control is kept both ways: this side's windows are opened to the maximum at once and
 * topped up as answers are read; the server's connection window is honoured (requests wait for
 * its WINDOW_UPDATE), as a server that stopped reading would otherwise be flooded.
 */
import { connect, type Socket } from 'node:net'
import { assert } from '../src/stdx/assert.js'
import { framed, PREFIX_BYTES } from './grpc-wire.js'

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1')
const FRAME_HEADER_BYTES = 9
const FRAME_PAYLOAD_MAX = 16_384
const DATA = 0
const HEADERS = 1
const RST_STREAM = 3
const SETTINGS = 4
const PING = 6
const GOAWAY = 7
const WINDOW_UPDATE = 8
const CONTINUATION = 9
const FLAG_END_STREAM = 0x1
const FLAG_ACK = 0x1
const FLAG_END_HEADERS = 0x4
const FLAG_PADDED = 0x8
const SETTING_ENABLE_PUSH = 0x2
const SETTING_MAX_CONCURRENT_STREAMS = 0x3
const SETTING_INITIAL_WINDOW_SIZE = 0x4
const WINDOW_MAX = 2 ** 31 - 1
const WINDOW_DEFAULT = 65_535
/** This side's connection window is topped up once this much of it was used. */
const WINDOW_TOP_UP_BYTES = 2 ** 30

/** A unary call's answer: the message's bytes, or null when the call ended without one. */
export interface RawAnswer {
  readonly answer: Buffer | null
}

interface Call {
  readonly resolve: (answer: RawAnswer) => void
  readonly chunks: Buffer[]
}

/** One HTTP/2 connection carrying unary calls. */
export class RawUnaryChannel {
  private readonly calls = new Map<number, Call>()
  private nextStreamId = 1
  private pending: Buffer | null = null
  /** How much the server still accepts on the connection, and the requests waiting for more. */
  private sendWindow = WINDOW_DEFAULT
  private readonly waiting: { readonly frames: Buffer; readonly dataBytes: number }[] = []
  private received = 0
  /** From the server's SETTINGS: streams at once, and the window each new stream starts with. */
  private concurrentMax = Number.POSITIVE_INFINITY
  private streamWindow = WINDOW_DEFAULT
  /** A header block continued in CONTINUATION frames: its stream, and whether it ends the stream. */
  private continued: { readonly streamId: number; readonly endsStream: boolean } | null = null
  private closedWith: string | null = null
  /** `:method: POST` and `:scheme: http`, by their static-table indices (3 and 6). */
  private readonly firstHeaders = Buffer.from([0x83, 0x86])
  /** After the call's `:path`: `:authority`, `content-type` and `te`, the same in every call. */
  private readonly commonHeaders: Buffer
  private lastPath = ''
  private lastPathHeader: Buffer = Buffer.alloc(0)

  private constructor(private readonly socket: Socket, authority: string) {
    this.commonHeaders = Buffer.concat([
      literalIndexedName(1, authority),
      literalIndexedName(31, 'application/grpc'),
      literalNewName('te', 'trailers'),
    ])
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.read(chunk))
    socket.on('close', () => this.fail('the connection closed'))
    socket.on('error', (error) => this.fail(error.message))
  }

  /** Connects to a gRPC server on `host:port` (plain HTTP/2, loopback). */
  static open(host: string, port: number): Promise<RawUnaryChannel> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port })
      socket.once('error', reject)
      socket.once('connect', () => {
        socket.off('error', reject)
        const channel = new RawUnaryChannel(socket, `${host}:${port}`)
        socket.write(Buffer.concat([PREFACE,
          frame(SETTINGS, 0, 0, settingsPayload([[SETTING_ENABLE_PUSH, 0], [SETTING_INITIAL_WINDOW_SIZE, WINDOW_MAX]])),
          frame(WINDOW_UPDATE, 0, 0, uint32(WINDOW_MAX - WINDOW_DEFAULT))]))
        resolve(channel)
      })
    })
  }

  /** A unary call on `path` with `headers` (lower-case names) and the request's message bytes. */
  unary(path: string, headers: Readonly<Record<string, string>>, request: Uint8Array): Promise<RawAnswer> {
    if (this.closedWith !== null) return Promise.resolve({ answer: null })
    assert(request.length + PREFIX_BYTES <= Math.min(FRAME_PAYLOAD_MAX, this.streamWindow),
      'a request fits one DATA frame and its stream\'s window')
    assert(this.calls.size < this.concurrentMax, 'the server allows as many streams as calls in flight')
    const streamId = this.nextStreamId
    this.nextStreamId += 2
    assert(streamId < 2 ** 31, 'stream ids last the connection')
    // Pseudo-headers first (RFC 9113 8.3): a server resets a stream whose :path comes later.
    const block = [this.firstHeaders, this.pathHeader(path), this.commonHeaders]
    for (const name in headers) block.push(literalNewName(name, headers[name]!))
    const headerBlock = Buffer.concat(block)
    assert(headerBlock.length <= FRAME_PAYLOAD_MAX, 'a header block fits one HEADERS frame')
    const data = framed(request)
    return new Promise((resolve) => {
      this.calls.set(streamId, { resolve, chunks: [] })
      this.send(Buffer.concat([frame(HEADERS, FLAG_END_HEADERS, streamId, headerBlock),
        frame(DATA, FLAG_END_STREAM, streamId, data)]), data.length)
    })
  }

  close(): void {
    this.socket.end(frame(GOAWAY, 0, 0, Buffer.alloc(8)))
  }

  /** `:path`, encoded again only when it changes: a benchmark's loop calls one method. */
  private pathHeader(path: string): Buffer {
    if (path !== this.lastPath) {
      this.lastPath = path
      this.lastPathHeader = literalIndexedName(4, path)
    }
    return this.lastPathHeader
  }

  /** Writes a call's frames once the server's connection window takes its DATA (`dataBytes`). */
  private send(frames: Buffer, dataBytes: number): void {
    if (this.waiting.length === 0 && dataBytes <= this.sendWindow) {
      this.sendWindow -= dataBytes
      this.socket.write(frames)
      return
    }
    this.waiting.push({ frames, dataBytes })
  }

  private flushWaiting(): void {
    while (this.waiting.length > 0 && this.waiting[0]!.dataBytes <= this.sendWindow) {
      const { frames, dataBytes } = this.waiting.shift()!
      this.sendWindow -= dataBytes
      this.socket.write(frames)
    }
  }

  private read(chunk: Buffer): void {
    const bytes = this.pending === null ? chunk : Buffer.concat([this.pending, chunk])
    this.pending = null
    let at = 0
    while (bytes.length - at >= FRAME_HEADER_BYTES) {
      const length = bytes.readUIntBE(at, 3)
      const end = at + FRAME_HEADER_BYTES + length
      if (end > bytes.length) break
      this.frameRead(bytes[at + 3]!, bytes[at + 4]!, bytes.readUInt32BE(at + 5) & 0x7fffffff,
        bytes.subarray(at + FRAME_HEADER_BYTES, end))
      at = end
    }
    if (at < bytes.length) this.pending = Buffer.from(bytes.subarray(at))
  }

  private frameRead(type: number, flags: number, streamId: number, payload: Buffer): void {
    switch (type) {
      case DATA: return this.dataRead(flags, streamId, payload)
      case HEADERS: return this.headersRead(flags, streamId)
      case CONTINUATION: {
        const continued = this.continued
        if (continued !== null && (flags & FLAG_END_HEADERS) !== 0) {
          this.continued = null
          if (continued.endsStream) this.finish(continued.streamId)
        }
        return
      }
      case RST_STREAM: return this.finish(streamId)
      case SETTINGS: return this.settingsRead(flags, payload)
      case PING:
        if ((flags & FLAG_ACK) === 0) this.socket.write(frame(PING, FLAG_ACK, 0, payload))
        return
      case GOAWAY: return this.fail('the server sent GOAWAY')
      case WINDOW_UPDATE:
        if (streamId === 0) {
          this.sendWindow += payload.readUInt32BE(0) & 0x7fffffff
          this.flushWaiting()
        }
        return
      default: // PRIORITY, and anything new: nothing this client acts on
    }
  }

  private dataRead(flags: number, streamId: number, payload: Buffer): void {
    this.received += payload.length
    if (this.received >= WINDOW_TOP_UP_BYTES) {
      this.socket.write(frame(WINDOW_UPDATE, 0, 0, uint32(this.received)))
      this.received = 0
    }
    const padding = (flags & FLAG_PADDED) !== 0 ? payload[0]! + 1 : 0
    const data = padding === 0 ? payload : payload.subarray(1, payload.length - payload[0]!)
    // A view of the socket's chunk (each read is a buffer of its own), kept until the call ends.
    this.calls.get(streamId)?.chunks.push(data)
    if ((flags & FLAG_END_STREAM) !== 0) this.finish(streamId)
  }

  /** Response headers or trailers: their END_STREAM ends the call once the block is whole. */
  private headersRead(flags: number, streamId: number): void {
    const endsStream = (flags & FLAG_END_STREAM) !== 0
    if ((flags & FLAG_END_HEADERS) === 0) this.continued = { streamId, endsStream }
    else if (endsStream) this.finish(streamId)
  }

  private settingsRead(flags: number, payload: Buffer): void {
    if ((flags & FLAG_ACK) !== 0) return
    for (let at = 0; at + 6 <= payload.length; at += 6) {
      const id = payload.readUInt16BE(at)
      if (id === SETTING_MAX_CONCURRENT_STREAMS) this.concurrentMax = payload.readUInt32BE(at + 2)
      if (id === SETTING_INITIAL_WINDOW_SIZE) this.streamWindow = payload.readUInt32BE(at + 2)
    }
    this.socket.write(frame(SETTINGS, FLAG_ACK, 0, Buffer.alloc(0)))
  }

  /** Ends a call: its one message, or null when none came (or the message was cut short). */
  private finish(streamId: number): void {
    const call = this.calls.get(streamId)
    if (call === undefined) return
    this.calls.delete(streamId)
    const bytes = call.chunks.length === 1 ? call.chunks[0]! : Buffer.concat(call.chunks)
    const whole = bytes.length >= PREFIX_BYTES && bytes[0] === 0
      && bytes.length === PREFIX_BYTES + bytes.readUInt32BE(1)
    call.resolve({ answer: whole ? bytes.subarray(PREFIX_BYTES) : null })
  }

  private fail(reason: string): void {
    this.closedWith ??= reason
    for (const call of this.calls.values()) call.resolve({ answer: null })
    this.calls.clear()
    this.waiting.length = 0
  }
}

/** A frame: 24-bit length, type, flags, 31-bit stream id, payload. */
function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  assert(payload.length <= FRAME_PAYLOAD_MAX, 'a frame within the default size')
  const bytes = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length)
  bytes.writeUIntBE(payload.length, 0, 3)
  bytes[3] = type
  bytes[4] = flags
  bytes.writeUInt32BE(streamId, 5)
  payload.copy(bytes, FRAME_HEADER_BYTES)
  return bytes
}

function settingsPayload(settings: readonly (readonly [number, number])[]): Buffer {
  const payload = Buffer.allocUnsafe(settings.length * 6)
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, i * 6)
    payload.writeUInt32BE(value, i * 6 + 2)
  })
  return payload
}

function uint32(value: number): Buffer {
  const bytes = Buffer.allocUnsafe(4)
  bytes.writeUInt32BE(value, 0)
  return bytes
}

/** HPACK: an integer with an N-bit prefix (RFC 7541 section 5.1), after `flags` in the first byte. */
function hpackInteger(out: number[], value: number, prefixBits: number, flags: number): void {
  const max = (1 << prefixBits) - 1
  if (value < max) {
    out.push(flags | value)
    return
  }
  out.push(flags | max)
  let rest = value - max
  while (rest >= 128) {
    out.push((rest % 128) | 0x80)
    rest = Math.floor(rest / 128)
  }
  out.push(rest)
}

/** HPACK: a string literal, not Huffman-coded (section 5.2); header values here are ASCII. */
function hpackString(out: number[], text: string): void {
  hpackInteger(out, text.length, 7, 0)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    assert(code < 0x80, 'header names and values are ASCII')
    out.push(code)
  }
}

/** HPACK: a literal field without indexing, its name from the static table (section 6.2.2). */
function literalIndexedName(index: number, value: string): Buffer {
  const out: number[] = []
  hpackInteger(out, index, 4, 0)
  hpackString(out, value)
  return Buffer.from(out)
}

/** HPACK: a literal field without indexing, with a new name. */
function literalNewName(name: string, value: string): Buffer {
  const out: number[] = [0]
  hpackString(out, name)
  hpackString(out, value)
  return Buffer.from(out)
}
