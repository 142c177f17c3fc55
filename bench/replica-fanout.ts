/**
 * `npm run bench:replica`: market-data fan-out from a read replica (issue 34). A nats-server with
 * JetStream (Debian's, bench/nats-server.ts), a primary replicating its command log to it
 * (`--nats-servers URL --nats-replicas 1`) and a read replica following it (`--role replica
 * --primary-url URL`, the primary's master key), each started as bench:rest starts its server
 * (bench/predex-server.ts: dist/src/main.js in its own process, durability sync, rate limits off,
 * free ports on 127.0.0.1, a temporary data directory). Every process is stopped at the end, on
 * an error too.
 *
 * N subscribers (200 by default) on the replica's market channel (`/ws/market`), each its own
 * WebSocket subscribed to the market's Yes token, in a worker thread of this process (so that
 * reading them does not delay the writer's acknowledgement stamps); on the main thread a writer
 * places and cancels signed orders on the primary over REST at a steady rate (runWriter), one
 * write in flight at a time: BUY Yes orders that rest (nobody sells) until RESTING_ORDERS rest,
 * then a cancel of the oldest and a placement in turn. Every write changes one level of the Yes
 * book, so the replica sends exactly one `price_change` for it, with the asset's next `seq`.
 *
 * Matching: the k-th acknowledged write is the k-th price_change after the subscriber's snapshot
 * (its `seq` is the snapshot's + k; one write in flight keeps the order of writes the order of
 * commands), and the match is checked: the message's level (price, new size) must be the one the
 * writer's own book model says the write left. Latency: from the moment the writer had the
 * primary's answer to the write (its HTTP response read; the primary answers once the command is
 * in its journal and in the JetStream stream) to the moment the subscriber's socket delivered the
 * message (the `ws` message event, stamped first thing), both on the machine's monotonic clock
 * (process.hrtime, the same clock in both threads). So it is the replica's whole path as a client
 * sees it: the stream's delivery to the replica, its apply, its read model, its WebSocket
 * publish, loopback, and this process reading 200 sockets on one thread (the last subscriber's
 * message waits behind the others': the first and last subscriber's figures are given too). A
 * message can arrive before the writer had its answer (the replica may get the record as the
 * primary gets the stream's acknowledgement): such latencies are negative and counted, not hidden.
 *
 * Figures over the measured writes (after a warm-up whose messages are checked too): book
 * updates, messages expected (writes x subscribers), received, lost (expected - received, after
 * up to DRAIN_MS_MAX for the last ones), delivered per second (messages received over the time
 * from the first measured write sent to the last of its messages received), the delivery
 * latency's p50/p99/max, the write's own acknowledgement latency, and the replica's lag as its
 * GET /health tells it (`replicaLag`, sampled every LAG_POLL_MS while the writer runs, and once
 * at the end).
 *
 * Flags: --quick (1 s warm-up, 4 s measured), --seconds N (measured, default 20), --rate N (writes
 * a second, default 100), --subscribers N (default 200), --json (last stdout line is a JSON
 * object). Report in bench/results/replica-fanout.md and .json.
 */
import { randomBytes } from 'node:crypto'
import { availableParallelism, cpus } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import WebSocket from 'ws'
import type { Health } from '../src/api/shapes/health.js'
import type { MarketSubscription, WsBook, WsPriceChange } from '../src/api/shapes/ws-market.js'
import { PredexApiError } from '../src/client/rest-transport.js'
import { PredexClient } from '../src/client/predex-client.js'
import { BenchFlags } from './flags.js'
import { startNatsServer } from './nats-server.js'
import { setUpTraders, signOrders, startPredexServer, type BenchServer, type SignedFor, type Trader }
  from './predex-server.js'
import { round, writeResults } from './report.js'
import { percentile } from './stats.js'

const TRADERS = 4
/** Orders resting at once: the writer places until this many rest, then cancels the oldest and places in turn. */
const RESTING_ORDERS = 10
/** After the writer's last answer, how long the subscribers may take to get the last messages. */
const DRAIN_MS_MAX = 10_000
/** How long the replica may take to apply the set-up (market, traders) before the subscribers come. */
const LEVEL_MS_MAX = 30_000
/** How long opening and subscribing every socket may take. */
const SUBSCRIBE_MS_MAX = 30_000
const LAG_POLL_MS = 250
/** Below this share of --rate, the report says the writer did not hold its rate. */
const RATE_HELD_MIN = 0.9
/** The market channel closes a socket silent for 60 s: each subscriber sends PING this often. */
const PING_MS = 10_000
const log = (line: string): void => void process.stderr.write(line + '\n')

/** Now on the machine's monotonic clock (CLOCK_MONOTONIC: the same in every thread and process), in ms. */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6

