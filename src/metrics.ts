/**
 * The process's Prometheus series, on prom-client with a registry of its own (tests start several
 * servers in one process; the global registry would clash). Every series is listed in
 * docs/operations.md ("Metrics"): names end in their unit (`_seconds`, `_bytes`) or `_total`.
 *
 * Three kinds of source. Faces and services observe as things happen, into tallies of plain
 * numbers cached per label set (no label string built, nothing hashed per call), read at scrape.
 * Gauges read a figure at scrape time (queue depths, open sockets). The engine worker's figures
 * live in a shared block it writes (src/host/engine-stats.ts) and are copied into their series at
 * scrape time, so the worker never posts a message for them. Labels are bounded: route patterns, method names,
 * command kinds, status codes; never a raw path, address or id.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { EngineStatsReader, HistogramReading } from './host/engine-stats.js'
import { COMMAND_KINDS } from './host/engine-stats.js'
import type { ThreadCpu, ThreadRole } from './thread-cpu.js'

/** Request latencies (REST, gRPC unary calls, WebSocket messages, signature checks): 0.5 ms to 5 s. */
const REQUEST_SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

/** A REST route as labelled: its method and pattern (`GET /data/order/:id`), never the raw path. */
export interface RouteKey {
  readonly method: string
  readonly path: string
}

export type WsChannel = 'market' | 'user'

/** One label set's histogram as read at scrape time. */
interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>
  readonly reading: HistogramReading
}

/**
 * A histogram whose buckets are kept elsewhere (the engine worker's shared block, or a Tally),
 * read at scrape. prom-client's own histogram answers from what it observed, so both of its
 * answers are replaced: `get` and `getForPromString`, which the registry prefers when a metric
 * has it (Histogram does).
 */
class ReadHistogram extends Histogram {
  private readonly metricName: string
  private readonly read: () => readonly HistogramSeries[]
  /** Unregistered and never observed: the shape (name, help, type) of the answer. */
  private readonly template: Histogram

  constructor(options: { name: string; help: string; registers: Registry[]; labelNames?: readonly string[];
    read: () => readonly HistogramSeries[] }) {
    const { name, help, labelNames = [] } = options
    super({ name, help, labelNames, registers: options.registers })
    this.metricName = name
    this.read = options.read
    this.template = new Histogram({ name, help, labelNames, registers: [] })
  }

  override async get(): ReturnType<Histogram['get']> {
    const base = await this.template.get()
    const name = this.metricName
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = []
    for (const { labels, reading } of this.read()) {
      reading.bounds.forEach((le, i) =>
        values.push({ metricName: `${name}_bucket`, labels: { le, ...labels }, value: reading.cumulative[i]! }))
      values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: reading.count },
        { metricName: `${name}_sum`, labels: { ...labels }, value: reading.sum },
        { metricName: `${name}_count`, labels: { ...labels }, value: reading.count })
    }
    return { ...base, values }
  }

  getForPromString(): ReturnType<Histogram['get']> {
    return this.get()
  }
}

/**
 * One label set's observations in plain numbers, turned into series at scrape: observing costs a
 * few additions, where a prom-client child hashes its labels on every call (about a tenth of a
 * cheap REST request's main-thread time, measured on GET /book).
 */
class Tally {
  /** Observations, timed or not (the counter). */
  count = 0
  private timedCount = 0
  private sum = 0
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  private readonly perBucket: number[]

  constructor(readonly labels: Readonly<Record<string, string>>, private readonly bounds: readonly number[]) {
    this.perBucket = new Array<number>(bounds.length + 1).fill(0)
  }

  /** Whether any observation had a duration (a label set that never had one has no histogram). */
  get timed(): boolean {
    return this.timedCount > 0
  }

  observe(seconds: number | null): void {
    this.count++
    if (seconds === null) return
    this.timedCount++
    this.sum += seconds
    let bucket = 0
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++
    this.perBucket[bucket]! += 1
  }

  /** The histogram so far, buckets cumulative as Prometheus counts them (`le`: at most the bound). */
  reading(): HistogramReading {
    let below = 0
    const cumulative = this.bounds.map((_, i) => (below += this.perBucket[i]!))
    return { bounds: this.bounds, cumulative, sum: this.sum, count: this.timedCount }
  }
}

export class Metrics {
  readonly registry = new Registry()
  private readonly http: ObservedFamily<RouteKey | null, number>
  private readonly ws: ObservedFamily<WsChannel, string>
  private readonly grpc: ObservedFamily<string, string>
  private readonly verifications: ObservedFamily<string, null>
  private readonly wsOpen: Gauge<'channel'>
  private readonly grpcStreamsOpen: Gauge<'method'>
  private readonly engineAck = new Tally({}, REQUEST_SECONDS_BUCKETS)

