/**
 * The heap slack watch: V8 keeps the pages a spike grew its heap by until a full collection, and a
 * quiet process brings none (the gRPC abuse test read 185 MB committed, 59 MB used, after a minute
 * of quiet). The watch collects while the loop is quiet and the slack is past its bound.
 */
import t from 'tap'
import { fullCollector } from '../../src/external-memory-watch.js'
import { HeapSlackWatch, v8HeapBytes, type HeapBytes } from '../../src/heap-slack-watch.js'

const MB = 2 ** 20

interface Fake {
  watch: HeapSlackWatch
  set: (heap: HeapBytes, utilization?: number) => void
  /** What the next collection leaves. */
  leaves: (heap: HeapBytes) => void
}

function fakeWatch(start: HeapBytes = { committedBytes: 200 * MB, usedBytes: 150 * MB }): Fake {
  let heap: HeapBytes = start
  let after: HeapBytes = heap
  let utilization = 0
  const watch = new HeapSlackWatch({ slackBytesMax: 64 * MB, quietUtilizationMax: 0.2, heap: () => heap,
    utilization: () => utilization, collect: () => void (heap = after) })
  return {
    watch,
    set: (next, share = 0) => { heap = next; utilization = share },
    leaves: (next) => void (after = next),
  }
}

t.test('collects when the slack reaches the bound and the loop was quiet', (t) => {
  const { watch, set, leaves } = fakeWatch()
  watch.check()
  t.equal(watch.collections, 0, '50 MB of slack: nothing')
  set({ committedBytes: 200 * MB, usedBytes: 137 * MB })
  watch.check()
  t.equal(watch.collections, 0, '63 MB: nothing')
  leaves({ committedBytes: 150 * MB, usedBytes: 60 * MB })
  set({ committedBytes: 200 * MB, usedBytes: 136 * MB })
  watch.check()
  t.equal(watch.collections, 1, '64 MB: one collection')
  watch.check()
  t.equal(watch.collections, 2, 'it gave pages back and 90 MB of slack are left: another')
  t.end()
})

t.test('a heap grown by the bound since the last collection is collected, though V8 counts it used', (t) => {
  const { watch, set, leaves } = fakeWatch({ committedBytes: 100 * MB, usedBytes: 50 * MB })
  set({ committedBytes: 163 * MB, usedBytes: 160 * MB })
  watch.check()
  t.equal(watch.collections, 0, '63 MB above the start: nothing')
  leaves({ committedBytes: 120 * MB, usedBytes: 70 * MB })
  set({ committedBytes: 164 * MB, usedBytes: 160 * MB })
  watch.check()
  t.equal(watch.collections, 1, '64 MB above: collected')
  set({ committedBytes: 183 * MB, usedBytes: 170 * MB })
  watch.check()
  t.equal(watch.collections, 1, 'measured from the 120 MB it left')
  t.end()
})

t.test('a busy loop is never made to pause', (t) => {
  const { watch, set } = fakeWatch()
  set({ committedBytes: 400 * MB, usedBytes: 60 * MB }, 0.21)
  watch.check()
  t.equal(watch.collections, 0, 'busy 21 % of the interval: nothing')
  set({ committedBytes: 400 * MB, usedBytes: 60 * MB }, 0.2)
  watch.check()
  t.equal(watch.collections, 1, 'busy 20 %: collected')
  t.end()
})

t.test('a collection that gave nothing back is not repeated until the heap grows past it', (t) => {
  const { watch, set, leaves } = fakeWatch()
  leaves({ committedBytes: 300 * MB, usedBytes: 60 * MB })
  set({ committedBytes: 300 * MB, usedBytes: 200 * MB })
  watch.check()
  t.equal(watch.collections, 1)
  watch.check()
  watch.check()
  t.equal(watch.collections, 1, 'still 300 MB committed: no more')
  set({ committedBytes: 301 * MB, usedBytes: 60 * MB })
  watch.check()
  t.equal(watch.collections, 2, 'grown past it: again')
  set({ committedBytes: 100 * MB, usedBytes: 60 * MB })
  watch.check()
  leaves({ committedBytes: 100 * MB, usedBytes: 60 * MB })
  set({ committedBytes: 290 * MB, usedBytes: 60 * MB })
  watch.check()
  t.equal(watch.collections, 3, 'slack under the bound in between clears the mark')
  t.end()
})

t.test('a real spike: V8 keeps its pages while quiet, the watch gives them back', async (t) => {
  const committedMb = (): number => v8HeapBytes().committedBytes / MB
  const before = committedMb()
  const watch = new HeapSlackWatch({ slackBytesMax: 64 * MB, intervalMs: 100 })
  // Objects kept together long enough to be promoted, then dropped but one in 50 (what a spike
  // leaves: its pages mostly empty, none empty) and collected as V8's own collection would, with
  // no turn of the loop between for V8 to do more.
  const spike: { n: number; s: string; a: number[] }[] = []
  const survivors: typeof spike = []
  for (let i = 0; i < 3_000_000; i++) {
    spike.push({ n: i, s: `x${i}`, a: [i, i] })
    if (i % 50 === 0) survivors.push(spike[i]!)
  }
  spike.length = 0
  fullCollector()()
  const grown = committedMb() - before
  t.ok(grown >= 64, `after the spike and a collection V8 holds ${grown.toFixed(0)} MB more than before, ` +
    `${survivors.length} objects kept (64 MB or more: what the watch is for)`)
  watch.start()
  t.teardown(() => watch.stop())
  const started = Date.now()
  while (committedMb() - before >= 64 && Date.now() - started < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.ok(committedMb() - before < 64, `the watch brought it to ${(committedMb() - before).toFixed(0)} MB above ` +
    `where it was in ${Date.now() - started} ms, ${watch.collections} collections`)
  t.ok(watch.collections >= 1)
  t.equal(survivors.length, 60_000, 'the survivors lived through it')
})
