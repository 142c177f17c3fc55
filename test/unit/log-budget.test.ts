/**
 * The refusal lines' budget (src/log-budget.ts): at most its lines per window are written, the
 * rest counted and reported once when the window ends, and a new window writes again.
 */
import t from 'tap'
import { LogBudget } from '../../src/log-budget.js'
import type { Log, LogFields } from '../../src/log.js'

function recordingLog(): { log: Log; warnings: LogFields[] } {
  const warnings: LogFields[] = []
  const ignore = (): void => {}
  return { warnings, log: { debug: ignore, info: ignore, error: ignore, debugEnabled: false,
    warn: (_message: string, fields: LogFields = {}) => void warnings.push(fields) } }
}

t.test('past its lines in a window, lines are counted and reported once, at the window end', async (t) => {
  let nowMs = 0
  const { log, warnings } = recordingLog()
  const budget = new LogBudget(log, { what: 'test lines', linesPerWindowMax: 3, windowMs: 50, nowMs: () => nowMs })
  const taken = Array.from({ length: 10 }, () => budget.take())
  t.same(taken, [true, true, true, false, false, false, false, false, false, false], 'three written, seven not')
  t.same(warnings, [], 'nothing reported before the window ends')
  await new Promise((resolve) => setTimeout(resolve, 120))
  t.same(warnings, [{ what: 'test lines', dropped: 7, linesPerWindowMax: 3, windowMs: 50 }], 'one report of the seven')
  nowMs = 60
  t.same([budget.take(), budget.take(), budget.take(), budget.take()], [true, true, true, false],
    'a new window writes three again')
  budget.flush()
  t.equal(warnings.length, 2, 'a flush (a stop) reports what the window had not written yet')
  t.equal(warnings[1]!.dropped, 1)
  budget.flush()
  t.equal(warnings.length, 2, 'and nothing when nothing was dropped')
})
