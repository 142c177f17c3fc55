/**
 * The signature verification pool: order signatures are verified on piscina threads, off the
 * thread that serves HTTP and gRPC. Orders submitted in the same event-loop turn travel together
 * (up to VERIFY_BATCH_MAX in a task), to amortise the messaging.
 *
 * Bounded and fair (issue 14, finding 2): at most VERIFY_PENDING_ORDERS_MAX orders are queued or
 * being verified, and at most VERIFY_PENDING_PER_KEY_MAX of one key (the trader); past either, a
 * new order is refused at once with SIGNATURE_POOL_BUSY and a Retry-After rather than queued
 * until every trader waits seconds. Orders wait in one queue per key, and each task takes one
 * order from each waiting key in turn, so a flood's backlog never stands in front of another
 * trader's order: with K keys waiting, an order waits for about K others, not for the backlog.
 * A light key (at most VERIFY_LIGHT_KEY_ORDERS_MAX pending) may also use a reserve beyond the
 * pool-wide bound, so that when a flood fills the pool the flooders are refused, not everyone.
 */
import { Piscina } from 'piscina'
import { availableParallelism } from 'node:os'
import { ServiceCode, PredexError } from '../errors.js'
import { VERIFY_BATCH_MAX, VERIFY_LIGHT_KEY_ORDERS_MAX, VERIFY_LIGHT_RESERVE_ORDERS, VERIFY_PENDING_ORDERS_MAX,
  VERIFY_PENDING_PER_KEY_MAX, VERIFY_RETRY_AFTER_SEC, VERIFY_TASKS_PER_THREAD, VERIFY_THREAD_START_WAIT_MS,
  VERIFIER_THREAD_NICE } from '../limits.js'
import type { OrderToVerify, Verdict } from './verify-order.js'
import type { VerifyTask, VerifyThreadData, VerifyThreadStarted } from './verify-worker.js'
import type { SigBackend } from './sig-backend.js'
import { startThread } from '../thread-start.js'

export interface VerifierPoolOptions {
  readonly chainId: number
  readonly threads?: number
  /** The threads' signature backend (sig-backend.ts): noble unless told. */
  readonly backend?: SigBackend
  /** Whether noble's threads use the signer cache (the benchmark measures both; native never needs it). */
  readonly useCache?: boolean
  readonly batchMax?: number
  /** Orders queued or being verified at once (VERIFY_PENDING_ORDERS_MAX unless told). */
  readonly pendingMax?: number
  /** Of those, of one key (VERIFY_PENDING_PER_KEY_MAX unless told). */
  readonly perKeyMax?: number
  /** Beyond pendingMax, for light keys only (VERIFY_LIGHT_RESERVE_ORDERS unless told). */
  readonly lightReserve?: number
  /** The threads' nice value (VERIFIER_THREAD_NICE unless told; verify-worker.ts says why). */
  readonly nice?: number
  /** Told each order's verdict and its time in the pool, waiting included (for /metrics). */
  readonly onVerdict?: (result: 'valid' | 'invalid' | 'failed', seconds: number) => void
  /** Told each thread's kernel id as it starts (for /metrics' CPU by thread: src/thread-cpu.ts). */
  readonly onThread?: (tid: number) => void
}

interface Waiting {
  readonly order: OrderToVerify
  readonly key: string
  /** performance.now() when it entered the pool. */
  readonly enteredMs: number
  readonly resolve: (verdict: Verdict) => void
  readonly reject: (error: Error) => void
}

export class VerifierPool {
  private readonly pool: Piscina<VerifyTask, Verdict[]>
  private readonly batchMax: number
  private readonly pendingMax: number
  private readonly perKeyMax: number
  private readonly lightReserve: number
  private readonly tasksMax: number
  /** Key -> its orders waiting for a task, oldest first; a key is here only while it has some. */
  private readonly waiting = new Map<string, Waiting[]>()
  /** Key -> its orders waiting or being verified. */
  private readonly pendingByKey = new Map<string, number>()
  /** Orders handed to verify() and not answered yet. */
  private pending = 0
  private tasksRunning = 0
  private dispatchScheduled = false
  private held = false
  /** Threads that have reported their start (their module loaded); a restarted one counts again. */
  private threadsStarted = 0
  private readonly startWaiting: (() => void)[] = []

  constructor(private readonly options: VerifierPoolOptions) {
    const threads = options.threads ?? availableParallelism()
    this.batchMax = options.batchMax ?? VERIFY_BATCH_MAX
    this.pendingMax = options.pendingMax ?? VERIFY_PENDING_ORDERS_MAX
    this.perKeyMax = options.perKeyMax ?? VERIFY_PENDING_PER_KEY_MAX
    this.lightReserve = options.lightReserve ?? VERIFY_LIGHT_RESERVE_ORDERS
    this.tasksMax = threads * VERIFY_TASKS_PER_THREAD
    // The pool holds at most tasksMax tasks, so piscina's own queue stays short: waiting is fair here.
    this.pool = startThread('verify-worker', import.meta.url, (url, flags) => new Piscina({ filename: url.href,
      ...flags, minThreads: threads, maxThreads: threads, maxQueue: this.tasksMax,
      workerData: { nice: options.nice ?? VERIFIER_THREAD_NICE } satisfies VerifyThreadData }))
    this.pool.on('message', (message: Partial<VerifyThreadStarted> | null) => {
      if (typeof message?.verifyThreadId !== 'number') return
      this.threadsStarted++
      options.onThread?.(message.verifyThreadId)
      for (const waiting of this.startWaiting.splice(0)) waiting()
    })
  }

