/**
 * Shedding by event-loop lag (src/service/trading/load-shedder.ts), on a clock the test moves: one late
 * tick does not shed, two in a row do, an on-time tick stops it; while shedding a placement gets
 * SERVER_BUSY (503, Retry-After) with the lag in its context. Then the real timer: a blocked
 * event loop makes the shedder shed, and it stops once the loop runs free.
 */
import t from 'tap'
import { LoadShedder } from '../../../../src/service/trading/load-shedder.js'
import { CATALOGUE, PredexError } from '../../../../src/errors.js'
import { LOOP_LAG_TICK_MS, SHED_LIGHT_PLACEMENTS_PER_WINDOW, SHED_WINDOW_MS } from '../../../../src/limits.js'

function fakeClock(): { nowMs: () => number; advance: (ms: number) => void } {
  let now = 1_000
  return { nowMs: () => now, advance: (ms) => { now += ms } }
}

t.test('sustained lag sheds placements; one late tick does not; an on-time tick stops it', (t) => {
  const clock = fakeClock()
  const changes: [boolean, number][] = []
  const shedder = new LoadShedder({ lagMsMax: 50, nowMs: clock.nowMs, onChange: (s, lag) => changes.push([s, lag]) })
  shedder.start()
  shedder.stop() // the test ticks by hand; start() only set the first tick's time
  shedder.notePlacement('flooder', SHED_LIGHT_PLACEMENTS_PER_WINDOW + 1)
  shedder.notePlacement('quoter', 3)
  const tickAfter = (ms: number): void => {
    clock.advance(ms)
    shedder.tick()
  }
  tickAfter(LOOP_LAG_TICK_MS + 200)
  t.equal(shedder.lagMs, 200, 'the lag is how late the tick ran')
  t.equal(shedder.isShedding, false, 'one late tick does not shed')
  t.doesNotThrow(() => shedder.admitPlacement('flooder'))
  tickAfter(LOOP_LAG_TICK_MS)
  tickAfter(LOOP_LAG_TICK_MS + 51)
  t.equal(shedder.isShedding, false, 'late ticks with an on-time one between do not shed')
  tickAfter(LOOP_LAG_TICK_MS + 80)
  t.equal(shedder.isShedding, true, 'two late ticks in a row shed')
  t.doesNotThrow(() => shedder.admitPlacement('quoter'), 'a light key (3 orders in the window) is not refused')
  t.doesNotThrow(() => shedder.admitPlacement('newcomer'), 'nor one that placed nothing yet')
  let refusal: unknown = null
  try {
    shedder.admitPlacement('flooder')
  } catch (error) {
    refusal = error
  }
  t.ok(refusal instanceof PredexError, 'a heavy key\'s placement is refused')
  const error = refusal as PredexError
  t.equal(error.code, 'SERVER_BUSY')
  t.equal(CATALOGUE.SERVER_BUSY.http, 503, 'as 503')
  t.same(error.context, { lagMs: 80, lagMsMax: 50, retryAfterSeconds: 1 }, 'with the lag, the bound and when to retry')
  t.equal(shedder.refused, 1, 'and counted')
  tickAfter(LOOP_LAG_TICK_MS + 10)
  t.equal(shedder.isShedding, false, 'a tick on time stops shedding')
  t.doesNotThrow(() => shedder.admitPlacement('flooder'))
  t.same(changes, [[true, 80], [false, 10]], 'both changes were told, once each')
  t.end()
})

t.test('a heavy key is judged by its placements in the current window only', (t) => {
  const clock = fakeClock()
  const shedder = new LoadShedder({ lagMsMax: 50, nowMs: clock.nowMs })
  shedder.start()
  shedder.stop()
  for (let i = 0; i < 2; i++) {
    clock.advance(LOOP_LAG_TICK_MS + 100)
    shedder.tick()
  }
  t.equal(shedder.isShedding, true)
  shedder.notePlacement('flooder', SHED_LIGHT_PLACEMENTS_PER_WINDOW + 1)
  t.throws(() => shedder.admitPlacement('flooder'), 'heavy in this window: refused')
  clock.advance(SHED_WINDOW_MS)
  shedder.tick() // a whole window late: still shedding
  t.equal(shedder.isShedding, true)
  t.doesNotThrow(() => shedder.admitPlacement('flooder'), 'a new window: light again')
  shedder.notePlacement('flooder', SHED_LIGHT_PLACEMENTS_PER_WINDOW + 1)
  t.throws(() => shedder.admitPlacement('flooder'), 'until it places too many again')
  t.equal(shedder.refused, 2)
  t.end()
})

t.test('a bound of 0 never sheds', (t) => {
  const clock = fakeClock()
  const shedder = new LoadShedder({ lagMsMax: 0, nowMs: clock.nowMs })
  shedder.start()
  for (let i = 0; i < 5; i++) {
    clock.advance(1_000)
    shedder.tick()
  }
  t.equal(shedder.isShedding, false, 'seconds-late ticks do not shed')
  shedder.notePlacement('flooder', 1_000)
  t.doesNotThrow(() => shedder.admitPlacement('flooder'))
  shedder.stop()
  t.end()
})

t.test('the real timer: a blocked event loop sheds, a free one stops', async (t) => {
  const shedder = new LoadShedder({ lagMsMax: 40 })
  shedder.start()
  const block = (ms: number): void => {
    const until = performance.now() + ms
    while (performance.now() < until) { /* the loop is blocked, as by a flood of requests */ }
  }
  const nextTimers = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))
  await new Promise((resolve) => setTimeout(resolve, LOOP_LAG_TICK_MS * 2))
  // The interval, due first, runs before each setTimeout(0) in the timers phase after a block.
  // (That one late tick alone does not shed is shown above on the test's clock: here a tick made
  // late by a busy machine just before the first block would count as well.)
  block(120)
  await nextTimers()
  block(120)
  await nextTimers()
  t.equal(shedder.isShedding, true, 'a second one in a row does')
  const deadline = performance.now() + 5_000
  while (shedder.isShedding && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  t.equal(shedder.isShedding, false, 'the loop running free stops it')
  shedder.stop()
})
