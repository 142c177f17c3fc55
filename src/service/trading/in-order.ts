/**
 * Engine commands in request order, with the work before them in parallel: what an order-entry
 * session needs so that a cancel sent after a place applies after it, while the signatures of
 * consecutive places are checked at the same time on the pool.
 *
 * Each step has a `prepare` (may take any time: signature checks) and a `commit`, called only
 * once every earlier step has called its own commit (or failed, or been skipped). A commit
 * writes its engine command before it returns (host.submit writes the ring synchronously:
 * engine-host.ts), so the commands enter the ring, and the single-writer engine applies them, in
 * the order of `run` calls. Nothing waits for an earlier command to be durable: requests stay
 * pipelined all the way to the journal.
 *
 * Prepares run at once while their weights (orders to verify) stay within `preparingMax`; the
 * rest start, in order, as earlier ones finish. One client pipelining hundreds of orders then
 * takes a bounded share of the verification pool instead of filling its queue
 * (SIGNATURE_POOL_BUSY) for everyone, itself included.
 */
interface Waiting {
  readonly weight: number
  readonly start: () => void
}

export class InOrder {
  /** Settles once the last step's commit was called (or will never be). */
  private tail: Promise<void> = Promise.resolve()
  private preparing = 0
  /** At most a session's requests in flight (ORDER_ENTRY_IN_FLIGHT_MAX): a shift is cheap. */
  private readonly waiting: Waiting[] = []

  constructor(private readonly preparingMax: number) {}

  /**
   * Runs `prepare` (now, or when the weights before it allow) and `commit(prepared)` in turn;
   * resolves with the commit's result, or rejects with the first failure. A failed prepare skips
   * its commit and lets the next step go. `weight` 0: the prepare is not counted (nothing to verify).
   */
  run<P, R>(prepare: () => Promise<P>, commit: (prepared: P) => Promise<R>, weight: number): Promise<R> {
    const prepared = this.started(prepare, weight)
    // Handled now, awaited later: a prepare that fails while earlier steps wait is not "unhandled".
    prepared.catch(() => undefined)
    const previous = this.tail
    let release: () => void = () => undefined
    this.tail = new Promise((resolve) => {
      release = resolve
    })
    return this.turn(previous, prepared, commit, release)
  }

  /** After every earlier step: the commit (its command written before it returns), then the release. */
  private async turn<P, R>(previous: Promise<void>, prepared: Promise<P>, commit: (prepared: P) => Promise<R>,
    release: () => void): Promise<R> {
    let committed: Promise<R>
    try {
      await previous
      committed = commit(await prepared)
    } finally {
      release()
    }
    return committed
  }

  private started<P>(prepare: () => Promise<P>, weight: number): Promise<P> {
    if (weight === 0 || (this.waiting.length === 0 && this.fits(weight))) {
      return this.prepareNow(prepare, weight)
    }
    return new Promise<P>((resolve) => {
      this.waiting.push({ weight, start: () => resolve(this.prepareNow(prepare, weight)) })
    })
  }

  /** A step that fits, or any step when nothing else is being prepared (a batch heavier than the bound). */
  private fits(weight: number): boolean {
    return this.preparing === 0 || this.preparing + weight <= this.preparingMax
  }

  private prepareNow<P>(prepare: () => Promise<P>, weight: number): Promise<P> {
    this.preparing += weight
    let prepared: Promise<P>
    try {
      prepared = prepare()
    } catch (error) {
      prepared = Promise.reject(error)
    }
    const done = (): void => {
      this.preparing -= weight
      this.startWaiting()
    }
    prepared.then(done, done)
    return prepared
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.weight)) this.waiting.shift()!.start()
  }
}
