/**
 * The primary keeps its lease (lease.ts): renewed every LEASE_RENEW_MS, from the moment it takes
 * it (a long recovery must not let it lapse). A renewal refused means another node holds it now:
 * `onLost` deposes this one at once (EngineHost.depose: it acknowledges nothing more) rather than
 * at its next append, which the command stream would refuse anyway. A
 * renewal that fails for want of an answer (NATS unreachable) is tried again at the next tick: the
 * lease may lapse meanwhile, and then the next renewal is refused. Once no renewal has succeeded
 * for the lease's life (LEASE_TTL_MS), `onConfirmed(false)`: another node may hold it by now, so
 * the host refuses writes (and a load balancer's /ready?role=primary) even while nobody writes
 * (an idle primary cut off from NATS stalls no append); `onConfirmed(true)` at the next renewal
 * that succeeds.
 */
import { LEASE_RENEW_MS, LEASE_TTL_MS } from '../limits.js'
import type { Log } from '../log.js'
import type { Lease, LeaseHolder } from './lease.js'

export class LeaseKeeper {
  private timer: NodeJS.Timeout | null = null
  /** The renewal in flight, if any (one at a time). */
  private renewal: Promise<void> | null = null
  /** Stopped, or the lease lost: nothing it learns after that is acted on. */
  private done = false
  /** When a renewal last succeeded (from the start: the lease was just taken). */
  private renewedMs = Date.now()
  private confirmed = true

  constructor(
    private readonly lease: Lease,
    private holder: LeaseHolder,
    /** `primary`: where the lease's new holder answers, when it says so. */
    private readonly onLost: (reason: string, primary: string | null) => void,
    private readonly log: Log,
    private readonly onConfirmed: (confirmed: boolean) => void = () => undefined,
  ) {}

  start(): this {
    this.timer = setInterval(() => this.tick(), LEASE_RENEW_MS)
    return this
  }

  /** Whether a renewal has succeeded within the lease's life (what `onConfirmed` last said). */
  get isConfirmed(): boolean {
    return this.confirmed
  }

  /** Where this node answers, written into the lease at its next renewal. */
  advertise(url: string): void {
    this.holder = { ...this.holder, url }
  }

  /**
   * A clean stop: the lease is given up, so that a standby takes over at once. A renewal in flight
   * ends first, and its answer is not acted on: it shares the lease's revision with the release,
   * and a standby whose takeover failed stops its keeper and may take the lease again at once with
   * a new one, which that late answer would otherwise depose (test/unit/replication/lease-keeper.test.ts).
   */
  async stop(): Promise<void> {
    this.done = true
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    await this.renewal
    await this.lease.release()
  }

  private tick(): void {
    // Before the renewal in progress, which may wait long for an answer that does not come.
    if (this.confirmed && Date.now() - this.renewedMs > LEASE_TTL_MS) this.confirm(false)
    if (this.renewal !== null || this.done) return
    this.renewal = this.renew().finally(() => { this.renewal = null })
  }

  private async renew(): Promise<void> {
    try {
      const renewed = await this.lease.renew(this.holder)
      if (this.done) return
      if (renewed) {
        this.renewedMs = Date.now()
        if (!this.confirmed) this.confirm(true)
        return
      }
      this.done = true
      if (this.timer !== null) clearInterval(this.timer)
      this.timer = null
      const holder = await this.lease.holder().catch(() => null)
      const by = holder === null ? 'it lapsed' : `node ${holder.node} (${holder.url ?? 'no address yet'}) holds it`
      this.log.error('lost the primary\'s lease: acknowledging nothing more', { by })
      this.onLost(`this node lost the primary's lease: ${by}`, holder?.url ?? null)
    } catch (error) {
      if (!this.done) this.log.warn('could not renew the primary\'s lease; trying again', { error: String(error) })
    }
  }

  private confirm(confirmed: boolean): void {
    this.confirmed = confirmed
    if (confirmed) this.log.warn('renewed the primary\'s lease again: taking writes')
    else this.log.error('could not renew the primary\'s lease for its life: refusing writes until it can')
    this.onConfirmed(confirmed)
  }
}