// ---- The subscribers' side (the worker thread) ----

interface SubscriberJob {
  readonly url: string
  readonly tokenId: string
  readonly subscribers: number
  /** Events each subscriber can record: more than the writer can send. */
  readonly capacity: number
}

/** What went otherwise than one price_change per write, once, to every subscriber. */
interface Anomalies {
  /** A seq received twice on one socket. */
  duplicates: number
  /** A seq not after the snapshot's, or beyond the capacity. */
  outOfRange: number
  /** A price_change whose level differs from the one another subscriber got with the same seq, or not one level. */
  disagreements: number
  /** Events other than price_change (last_trade_price, tick_size_change...). */
  otherEvents: number
  /** Error events from the channel. */
  errorEvents: number
  /** Sockets closed before the end. */
  closed: number
}

interface SubscriberResult {
  /** Per subscriber, when it got the event of the k-th write (monotonic ms); NaN: never. */
  readonly receivedMs: Float64Array[]
  /** Each event's level as the first subscriber to get it saw it, in cents (of a dollar, of a share); -1: nobody. */
  readonly priceCents: Int32Array
  readonly sizeCents: Int32Array
  readonly anomalies: Anomalies
  /** The subscribers' thread's event loop utilization, subscriptions to drain (near 1: the client limits). */
  readonly eventLoopUtilization: number
}

type ToWorker = { readonly type: 'drain'; readonly writes: number }
type FromWorker = { readonly type: 'ready' } | { readonly type: 'done'; readonly result: SubscriberResult }

/** The levels the subscribers got, by event index, and how they agree. */
class Reference {
  readonly priceCents: Int32Array
  readonly sizeCents: Int32Array
  readonly anomalies: Anomalies = { duplicates: 0, outOfRange: 0, disagreements: 0, otherEvents: 0, errorEvents: 0,
    closed: 0 }

  constructor(capacity: number) {
    this.priceCents = new Int32Array(capacity).fill(-1)
    this.sizeCents = new Int32Array(capacity).fill(-1)
  }

  check(index: number, event: WsPriceChange): void {
    const entry = event.price_changes[0]
    if (event.price_changes.length !== 1 || entry === undefined) {
      this.anomalies.disagreements++
      return
    }
    const price = Math.round(Number(entry.price) * 100)
    const size = Math.round(Number(entry.size) * 100)
    if (this.priceCents[index] === -1) {
      this.priceCents[index] = price
      this.sizeCents[index] = size
    } else if (this.priceCents[index] !== price || this.sizeCents[index] !== size) {
      this.anomalies.disagreements++
    }
  }
}

/** One subscriber: its socket, the seq of its snapshot, and when each event reached it. */
class Subscriber {
  readonly receivedMs: Float64Array<ArrayBuffer>
  received = 0
  private baseSeq = -1
  private snapshotTaken: () => void = () => undefined
  readonly snapshot = new Promise<void>((resolve) => { this.snapshotTaken = resolve })

  constructor(readonly socket: WebSocket, private readonly reference: Reference, capacity: number) {
    this.receivedMs = new Float64Array(capacity).fill(NaN)
    socket.on('message', (data) => this.onMessage(monotonicMs(), data as Buffer))
    socket.on('close', () => { reference.anomalies.closed++ })
    // An error closes the socket, and the close is counted: without a listener it would end the thread.
    socket.on('error', () => undefined)
  }

  private onMessage(atMs: number, data: Buffer): void {
    const text = data.toString('utf8')
    if (text === 'PONG') return
    const message = JSON.parse(text) as WsBook[] | WsPriceChange | { readonly event_type: string }
    if (Array.isArray(message)) {
      this.baseSeq = message[0]!.seq
      this.snapshotTaken()
      return
    }
    const anomalies = this.reference.anomalies
    if (message.event_type !== 'price_change') {
      if (message.event_type === 'error') anomalies.errorEvents++
      else anomalies.otherEvents++
      return
    }
    const event = message as WsPriceChange
    const index = event.seq - this.baseSeq - 1
    if (this.baseSeq < 0 || index < 0 || index >= this.receivedMs.length) {
      anomalies.outOfRange++
    } else if (!Number.isNaN(this.receivedMs[index]!)) {
      anomalies.duplicates++
    } else {
      this.receivedMs[index] = atMs
      this.received++
      this.reference.check(index, event)
    }
  }
}

/** Opens a socket on the market channel and subscribes it to `tokenId`; resolves with its snapshot taken. */
async function openSubscriber(job: SubscriberJob, reference: Reference): Promise<Subscriber> {
  const socket = new WebSocket(job.url, { perMessageDeflate: false })
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  const subscriber = new Subscriber(socket, reference, job.capacity)
  const subscription: MarketSubscription = { type: 'market', assets_ids: [job.tokenId], initial_dump: true }
  socket.send(JSON.stringify(subscription))
  await subscriber.snapshot
  return subscriber
}

