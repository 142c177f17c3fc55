// The producer side of the two-thread ring test: writes `count` records, waiting when full.
import { workerData } from 'node:worker_threads'
import { Ring } from '../../../src/ring/ring.js'
import { recordOf } from './ring-records.js'

const { buffer, count, seed } = workerData as { buffer: SharedArrayBuffer; count: number; seed: number }
const ring = new Ring(buffer)
for (let n = 0; n < count; n++) {
  const record = recordOf(n ^ seed, n % 300)
  while (!ring.tryWrite(record)) ring.waitForSpaceSync(50)
}
