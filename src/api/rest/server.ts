/**
 * The REST face on uWebSockets.js: thin. It copies a request out of uWS (headers, query,
 * parameters and the body, capped while it streams in), passes it through the gate
 * (src/auth/gate.ts: authentication and rate limits), calls the route's
 * handler, and writes the reply corked, never after an abort. Every error is a JSON body from the
 * catalogue; an unexpected exception is a 500 with no internals, logged. Native routes live at
 * `/`, Polymarket's surface at `/compat` (the HMAC covers the path without the prefix).
 */
import { connect } from 'node:net'
import uWS from 'uWebSockets.js'
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js'
import { restL2Message } from '../../auth/l2.js'
import { claimedAddress, isAuthHeaderName } from '../../auth/headers.js'
import type { Credentials, Gate } from '../../auth/gate.js'
import type { BudgetState } from '../../auth/rate-limit.js'
import { ApiCode, PredexError, CATALOGUE } from '../../errors.js'
import {
  REST_HEADERS_BYTES_MAX, REST_QUERY_LENGTH_MAX, REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX, REST_WRITE_STALL_MS,
  SHUTDOWN_DRAIN_MS_MAX,
} from '../../limits.js'
import type { AuthLevel, Identity, Method, Reply, RestRequest, Route } from './route.js'
import { TurnCounts } from './turn-counts.js'
import type { Metrics } from '../../metrics.js'
import type { Log } from '../../log.js'
import { LogBudget } from '../../log-budget.js'
import { requestIdOf } from './request-id.js'
import { assert } from '../../stdx/assert.js'
import { holdExternalMemoryWatch } from '../../external-memory-watch.js'
import { holdHeapSlackWatch } from '../../heap-slack-watch.js'

/** uWS's LIBUS_LISTEN_EXCLUSIVE_PORT: exported at run time, typed only as a member of an enum it does not export. */
const LISTEN_EXCLUSIVE_PORT = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT
assert(LISTEN_EXCLUSIVE_PORT === 1, 'this uWebSockets.js build listens without SO_REUSEPORT on request')

export interface ServerOptions<C> {
  readonly routes: readonly Route<C>[]
  readonly context: C
  /** Authentication and rate limits (src/auth/gate.ts). */
  readonly gate: Gate
  readonly metrics: Metrics
  readonly log: Log
  /**
   * Throws while order placements of this (claimed) address are shed (trading.checkPlacementLoad);
   * asked before their bodies are read.
   */
  readonly admitPlacement?: (claimedAddress: string) => void
}

/** One request's fate, shared by the callbacks that answer it. */
interface RequestState {
  /** The client went away: nothing may be written to its response any more. */
  aborted: boolean
  /** Sent back as X-Request-Id and on the request's log lines (src/api/rest/request-id.ts). */
  readonly requestId: string
  /** The API key that passed the gate (L2), for the log line: who a refusal or a fault concerns. */
  apiKey?: string
  /** The budget left after this request, for the X-RateLimit headers (the route's, else the general one). */
  budget?: BudgetState | null
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK', 201: 'Created', 302: 'Found', 304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized',
  403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large', 414: 'URI Too Long',
  415: 'Unsupported Media Type', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 503: 'Service Unavailable',
}

export class RestServer<C> {
  private readonly app: TemplatedApp
  private listenSocket: us_listen_socket | null = null
  private port = 0
  private inFlight = 0
  private closing = false
  /** Replies waiting for their client to read them (REST_WRITE_STALL_MS). */
  private stalledReplies = 0
  /** Requests per client address in this event-loop turn (REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX). */
  private readonly turnCounts = new TurnCounts(REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX)
  /** Refusal and fault lines per second (REFUSAL_LOG_LINES_PER_WINDOW): a flood is counted, not written. */
  private readonly refusalLines: LogBudget
  /**
   * The front end's external memory watch (src/external-memory-watch.ts), held while this server
   * listens: its lifetime is the front end's, and every face's large headers are what it collects.
   */
  private releaseMemoryWatch: (() => void) | null = null
  private releaseHeapWatch: (() => void) | null = null
  /** Each route's `:name` parameters, counted once. */
  private readonly parameterCounts = new Map<Route<C>, number>()