  constructor() {
    collectDefaultMetrics({ register: this.registry })
    const registers = [this.registry]
    this.http = new ObservedFamily({ registers, labelNames: ['route', 'status'],
      count: ['predex_http_requests_total',
        'HTTP requests answered, by route pattern and status ("unmatched": a path no route serves).'],
      duration: ['predex_http_request_duration_seconds',
        'Time from a request\'s arrival to its reply being written, by route pattern and status.'],
      labelsOf: (route, status) => [route === null ? 'unmatched' : `${route.method} ${route.path}`, String(status)] })
    this.ws = new ObservedFamily({ registers, labelNames: ['channel', 'status'],
      count: ['predex_ws_messages_total',
        'WebSocket client messages handled, by channel and status ("ok", "pong", or the catalogue code sent back).'],
      duration: ['predex_ws_message_duration_seconds',
        'Time to handle one WebSocket client message, by channel and status.'],
      labelsOf: (channel, status) => [channel, status] })
    this.grpc = new ObservedFamily({ registers, labelNames: ['method', 'code'],
      count: ['predex_grpc_calls_total', 'gRPC calls ended, by full method name and status code (streams included).'],
      duration: ['predex_grpc_call_duration_seconds',
        'Time from a unary gRPC call\'s start to its status, by method and status code.'],
      labelsOf: (method, code) => [method, code] })
    this.verifications = new ObservedFamily({ registers, labelNames: ['result'],
      count: ['predex_signature_verifications_total',
        'Order signatures checked by the verification pool, by result (valid, invalid, failed).'],
      duration: ['predex_signature_verification_duration_seconds',
        'Time from an order entering the verification pool to its verdict (waiting and checking).'],
      labelsOf: (result) => [result] })
    this.wsOpen = new Gauge({ name: 'predex_ws_connections', help: 'Open WebSocket connections, by channel.',
      labelNames: ['channel'], registers })
    for (const channel of ['market', 'user'] as const) this.wsOpen.set({ channel }, 0)
    this.grpcStreamsOpen = new Gauge({ name: 'predex_grpc_streams_open',
      help: 'Open gRPC streaming calls (order entry, book and user streams), by method.', labelNames: ['method'],
      registers })
    const engineAck = this.engineAck
    new ReadHistogram({ name: 'predex_engine_command_duration_seconds',
      help: 'Time from submitting a command to the engine to its durable acknowledgement (ring, apply, journal ' +
        'commit, return).', registers, read: () => [{ labels: engineAck.labels, reading: engineAck.reading() }] })
  }

  /** The text format's content type. */
  get contentType(): string {
    return this.registry.contentType
  }

  /** Every series in the text format. */
  text(): Promise<string> {
    return this.registry.metrics()
  }

  /** One REST request answered; `route` null for a path no route serves. */
  observeHttp(route: RouteKey | null, status: number, seconds: number): void {
    this.http.observe(route, status, seconds)
  }

  /** One WebSocket client message handled: `status` "ok", "pong" or the catalogue code sent back. */
  observeWsMessage(channel: WsChannel, status: string, seconds: number): void {
    this.ws.observe(channel, status, seconds)
  }

  wsOpened(channel: WsChannel): void {
    this.wsOpen.inc({ channel })
  }

  wsClosed(channel: WsChannel): void {
    this.wsOpen.dec({ channel })
  }

  /** A gRPC call ended with `code` (a status name); `seconds` for unary calls, null for streams. */
  observeGrpc(method: string, code: string, seconds: number | null): void {
    this.grpc.observe(method, code, seconds)
  }

  grpcStreamOpened(method: string): void {
    this.grpcStreamsOpen.inc({ method })
  }

  grpcStreamClosed(method: string): void {
    this.grpcStreamsOpen.dec({ method })
  }

  /** Submit to durable acknowledgement of one engine command, as the services see it. */
  observeEngineAck(seconds: number): void {
    this.engineAck.observe(seconds)
  }

  /** One order's verdict from the verification pool, with its time there. */
  observeVerification(result: 'valid' | 'invalid' | 'failed', seconds: number): void {
    this.verifications.observe(result, null, seconds)
  }

  /** A gauge read at each scrape. */
  gauge(name: string, help: string, read: () => number): void {
    new Gauge({ name, help, registers: [this.registry], collect() { this.set(read()) } })
  }

  /** A counter whose value is kept elsewhere, read at each scrape (it must never decrease). */
  counter(name: string, help: string, read: () => number): void {
    new Counter({ name, help, registers: [this.registry], collect() {
      this.reset()
      this.inc(read())
    } })
  }

