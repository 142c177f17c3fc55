/**
 * An HTTP/1.1 load generator for the REST benchmark: keep-alive raw sockets, one request in
 * flight per connection (no pipelining: each answer is awaited, as a client would), requests
 * pre-rendered as bytes so the generator spends its time on the wire, not on building them.
 *
 * Closed loop: every connection sends its next request when the last one is answered (the
 * maximum throughput). Open loop: requests are due at a fixed rate on a fixed schedule, and each
 * one's latency is measured from when it was due, not when a connection was free to send it, so
 * a stalled server cannot hide its stall (no coordinated omission).
 */
import { connect, type Socket } from 'node:net'
import { percentile } from './stats.js'

export interface LoadResult {
  readonly requests: number
  readonly seconds: number
  readonly perSecond: number
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly p999: number; readonly max: number }
  /** Answers by HTTP status (or, for gRPC, by outcome). */
  readonly statuses: Readonly<Record<string, number>>
  /** Every answer's latency, sorted (ms): for the histograms the suite draws. */
  readonly latenciesMs: Float64Array
}

/**
 * Reads an answer beyond its status: the key it is counted under in `statuses` (a batch answered
 * 200 can still refuse some of its orders, and a figure must not count those as accepted).
 */
export type AnswerKey = (status: number, body: Buffer) => string

/** Renders request number `i` (each call may return a different request: signed orders are unique). */
export type RequestSource = (i: number) => Buffer

const HEADER_END = Buffer.from('\r\n\r\n')

/** A request source that sends the same GET every time. */
export function getRequest(path: string): RequestSource {
  const bytes = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: bench\r\n\r\n`)
  return () => bytes
}

/** A request with a JSON body, rendered as bytes. */
export function httpRequest(method: string, path: string, body: string, headers: Record<string, string>): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: bench', 'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)]
  return Buffer.from(lines.join('\r\n') + '\r\n\r\n' + body)
}

/** One keep-alive connection that answers one request at a time with its status. */
class Connection {
  private buffer: Buffer = Buffer.alloc(0)
  private waiting: ((status: number) => void) | null = null
  /** Whether the last answer carried Retry-After. */
  retryAfter = false
  /** The last answer's body (a view: valid until the next answer). */
  body: Buffer = Buffer.alloc(0)

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.onData(chunk))
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new Connection(socket)))
      socket.once('error', reject)
    })
  }

  send(request: Buffer): Promise<number> {
    return new Promise((resolve) => {
      this.waiting = resolve
      this.socket.write(request)
    })
  }

  close(): void {
    this.socket.destroy()
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk])
    const headerEnd = this.buffer.indexOf(HEADER_END)
    if (headerEnd < 0) return
    const head = this.buffer.subarray(0, headerEnd).toString('latin1')
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? '0')
    const total = headerEnd + HEADER_END.length + length
    if (this.buffer.length < total) return
    this.body = this.buffer.subarray(headerEnd + HEADER_END.length, total)
    this.buffer = this.buffer.subarray(total)
    this.retryAfter = /\r\nretry-after:/i.test(head)
    const waiting = this.waiting
    this.waiting = null
    waiting?.(Number(head.slice(9, 12)))
  }
}

/**
 * The key an answer is counted under: its status, or for a refusal that sheds load (429, 503)
 * without a Retry-After, a key that says so (a client cannot know when to come back).
 */
function statusKey(status: number, connection: Connection, answerKey?: AnswerKey): string {
  if (answerKey !== undefined) return answerKey(status, connection.body)
  return (status === 429 || status === 503) && !connection.retryAfter ? `${status} without Retry-After` : String(status)
}

/** The figure of `latencies.length` answers in `seconds`. */
export function resultOf(latencies: number[], statuses: Record<string, number>, seconds: number): LoadResult {
  const sorted = Float64Array.from(latencies).sort()
  return {
    requests: latencies.length, seconds, perSecond: latencies.length / seconds,
    latencyMs: { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), p999: percentile(sorted, 0.999),
      max: sorted[sorted.length - 1] ?? NaN },
    statuses, latenciesMs: sorted,
  }
}

/** Loads run in slices as one: their answers and their seconds added up. */
export function mergedLoad(results: readonly LoadResult[]): LoadResult {
  const statuses: Record<string, number> = {}
  for (const result of results) {
    for (const [key, count] of Object.entries(result.statuses)) statuses[key] = (statuses[key] ?? 0) + count
  }
  return resultOf(results.flatMap((result) => [...result.latenciesMs]), statuses,
    results.reduce((seconds, result) => seconds + result.seconds, 0))
}

/**
 * As many requests as `connections` can get answered in `seconds`, each connection waiting for its
 * answer; `answerKey`, when given, decides what each answer is counted as.
 */
export async function closedLoop(port: number, connections: number, seconds: number, source: RequestSource,
  requestsMax = Number.POSITIVE_INFINITY, answerKey?: AnswerKey): Promise<LoadResult> {
  const pool = await Promise.all(Array.from({ length: connections }, () => Connection.open(port)))
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  let next = 0
  const start = performance.now()
  const end = start + seconds * 1000
  await Promise.all(pool.map(async (connection) => {
    while (performance.now() < end && next < requestsMax) {
      const request = source(next++)
      const sent = performance.now()
      const status = statusKey(await connection.send(request), connection, answerKey)
      latencies.push(performance.now() - sent)
      statuses[status] = (statuses[status] ?? 0) + 1
    }
  }))
  const elapsed = (performance.now() - start) / 1000
  for (const connection of pool) connection.close()
  return resultOf(latencies, statuses, elapsed)
}

/**
 * Requests due at `ratePerSecond` for `seconds`, sent on the first free of `connections`;
 * latency from each request's due time to its answer.
 */
export async function openLoop(port: number, connections: number, ratePerSecond: number, seconds: number,
  source: RequestSource): Promise<LoadResult> {
  const pool = await Promise.all(Array.from({ length: connections }, () => Connection.open(port)))
  const free = [...pool]
  const due: number[] = []
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  const total = Math.round(ratePerSecond * seconds)
  const start = performance.now()
  let scheduled = 0
  let sent = 0
  let answered = 0
  return new Promise((resolve) => {
    const pump = (): void => {
      while (free.length > 0 && due.length > 0) {
        const connection = free.pop()!
        const dueAt = due.shift()!
        const request = source(sent++)
        void connection.send(request).then((answer) => {
          const status = statusKey(answer, connection)
          latencies.push(performance.now() - dueAt)
          statuses[status] = (statuses[status] ?? 0) + 1
          answered++
          free.push(connection)
          if (answered === total) {
            clearInterval(timer)
            for (const c of pool) c.close()
            resolve(resultOf(latencies, statuses, (performance.now() - start) / 1000))
          } else pump()
        })
      }
    }
    // Every millisecond, everything due by now joins the queue at its own due time.
    const timer = setInterval(() => {
      const now = performance.now()
      while (scheduled < total && start + (scheduled * 1000) / ratePerSecond <= now) {
        due.push(start + (scheduled++ * 1000) / ratePerSecond)
      }
      pump()
    }, 1)
  })
}
