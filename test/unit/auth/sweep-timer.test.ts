/**
 * The sweep timer: armed by whoever adds to a table, it sweeps every interval while entries are
 * left, and stops once a sweep leaves none (an idle table costs no timer); arming twice is one timer.
 */
import t from 'tap'
import { SweepTimer } from '../../../src/auth/sweep-timer.js'

const INTERVAL_MS = 10
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

t.test('sweeps while entries are left, then stops until armed again', async (t) => {
  let left = 3
  let sweeps = 0
  const timer = new SweepTimer(() => {
    sweeps++
    return --left
  }, INTERVAL_MS)
  timer.arm()
  timer.arm()
  await sleep(INTERVAL_MS * 10)
  t.equal(sweeps, 3, 'three sweeps: the last one left nothing')
  await sleep(INTERVAL_MS * 5)
  t.equal(sweeps, 3, 'and none after')
  left = 1
  timer.arm()
  await sleep(INTERVAL_MS * 5)
  t.equal(sweeps, 4, 'armed again: one more')
})