  constructor(private readonly options: ServerOptions<C>) {
    this.refusalLines = new LogBudget(options.log, { what: 'REST refusals and faults' })
    options.metrics.gauge('predex_rest_stalled_replies', 'REST replies waiting for a client that does not read',
      () => this.stalledReplies)
    options.metrics.gauge('predex_http_requests_in_flight', 'REST requests being handled (read, run, not yet answered)',
      () => this.inFlight)
    this.app = uWS.App()
    for (const route of options.routes) {
      const surface = route.surface ?? 'both'
      if (surface !== 'compat') this.register(route, false)
      if (surface !== 'native') this.register(route, true)
    }
    this.app.any('/*', (res, req) => this.notFound(res, req))
  }

  /** The uWS app, for the WebSocket channels that share this port. */
  get uws(): TemplatedApp {
    return this.app
  }

  /**
   * Listens on host:port (0: any free port), the port this server's alone (no SO_REUSEPORT: a
   * second server there is refused, not handed half the connections); resolves with the port.
   */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      // uWS.js 20.30 takes (host, port, options, callback), though its typings list no such form.
      const listen = this.app.listen as unknown as (host: string, port: number, options: number,
        callback: (socket: us_listen_socket | false) => void) => TemplatedApp
      listen.call(this.app, host, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
        if (socket === false) {
          return reject(new Error(`cannot listen on port ${port} on ${host} (REST and WebSocket): it is in use or `
            + 'not permitted; choose another with --port / PORT'))
        }
        this.listenSocket = socket
        this.port = uWS.us_socket_local_port(socket)
        this.releaseMemoryWatch ??= holdExternalMemoryWatch()
        this.releaseHeapWatch ??= holdHeapSlackWatch()
        resolve(this.port)
      })
    })
  }

  /**
   * Sends one request with an underscore header name (as every clob-client request has) to this
   * server over loopback: true when it is answered. uWS builds without the patch of
   * scripts/patch-uws.mjs drop such requests without a word.
   */
  probeUnderscoreHeaders(host: string, timeoutMs = 2_000): Promise<boolean> {
    const target = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
    return new Promise((resolve) => {
      const socket = connect({ host: target, port: this.port })
      let answer = ''
      const done = (ok: boolean): void => {
        clearTimeout(timer)
        socket.destroy()
        resolve(ok)
      }
      const timer = setTimeout(() => done(false), timeoutMs)
      const probe = 'GET /time HTTP/1.1\r\nHost: probe\r\nPOLY_PROBE: 1\r\nConnection: close\r\n\r\n'
      socket.on('connect', () => socket.write(probe))
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1')
        if (answer.includes('\r\n')) done(answer.startsWith('HTTP/1.1 200'))
      })
      socket.on('error', () => done(false))
      socket.on('close', () => done(answer.startsWith('HTTP/1.1 200')))
    })
  }

  /** Stops accepting connections, then waits (bounded) for requests in flight. */
  async close(waitMs = SHUTDOWN_DRAIN_MS_MAX): Promise<void> {
    this.closing = true
    if (this.listenSocket !== null) uWS.us_listen_socket_close(this.listenSocket)
    this.listenSocket = null
    const deadline = Date.now() + waitMs
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    this.refusalLines.flush()
    this.releaseMemoryWatch?.()
    this.releaseMemoryWatch = null
    this.releaseHeapWatch?.()
    this.releaseHeapWatch = null
  }

  private register(route: Route<C>, compat: boolean): void {
    const pattern = (compat ? '/compat' : '') + route.path
    this.parameterCounts.set(route, (route.path.match(/:/g) ?? []).length)
    const handler = (res: HttpResponse, req: HttpRequest): void => this.onRequest(res, req, route, compat)
    switch (route.method) {
      case 'GET': this.app.get(pattern, handler); break
      case 'POST': this.app.post(pattern, handler); break
      case 'DELETE': this.app.del(pattern, handler); break
      case 'PATCH': this.app.patch(pattern, handler); break
    }
  }

  private onRequest(res: HttpResponse, req: HttpRequest, route: Route<C>, compat: boolean): void {
    // Every header is read out of uWS once, here; the request id among them.
    const headers = headersOf(req)
    const state: RequestState = { aborted: false, requestId: requestIdOf(headers.values.get('x-request-id') ?? '') }
    res.onAborted(() => {
      state.aborted = true
    })
    const started = performance.now()
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString()
    const refusal = this.overTurn(remoteAddress) ?? framingFault(headers)
    if (refusal !== null) {
      this.refuseAndClose(res, state, refusal, route, started)
      return
    }
    let request: RestRequest
    try {
      request = this.copyRequest(req, headers, route, compat, remoteAddress)
      // Before the body is read: a client over its budget, or a placement while the front end
      // sheds load, costs as little as possible.
      this.options.gate.admit(request.remoteAddress)
      if (route.placement === true) this.options.admitPlacement?.(claimedAddress(request.headers))
    } catch (error) {
      this.respond(res, state, errorReply(error, this.options.log, state.requestId), route, started)
      return
    }
    const declared = Number(headers.values.get('content-length') || '0')
    if (declared > route.bodyMax) {
      this.respond(res, state, tooLarge(route.bodyMax), route, started, true)
      return
    }
    if (route.bodyMax === 0 || declared === 0 && (headers.values.get('transfer-encoding') ?? '') === '') {
      this.dispatch(res, state, request, route, started)
      return
    }
    this.readBody(res, state, route, (body) => this.dispatch(res, state, { ...request, body }, route, started),
      () => this.respond(res, state, tooLarge(route.bodyMax), route, started, true))
  }

  /**
   * A client address past REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX requests in this event-loop turn
   * (pipelined requests of one read, answered back to back while every other client waits): the
   * refusal, or null.
   */
  private overTurn(remoteAddress: string): PredexError | null {
    if (this.turnCounts.take(remoteAddress)) return null
    return new PredexError(ApiCode.RATE_LIMITED, `more than ${REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX} requests `
      + 'from this address at once (pipelined): the connection is closed', {
      retryAfterSeconds: 1, limit: REST_REQUESTS_PER_TURN_PER_ADDRESS_MAX,
    })
  }

  /**
   * Refuses a request and closes its connection, with nothing after it on that connection run.
   * Answered on the next turn: uWS goes on parsing what is already buffered after a response
   * ended in this callback (a smuggled request would run, a burst would go on), but closes a
   * connection that sends another request while one is still unanswered. So either the refusal
   * goes out with `Connection: close`, or the next request buffered behind it makes uWS close the
   * connection at once (without the refusal); whatever followed is never run.
   */
  private refuseAndClose(res: HttpResponse, state: RequestState, error: PredexError, route: Route<C> | null,
    started: number): void {
    const reply = errorReply(error, this.options.log, state.requestId)
    setImmediate(() => this.respond(res, state, reply, route, started, true))
  }

  private copyRequest(req: HttpRequest, headers: RequestHeaders, route: Route<C>, compat: boolean,
    remoteAddress: string): RestRequest {
    const query = req.getQuery() ?? ''
    if (query.length > REST_QUERY_LENGTH_MAX) {
      throw new PredexError(ApiCode.QUERY_TOO_LONG, `the query is longer than ${REST_QUERY_LENGTH_MAX} characters`)
    }
    if (headers.bytes > REST_HEADERS_BYTES_MAX) {
      throw new PredexError(ApiCode.HEADERS_TOO_LARGE, `the headers are larger than ${REST_HEADERS_BYTES_MAX} bytes`)
    }
    const { repeated, values } = headers
    if (repeated !== null) {
      throw new PredexError(ApiCode.BAD_REQUEST, `the ${repeated} header may be given once: the request is ambiguous`,
        { field: repeated })
    }
    const params: string[] = []
    const count = this.parameterCounts.get(route) ?? 0
    for (let i = 0; i < count; i++) params.push(decodedParameter(req.getParameter(i) ?? ''))
    const url = req.getUrl()
    return {
      method: route.method,
      path: compat ? url.slice('/compat'.length) : url,
      params,
      query: new URLSearchParams(query),
      headers: (name) => values.get(name),
      body: new Uint8Array(0),
      compat,
      remoteAddress,
    }
  }

  /** Streams the body in, copying each chunk (uWS reuses them), and stops at the route's cap. */
  private readBody(res: HttpResponse, state: RequestState, route: Route<C>, done: (body: Uint8Array) => void,
    tooBig: () => void): void {
    const chunks: Buffer[] = []
    let length = 0
    let over = false
    res.onData((chunk, isLast) => {
      if (over) return
      length += chunk.byteLength
      if (length > route.bodyMax) {
        over = true
        tooBig()
        return
      }
      chunks.push(Buffer.from(new Uint8Array(chunk).slice()))
      if (isLast && !state.aborted) done(Buffer.concat(chunks))
    })
  }

  /**
   * Runs the route and answers. A handler that answers at once (market data from the read model)
   * is answered within uWS's callback, already corked, with no promise; one that waits (the pool,
   * the engine) is answered when it settles, counted in flight meanwhile.
   */
  private dispatch(res: HttpResponse, state: RequestState, request: RestRequest, route: Route<C>,
    started: number): void {
    const reply = this.run(request, route, state)
    if (!(reply instanceof Promise)) {
      this.respond(res, state, reply, route, started)
      return
    }
    this.inFlight++
    void reply.then((settled) => {
      this.inFlight--
      this.respond(res, state, settled, route, started)
    })
  }

  /** The route's reply, or the error reply of whatever it threw; a promise only when the handler returned one. */
  private run(request: RestRequest, route: Route<C>, state: RequestState): Reply | Promise<Reply> {
    try {
      if (this.closing) throw new PredexError(ApiCode.NOT_READY, 'the server is shutting down')
      const identity = this.authenticated(request, route, state)
      if (identity?.apiKey) state.apiKey = identity.apiKey
      const reply = route.handler(request, identity, this.options.context)
      if (!(reply instanceof Promise)) return reply
      return reply.catch((error: unknown) => errorReply(error, this.options.log, state.requestId))
    } catch (error) {
      return errorReply(error, this.options.log, state.requestId)
    }
  }

  /** The gate's answer for `request` (its credentials extracted as `route` declares them). */
  private authenticated(request: RestRequest, route: Route<C>, state: RequestState): Identity | null {
    const rate = route.rate === undefined ? null : { bucket: `${route.method} ${route.path}`, rule: route.rate }
    const identity = this.options.gate.pass({
      credentials: credentialsOf(request, route.auth), remoteAddress: request.remoteAddress, rate })
    // The budget this request drew on: its route's, its key's (L2) or its address's (no credentials,
    // L1); a route without one reports the address's general budget, which every request draws on.
    const subject = identity?.apiKey ?? (route.auth === 'none' || route.auth === 'l1' ? request.remoteAddress : null)
    state.budget = rate !== null && subject !== null ? this.options.gate.budgetOf(rate, subject)
      : this.options.gate.generalBudgetOf(request.remoteAddress)
    return identity
  }

  private respond(res: HttpResponse, state: RequestState, reply: Reply, route: Route<C> | null, started: number,
    closeConnection = false): void {
    const status = reply.status ?? 200
    const label = route === null ? 'unmatched' : `${route.method} ${route.path}`
    const elapsedMs = performance.now() - started
    this.options.metrics.observeHttp(route, status, elapsedMs / 1000)
    logReply(this.options.log, this.refusalLines, state, label, status, reply, elapsedMs)
    if (state.aborted) return
    const body = bodyOf(reply)
    res.cork(() => {
      res.writeStatus(`${status} ${STATUS_TEXT[status] ?? ''}`)
      // A 304 has no body, so no media type: it stands for the 200 the client already holds.
      if (status !== 304) res.writeHeader('content-type', contentTypeOf(reply))
      res.writeHeader('x-request-id', state.requestId)
      for (const [key, value] of Object.entries(reply.headers ?? {})) res.writeHeader(key, value)
      if (state.budget !== undefined && state.budget !== null) writeBudget(res, state.budget)
      if (status === 304) {
        // Without a Content-Length (uWS writes none unless told; the 200's would be the right one).
        // A 304 is never a refusal, the only replies that close their connection.
        res.endWithoutBody()
        return
      }
      if (closeConnection) {
        res.end(body, true)
        return
      }
      // Text as it is: uWS writes it as UTF-8 itself, and only a reply that stalls needs its bytes.
      const offsetBefore = res.getWriteOffset()
      const [, done] = res.tryEnd(body, typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength)
      if (!done) this.stalled(res, state, bytesOf(body), offsetBefore)
    })
  }

  /**
   * A reply the socket could not take whole: the client is not reading (or reads slowly). uWS
   * would buffer every later pipelined reply in memory without bound (issue 14, finding 3: +300 MB
   * from one connection in seconds, every other client waiting). So the rest of this reply is
   * written as the socket drains, and a client that does not take it within REST_WRITE_STALL_MS
   * is closed; meanwhile uWS reads nothing more from it (a reply is pending).
   */
  private stalled(res: HttpResponse, state: RequestState, bytes: Buffer, offsetBefore: number): void {
    this.stalledReplies++
    const timer = setTimeout(() => {
      if (!state.aborted) res.close()
    }, REST_WRITE_STALL_MS)
    timer.unref() // never what keeps a stopping process alive
    const finish = (): void => {
      clearTimeout(timer)
      this.stalledReplies--
    }
    res.onAborted(() => {
      state.aborted = true
      finish()
    })
    res.onWritable((offset) => {
      const [ok, done] = res.tryEnd(bytes.subarray(offset - offsetBefore), bytes.length)
      if (done) finish()
      return ok
    })
  }

  private notFound(res: HttpResponse, req: HttpRequest): void {
    const state: RequestState = { aborted: false, requestId: requestIdOf(req.getHeader('x-request-id')) }
    res.onAborted(() => {
      state.aborted = true
    })
    const turnRefusal = this.overTurn(Buffer.from(res.getRemoteAddressAsText()).toString())
    if (turnRefusal !== null) {
      this.refuseAndClose(res, state, turnRefusal, null, performance.now())
      return
    }
    const url = req.getUrl()
    const compat = url.startsWith('/compat/')
    const path = compat ? url.slice('/compat'.length) : url
    const method = req.getMethod().toUpperCase() as Method
    // Only the routes of this surface (a compat-only path is not found natively, and the reverse).
    const allowed = [...new Set(this.options.routes
      .filter((route) => (route.surface ?? 'both') !== (compat ? 'native' : 'compat') && matches(route.path, path))
      .map((route) => route.method))]
    const error = allowed.length > 0 && !allowed.includes(method)
      ? new PredexError(ApiCode.METHOD_NOT_ALLOWED,
        `${method} is not allowed on ${url}; allowed: ${allowed.join(', ')}`)
      : new PredexError(ApiCode.NOT_FOUND, `no such endpoint: ${method} ${url}`)
    const headers: Record<string, string> =
      error.code === ApiCode.METHOD_NOT_ALLOWED ? { allow: allowed.join(', ') } : {}
    this.respond(res, state, { status: error.status, body: error.body(), headers }, null, performance.now())
  }
}

