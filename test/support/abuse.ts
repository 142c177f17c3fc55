/**
 * The attacks of the live abuse tests (issue 27), shared by test/grpc/abuse.test.ts,
 * test/contract/auth-abuse.test.ts and test/soak/mixed-abuse.test.ts, and what they measure of
 * the server: raw HTTP/2 streams that never read, floods of requests and of connections, forged
 * authentications with distinct oversized keys, a trader that keeps a book changing, and the
 * server's own memory (RssAnon, from /proc).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { request, type Agent } from 'node:http'
import { connect as connectTcp, type Socket } from 'node:net'
import { connect as connectHttp2, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders }
  from 'node:http2'
import { Client, Metadata, status as GrpcStatus } from '@grpc/grpc-js'
import { signOrders, type BenchServer, type Trader } from '../../bench/predex-server.js'
import { rssOf } from '../../bench/process-memory.js'
import { l2Headers } from '../../src/crypto/request-headers.js'
import { orderBody } from '../../src/client/orders.js'

export const nowSec = (): number => Math.floor(Date.now() / 1000)
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

// ---- gRPC as raw HTTP/2 ------------------------------------------------------------------------

/** Server reflection's one method: a stream of requests, a stream of answers. */
export const REFLECTION = '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo'

function varint(value: number): Buffer {
  const bytes: number[] = []
  for (; value > 0x7f; value >>>= 7) bytes.push((value & 0x7f) | 0x80)
  bytes.push(value)
  return Buffer.from(bytes)
}

/** A protobuf field of wire type 2 (a string or bytes). */
export function stringField(number: number, value: string): Buffer {
  const bytes = Buffer.from(value)
  return Buffer.concat([varint((number << 3) | 2), varint(bytes.length), bytes])
}

/** A gRPC message: uncompressed, its length, its bytes. */
export function framed(message: Uint8Array): Buffer {
  const header = Buffer.alloc(5)
  header.writeUInt32BE(message.length, 1)
  return Buffer.concat([header, message])
}

/**
 * A reflection request, framed: the file containing predex.v1.TradingService (an answer of tens of
 * KB), or with `hostBytes`, list_services with a `host` field of that many bytes.
 */
export function reflectionRequest(hostBytes = 0): Buffer {
  return framed(hostBytes > 0 ? Buffer.concat([stringField(1, 'h'.repeat(hostBytes)), stringField(7, '*')])
    : stringField(4, 'predex.v1.TradingService'))
}

/** An abusive stream: raw HTTP/2, never read until `collect`, then its status. */
export class Abuser {
  private headers: IncomingHttpHeaders = {}
  private closed = false
  readonly stream: ClientHttp2Stream

  constructor(session: ClientHttp2Session, path: string, metadata: Metadata | null = null) {
    const extra: Record<string, string> = {}
    for (const [name, value] of Object.entries(metadata?.getMap() ?? {})) extra[name] = String(value)
    this.stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc',
      te: 'trailers', ...extra })
    this.stream.on('error', () => undefined)
    this.stream.on('response', (headers) => (this.headers = { ...this.headers, ...headers }))
    this.stream.on('trailers', (headers) => (this.headers = { ...this.headers, ...headers }))
    this.stream.on('close', () => (this.closed = true))
  }

  /** Writes `message` while the stream takes it (HTTP/2 flow control toward the server). */
  send(message: Buffer): boolean {
    return !this.closed && !this.stream.destroyed && this.stream.write(message)
  }

  /** Whether the server ended the stream (or it was destroyed). */
  get ended(): boolean {
    return this.closed || this.stream.destroyed || this.headers['grpc-status'] !== undefined
  }

  /** Reads what is left and resolves with the grpc-status (null: none within `ms`). */
  async collect(ms: number): Promise<number | null> {
    this.stream.on('data', () => undefined)
    const deadline = Date.now() + ms
    while (this.headers['grpc-status'] === undefined && !this.closed && Date.now() < deadline) {
      await sleep(20)
    }
    const code = this.headers['grpc-status']
    return code === undefined ? null : Number(code)
  }
}

/** An HTTP/2 connection to `port` on 127.0.0.1 from `localAddress` (any of 127/8 on Linux). */
export function session(port: number, localAddress = '127.0.0.1'): ClientHttp2Session {
  const client = connectHttp2(`http://127.0.0.1:${port}`,
    { createConnection: () => connectTcp({ host: '127.0.0.1', port, localAddress }) })
  client.on('error', () => undefined)
  return client
}

/**
 * Keeps writing `message` to `abuser` until `stop` says so; writes wait for the stream to drain.
 * `drained`: a message is made and written only when the stream's buffer has drained, so that
 * this process does not pile up messages the server's flow control holds back (what reaches the
 * server is the same; a flood of minutes with 200 KB messages would otherwise fill this process).
 */
