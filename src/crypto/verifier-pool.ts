/**
 * The signature verification pool: order signatures are verified on piscina threads, off the
 * thread that serves HTTP and gRPC. Orders submitted in the same event-loop turn travel as one
 * task (up to VERIFY_BATCH_MAX), to amortise the messaging. The queue is bounded: when
 * VERIFY_QUEUE_MAX tasks wait, a new order is refused at once with SIGNATURE_POOL_BUSY rather
 * than queued without end.
 */
import { Piscina } from 'piscina'
import { availableParallelism } from 'node:os'
import { ServiceCode, PredexError } from '../errors.js'
import { VERIFY_BATCH_MAX, VERIFY_QUEUE_MAX } from '../limits.js'
import type { OrderToVerify, Verdict } from './verify-order.js'
import type { VerifyTask } from './verify-worker.js'

export interface VerifierPoolOptions {
  readonly chainId: number
  readonly threads?: number
  readonly useCache?: boolean
  readonly batchMax?: number
  readonly queueMax?: number
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
  private readonly queueMax: number

  constructor(private readonly options: VerifierPoolOptions) {
    const threads = options.threads ?? availableParallelism()
    this.batchMax = options.batchMax ?? VERIFY_BATCH_MAX
    this.queueMax = options.queueMax ?? VERIFY_QUEUE_MAX
    this.pool = new Piscina({ filename: workerUrl().href, minThreads: threads, maxThreads: threads,
      maxQueue: this.queueMax })
  }

  get threads(): number {
    return this.pool.maxThreads
  }

  /** Tasks waiting for a thread (for /metrics). */
  get queueSize(): number {
    return this.pool.queueSize
  }

  verify(order: OrderToVerify): Promise<Verdict> {
    if (this.pool.queueSize >= this.queueMax) {
      return Promise.reject(new PredexError(ServiceCode.SIGNATURE_POOL_BUSY,
        'signature verification is at capacity: retry shortly', { queueMax: this.queueMax }))
    }
    return new Promise<Verdict>((resolve, reject) => {
      this.batch.push({ order, resolve, reject })
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