/**
 * The request's log line: a refusal (4xx, and 503: busy, retry later) at info with its code, a
 * server fault (other 5xx) at warn (the fault itself was logged at error where it was caught),
 * anything else at debug; refusals and faults within the budget (src/log-budget.ts). Never a
 * header or a body: they carry signatures and passphrases.
 */
function logReply(log: Log, budget: LogBudget, state: RequestState, route: string, status: number, reply: Reply,
  elapsedMs: number): void {
  if (status < 400 && !log.debugEnabled) return
  if (status >= 400 && !budget.take()) return
  const fields = { requestId: state.requestId, route, status, ms: Math.round(elapsedMs * 1000) / 1000,
    ...(state.apiKey === undefined ? {} : { apiKey: state.apiKey }),
    ...(status >= 400 ? { code: (reply.body as { code?: unknown } | null)?.code } : {}),
    ...(state.aborted ? { aborted: true } : {}) }
  // A 503 is a full queue or a shed placement saying when to retry: a refusal, not a fault.
  if (status >= 500 && status !== 503) log.warn('request failed', fields)
  else if (status >= 400) log.info('request refused', fields)
  else log.debug('request', fields)
}

/** What a reply sends: its bytes, its cached JSON, its raw text or its body as JSON. */
function bodyOf(reply: Reply): string | Uint8Array {
  return reply.bytes ?? reply.json ?? (reply.raw === true ? String(reply.body) : JSON.stringify(reply.body))
}

