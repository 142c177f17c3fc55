/**
 * A flood of refused requests does not write a line each (src/log-budget.ts): 400 requests for an
 * unknown path are answered 404 each, at most REFUSAL_LOG_LINES_PER_WINDOW 'request refused' lines
 * per second are written, and a warning counts the rest, so that every refusal is accounted for.
 * Before the budget, each wrote its own synchronous line, 9 % of the front end's thread under the
 * overload test's flood.
 */
import t from 'tap'
import { startServer } from '../support/rest-harness.js'
import { openLog } from '../../src/log.js'
import { REFUSAL_LOG_LINES_PER_WINDOW, REFUSAL_LOG_WINDOW_MS } from '../../src/limits.js'
import { eventually } from '../support/eventually.js'

const REQUESTS = 400
const output: string[] = []
const logger = await openLog({ level: 'info', format: 'json', destination: { write: (line) => void output.push(line) } })
const server = await startServer({ logger })
t.teardown(() => server.stop())

interface Line {
  readonly msg: string
  readonly dropped?: number
  readonly what?: string
}

const lines = (): Line[] =>
  output.join('').split('\n').filter((text) => text !== '').map((text) => JSON.parse(text) as Line)

t.test(`${REQUESTS} refusals: a bounded number of lines, and a count of the rest`, async (t) => {
  const startMs = performance.now()
  const statuses = await Promise.all(Array.from({ length: REQUESTS },
    async () => (await fetch(`${server.base}/no-such-endpoint`)).status))
  const windows = Math.ceil((performance.now() - startMs) / REFUSAL_LOG_WINDOW_MS) + 1
  t.ok(statuses.every((status) => status === 404), 'every request answered 404')
  const refusedCount = (): number => lines().filter((line) => line.msg === 'request refused').length
  const droppedCount = (): number => lines().filter((line) => line.msg === 'log budget: lines not written')
    .reduce((sum, line) => sum + line.dropped!, 0)
  // The last window's report comes at its end: wait for it (a loaded machine runs timers late).
  await eventually(() => refusedCount() + droppedCount() >= REQUESTS, REFUSAL_LOG_WINDOW_MS + 10_000,
    'every refusal written or counted')
  const [refused, dropped] = [refusedCount(), droppedCount()]
  t.ok(refused <= windows * REFUSAL_LOG_LINES_PER_WINDOW,
    `${refused} refusal lines written over ${windows} windows of at most ${REFUSAL_LOG_LINES_PER_WINDOW}`)
  t.equal(refused + dropped, REQUESTS, `the other ${dropped} are counted in the budget's reports`)
})