export async function floodStream(abuser: Abuser, message: () => Buffer, stop: () => boolean,
  { drained = false } = {}): Promise<void> {
  while (!stop()) {
    if ((drained && abuser.stream.writableNeedDrain) || !abuser.send(message())) {
      await sleep(5)
      if (abuser.stream.destroyed || (drained && abuser.ended)) return
    }
  }
}

// ---- Connections ---------------------------------------------------------------------------------

export interface ConnectionFlood {
  /** Connections opened in all. */
  readonly attempts: number
  /** From this many loopback addresses, 127.0.0.<firstAddress> and on. */
  readonly addresses: number
  readonly firstAddress: number
  /** Opened at once (under the listen backlog, 511). */
  readonly batch: number
}

/**
 * Opens idle TCP connections from `addresses` addresses, in batches (the kernel's accept queue
 * would drop the SYNs of thousands at once, and their retries take seconds); resolves with how
 * many the server kept (its SETTINGS came) and how many got no answer in time.
 */
export async function connectionFlood(port: number, flood: ConnectionFlood):
  Promise<{ kept: number; silent: number; sockets: Socket[] }> {
  const sockets: Socket[] = []
  let kept = 0
  let silent = 0
  for (let first = 0; first < flood.attempts; first += flood.batch) {
    const outcomes: Promise<'kept' | 'closed' | 'silent'>[] = []
    for (let i = first; i < Math.min(first + flood.batch, flood.attempts); i++) {
      const socket = connectTcp({ host: '127.0.0.1', port,
        localAddress: `127.0.0.${flood.firstAddress + (i % flood.addresses)}` })
      socket.on('error', () => undefined)
      sockets.push(socket)
      outcomes.push(new Promise((resolve) => {
        const timer = setTimeout(() => resolve('silent'), 5_000)
        socket.once('data', () => resolve('kept'))
        socket.once('close', () => {
          clearTimeout(timer)
          resolve('closed')
        })
      }))
    }
    for (const outcome of await Promise.all(outcomes)) {
      if (outcome === 'kept') kept++
      if (outcome === 'silent') silent++
    }
  }
  return { kept, silent, sockets }
}

export interface ChurnTally {
  /** HTTP/2 sessions that came up (the server's SETTINGS arrived) and were dropped at once. */
  connected: number
  /** Closed by the server before the session came up (a connection bound or the connect budget). */
  refused: number
  /** No answer within the wait. */
  silent: number
}

/**
 * Connection churn: `concurrency` loops, each opening an HTTP/2 session to `port` from one of
 * `addresses` in turn, dropping it as soon as it is up (or refused, or silent for 2 s), and opening
 * the next, until `stop` says so.
 */
export async function connectionChurn(port: number, addresses: readonly string[], concurrency: number,
  stop: () => boolean, tally: ChurnTally): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (!stop()) {
      const client = session(port, addresses[next++ % addresses.length])
      const outcome = await new Promise<keyof ChurnTally>((resolve) => {
        const timer = setTimeout(() => resolve('silent'), 2_000)
        client.once('connect', () => {
          clearTimeout(timer)
          resolve('connected')
        })
        client.once('close', () => {
          clearTimeout(timer)
          resolve('refused')
        })
      })
      tally[outcome]++
      client.destroy()
    }
  }))
}

/** Open file descriptors of process `pid`. */
export const descriptorsOpen = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length

// ---- Probes and a changing book -------------------------------------------------------------------

export async function restHealthy(server: BenchServer): Promise<boolean> {
  try {
    return (await fetch(`${server.base}/health`, { signal: AbortSignal.timeout(2_000) })).status === 200
  } catch {
    return false
  }
}

/** A gRPC health check on `client`'s connection. */
export function grpcHealthy(client: Client): Promise<boolean> {
  return new Promise((resolve) => client.makeUnaryRequest('/grpc.health.v1.Health/Check', (x: Buffer) => x,
    (x: Buffer) => x, Buffer.alloc(0), new Metadata(), { deadline: Date.now() + 2_000 },
    (error) => resolve(error === null)))
}

/**
 * A trader placing and cancelling pre-signed orders over REST, so that book and user streams have
 * updates; `pauseMs` between a cancel and the next placement (0: as fast as the server answers).
 */
export async function churn(server: BenchServer, trader: Trader, tokenId: string, stop: () => boolean,
  pauseMs = 0): Promise<void> {
  const orders = signOrders([trader], tokenId, 400)
  for (let i = 0; !stop(); i = (i + 1) % orders.length) {
    const body = orderBody(orders[i]!.signed, trader.credentials.apiKey, 'GTC')
    const placed = await fetch(`${server.base}/order`, { method: 'POST', body,
      headers: l2Headers(trader.credentials, trader.address, 'POST', '/order', body, nowSec()) })
    const answer = await placed.json().catch(() => ({})) as { orderID?: string }
    if (answer.orderID !== undefined) {
      const cancel = JSON.stringify({ orderID: answer.orderID })
      await (await fetch(`${server.base}/order`, { method: 'DELETE', body: cancel,
        headers: l2Headers(trader.credentials, trader.address, 'DELETE', '/order', cancel, nowSec()) })).arrayBuffer()
    }
    if (pauseMs > 0) await sleep(pauseMs)
  }
}