function contentTypeOf(reply: Reply): string {
  if (reply.contentType !== undefined) return reply.contentType
  if (reply.bytes !== undefined) return 'application/octet-stream'
  return reply.raw === true ? 'text/plain; version=0.0.4' : 'application/json'
}

/** A body's bytes, for a reply that stalls: a view of bytes already held, UTF-8 of a text. */
function bytesOf(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
}

/** A path parameter, percent-decoded; a broken escape (`%E0%A4%A`) is bad input, not a 500. */
function decodedParameter(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'a path parameter has a broken percent-encoding',
      { field: 'path' })
  }
}

function matches(pattern: string, path: string): boolean {
  const a = pattern.split('/')
  const b = path.split('/')
  return a.length === b.length && a.every((part, i) => part.startsWith(':') || part === b[i])
}

/**
 * What the gate checks at level `auth`: the headers, and for L2 the message the HMAC covers
 * (the path without /compat).
 */
function credentialsOf(request: RestRequest, auth: AuthLevel): Credentials {
  switch (auth) {
    case 'none': return { kind: 'none' }
    case 'admin': return { kind: 'admin', headers: request.headers }
    case 'l1': return { kind: 'l1', headers: request.headers }
    case 'l2': {
      const message = restL2Message(request.method, request.path, request.body)
      return { kind: 'l2', headers: request.headers, message }
    }
  }
}

