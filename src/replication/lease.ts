/**
 * The primary's lease (issue 34, point 2): one JetStream key-value entry, `primary` in the bucket
 * `<stream>_LEASE`, whose entries live LEASE_TTL_MS unless written again. The node that creates it
 * is the primary; it renews it by compare-and-set on its revision; a standby that finds it gone
 * (the primary stopped renewing: dead, stuck or cut off) creates it and takes over. Two nodes can
 * never both create it, and a holder whose renewal is refused knows it lost it. The value says
 * who holds it and where it answers, so that the other nodes can send clients there.
 *
 * The lease alone does not fence a deposed primary that has not noticed yet: the command stream
 * does (Nats-Expected-Last-Sequence, jetstream-log.ts), so at most one of them appends.
 */
import type { NatsConnection } from '@nats-io/transport-node'
import { Kvm, type KV } from '@nats-io/kv'
import { LEASE_RECLAIM_READS_MAX, LEASE_TTL_MS } from '../limits.js'

const KEY = 'primary'

export interface LeaseHolder {
  /** The holding process, `<hostname>:<pid>:<random>`. */
  readonly node: string
  /** Where it answers REST (its base URL), once it listens; null before. */
  readonly url: string | null
  /**
   * Its master key's fingerprint (MasterKey.id()): API secrets derive from the master key, so a
   * node with another one would refuse every key the primary made. Followers compare at start.
   */
  readonly masterKeyId: string
}

export class Lease {
  /** The entry's revision this node wrote last, while it holds the lease. */
  private revision: number | null = null

  private constructor(private readonly kv: KV) {}

  /**
   * Reads go to the stream's leader (`allow_direct: false`, whatever the bucket was made with): a
   * direct read may be answered by a replica that is behind, a nats-server just back, and say the
   * lease is missing or older than it is.
   */
  static async open(connection: NatsConnection, stream: string, replicas: number): Promise<Lease> {
    const kv = await new Kvm(connection).create(`${stream}_LEASE`, { ttl: LEASE_TTL_MS, history: 1, replicas,
      allow_direct: false })
    return new Lease(kv)
  }

  /** A lease on a bucket opened already (tests give a fake one). */
  static over(kv: KV): Lease {
    return new Lease(kv)
  }

  get held(): boolean {
    return this.revision !== null
  }

  /** Who holds the lease now, or null when nobody does (it lapsed or was released). */
  async holder(): Promise<LeaseHolder | null> {
    const entry = await this.kv.get(KEY)
    if (entry === null || entry.operation !== 'PUT') return null
    return JSON.parse(entry.string()) as LeaseHolder
  }

  /** Takes the lease if nobody holds it; false when somebody does. */
  async acquire(holder: LeaseHolder): Promise<boolean> {
    try {
      this.revision = await this.kv.create(KEY, JSON.stringify(holder))
      return true
    } catch (error) {
      if (isWrongRevision(error)) return false
      throw error
    }
  }

  /**
   * Writes the lease again (its life starts over); false when it was lost (taken, or lapsed and
   * taken). A refused compare-and-set is checked against the entry: a renewal whose answer was
   * lost (a timeout) may have been written all the same, leaving this node's revision stale while
   * the lease is still its own; it then carries on from the entry's revision.
   */
  renew(holder: LeaseHolder): Promise<boolean> {
    return this.renewWith(holder, LEASE_RECLAIM_READS_MAX)
  }

  private async renewWith(holder: LeaseHolder, readsLeft: number): Promise<boolean> {
    if (this.revision === null) return false
    try {
      this.revision = await this.kv.update(KEY, JSON.stringify(holder), this.revision)
      return true
    } catch (error) {
      if (!isWrongRevision(error)) throw error
      return this.reclaim(holder, readsLeft)
    }
  }

  /**
   * After a refused renewal: renews from the entry's revision when the entry is this node's; takes
   * it again when nobody holds it (it lapsed: NATS was slow to answer for longer than its life, a
   * leader election); lost only when another node holds it. A write refused after a read means
   * the read was behind (or the entry moved meanwhile): read again, `readsLeft` reads in all.
   */
  private async reclaim(holder: LeaseHolder, readsLeft: number): Promise<boolean> {
    if (readsLeft === 0) {
      this.revision = null
      return false
    }
    const entry = await this.kv.get(KEY)
    const current = entry === null || entry.operation !== 'PUT' ? null : JSON.parse(entry.string()) as LeaseHolder
    if (entry !== null && current?.node === holder.node) {
      this.revision = entry.revision
      return this.renewWith(holder, readsLeft - 1)
    }
    this.revision = null
    if (current !== null) return false
    if (await this.acquire(holder)) return true
    return this.reclaim(holder, readsLeft - 1)
  }

  /** Gives the lease up at a clean stop, so that a standby need not wait for it to lapse. */
  async release(): Promise<void> {
    if (this.revision === null) return
    const revision = this.revision
    this.revision = null
    await this.kv.delete(KEY, { previousSeq: revision }).catch(() => undefined)
  }
}

/** JetStream's refusal of a compare-and-set ("wrong last sequence"). */
function isWrongRevision(error: unknown): boolean {
  return error instanceof Error && /wrong last sequence/i.test(error.message)
}
