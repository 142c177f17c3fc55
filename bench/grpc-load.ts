/**
 * Load over gRPC for the benchmark, against the proto: unary calls in a closed loop (a fixed
 * number in flight, each waiting for its answer, as REST's connections do), order-entry sessions
 * pipelined (a window of requests in flight per session) or at a fixed rate (latency from each
 * request's due time, so a stall cannot hide), and the book stream's fan-out. Unary calls go over
 * raw sockets (grpc-raw-unary.ts) and sessions over the lean client (grpc-wire.ts), their requests
 * rendered before the phase as REST's are; `sdkUnaryClosedLoop` and the book streams use the SDK's
 * transport (grpc-js).
 */
import { create, toBinary } from '@bufbuild/protobuf'
import type { ClientReadableStream } from '@grpc/grpc-js'
import { fullMethodName, GrpcCallError, type GrpcTransport } from '../src/client/grpc/transport.js'
import { orderRequestInit } from '../src/client/grpc/order-request.js'
import { StreamService, type BookStreamResponse } from '../src/gen/predex/v1/streams_pb.js'
import { PlaceOrderRequestSchema, PlaceOrderResponseSchema, TradingService } from '../src/gen/predex/v1/trading_pb.js'
import { resultOf, type LoadResult } from './http-load.js'
import { outcomeOf, renderAction, type BenchSession, type RenderedAction } from './grpc-session.js'
import { l2Headers } from './grpc-wire.js'
import type { RawUnaryChannel } from './grpc-raw-unary.js'
import { messageDecoder } from '../src/api/grpc/message-decoder.js'
import type { SignedFor, Trader } from './predex-server.js'

function count(statuses: Record<string, number>, outcome: string): void {
  statuses[outcome] = (statuses[outcome] ?? 0) + 1
}

/** A PlaceOrderRequest rendered before its phase, and the order it carries. */
export interface RenderedOrder {
  readonly order: SignedFor
  readonly bytes: Uint8Array
}

const PLACE_ORDER_PATH = fullMethodName(TradingService.method.placeOrder)

/** Renders PlaceOrder requests (before a phase). */
export function renderOrders(orders: readonly SignedFor[]): RenderedOrder[] {
  return orders.map((order) => ({ order, bytes: toBinary(PlaceOrderRequestSchema,
    create(PlaceOrderRequestSchema, { order: orderRequestInit(order.signed) })) }))
}

/**
 * `perLane` calls in flight on each lane (a channel), each on the next of `items`, for `seconds`
 * or until the items run out; `call` makes one and gives its outcome, counted under it. Latency
 * runs from the call's start to its outcome.
 */
async function closedLoopOf<L, T>(lanes: readonly L[], perLane: number, seconds: number, items: readonly T[],
  call: (lane: L, item: T) => Promise<string>): Promise<LoadResult> {
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  let next = 0
  const start = performance.now()
  const end = start + seconds * 1000
  const worker = async (lane: L): Promise<void> => {
    while (performance.now() < end && next < items.length) {
      const item = items[next++]!
      const sent = performance.now()
      const outcome = await call(lane, item)
      latencies.push(performance.now() - sent)
      count(statuses, outcome)
    }
  }
  await Promise.all(lanes.flatMap((lane) => Array.from({ length: perLane }, () => worker(lane))))
  return resultOf(latencies, statuses, (performance.now() - start) / 1000)
}

/** The answers' reader: the server's own compiled decoder (message-decoder.ts), not protobuf-es's reflection. */
const readPlaceOrderAnswer = messageDecoder(PlaceOrderResponseSchema)

/**
 * PlaceOrder with `perChannel` calls in flight on each channel, for `seconds` or until the orders
 * run out: each call signed (L2) as it goes, its answer decoded; a call that brings back no answer
 * (refused or failed: the raw client does not read statuses) counts as `no answer`.
 */
export function unaryClosedLoop(channels: readonly RawUnaryChannel[], perChannel: number, seconds: number,
  orders: readonly RenderedOrder[], placed: SignedFor[]): Promise<LoadResult> {
  return closedLoopOf(channels, perChannel, seconds, orders, async (channel, { order, bytes }) => {
    const { answer } = await channel.unary(PLACE_ORDER_PATH, l2Headers(order.trader, PLACE_ORDER_PATH, bytes), bytes)
    const outcome = answer === null ? 'no answer' : readPlaceOrderAnswer(answer).placement?.status ?? 'no placement'
    if (outcome === 'live') placed.push(order)
    return outcome
  })
}

/** The same closed loop through the SDK's transport (grpc-js): what a Node client of the SDK gets. */
export function sdkUnaryClosedLoop(transports: readonly GrpcTransport[], perChannel: number, seconds: number,
  orders: readonly SignedFor[]): Promise<LoadResult> {
  return closedLoopOf(transports, perChannel, seconds, orders, (transport, order) =>
    transport.unary(TradingService.method.placeOrder, { order: orderRequestInit(order.signed) }, signerOf(order.trader))
      .then((answer) => answer.placement?.status ?? 'no placement',
        (error: unknown) => (error instanceof GrpcCallError ? error.code || `grpc ${error.grpcCode}` : String(error))))
}