/**
 * A request whose length is ambiguous: Content-Length more than once (even with equal values), or
 * beside Transfer-Encoding. uWS reads the first Content-Length, a proxy in front may read another
 * (or the chunks): what one takes as the body the other takes as a next request (request
 * smuggling). So the request is refused and its connection closed, nothing after it read.
 */
function framingFault(headers: RequestHeaders): PredexError | null {
  const { lengths, chunked } = headers
  if (lengths <= 1 && !(lengths === 1 && chunked)) return null
  return new PredexError(ApiCode.BAD_REQUEST, lengths > 1
    ? 'Content-Length may be given once: the request is ambiguous and the connection is closed'
    : 'Content-Length and Transfer-Encoding together: the request is ambiguous and the connection is closed',
  { field: 'content-length' })
}

/** A request's headers, read out of uWS in one pass (each header is a call into uWS). */
interface RequestHeaders {
  /** By name; a repeated name keeps its last value. */
  readonly values: Map<string, string>
  /** Names and values, for REST_HEADERS_BYTES_MAX. */
  readonly bytes: number
  /** The first authentication header given more than once, or null. */
  readonly repeated: string | null
  /** Content-Length headers given, and whether Transfer-Encoding was (for framingFault). */
  readonly lengths: number
  readonly chunked: boolean
}

