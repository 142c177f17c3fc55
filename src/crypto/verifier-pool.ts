/**
 * The signature verification pool: order signatures are verified on piscina threads, off the
 * thread that serves HTTP and gRPC. Orders submitted in the same event-loop turn travel as one
 * task (up to VERIFY_BATCH_MAX), to amortise the messaging. The queue is bounded in orders: when
 * VERIFY_PENDING_ORDERS_MAX are queued or being verified, a new order is refused at once with
 * SIGNATURE_POOL_BUSY (and a Retry-After) rather than queued until every trader waits seconds.
 */
import { Piscina } from 'piscina'
import { availableParallelism } from 'node:os'
import { ServiceCode, PredexError } from '../errors.js'
import { VERIFY_BATCH_MAX, VERIFY_PENDING_ORDERS_MAX, VERIFY_RETRY_AFTER_SEC } from '../limits.js'
import type { OrderToVerify, Verdict } from './verify-order.js'
import type { VerifyTask } from './verify-worker.js'

export interface VerifierPoolOptions {
  readonly chainId: number
  readonly threads?: number
  readonly useCache?: boolean
  readonly batchMax?: number
  /** Orders queued or being verified at once (VERIFY_PENDING_ORDERS_MAX unless told). */
  readonly pendingMax?: number
}

interface Waiting {
  readonly order: OrderToVerify
  readonly resolve: (verdict: Verdict) => void
  readonly reject: (error: Error) => void
}

export class VerifierPool {
  private readonly pool: Piscina<VerifyTask, Verdict[]>
  private batch: Waiting[] = []
  private flushScheduled = false
  private readonly batchMax: number
  private readonly pendingMax: number
  /** Orders handed to verify() and not answered yet. */
  private pending = 0

  constructor(private readonly options: VerifierPoolOptions) {
    const threads = options.threads ?? availableParallelism()
    this.batchMax = options.batchMax ?? VERIFY_BATCH_MAX
    this.pendingMax = options.pendingMax ?? VERIFY_PENDING_ORDERS_MAX
    // Every task holds at least one pending order, so piscina's own queue never passes this bound.
    this.pool = new Piscina({ filename: workerUrl().href, minThreads: threads, maxThreads: threads,
      maxQueue: this.pendingMax })
  }

  get threads(): number {
    return this.pool.maxThreads
  }

  /** Tasks waiting for a thread (for /metrics). */
  get queueSize(): number {
    return this.pool.queueSize
  }

  verify(order: OrderToVerify): Promise<Verdict> {
    if (this.pending >= this.pendingMax) {
      return Promise.reject(new PredexError(ServiceCode.SIGNATURE_POOL_BUSY,
        'signature verification is at capacity: retry shortly',
        { pendingMax: this.pendingMax, retryAfterSeconds: VERIFY_RETRY_AFTER_SEC }))
    }
    this.pending++
    return new Promise<Verdict>((resolve, reject) => {
      const done = (): void => { this.pending-- }
      this.batch.push({ order, resolve: (v) => { done(); resolve(v) }, reject: (e) => { done(); reject(e) } })
      if (this.batch.length >= this.batchMax) this.flush()
      else if (!this.flushScheduled) {
        this.flushScheduled = true
        queueMicrotask(() => this.flush())
      }
    })
  }

  async close(): Promise<void> {
    this.flush()
    await this.pool.close()
  }

  private flush(): void {
    this.flushScheduled = false
    if (this.batch.length === 0) return
    const batch = this.batch
    this.batch = []
    const task: VerifyTask = { chainId: this.options.chainId, orders: batch.map((w) => w.order),
      useCache: this.options.useCache ?? true }
    this.pool.run(task).then(
      (verdicts) => batch.forEach((waiting, i) => waiting.resolve(verdicts[i]!)),
      (error: unknown) => {
        const failure = new PredexError(ServiceCode.SIGNATURE_POOL_BUSY,
          `signature verification failed: ${String(error)}`)
        for (const waiting of batch) waiting.reject(failure)
      },
    )
  }
}

function workerUrl(): URL {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js'
  return new URL(`./verify-worker.${extension}`, import.meta.url)
}
