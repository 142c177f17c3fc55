/**
 * The soak's two memory verdicts (scripts/soak/checks.ts) on made-up samples: flatness is judged
 * only over a long incarnation's second half, and the ceiling over every sample of every
 * incarnation, so a 2-minute soak with kills still asserts the ceiling.
 */
import t from 'tap'
import { memoryFlat, memoryUnderCeiling } from '../../../scripts/soak/checks.js'
import type { RssSample } from '../../../scripts/soak/server.js'

const MB = 2 ** 20

/** One sample a second for `seconds`, own memory from `fromMb` rising `mbPerMin`. */
function incarnation(index: number, seconds: number, fromMb: number, mbPerMin: number): RssSample[] {
  return Array.from({ length: seconds }, (_, s) => ({ incarnation: index, elapsedMs: s * 1000, upMs: s * 1000,
    rssAnonBytes: (fromMb + (mbPerMin * s) / 60) * MB, rssBytes: (fromMb + 500 + s) * MB }))
}

t.test('flat: judged over the longest incarnation, if it lived long enough', async (t) => {
  const flat = memoryFlat([...incarnation(0, 30, 300, 100), ...incarnation(1, 300, 300, 1)], 240_000, 20)
  t.ok(flat.ok, flat.detail)
  t.notOk(memoryFlat(incarnation(0, 300, 300, 40), 240_000, 20).ok, 'a rise of 40 MB/min fails')
  const short = memoryFlat(incarnation(0, 60, 300, 0), 240_000, 20)
  t.notOk(short.ok, 'a 60 s incarnation is not judged')
  t.match(short.detail, /not judged/)
})

t.test('ceiling: every sample of every incarnation, however short', async (t) => {
  const samples = [...incarnation(0, 30, 300, 0), ...incarnation(1, 30, 900, 400)]
  t.notOk(memoryUnderCeiling(samples, 1024).ok, 'the short incarnation that reaches 1 100 MB fails it')
  t.ok(memoryUnderCeiling(samples, 1200).ok)
  t.notOk(memoryUnderCeiling([], 1024).ok, 'no sample, no verdict')
})