// ---- Forged authentications ----------------------------------------------------------------------

export interface RestOptions {
  /** The client address to connect from (any of 127/8). */
  readonly localAddress?: string
  /** Give up after this long ('TIMEOUT'). */
  readonly timeoutMs?: number
}

/** One REST request to 127.0.0.1:`port`: its status (or the error's code when the connection failed). */
export function rest(port: number, agent: Agent, method: string, path: string, headers: Record<string, string>,
  options: RestOptions = {}): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent, localAddress: options.localAddress },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', () => resolve('ERESPONSE'))
      })
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    if (options.timeoutMs !== undefined) {
      req.setTimeout(options.timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })))
    }
    req.end()
  })
}

/** A distinct claimed API key of `bytes` bytes. */
export const keyOf = (i: number, bytes: number): string => `${i}-`.padEnd(bytes, 'k')

/** L2 headers claiming `apiKey`, with a signature that cannot match anything. */
export function forgedHeaders(apiKey: string): Record<string, string> {
  return { 'exchange-address': '0x' + '1'.repeat(40), 'exchange-signature': 'c2lnbmF0dXJl',
    'exchange-timestamp': String(nowSec()), 'exchange-api-key': apiKey, 'exchange-passphrase': 'passphrase' }
}

/**
 * Runs `send(i)` for i = 0, 1, ... while `more(i)`, `concurrency` at a time; the answers counted by
 * status.
 */
export async function floodRequests(concurrency: number, more: (i: number) => boolean,
  send: (i: number) => Promise<number | string>): Promise<Map<number | string, number>> {
  const statuses = new Map<number | string, number>()
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (more(next)) {
      const status = await send(next++)
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
  }))
  return statuses
}

/** A failed gRPC L2 call (AccountService.GetBalanceAllowance) claiming key `i` of `keyBytes`: its status code. */
export function forgedCall(client: Client, i: number, keyBytes: number): Promise<number | string> {
  const metadata = new Metadata()
  for (const [name, value] of Object.entries(forgedHeaders(keyOf(i, keyBytes)))) metadata.set(name, value)
  return new Promise((resolve) => {
    client.makeUnaryRequest('/predex.v1.AccountService/GetBalanceAllowance', (bytes: Buffer) => bytes,
      (bytes: Buffer) => bytes, Buffer.alloc(0), metadata, (error) => resolve(error?.code ?? GrpcStatus.OK))
  })
}

// ---- The server's memory -------------------------------------------------------------------------

/** Own memory (RssAnon) of process `pid` in MB (NaN when it is gone). */
export const anonMb = (pid: number): number => (rssOf(pid)?.rssAnonBytes ?? NaN) / 2 ** 20

/**
 * Own memory of process `pid` in glibc's main heap (`[heap]` in /proc/PID/smaps), in MB: what
 * native code allocated (nghttp2's sessions, header buffers) and glibc kept at its high-water
 * mark. NaN when the process is gone.
 */
export function glibcHeapMb(pid: number): number {
  let smaps: string
  try {
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8')
  } catch {
    return NaN
  }
  const start = smaps.search(/^\S+ \S+ \S+ \S+ \S+\s+\[heap\]$/m)
  if (start < 0) return 0
  const next = smaps.slice(start).split('\n').find((line) => line.startsWith('Anonymous:'))
  return Number(/(\d+) kB/.exec(next ?? '')?.[1] ?? NaN) / 1024
}

/** The largest resident set and own memory of process `pid`, sampled every `everyMs` until stopped. */
export class MemorySampler {
  peakRssMb: number
  peakAnonMb: number
  private readonly timer: NodeJS.Timeout

  constructor(private readonly pid: number, everyMs = 200) {
    this.peakRssMb = 0
    this.peakAnonMb = 0
    this.sample()
    this.timer = setInterval(() => this.sample(), everyMs)
  }

  sample(): void {
    const memory = rssOf(this.pid)
    if (memory === null) return
    this.peakRssMb = Math.max(this.peakRssMb, memory.rssBytes / 2 ** 20)
    this.peakAnonMb = Math.max(this.peakAnonMb, memory.rssAnonBytes / 2 ** 20)
  }

  stop(): void {
    clearInterval(this.timer)
  }
}

/**
 * Waits, sampling every 500 ms, until own memory is within `boundMb` of `beforeMb` or `waitMs`
 * have passed: the last sample, and how long it took.
 */
export async function memoryBack(pid: number, beforeMb: number, boundMb: number, waitMs: number):
  Promise<{ afterMb: number; waitedMs: number }> {
  const started = Date.now()
  let afterMb = anonMb(pid)
  while (!(afterMb <= beforeMb + boundMb) && Date.now() - started < waitMs) {
    await sleep(500)
    afterMb = anonMb(pid)
  }
  return { afterMb, waitedMs: Date.now() - started }
}
