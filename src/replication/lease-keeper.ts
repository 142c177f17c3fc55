/**
 * The primary keeps its lease (lease.ts): renewed every LEASE_RENEW_MS, from the moment it takes
 * it (a long recovery must not let it lapse). A renewal refused means another node holds it now:
 * `onLost` deposes this one at once (EngineHost.depose: it acknowledges nothing more) rather than
 * at its next append, which the command stream would refuse anyway. A
 * renewal that fails for want of an answer (NATS unreachable) is tried again at the next tick: the
 * lease may lapse meanwhile, and then the next renewal is refused.
 */
import { LEASE_RENEW_MS } from '../limits.js'
import type { Log } from '../log.js'
import type { Lease, LeaseHolder } from './lease.js'

export class LeaseKeeper {
  private timer: NodeJS.Timeout | null = null
  private renewing = false

  constructor(
    private readonly lease: Lease,
    private holder: LeaseHolder,
    /** `primary`: where the lease's new holder answers, when it says so. */
    private readonly onLost: (reason: string, primary: string | null) => void,
    private readonly log: Log,
  ) {}

  start(): this {
    this.timer = setInterval(() => void this.renew(), LEASE_RENEW_MS)
    return this
  }

  /** Where this node answers, written into the lease at its next renewal. */
  advertise(url: string): void {
    this.holder = { ...this.holder, url }
  }

  /** A clean stop: the lease is given up, so that a standby takes over at once. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    await this.lease.release()
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.timer === null) return
    this.renewing = true
    try {
      if (await this.lease.renew(this.holder)) return
      if (this.timer !== null) clearInterval(this.timer)
      this.timer = null
      const holder = await this.lease.holder().catch(() => null)
      const by = holder === null ? 'it lapsed' : `node ${holder.node} (${holder.url ?? 'no address yet'}) holds it`
      this.log.error('lost the primary\'s lease: acknowledging nothing more', { by })
      this.onLost(`this node lost the primary's lease: ${by}`, holder?.url ?? null)
    } catch (error) {
      this.log.warn('could not renew the primary\'s lease; trying again', { error: String(error) })
    } finally {
      this.renewing = false
    }
  }
}