/** Resolves once every subscriber has `writes` events, or after DRAIN_MS_MAX. */
async function drained(subscribers: readonly Subscriber[], writes: number): Promise<void> {
  const deadlineMs = monotonicMs() + DRAIN_MS_MAX
  while (subscribers.some((s) => s.received < writes) && monotonicMs() < deadlineMs) await sleep(20)
}

/** The worker thread: opens the sockets, says ready, records until told to drain, then sends what it saw. */
async function runSubscribers(job: SubscriberJob): Promise<void> {
  const port = parentPort!
  const reference = new Reference(job.capacity)
  const opening = Promise.all(Array.from({ length: job.subscribers }, () => openSubscriber(job, reference)))
  // Unreferenced: once the sockets are open, the deadline's timer must not keep the thread alive.
  const subscribers = await Promise.race([opening, sleep(SUBSCRIBE_MS_MAX, undefined, { ref: false }).then(() => {
    throw new Error(`the ${job.subscribers} subscriptions took more than ${SUBSCRIBE_MS_MAX} ms`)
  })])
  const pings = setInterval(() => { for (const s of subscribers) s.socket.send('PING') }, PING_MS)
  const utilizationFrom = performance.eventLoopUtilization()
  port.postMessage({ type: 'ready' } satisfies FromWorker)
  const drain = await new Promise<ToWorker>((resolve) => port.once('message', resolve))
  await drained(subscribers, drain.writes)
  const eventLoopUtilization = performance.eventLoopUtilization(utilizationFrom).utilization
  clearInterval(pings)
  const closedBefore = reference.anomalies.closed
  for (const s of subscribers) s.socket.terminate()
  const result: SubscriberResult = { receivedMs: subscribers.map((s) => s.receivedMs), priceCents: reference.priceCents,
    sizeCents: reference.sizeCents, anomalies: { ...reference.anomalies, closed: closedBefore }, eventLoopUtilization }
  port.postMessage({ type: 'done', result } satisfies FromWorker, subscribers.map((s) => s.receivedMs.buffer))
}

// ---- The bench's side (the main thread) ----

interface Settings {
  readonly quick: boolean
  readonly json: boolean
  readonly seconds: number
  readonly warmUpSeconds: number
  readonly ratePerSecond: number
  readonly subscribers: number
}

/** An acknowledged write, and the level it left: what its price_change must say. */
interface Write {
  readonly kind: 'place' | 'cancel'
  readonly priceCents: number
  /** The level's size after the write, in hundredths of a share. */
  readonly sizeCents: number
  readonly sentMs: number
  /** When the writer had the primary's answer (monotonic ms). */
  readonly ackMs: number
  /** Due after the warm-up. */
  readonly measured: boolean
}

/** A worker's messages in order, with a wait for the next one (its error or exit rejects). */
class Mailbox {
  private readonly queue: FromWorker[] = []
  private waiter: (() => void) | null = null
  private failure: Error | null = null

  constructor(worker: Worker) {
    worker.on('message', (message: FromWorker) => { this.queue.push(message); this.waiter?.() })
    worker.on('error', (error) => { this.failure = error; this.waiter?.() })
    worker.on('exit', (code) => {
      this.failure ??= new Error(`the subscribers' thread exited (${code})`)
      this.waiter?.()
    })
  }

