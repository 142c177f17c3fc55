/**
 * A stopped lease keeper (src/replication/lease-keeper.ts) is done, even with a renewal in flight:
 * its late answer deposes nothing and the release waits for it, since the two share the lease's
 * revision. A standby whose takeover failed stops its keeper and may take the lease again at once
 * with a new one; the old keeper's renewal, answered late under a slow NATS, used to find the
 * lease "lost", depose the new primary and clear the revision its successor renews with (seen in
 * test/replication/cluster.test.ts's NATS faults case: writes never resumed). A fake lease whose
 * renewal the test answers.
 */
import t from 'tap'
import { LEASE_RENEW_MS } from '../../../src/limits.js'
import { SILENT_LOG } from '../../../src/log.js'
import type { Lease } from '../../../src/replication/lease.js'
import { LeaseKeeper } from '../../../src/replication/lease-keeper.js'
import { eventually } from '../../support/eventually.js'

t.test('a renewal answered after stop() deposes nothing, and the release comes after it', async (t) => {
  const happened: string[] = []
  let answer: (renewed: boolean) => void = () => undefined
  const lease = {
    renew: () => new Promise<boolean>((resolve) => {
      happened.push('renewal asked')
      answer = (renewed) => {
        happened.push('renewal answered')
        resolve(renewed)
      }
    }),
    holder: async () => ({ node: 'self', url: 'http://self', masterKeyId: 'k' }),
    release: async () => void happened.push('released'),
  } as unknown as Lease
  const lost: string[] = []
  const keeper = new LeaseKeeper(lease, { node: 'self', url: 'http://self', masterKeyId: 'k' },
    (reason) => void lost.push(reason), SILENT_LOG).start()
  await eventually(() => happened.includes('renewal asked'), LEASE_RENEW_MS * 4, 'a renewal in flight')
  const stopped = keeper.stop()
  await new Promise((resolve) => setTimeout(resolve, 50))
  answer(false) // as a stale revision reads once the lease was released and taken again
  await stopped
  await new Promise((resolve) => setTimeout(resolve, 50)) // what the late answer would do, done by now
  t.strictSame(lost, [], 'the stopped keeper deposes nothing')
  t.strictSame(happened, ['renewal asked', 'renewal answered', 'released'], 'released once the renewal ended')
})