function signerOf(trader: Trader): { credentials: Trader['credentials']; address: string } {
  return { credentials: trader.credentials, address: trader.address }
}

/** A request a session sends, and what to do with its answer's outcome. */
export interface SessionJob {
  /** Rendered before the phase (renderAction). */
  readonly request: RenderedAction
  done?(outcome: string): void
}

/** What a session sends next; null: nothing left for it. */
export type SessionWork = (session: BenchSession) => SessionJob | null

/** Every session keeps `window` requests in flight for `seconds` or until its work runs out. */
export async function pipelined(sessions: readonly BenchSession[], window: number, seconds: number,
  work: SessionWork): Promise<LoadResult> {
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  const start = performance.now()
  const end = start + seconds * 1000
  const lane = async (session: BenchSession): Promise<void> => {
    for (let job = work(session); job !== null && performance.now() < end; job = work(session)) {
      const sent = performance.now()
      const outcome = outcomeOf(await session.sendRendered(job.request))
      latencies.push(performance.now() - sent)
      count(statuses, outcome)
      job.done?.(outcome)
    }
  }
  await Promise.all(sessions.flatMap((session) => Array.from({ length: window }, () => lane(session))))
  return resultOf(latencies, statuses, (performance.now() - start) / 1000)
}

/**
 * Requests due at `ratePerSecond` in all, for `seconds`, each sent when due on the next session in
 * turn (a stream needs no free connection); latency from the due time to the answer.
 */
export function openLoop(sessions: readonly BenchSession[], ratePerSecond: number, seconds: number,
  work: SessionWork): Promise<LoadResult> {
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  const total = Math.max(1, Math.round(ratePerSecond * seconds))
  const start = performance.now()
  let scheduled = 0
  let settled = 0
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      if (++settled < scheduled || scheduled < total) return
      clearInterval(timer)
      resolve(resultOf(latencies, statuses, (performance.now() - start) / 1000))
    }
    const timer = setInterval(() => {
      const now = performance.now()
      while (scheduled < total && start + (scheduled * 1000) / ratePerSecond <= now) {
        const dueAt = start + (scheduled * 1000) / ratePerSecond
        const session = sessions[scheduled % sessions.length]!
        const job = work(session)
        if (job === null) return reject(new Error('the open loop ran out of work'))
        scheduled++
        void session.sendRendered(job.request).then((response) => {
          latencies.push(performance.now() - dueAt)
          const outcome = outcomeOf(response)
          count(statuses, outcome)
          job.done?.(outcome)
          settle()
        }, reject)
      }
    }, 1)
  })
}

/** One book stream subscriber: its updates after the snapshot, gaps in their numbers, the last one's time. */
class Subscriber {
  updates = 0
  gaps = 0
  lastSeq = -1n
  lastAtMs = 0
  readonly ready: Promise<void>

  constructor(readonly call: ClientReadableStream<BookStreamResponse>) {
    this.ready = new Promise((resolve, reject) => {
      call.on('data', (message: BookStreamResponse) => {
        if (message.update.case === 'snapshot') resolve()
        else {
          this.updates++
          this.lastAtMs = performance.now()
        }
        if (this.lastSeq >= 0n && message.seq !== this.lastSeq + 1n && message.update.case !== 'snapshot') this.gaps++
        this.lastSeq = message.seq
      })
      call.on('error', reject)
    })
  }

  reset(): void {
    this.updates = 0
    this.gaps = 0
  }
}

export interface FanOut {
  readonly subscribers: number
  /** Updates of the token per second (what each subscriber should get). */
  readonly sourceUpdatesPerSecond: number
  /** Updates delivered to all subscribers per second. */
  readonly deliveredPerSecond: number
  readonly delivered: number
  readonly gaps: number
  readonly seconds: number
  /** The source's own figure (the requests that changed the book). */
  readonly source: LoadResult
}

/** `subscribers` book streams on `tokenId` (round robin over the channels) while `source` changes the book. */
export async function fanOut(transports: readonly GrpcTransport[], subscribers: number, tokenId: string,
  source: () => Promise<LoadResult>): Promise<FanOut> {
  const streams = Array.from({ length: subscribers }, (_, i) => new Subscriber(transports[i % transports.length]!
    .serverStream(StreamService.method.bookStream, { tokenIds: [tokenId] }, null)))
  try {
    await Promise.all(streams.map((s) => s.ready))
    for (const s of streams) s.reset()
    const start = performance.now()
    const sourced = await source()
    await drained(streams)
    const delivered = streams.reduce((sum, s) => sum + s.updates, 0)
    // From the first request of the source to the last update delivered (the source's time if none came).
    const seconds = delivered === 0 ? sourced.seconds : (Math.max(...streams.map((s) => s.lastAtMs)) - start) / 1000
    const perSubscriber = Math.max(...streams.map((s) => s.updates))
    return { subscribers, sourceUpdatesPerSecond: perSubscriber / seconds, deliveredPerSecond: delivered / seconds,
      delivered, gaps: streams.reduce((sum, s) => sum + s.gaps, 0), seconds, source: sourced }
  } finally {
    for (const s of streams) {
      s.call.on('error', () => undefined)
      s.call.cancel()
    }
  }
}