  async next(timeoutMs: number): Promise<FromWorker> {
    const deadlineMs = monotonicMs() + timeoutMs
    while (this.queue.length === 0) {
      if (this.failure !== null) throw this.failure
      if (monotonicMs() > deadlineMs) throw new Error(`the subscribers' thread said nothing in ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        this.waiter = resolve
        setTimeout(resolve, 100)
      })
    }
    return this.queue.shift()!
  }
}

/** A resting order of the writer's: its owner's client, its id and its level. */
interface Resting {
  readonly client: PredexClient
  readonly orderId: string
  readonly priceCents: number
  readonly sizeCents: number
}

/**
 * Places and cancels on the primary, one write at a time, keeping a model of the levels it
 * changes: each write's expected price_change is the level it touched with the size the model
 * gives after it (its orders are the only ones on the book).
 */
class Writer {
  readonly writes: Write[] = []
  readonly failed: Record<string, number> = {}
  private readonly levelSizeCents = new Map<number, number>()
  private readonly resting: Resting[] = []
  private next = 0

  constructor(private readonly orders: readonly SignedFor[],
    private readonly clients: ReadonlyMap<string, PredexClient>) {}

  /** A placement until RESTING_ORDERS rest, then the oldest's cancel and a placement in turn. */
  async write(measured: boolean): Promise<void> {
    const sentMs = monotonicMs()
    try {
      if (this.resting.length >= RESTING_ORDERS) await this.cancelOldest(sentMs, measured)
      else await this.place(sentMs, measured)
    } catch (error) {
      const key = error instanceof PredexApiError ? `${error.status} ${error.code}` : String(error)
      this.failed[key] = (this.failed[key] ?? 0) + 1
    }
  }

  private async place(sentMs: number, measured: boolean): Promise<void> {
    const order = this.orders[this.next++]
    if (order === undefined) throw new Error('the writer ran out of signed orders')
    const { trader, signed } = order
    const client = this.clients.get(trader.address)!
    const placed = await client.placeOrder({ signed, orderType: 'GTC' })
    const ackMs = monotonicMs()
    if (placed.status !== 'live') throw new Error(`an order did not rest: ${placed.status}`)
    // A BUY: makerAmount is the USDC, takerAmount the shares (both in micros).
    const priceCents = Number((BigInt(signed.order.makerAmount) * 100n) / BigInt(signed.order.takerAmount))
    const sizeCents = Number(BigInt(signed.order.takerAmount) / 10_000n)
    this.resting.push({ client, orderId: placed.orderID, priceCents, sizeCents })
    this.record('place', priceCents, sizeCents, sentMs, ackMs, measured)
  }

  private async cancelOldest(sentMs: number, measured: boolean): Promise<void> {
    const oldest = this.resting.shift()!
    const answer = await oldest.client.cancelOrder(oldest.orderId)
    const ackMs = monotonicMs()
    if (!answer.canceled.includes(oldest.orderId)) {
      throw new Error(`not cancelled: ${JSON.stringify(answer.not_canceled)}`)
    }
    this.record('cancel', oldest.priceCents, -oldest.sizeCents, sentMs, ackMs, measured)
  }

  private record(kind: Write['kind'], priceCents: number, deltaCents: number, sentMs: number, ackMs: number,
    measured: boolean): void {
    const sizeCents = (this.levelSizeCents.get(priceCents) ?? 0) + deltaCents
    this.levelSizeCents.set(priceCents, sizeCents)
    this.writes.push({ kind, priceCents, sizeCents, sentMs, ackMs, measured })
  }
}

/**
 * A write every 1/rate s. A write answered after the next one was due moves the schedule on rather
 * than sending the missed ones back to back: the writer's rate is at most --rate, never a burst to
 * catch up (how late it got is reported: `lateMsMax`).
 */
async function runWriter(writer: Writer, settings: Settings): Promise<{ lateMsMax: number; warmEndMs: number }> {
  const intervalMs = 1000 / settings.ratePerSecond
  const startMs = monotonicMs()
  const warmEndMs = startMs + settings.warmUpSeconds * 1000
  const endMs = warmEndMs + settings.seconds * 1000
  let lateMsMax = 0
  for (let dueMs = startMs; dueMs < endMs;) {
    const waitMs = dueMs - monotonicMs()
    if (waitMs > 0) await sleep(waitMs)
    await writer.write(dueMs >= warmEndMs)
    const nextMs = dueMs + intervalMs
    const nowMs = monotonicMs()
    lateMsMax = Math.max(lateMsMax, nowMs - nextMs)
    dueMs = Math.max(nextMs, nowMs)
  }
  return { lateMsMax, warmEndMs }
}

function plannedWrites(settings: Settings): number {
  return Math.ceil((settings.warmUpSeconds + settings.seconds) * settings.ratePerSecond)
}

/** Every order the writer may place (half its writes, and the first RESTING_ORDERS), signed before it starts. */
function signWriterOrders(traders: readonly Trader[], tokenId: string, settings: Settings): SignedFor[] {
  const startedMs = monotonicMs()
  const orders = signOrders(traders, tokenId, Math.ceil(plannedWrites(settings) / 2) + RESTING_ORDERS + 1)
  log(`  (signed ${orders.length} orders in ${((monotonicMs() - startedMs) / 1000).toFixed(1)} s, not timed)`)
  return orders
}

async function healthOf(base: string): Promise<Health> {
  // fetch's own error says only "fetch failed": name the server (a replica that died mid-run).
  const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) }).catch((error: unknown) => {
    throw new Error(`GET ${base}/health: ${String((error as { cause?: unknown }).cause ?? error)}`)
  })
  if (!response.ok) throw new Error(`GET ${base}/health: ${response.status}`)
  return await response.json() as Health
}

type Lag = NonNullable<Health['replicaLag']>

async function replicaLagOf(base: string): Promise<Lag> {
  const lag = (await healthOf(base)).replicaLag
  if (lag === null) throw new Error(`${base} is not a replica: its /health has no replicaLag`)
  return lag
}

/** Waits until the replica has applied what the primary had (the market and the traders' set-up). */
async function replicaLevel(primary: BenchServer, replica: BenchServer): Promise<void> {
  const target = (await healthOf(primary.base)).seq
  const deadlineMs = monotonicMs() + LEVEL_MS_MAX
  for (;;) {
    const seq = (await healthOf(replica.base)).seq
    if (seq >= target) return
    if (monotonicMs() > deadlineMs) throw new Error(`the replica stayed at seq ${seq}, the primary at ${target}`)
    await sleep(50)
  }
}

/** GET /health of the replica every LAG_POLL_MS until stopped: its replicaLag, with when it was read. */
class LagWatch {
  readonly samples: { readonly atMs: number; readonly lag: Lag }[] = []
  private stopped = false
  private failure: unknown = null
  private readonly loop: Promise<void>

  constructor(private readonly base: string) {
    // Kept, not thrown at once: a rejection nobody awaits yet would end the process before the cleanup.
    this.loop = this.run().catch((error: unknown) => { this.failure = error })
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const lag = await replicaLagOf(this.base)
      this.samples.push({ atMs: monotonicMs(), lag })
      await sleep(LAG_POLL_MS)
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.loop
    if (this.failure !== null) throw this.failure
  }
}

/** What the subscribers got of the writes: counts, latencies (sorted, ms) and mismatches. */
interface Delivery {
  /** Measured writes x subscribers. */
  readonly expected: number
  readonly received: number
  /** Messages of the warm-up's writes that never came (they are checked too, not measured). */
  readonly warmUpLost: number
  /** Every (measured write, subscriber): receipt - the writer's acknowledgement. */
  readonly latencyMs: Float64Array
  /** The same from the write's sending: what a watcher sees of a trader's order, the primary's time included. */
  readonly fromSendLatencyMs: Float64Array
  /** Per measured write: to its first subscriber, and to its last (of those that got it). */
  readonly firstLatencyMs: Float64Array
  readonly lastLatencyMs: Float64Array
  /** Messages received before the writer had the primary's answer (negative latencies). */
  readonly beforeAck: number
  /** Received over the time from the first measured write sent to the last of its messages received. */
  readonly perSecond: number
}

function sorted(values: readonly number[]): Float64Array {
  return Float64Array.from(values).sort()
}

function deliveryOf(writes: readonly Write[], receivedMs: readonly Float64Array[]): Delivery {
  const latencies: number[] = []
  const fromSend: number[] = []
  const firsts: number[] = []
  const lasts: number[] = []
  let expected = 0
  let warmUpLost = 0
  let lastReceiptMs = -Infinity
  writes.forEach((write, k) => {
    let firstMs = Infinity
    let lastMs = -Infinity
    for (const times of receivedMs) {
      const atMs = times[k]!
      if (!write.measured) {
        if (Number.isNaN(atMs)) warmUpLost++
        continue
      }
      expected++
      if (Number.isNaN(atMs)) continue
      latencies.push(atMs - write.ackMs)
      fromSend.push(atMs - write.sentMs)
      firstMs = Math.min(firstMs, atMs)
      lastMs = Math.max(lastMs, atMs)
    }
    if (lastMs === -Infinity) return
    firsts.push(firstMs - write.ackMs)
    lasts.push(lastMs - write.ackMs)
    lastReceiptMs = Math.max(lastReceiptMs, lastMs)
  })
  const firstSentMs = writes.find((write) => write.measured)?.sentMs ?? NaN
  const spanSeconds = (lastReceiptMs - firstSentMs) / 1000
  return { expected, received: latencies.length, warmUpLost, latencyMs: sorted(latencies),
    fromSendLatencyMs: sorted(fromSend),
    firstLatencyMs: sorted(firsts), lastLatencyMs: sorted(lasts), beforeAck: latencies.filter((ms) => ms < 0).length,
    perSecond: spanSeconds > 0 ? latencies.length / spanSeconds : 0 }
}

/**
 * Writes whose event's level (as the subscribers got it) is not the one the write left, and
 * events beyond the writes (an index some subscriber got that no acknowledged write made).
 */
function mismatchesOf(writes: readonly Write[], result: SubscriberResult): { mismatched: number; unexpected: number } {
  let mismatched = 0
  writes.forEach((write, k) => {
    const price = result.priceCents[k]!
    if (price !== -1 && (price !== write.priceCents || result.sizeCents[k] !== write.sizeCents)) mismatched++
  })
  let unexpected = 0
  for (let k = writes.length; k < result.priceCents.length; k++) if (result.priceCents[k] !== -1) unexpected++
  return { mismatched, unexpected }
}

interface Figures {
  readonly settings: Settings
  /** The acknowledged writes, warm-up first. */
  readonly writes: readonly Write[]
  readonly measured: readonly Write[]
  readonly failed: Record<string, number>
  /** The longest a write went out after its slot (the previous answer came late). */
  readonly lateMsMax: number
  readonly delivery: Delivery
  readonly mismatches: { readonly mismatched: number; readonly unexpected: number }
  readonly anomalies: Anomalies
  readonly eventLoopUtilization: number
  /** The replica's /health samples while the measured writes ran, and once after the drain. */
  readonly lagSamples: readonly Lag[]
  readonly lagFinal: Lag
  /** The writer's acknowledgement latencies (sent -> answer), measured writes, sorted. */
  readonly ackLatencyMs: Float64Array
}

function lagMax(samples: readonly Lag[], field: keyof Lag): number {
  return samples.reduce((max, lag) => Math.max(max, lag[field]), 0)
}

/**
 * The writes' actual rate, from the first one sent to the last one answered: below --rate when
 * answers came later than the schedule (runWriter moves it on rather than catching up).
 */
function writesPerSecond(writes: readonly Write[]): number {
  const first = writes[0]
  const last = writes[writes.length - 1]
  if (first === undefined || last === undefined) return 0
  return writes.length / ((last.ackMs - first.sentMs) / 1000)
}

function reportOf(f: Figures): Record<string, unknown> {
  const d = f.delivery
  const ms = (values: Float64Array, q: number): number => round(percentile(values, q))
  return {
    subscribers: f.settings.subscribers,
    book_updates: f.measured.length,
    places: f.measured.filter((write) => write.kind === 'place').length,
    cancels: f.measured.filter((write) => write.kind === 'cancel').length,
    book_updates_per_s: round(writesPerSecond(f.measured)), rate_target_per_s: f.settings.ratePerSecond,
    messages_expected: d.expected, messages_received: d.received, messages_lost: d.expected - d.received,
    warm_up_messages_lost: d.warmUpLost, delivered_per_s: Math.round(d.perSecond),
    delivery_latency_ms_p50: ms(d.latencyMs, 0.5), delivery_latency_ms_p99: ms(d.latencyMs, 0.99),
    delivery_latency_ms_max: ms(d.latencyMs, 1), delivery_latency_ms_min: ms(d.latencyMs, 0),
    first_subscriber_latency_ms_p50: ms(d.firstLatencyMs, 0.5),
    first_subscriber_latency_ms_p99: ms(d.firstLatencyMs, 0.99),
    last_subscriber_latency_ms_p50: ms(d.lastLatencyMs, 0.5), last_subscriber_latency_ms_p99: ms(d.lastLatencyMs, 0.99),
    delivered_before_ack: d.beforeAck,
    delivery_from_send_latency_ms_p50: ms(d.fromSendLatencyMs, 0.5),
    delivery_from_send_latency_ms_p99: ms(d.fromSendLatencyMs, 0.99),
    delivery_from_send_latency_ms_max: ms(d.fromSendLatencyMs, 1),
    write_ack_latency_ms_p50: ms(f.ackLatencyMs, 0.5), write_ack_latency_ms_p99: ms(f.ackLatencyMs, 0.99),
    write_ack_latency_ms_max: ms(f.ackLatencyMs, 1),
    replica_lag: {
      seqs_behind_max: lagMax(f.lagSamples, 'seqsBehind'), records_pending_max: lagMax(f.lagSamples, 'recordsPending'),
      ms_behind_max: lagMax(f.lagSamples, 'msBehind'), samples: f.lagSamples.length,
      final: { seqs_behind: f.lagFinal.seqsBehind, records_pending: f.lagFinal.recordsPending,
        ms_behind: f.lagFinal.msBehind },
    },
    content_mismatches: f.mismatches.mismatched, unexpected_events: f.mismatches.unexpected,
    duplicates: f.anomalies.duplicates, out_of_range: f.anomalies.outOfRange,
    disagreements: f.anomalies.disagreements, other_events: f.anomalies.otherEvents,
    error_events: f.anomalies.errorEvents, sockets_closed: f.anomalies.closed,
    writes_failed: f.failed, writer_late_ms_max: round(f.lateMsMax),
    subscriber_thread_utilization: round(f.eventLoopUtilization),
    seconds: f.settings.seconds, warm_up_seconds: f.settings.warmUpSeconds, resting_orders: RESTING_ORDERS,
    cores: availableParallelism(), node: process.version,
  }
}

/** Whatever went otherwise than one matching message per write and subscriber: empty when none. */
function troublesOf(report: Record<string, unknown>): string[] {
  const keys = ['messages_lost', 'warm_up_messages_lost', 'content_mismatches', 'unexpected_events', 'duplicates',
    'out_of_range', 'disagreements', 'other_events', 'error_events', 'sockets_closed']
  const troubles = keys.filter((key) => report[key] !== 0).map((key) => `${key} ${String(report[key])}`)
  const failed = report.writes_failed as Record<string, number>
  if (Object.keys(failed).length > 0) troubles.push(`writes_failed ${JSON.stringify(failed)}`)
  return troubles
}

function markdownOf(f: Figures, report: Record<string, unknown>): string {
  const r = report as Record<string, number> & { replica_lag: Record<string, number> }
  const troubles = troublesOf(report)
  const cores = availableParallelism()
  return [
    '# Market-data fan-out from a read replica (issue 34)', '',
    `Command: \`npm run bench:replica${f.settings.quick ? ' -- --quick' : ''}\`; ${cores} cores ` +
      `(${cpus()[0]?.model ?? ''}), Node ${process.version}; ${f.settings.seconds} s measured after a ` +
      `${f.settings.warmUpSeconds} s warm-up, one run.`,
    'A nats-server (JetStream, one copy), a primary and a read replica, each its own process on this machine; ' +
      `${f.settings.subscribers} WebSockets on the replica's market channel (one token), read by one thread of the ` +
      'bench; a writer placing and cancelling signed orders on the primary over REST, one at a time. Latency: from ' +
      'the writer having the primary\'s answer to a subscriber\'s socket delivering the write\'s price_change.', '',
    '| figure | value |', '| --- | --- |',
    `| subscribers | ${r.subscribers} |`,
    `| book updates (writes acknowledged: ${r.places} places, ${r.cancels} cancels) | ${r.book_updates} ` +
      `(${r.book_updates_per_s}/s; target ${r.rate_target_per_s}/s) |`,
    `| messages delivered per second, all subscribers | ${r.delivered_per_s} |`,
    `| delivery latency p50 / p99 / max (ms) | ${r.delivery_latency_ms_p50} / ${r.delivery_latency_ms_p99} / ` +
      `${r.delivery_latency_ms_max} |`,
    `| to the first subscriber p50 / p99; to the last p50 / p99 (ms) | ${r.first_subscriber_latency_ms_p50} / ` +
      `${r.first_subscriber_latency_ms_p99}; ${r.last_subscriber_latency_ms_p50} / ` +
      `${r.last_subscriber_latency_ms_p99} |`,
    `| from the write's sending instead, p50 / p99 / max (ms) | ${r.delivery_from_send_latency_ms_p50} / ` +
      `${r.delivery_from_send_latency_ms_p99} / ${r.delivery_from_send_latency_ms_max} |`,
    `| messages expected / received / lost | ${r.messages_expected} / ${r.messages_received} / ${r.messages_lost} |`,
    `| received before the writer had its answer | ${r.delivered_before_ack} ` +
      `(min latency ${r.delivery_latency_ms_min} ms) |`,
    `| the write's acknowledgement p50 / p99 / max (ms) | ${r.write_ack_latency_ms_p50} / ` +
      `${r.write_ack_latency_ms_p99} ` +
      `/ ${r.write_ack_latency_ms_max} |`,
    `| replica lag (/health, ${r.replica_lag.samples} samples): seqsBehind / recordsPending / msBehind, max | ` +
      `${r.replica_lag.seqs_behind_max} / ${r.replica_lag.records_pending_max} / ${r.replica_lag.ms_behind_max} |`,
    `| replica lag after the drain | ${f.lagFinal.seqsBehind} / ${f.lagFinal.recordsPending} / ` +
      `${f.lagFinal.msBehind} |`,
    `| a write late for its slot, at most (ms) | ${r.writer_late_ms_max} |`,
    `| the subscribers' thread busy (event loop utilization) | ${r.subscriber_thread_utilization} |`, '',
    troubles.length === 0 ? 'Every subscriber got every write\'s price_change once, in order, with the level the ' +
      'write left.' : `NOT clean: ${troubles.join('; ')}.`,
    // A writer that falls behind sends fewer updates a second than asked: the figures are then at its rate.
    ...(r.book_updates_per_s < RATE_HELD_MIN * r.rate_target_per_s ? ['', `The writer did not hold its rate: ` +
      `${r.book_updates_per_s}/s of ${r.rate_target_per_s}/s (the primary's answers came late; the figures are at ` +
      'the rate it had).'] : []),
  ].join('\n')
}

function settingsOf(flags: BenchFlags): Settings {
  return { quick: flags.quick, json: flags.json, seconds: flags.number('--seconds', flags.quick ? 4 : 20),
    warmUpSeconds: flags.quick ? 1 : 3, ratePerSecond: flags.number('--rate', 100),
    subscribers: flags.integer('--subscribers', 200) }
}

/** The subscribers' thread, started on the replica's market channel; resolves once every socket has its snapshot. */
async function startSubscribers(replica: BenchServer, tokenId: string, settings: Settings,
  stops: (() => Promise<void>)[]): Promise<{ worker: Worker; mailbox: Mailbox }> {
  // Room for events beyond the writes, so that any the replica sends unasked is seen and counted.
  const job: SubscriberJob = { url: `ws://127.0.0.1:${replica.restPort}/ws/market`, tokenId,
    subscribers: settings.subscribers, capacity: plannedWrites(settings) + 1_000 }
  const worker = new Worker(new URL(import.meta.url), { workerData: job })
  stops.push(async () => void await worker.terminate())
  const mailbox = new Mailbox(worker)
  const ready = await mailbox.next(SUBSCRIBE_MS_MAX + 5_000)
  if (ready.type !== 'ready') throw new Error(`the subscribers' thread said ${ready.type} before it was ready`)
  return { worker, mailbox }
}

/** The set-up on the primary, the subscribers on the replica, the writer's run, the drain. */
async function measure(primary: BenchServer, replica: BenchServer, settings: Settings,
  stops: (() => Promise<void>)[]): Promise<Figures> {
  const { traders, tokenId } = await setUpTraders(primary, TRADERS)
  const orders = signWriterOrders(traders, tokenId, settings)
  await replicaLevel(primary, replica)
  const { worker, mailbox } = await startSubscribers(replica, tokenId, settings, stops)
  log(`${settings.subscribers} subscribers on the replica's market channel; writing ${settings.ratePerSecond}/s ` +
    `for ${settings.warmUpSeconds} s (warm-up) + ${settings.seconds} s`)
  const clients = new Map(traders.map((trader) => [trader.address,
    new PredexClient({ baseUrl: primary.base, wallet: trader.wallet, credentials: trader.credentials })]))
  const writer = new Writer(orders, clients)
  const watch = new LagWatch(replica.base)
  const run = await runWriter(writer, settings).finally(() => watch.stop())
  worker.postMessage({ type: 'drain', writes: writer.writes.length } satisfies ToWorker)
  const done = await mailbox.next(DRAIN_MS_MAX + 10_000)
  if (done.type !== 'done') throw new Error(`the subscribers' thread said ${done.type} instead of its results`)
  const result = done.result
  const measured = writer.writes.filter((write) => write.measured)
  return { settings, writes: writer.writes, measured, failed: writer.failed, lateMsMax: run.lateMsMax,
    delivery: deliveryOf(writer.writes, result.receivedMs), mismatches: mismatchesOf(writer.writes, result),
    anomalies: result.anomalies, eventLoopUtilization: result.eventLoopUtilization,
    lagSamples: watch.samples.filter((sample) => sample.atMs >= run.warmEndMs).map((sample) => sample.lag),
    lagFinal: await replicaLagOf(replica.base),
    ackLatencyMs: sorted(measured.map((write) => write.ackMs - write.sentMs)) }
}

async function main(): Promise<void> {
  const flags = new BenchFlags()
  const settings = settingsOf(flags)
  log(`# Market-data fan-out from a read replica: ${settings.subscribers} subscribers, ${settings.ratePerSecond} ` +
    `writes/s, ${settings.seconds} s, ${availableParallelism()} cores, Node ${process.version}`)
  // Stopped in reverse order on every way out: the subscribers, the replica, the primary, the nats-server.
  const stops: (() => Promise<void>)[] = []
  try {
    const nats = await startNatsServer()
    stops.push(() => nats.stop())
    // One master key for both: a follower whose key is not its primary's is refused at start.
    const shared = ['--nats-servers', nats.url, '--master-key', randomBytes(32).toString('hex')]
    const primary = await startPredexServer({ args: [...shared, '--nats-replicas', '1'] })
    stops.push(() => primary.stop())
    const replica = await startPredexServer({ args: [...shared, '--role', 'replica', '--primary-url', primary.base] })
    stops.push(() => replica.stop())
    log(`nats-server ${nats.url} (pid ${nats.process.pid}), primary ${primary.base} (pid ${primary.pid}), ` +
      `replica ${replica.base} (pid ${replica.pid})`)
    const figures = await measure(primary, replica, settings, stops)
    const report = reportOf(figures)
    const markdown = markdownOf(figures, report)
    log('\n' + markdown)
    writeResults('replica-fanout', report, markdown)
    if (settings.json) console.log(JSON.stringify(report))
  } finally {
    for (const stop of stops.reverse()) {
      await stop().catch((error: unknown) => log(`while stopping: ${String(error)}`))
    }
  }
}

// The same file is the subscribers' thread (startSubscribers starts it with its job).
if (isMainThread) await main()
else await runSubscribers(workerData as SubscriberJob)