  get threads(): number {
    return this.pool.maxThreads
  }

  /** Orders waiting for a thread or being verified (for /metrics). */
  get queueSize(): number {
    return this.pending
  }

  /** Tasks (batches of orders) on the threads now (for /metrics). */
  get tasksRunningCount(): number {
    return this.tasksRunning
  }

  /**
   * Throws SIGNATURE_POOL_BUSY unless `count` more orders of `key` fit both bounds now: a batch
   * is refused whole, with one Retry-After, rather than half verified and half refused.
   */
  admit(count: number, key = ''): void {
    const keyPending = (this.pendingByKey.get(key) ?? 0) + count
    const pendingMax = keyPending <= VERIFY_LIGHT_KEY_ORDERS_MAX ? this.pendingMax + this.lightReserve : this.pendingMax
    if (this.pending + count > pendingMax) throw this.busy({ pendingMax: this.pendingMax })
    if (keyPending > this.perKeyMax) throw this.busy({ perKeyMax: this.perKeyMax })
  }

  /** The verdict on one order; `key` (the trader's address) is whose turn it waits for. */
  verify(order: OrderToVerify, key = ''): Promise<Verdict> {
    try {
      this.admit(1, key)
    } catch (error) {
      return Promise.reject(error as Error)
    }
    this.pending++
    this.pendingByKey.set(key, (this.pendingByKey.get(key) ?? 0) + 1)
    return new Promise<Verdict>((resolve, reject) => {
      const queue = this.waiting.get(key)
      const entry: Waiting = { order, key, enteredMs: performance.now(), resolve, reject }
      if (queue === undefined) this.waiting.set(key, [entry])
      else queue.push(entry)
      // Orders submitted in this event-loop turn go out together: dispatch once its callbacks have
      // run (a microtask ran after each request's callback, so each request was its own task).
      if (!this.dispatchScheduled) {
        this.dispatchScheduled = true
        setImmediate(() => this.dispatch())
      }
    })
  }

  /**
   * Tests: no task goes to the threads until the returned release is called; orders admitted
   * meanwhile wait, counted as pending. A test of what a full queue does cannot otherwise keep it
   * full: the threads drain it while the test's requests are still arriving.
   */
  hold(): () => void {
    this.held = true
    return () => {
      this.held = false
      this.dispatch()
    }
  }

  /**
   * Verifies what waits, then ends the threads, once each has started (for at most
   * VERIFY_THREAD_START_WAIT_MS): terminating a thread while it still loads its module made Node
   * 20 abort the whole process ("v8::Module::IsGraphAsync must be used on an instantiated
   * module", in a CI run), and a server stopped right after its start did that.
   */
  async close(): Promise<void> {
    this.held = false
    this.dispatch()
    await this.threadsStart(VERIFY_THREAD_START_WAIT_MS)
    await this.pool.close()
  }

  /** Resolves when every thread has started, or after `waitMsMax`. */
  private async threadsStart(waitMsMax: number): Promise<void> {
    const deadline = performance.now() + waitMsMax
    while (this.threadsStarted < this.threads && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - performance.now())
        this.startWaiting.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  private busy(bound: Record<string, number>): PredexError {
    return new PredexError(ServiceCode.SIGNATURE_POOL_BUSY, 'signature verification is at capacity: retry shortly',
      { ...bound, retryAfterSeconds: VERIFY_RETRY_AFTER_SEC })
  }

  /** Hands tasks to the threads while they have room and orders wait. */
  private dispatch(): void {
    this.dispatchScheduled = false
    while (!this.held && this.tasksRunning < this.tasksMax && this.waiting.size > 0) this.run(this.nextBatch())
  }

  /** Up to batchMax orders, one from each waiting key in turn (a key with none left leaves the turn). */
  private nextBatch(): Waiting[] {
    const batch: Waiting[] = []
    while (batch.length < this.batchMax && this.waiting.size > 0) {
      for (const [key, queue] of this.waiting) {
        batch.push(queue.shift()!)
        // Deleted and, when it still has orders, added again: the Map's order is the turn's order.
        this.waiting.delete(key)
        if (queue.length > 0) this.waiting.set(key, queue)
        if (batch.length >= this.batchMax) break
      }
    }
    return batch
  }

  private run(batch: readonly Waiting[]): void {
    this.tasksRunning++
    const task: VerifyTask = { chainId: this.options.chainId, orders: batch.map((w) => w.order),
      backend: this.options.backend ?? 'noble', useCache: this.options.useCache ?? true }
    const settle = (): void => {
      this.tasksRunning--
      for (const waiting of batch) this.release(waiting.key)
      this.dispatch()
    }
    this.pool.run(task).then(
      (verdicts) => {
        settle()
        batch.forEach((waiting, i) => {
          this.told(waiting, verdicts[i]!.ok ? 'valid' : 'invalid')
          waiting.resolve(verdicts[i]!)
        })
      },
      (error: unknown) => {
        settle()
        const failure = new PredexError(ServiceCode.SIGNATURE_POOL_BUSY,
          `signature verification failed: ${String(error)}`)
        for (const waiting of batch) {
          this.told(waiting, 'failed')
          waiting.reject(failure)
        }
      },
    )
  }

  private told(waiting: Waiting, result: 'valid' | 'invalid' | 'failed'): void {
    this.options.onVerdict?.(result, (performance.now() - waiting.enteredMs) / 1000)
  }

  private release(key: string): void {
    this.pending--
    const left = (this.pendingByKey.get(key) ?? 1) - 1
    if (left === 0) this.pendingByKey.delete(key)
    else this.pendingByKey.set(key, left)
  }
}