/** Waits until every subscriber has the latest update any of them has, and nothing came for 200 ms (10 s at most). */
async function drained(streams: readonly Subscriber[]): Promise<void> {
  const deadline = performance.now() + 10_000
  for (;;) {
    const latest = streams.reduce((max, s) => (s.lastSeq > max ? s.lastSeq : max), -1n)
    const quiet = performance.now() - Math.max(...streams.map((s) => s.lastAtMs)) > 200
    if ((quiet && streams.every((s) => s.lastSeq === latest)) || performance.now() > deadline) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A job and whose session sends it. */
interface TraderJob {
  readonly trader: Trader
  readonly job: SessionJob
}

/** Each trader's jobs in turn: a session takes only its own trader's. */
function queuesOf(jobs: readonly TraderJob[]): SessionWork {
  const queues = new Map<string, { readonly jobs: SessionJob[]; next: number }>()
  for (const { trader, job } of jobs) {
    const queue = queues.get(trader.address) ?? { jobs: [], next: 0 }
    queue.jobs.push(job)
    queues.set(trader.address, queue)
  }
  return (session) => {
    const queue = queues.get(session.trader.address)
    return queue?.jobs[queue.next++] ?? null
  }
}

/**
 * Places `orders`, each on its trader's session; those that rest join `resting`. Build it before
 * the phase: it renders every request.
 */
export function placeWork(orders: readonly SignedFor[], resting: SignedFor[]): SessionWork {
  return queuesOf(orders.map((order) => ({ trader: order.trader, job: {
    request: renderAction({ case: 'place', value: orderRequestInit(order.signed) }),
    done: (outcome: string) => { if (outcome === 'live') resting.push(order) },
  } })))
}

/**
 * Places `orders` round and round, each on its trader's session: for gRPC's floor, which reads no
 * order (bench/grpc-baseline.ts), so a few hundred serve a whole phase.
 */
export function repeatWork(orders: readonly SignedFor[]): SessionWork {
  const byTrader = new Map<string, { readonly jobs: SessionJob[]; next: number }>()
  for (const order of orders) {
    const queue = byTrader.get(order.trader.address) ?? { jobs: [], next: 0 }
    queue.jobs.push({ request: renderAction({ case: 'place', value: orderRequestInit(order.signed) }) })
    byTrader.set(order.trader.address, queue)
  }
  return roundRobin(byTrader)
}

/** Each session's jobs round and round (none: null). */
function roundRobin(byTrader: ReadonlyMap<string, { readonly jobs: SessionJob[]; next: number }>): SessionWork {
  return (session) => {
    const queue = byTrader.get(session.trader.address)
    if (queue === undefined || queue.jobs.length === 0) return null
    return queue.jobs[queue.next++ % queue.jobs.length]!
  }
}

/**
 * Amends `orders` round and round, one lot (0.01 share) off each time, on their traders' sessions:
 * an order of 5 shares takes 499 amends, far more than a phase sends. Build it before the phase.
 */
export function amendWork(orders: readonly SignedFor[]): SessionWork {
  const byTrader = new Map<string, { readonly jobs: SessionJob[]; next: number }>()
  for (const order of orders) {
    const queue = byTrader.get(order.trader.address) ?? { jobs: [], next: 0 }
    queue.jobs.push({ request: renderAction({ case: 'amend',
      value: { orderId: order.signed.orderId, newSize: '', reduceBy: '0.01' } }) })
    byTrader.set(order.trader.address, queue)
  }
  return roundRobin(byTrader)
}

/** Cancels `orders` one request each, on their traders' sessions. Build it before the phase. */
export function cancelWork(orders: readonly SignedFor[]): SessionWork {
  return queuesOf(orders.map((order) => ({ trader: order.trader,
    job: { request: renderAction({ case: 'cancel', value: { orderId: order.signed.orderId } }) } })))
}

/** One trader's ladder updates for the mass quote phase: each a full ladder of signed orders. */
export interface LadderUpdates {
  readonly trader: Trader
  readonly updates: readonly (readonly SignedFor['signed'][])[]
}

/**
 * Mass quotes (workload of issue 31): each session re-quotes its trader's whole ladder, one update
 * after the other's answer (a session's quotes wait for each other), on `marketId`. An answer's
 * outcome: how many levels were kept, placed and refused ("kept 10 placed 10"). Build it before
 * the phase.
 */
export function quoteWork(marketId: string, ladders: readonly LadderUpdates[]): SessionWork {
  return queuesOf(ladders.flatMap(({ trader, updates }) => updates.map((update) => ({ trader, job: {
    request: renderAction({ case: 'massQuote', value: { market: marketId,
      orders: update.map((signed) => orderRequestInit(signed, { postOnly: true })) } }),
  } }))))
}
