/**
 * The bare shape's closed loop (bench/shape-floor.ts) runs to its end and reports what it measured:
 * every command acknowledged once (a lost or doubled id would leave its loop waiting or throw), a
 * rate and a CPU time a command, and its threads and data gone after it. Times are not judged.
 */
import t from 'tap'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureBuilt, ROOT } from '../../support/compiled.js'
import type { measureShapeFloor as MeasureShapeFloor } from '../../../bench/shape-floor.js'

// Its threads are evaluated JavaScript that imports the compiled ring: the compiled bench, built if stale.
ensureBuilt()
const { measureShapeFloor } = await import(join(ROOT, 'dist/bench/shape-floor.js')) as
  { measureShapeFloor: typeof MeasureShapeFloor }

t.test('the bare shape acknowledges every command and reports its rate and CPU', async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'predex-shape-test-'))
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  const floor = await measureShapeFloor(parent, 5_000, 120, 2)
  t.ok(floor.perSecond > 0 && Number.isFinite(floor.perSecond), `a rate: ${Math.round(floor.perSecond)}/s`)
  t.ok(floor.cpuUsPerCommand > 0 && Number.isFinite(floor.cpuUsPerCommand),
    `a CPU time a command: ${floor.cpuUsPerCommand.toFixed(2)} µs`)
  t.equal(floor.recordBytes, 120)
  t.same(readdirSync(parent), [], 'its LMDB directory is removed')
  t.notOk(existsSync(join(parent, 'predex-bench-shape-')), 'nothing left behind')
})
