/**
 * The suite's report says, under its targets, what limits each one not met (issue 13: "the report
 * ... say[s] which is not, by how much, and what limits it"), and says nothing of the kind for
 * targets met.
 */
import t from 'tap'
import { suiteMarkdown, type SuiteRun } from '../../../bench/suite-report.js'
import { check, TARGETS } from '../../../bench/targets.js'

function runWith(engineRatio: number): SuiteRun {
  const figures = { engine: { ratio: engineRatio } }
  return {
    date: '2026-11-27', startedAt: '2026-11-27T09:00:00.000Z', command: 'npm run bench -- --quick', quick: true,
    durationSeconds: 10,
    machine: { hostname: 'test', cores: 2, cpu: 'cpu', node: 'v20', platform: 'linux x64', memoryBytes: 2 ** 30,
      loadAverageStart: 1, loadAverageEnd: 1 },
    workloads: [{ name: 'engine', title: 'Engine alone', seconds: 10, figures: figures.engine, error: null }],
    targets: TARGETS.filter((target) => target.workload === 'engine').map((target) => check(target, figures)),
  }
}

const charts = { targets: null, byWorkload: {} }

t.test('a target not met: the report says what limits it', async (t) => {
  const report = suiteMarkdown(runWith(1.5), 'run.json', charts)
  t.match(report, '### What limits the targets not met')
  const engine = TARGETS.find((target) => target.workload === 'engine')!
  t.ok(engine.limitedBy !== undefined && engine.limitedBy.length > 0, 'the engine target has its finding')
  t.match(report, `- **${engine.label}**: ${engine.limitedBy!}.`)
})

t.test('every target met: no such section', async (t) => {
  t.notMatch(suiteMarkdown(runWith(6), 'run.json', charts), 'What limits')
})
