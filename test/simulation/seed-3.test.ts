// Engine against reference, seed 3 (see engine-vs-reference.ts). One file per seed so that
// tap runs the seeds in parallel.
import t from 'tap'
import { simulate } from './engine-vs-reference.js'

t.test('seed 3: engine = reference, invariants after every command, deterministic replay', (t) => {
  simulate(t, 3)
  t.end()
})
