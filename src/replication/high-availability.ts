/**
 * A node's part in high availability (issue 34), by its role (--role), when it has NATS servers:
 * a primary takes the lease before it writes (a start is refused while another node holds it),
 * keeps it from then on, and writes its address into it once it listens; a standby follows the
 * stream and takes over when the lease lapses (standby.ts); a replica only follows. Both first cut
 * their journal to what the stream agrees with (rejoin.ts: a deposed primary restarted). At a clean
 * stop the primary gives the lease up after its last group, so that a standby takes over at once.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import type { MasterKey } from '../crypto/master-key.js'
import type { EngineHost } from '../host/engine-host.js'
import { NATS_CONNECT_TIMEOUT_MS } from '../limits.js'
import type { Log } from '../log.js'
import type { OpenedParts } from '../opened-parts.js'
import { Lease, type LeaseHolder } from './lease.js'
import { LeaseKeeper } from './lease-keeper.js'
import type { ReplicaFeed } from './replica-feed.js'
import { Standby } from './standby.js'
import { levelWithStream } from './rejoin.js'

/** The settings high availability reads (of src/config.ts Config, which the server passes). */
interface HaConfig {
  readonly natsServers: readonly string[] | null
  readonly natsStream: string
  readonly natsReplicas: number
  readonly role: 'primary' | 'replica' | 'standby'
  readonly dataDir: string
}

export class HighAvailability {
  private keeper: LeaseKeeper | null = null
  private standby: Standby | null = null
  private host: EngineHost | null = null
  /** Why the lease was lost before the host was there to be told, and who holds it. */
  private lostBefore: { readonly reason: string; readonly primary: string | null } | null = null

  private constructor(
    private readonly config: HaConfig & { readonly natsServers: readonly string[] },
    private readonly connection: NatsConnection,
    private readonly lease: Lease,
    private self: LeaseHolder,
    private readonly log: Log,
  ) {}

  /** Null without NATS servers. A primary holds the lease when this resolves, or the start fails. */
  static async open(config: HaConfig, masterKey: MasterKey, log: Log, opened: OpenedParts):
    Promise<HighAvailability | null> {
    if (config.natsServers === null) return null
    const connection = await connect({ servers: [...config.natsServers], name: `predex-${config.role}`,
      timeout: NATS_CONNECT_TIMEOUT_MS, maxReconnectAttempts: -1 })
    const self: LeaseHolder = { node: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`, url: null,
      masterKeyId: masterKey.id() }
    const ha = new HighAvailability({ ...config, natsServers: config.natsServers }, connection,
      await Lease.open(connection, config.natsStream, config.natsReplicas), self, log)
    opened.add(() => ha.stop())
    if (config.role === 'primary') {
      await ha.takeLease()
      return ha
    }
    await ha.checkMasterKey()
    // A follower's journal must be a prefix of the stream (a deposed primary's may not be): before it recovers.
    await levelWithStream(config.dataDir, { servers: config.natsServers, stream: config.natsStream }, log)
    return ha
  }

  /**
   * The node is up and listens at `url`: the primary advertises it, a standby starts watching the
   * lease; `promoted` runs once a standby has taken over (what only a primary runs: GTD expiry).
   */
  started(host: EngineHost, feed: ReplicaFeed | null, url: string, promoted: () => void): void {
    this.host = host
    this.self = { ...this.self, url }
    this.keeper?.advertise(url)
    if (this.lostBefore !== null) host.depose(this.lostBefore.reason, this.lostBefore.primary)
    // What the keeper said while the host recovered reached nobody: told now.
    if (this.keeper !== null) host.leaseConfirmed(this.keeper.isConfirmed)
    if (this.config.role === 'standby' && feed !== null) {
      this.standby = new Standby(host, feed, this.lease, { servers: this.config.natsServers,
        stream: this.config.natsStream, replicas: this.config.natsReplicas }, this.self, this.log,
        promoted).start()
    }
  }

  async stop(): Promise<void> {
    await this.keeper?.stop()
    this.keeper = null
    await this.standby?.stop()
    this.standby = null
    await this.connection.close()
  }

  /**
   * A follower's master key must be the primary's: keys made there derive their secrets from it,
   * and with another one this node would refuse them all ("the passphrase does not match") and,
   * promoted, every client's key. Checked against the lease's holder; with no primary up yet there
   * is nothing to compare with, and the start goes on.
   */
  private async checkMasterKey(): Promise<void> {
    const holder = await this.lease.holder()
    if (holder === null) {
      this.log.warn('no primary holds the lease: this node\'s master key could not be compared with its')
      return
    }
    if (holder.masterKeyId === this.self.masterKeyId) return
    throw new Error(`this node's master key is not the primary's (${holder.url ?? holder.node}): API keys made on `
      + 'one would not verify on the other; give every node the same PREDEX_MASTER_KEY (--master-key)')
  }

  private async takeLease(): Promise<void> {
    if (!await this.lease.acquire(this.self)) {
      const holder = await this.lease.holder()
      throw new Error(`another node holds the primary's lease (${holder?.node ?? 'it lapses soon'}, `
        + `${holder?.url ?? 'no address yet'}): start this one with --role standby or --role replica`)
    }
    this.keeper = new LeaseKeeper(this.lease, this.self, (reason, primary) => {
      if (this.host === null) this.lostBefore = { reason, primary }
      else this.host.depose(reason, primary)
    }, this.log, (confirmed) => this.host?.leaseConfirmed(confirmed)).start()
  }
}