  /**
   * CPU seconds by thread (src/thread-cpu.ts), read from /proc at each scrape: the named threads
   * (the engine's known from its stats block, `engineThreads`) and `other`, adding up to the process.
   */
  threadCpu(threads: ThreadCpu, engineThreads: () => readonly { role: ThreadRole; tid: number }[]): void {
    new Counter({ name: 'predex_thread_cpu_seconds_total', labelNames: ['thread'], registers: [this.registry],
      help: 'CPU time (user + system) by thread: main, engine, journal, snapshot, verify (all of the pool), and ' +
        'other (V8\'s and libuv\'s threads, lmdb\'s writes); they add up to the process\'s CPU time since it ' +
        'started (process_cpu_seconds_total counts from the metrics\' creation).',
      collect() {
        for (const { role, tid } of engineThreads()) threads.add(role, tid)
        this.reset()
        for (const [thread, seconds] of threads.read()) this.inc({ thread }, seconds)
      } })
  }

  /** The engine worker's figures (engine-stats.ts), copied into their series at each scrape. */
  engine(stats: EngineStatsReader): void {
    const registers = [this.registry]
    new Counter({ name: 'predex_engine_commands_total', labelNames: ['kind', 'result'], registers,
      help: 'Commands the engine applied since this process started, by kind and result (accepted, rejected).',
      collect() {
        this.reset()
        for (const kind of COMMAND_KINDS) {
          for (const ok of [true, false]) {
            const value = stats.commands(kind, ok)
            if (value > 0) this.inc({ kind, result: ok ? 'accepted' : 'rejected' }, value)
          }
        }
      } })
    const histogram = (name: string, help: string, read: () => HistogramReading): void =>
      void new ReadHistogram({ name, help, registers, read: () => [{ labels: {}, reading: read() }] })
    histogram('predex_engine_apply_seconds', 'Time the engine takes to apply one command: the first of each ring ' +
      'drain and every 16th after it are timed (the worker\'s clock).',
      () => stats.histogram('applySeconds'))
    histogram('predex_engine_batch_commands', 'Commands the worker takes from the ring in one drain.',
      () => stats.histogram('drainCommands'))
    histogram('predex_journal_commit_seconds', 'Time to write and flush one journal transaction (group commit).',
      () => stats.histogram('commitSeconds'))
    histogram('predex_journal_batch_commands', 'Commands in one journal transaction.',
      () => stats.histogram('journalCommands'))
    this.counter('predex_journal_written_bytes_total', 'Bytes of command records written to the journal.',
      () => stats.journalBytes)
    this.counter('predex_journal_snapshots_total', 'Snapshots written with a journal transaction.',
      () => stats.snapshots)
    this.gauge('predex_engine_applied_seq', 'Sequence number of the last command the engine applied.',
      () => stats.appliedSeq)
    this.gauge('predex_journal_unflushed_commands', 'Commands applied and not yet durable in the journal.',
      () => Math.max(0, stats.appliedSeq - stats.durableSeq))
  }
}

/**
 * A counter and a latency histogram over the same labels, with a child pair cached per label set:
 * two levels of Map keyed by what the caller already holds (a route object and a status number, a
 * channel and a code), so a cached observation builds no string; `labelsOf` runs on a miss only.
 */
class ObservedFamily<A, B> {
  private readonly children = new Map<A, Map<B, Tally>>()
  private readonly tallies: Tally[] = []
  private readonly labelsOf: (a: A, b: B) => readonly string[]
  private readonly labelNames: readonly string[]

  constructor(options: { registers: Registry[]; count: [string, string]; duration: [string, string];
    labelNames: readonly string[]; labelsOf: (a: A, b: B) => readonly string[] }) {
    const { registers, labelNames } = options
    const tallies = this.tallies
    new Counter({ name: options.count[0], help: options.count[1], labelNames, registers, collect() {
      this.reset()
      for (const tally of tallies) this.inc(tally.labels, tally.count)
    } })
    new ReadHistogram({ name: options.duration[0], help: options.duration[1], labelNames, registers,
      read: () => tallies.filter((tally) => tally.timed).map((tally) => ({ labels: tally.labels,
        reading: tally.reading() })) })
    this.labelsOf = options.labelsOf
    this.labelNames = labelNames
  }

  /** Counted, and timed unless `seconds` is null (a stream's length says nothing about latency). */
  observe(a: A, b: B, seconds: number | null): void {
    let inner = this.children.get(a)
    if (inner === undefined) {
      inner = new Map()
      this.children.set(a, inner)
    }
    let tally = inner.get(b)
    if (tally === undefined) {
      const values = this.labelsOf(a, b)
      tally = new Tally(Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]!])),
        REQUEST_SECONDS_BUCKETS)
      inner.set(b, tally)
      this.tallies.push(tally)
    }
    tally.observe(seconds)
  }
}