function headersOf(req: HttpRequest): RequestHeaders {
  const values = new Map<string, string>()
  let bytes = 0
  let repeated: string | null = null
  let lengths = 0
  let chunked = false
  req.forEach((key, value) => {
    bytes += key.length + value.length
    if (key === 'content-length') lengths++
    else if (key === 'transfer-encoding') chunked = true
    // uWS lower-cases names with `| 0x20`, which turns `_` into DEL (scripts/patch-uws.mjs).
    const name = key.includes('\x7f') ? key.replace(/\x7f/g, '_') : key
    if (values.has(name) && isAuthHeaderName(name)) repeated ??= name
    values.set(name, value)
  })
  return { values, bytes, repeated, lengths, chunked }
}

/**
 * The route's budget after this request (docs/rest.md, "Rate limits"): its size, what is left
 * (whole requests) and the seconds until it is whole again.
 */
function writeBudget(res: HttpResponse, budget: BudgetState): void {
  res.writeHeader('x-ratelimit-limit', String(budget.limit))
  res.writeHeader('x-ratelimit-remaining', String(Math.floor(budget.remaining)))
  res.writeHeader('x-ratelimit-reset', String(Math.ceil(budget.resetMs / 1000)))
}

function tooLarge(bodyMax: number): Reply {
  const error = new PredexError(ApiCode.BODY_TOO_LARGE, `the body is larger than ${bodyMax} bytes`,
    { bytesMax: bodyMax })
  return { status: error.status, body: error.body() }
}

/** Any thrown error as a reply: catalogue errors as themselves, anything else a logged 500. */
export function errorReply(error: unknown, log: Log, requestId: string | null = null): Reply {
  if (error instanceof PredexError) {
    const headers: Record<string, string> = {}
    // 429 (a budget) and 503 (a full queue: the signature pool, the engine) both say when to retry.
    if ((error.status === 429 || error.status === 503) && typeof error.context?.retryAfterSeconds === 'number') {
      headers['retry-after'] = String(error.context.retryAfterSeconds)
    }
    // A spent budget: none left, and the next request allowed after Retry-After.
    if (error.code === ApiCode.RATE_LIMITED && typeof error.context?.limit === 'number') {
      headers['x-ratelimit-limit'] = String(error.context.limit)
      headers['x-ratelimit-remaining'] = '0'
      headers['x-ratelimit-reset'] = headers['retry-after'] ?? '1'
    }
    return { status: CATALOGUE[error.code].http, body: error.body(), headers }
  }
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && code in CATALOGUE) {
    const context = (error as { context?: Record<string, unknown> }).context ?? null
    const known = new PredexError(code as keyof typeof CATALOGUE, (error as Error).message, context)
    return { status: known.status, body: known.body() }
  }
  log.error('internal error', { requestId, err: error })
  const internal = new PredexError(ApiCode.INTERNAL, 'internal error')
  return { status: 500, body: internal.body() }
}
