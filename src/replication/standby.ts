/**
 * A standby (issue 34, point 2): a read replica (replica-feed.ts) that takes over when the
 * primary's lease lapses. Every LEASE_POLL_MS it reads the lease: held, it points its refusals
 * of writes at the holder's address; gone, it takes it, applies the stream to its end, stops
 * following, opens the replicated log at that end (EngineHost.promote: the stream's fencing makes
 * sure nobody appended in between), and from then on is the primary, keeping the lease.
 */
import type { EngineHost } from '../host/engine-host.js'
import { LEASE_POLL_MS, LEASE_TTL_MS } from '../limits.js'
import type { Log } from '../log.js'
import type { ReplicationOptions } from './jetstream-log.js'
import type { Lease, LeaseHolder } from './lease.js'
import { LeaseKeeper } from './lease-keeper.js'
import type { ReplicaFeed } from './replica-feed.js'

export class Standby {
  private timer: NodeJS.Timeout | null = null
  private busy = false
  private keeper: LeaseKeeper | null = null

  constructor(
    private readonly host: EngineHost,
    private readonly feed: ReplicaFeed,
    private readonly lease: Lease,
    private readonly replication: ReplicationOptions,
    private readonly self: LeaseHolder,
    private readonly log: Log,
    /** Told once the takeover is done (the node starts what only a primary runs). */
    private readonly onPromoted: () => void = () => undefined,
  ) {}

  start(): this {
    this.timer = setInterval(() => void this.poll(), LEASE_POLL_MS)
    return this
  }

  /** Whether it has taken over. */
  get isPrimary(): boolean {
    return this.keeper !== null
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    await this.keeper?.stop()
  }

  private async poll(): Promise<void> {
    if (this.busy || this.timer === null) return
    this.busy = true
    try {
      const holder = await this.lease.holder()
      if (holder !== null) this.host.follow(holder.url)
      else if (await this.lease.acquire(this.self)) await this.takeOver()
    } catch (error) {
      this.log.warn('standby: the lease could not be read or taken; trying again', { error: String(error) })
    } finally {
      this.busy = false
    }
  }

  /**
   * The lease is ours: catch up to the stream's end, then promote with the feed paused. A
   * promotion the stream refuses (it moved on: the old primary's last record landed meanwhile)
   * gives the lease back and goes on following, to try again at a later poll.
   */
  private async takeOver(): Promise<void> {
    const started = Date.now()
    const depose = (reason: string, primary: string | null): void => this.host.depose(reason, primary)
    this.keeper = new LeaseKeeper(this.lease, this.self, depose, this.log,
      (confirmed) => this.host.leaseConfirmed(confirmed)).start()
    try {
      const end = await this.feed.end()
      await this.feed.drainTo(end.lastSeq, LEASE_TTL_MS * 5)
      this.feed.pause()
      const seq = await this.host.promote(this.replication)
      if (this.timer !== null) clearInterval(this.timer)
      this.timer = null
      await this.feed.stop()
      this.log.info('took over as the primary', { seq, streamRecord: end.streamSeq, ms: Date.now() - started })
      this.onPromoted()
    } catch (error) {
      this.log.warn('standby: the takeover did not complete; following on and giving the lease back',
        { error: String(error) })
      this.feed.resume()
      await this.keeper.stop()
      this.keeper = null
    }
  }
}
