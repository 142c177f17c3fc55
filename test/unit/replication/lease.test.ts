/**
 * A renewal (src/replication/lease.ts) refused for a stale revision decides from the entry, and a
 * read that disagrees with a refused create is read again. test/replication/cluster.test.ts's NATS
 * faults case once ended with both nodes deposed and writes never resuming: the primary's renewal
 * timed out but was written, the next one was refused (stale revision), the entry read back as
 * missing (a nats-server just back serves reads before it caught up), the create was refused
 * (the entry is there: this node's own), and the keeper deposed the node while the lease, read
 * again, named it as the holder. A fake bucket plays the lagging read.
 */
import t, { type Test } from 'tap'
import type { KV, KvEntry } from '@nats-io/kv'
import { Lease, type LeaseHolder } from '../../../src/replication/lease.js'

const SELF: LeaseHolder = { node: 'self', url: 'http://self', masterKeyId: 'k' }
const OTHER: LeaseHolder = { node: 'other', url: 'http://other', masterKeyId: 'k' }

/** One key's entry as the leader has it; `staleReads` reads answer "missing" first, as a replica behind would. */
function bucket(staleReads: number) {
  let entry: { revision: number; value: string } | null = null
  let revision = 0
  let stale = staleReads
  const wrongRevision = () => new Error('wrong last sequence: 1')
  const kv = {
    create: async (_key: string, value: string) => {
      if (entry !== null) throw wrongRevision()
      entry = { revision: ++revision, value }
      return revision
    },
    update: async (_key: string, value: string, previous: number) => {
      if (entry?.revision !== previous) throw wrongRevision()
      entry = { revision: ++revision, value }
      return revision
    },
    get: async () => {
      if (stale > 0) {
        stale--
        return null
      }
      return entry === null ? null
        : { revision: entry.revision, operation: 'PUT', string: () => entry!.value } as unknown as KvEntry
    },
    delete: async () => { entry = null },
  }
  /** An entry written behind the lease's back: this node's write whose answer it never got, or another node's. */
  const writtenBy = (holder: LeaseHolder) => { entry = { revision: ++revision, value: JSON.stringify(holder) } }
  return { kv: kv as unknown as KV, writtenBy }
}

/** SELF holds the lease, then `writer` writes the entry behind its back; `staleReads` reads answer "missing". */
async function leaseAfterWrite(t: Test, staleReads: number, writer: LeaseHolder): Promise<Lease> {
  const { kv, writtenBy } = bucket(staleReads)
  const lease = Lease.over(kv)
  t.ok(await lease.acquire(SELF))
  writtenBy(writer)
  return lease
}

t.test('a renewal refused for a stale revision keeps the lease when the entry is this node\'s own', async (t) => {
  const lease = await leaseAfterWrite(t, 0, SELF)
  t.ok(await lease.renew(SELF), 'renewed from the entry\'s revision')
  t.ok(await lease.renew(SELF), 'and again')
})

t.test('a read behind the leader (the entry "missing") does not depose the holder', async (t) => {
  const lease = await leaseAfterWrite(t, 1, SELF)
  t.ok(await lease.renew(SELF), 'the refused create reads again, finds this node\'s entry and renews it')
  t.ok(lease.held)
})

t.test('another holder still means the lease is lost', async (t) => {
  const lease = await leaseAfterWrite(t, 1, OTHER)
  t.notOk(await lease.renew(SELF), 'lost')
  t.notOk(lease.held)
  t.same(await lease.holder(), OTHER)
})
