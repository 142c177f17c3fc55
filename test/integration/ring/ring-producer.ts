// The producer side of the two-thread ring tests: writes `count` records, waiting when full, and
// tells the parent how many of its waits for space ran out of time (a lost wake-up would).
// With `pauseMaxMs`, it pauses a seeded random 0..pauseMaxMs ms between records, so the consumer
// keeps falling asleep on an empty ring. With `wakeEvery`, records are written without waking the
// consumer, and one wakeConsumer() follows each run of that many (the engine host's way: one
// wake-up per event-loop turn).
import { parentPort, workerData } from 'node:worker_threads'
import { Ring } from '../../../src/ring/ring.js'
import { recordOf } from './ring-records.js'

const { buffer, count, seed, waitMs, pauseMaxMs, wakeEvery = 0 } = workerData as
  { buffer: SharedArrayBuffer; count: number; seed: number; waitMs: number; pauseMaxMs: number; wakeEvery?: number }
const ring = new Ring(buffer)
const pause = new Int32Array(new SharedArrayBuffer(4))
let state = seed >>> 0
let timedOut = 0
let woken = 0
for (let n = 0; n < count; n++) {
  const record = recordOf(n ^ seed, n % 300)
  while (!ring.tryWrite(record, wakeEvery === 0)) {
    if (wakeEvery > 0) ring.wakeConsumer() // before sleeping for space: the consumer may sleep on what is there
    if (ring.waitForSpaceSync(waitMs) === 'timed-out') timedOut++
    else woken++
  }
  if (wakeEvery > 0 && (n % wakeEvery === wakeEvery - 1 || n === count - 1)) ring.wakeConsumer()
  if (pauseMaxMs > 0) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    Atomics.wait(pause, 0, 0, (state / 2 ** 32) * pauseMaxMs)
  }
}
parentPort!.postMessage({ timedOut, woken })
