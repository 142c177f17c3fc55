// Engine against reference for the seeds in SIM_SEEDS (comma-separated), to reproduce a failure
// or to run more seeds: `SIM_SEEDS=7,8,9 SIM_COMMANDS=500000 npx tap test/simulation/seeds.test.ts`.
// Without SIM_SEEDS there is nothing to do (the default seeds have their own files).
import t from 'tap'
import { simulate } from './engine-vs-reference.js'

const seeds = (process.env.SIM_SEEDS ?? '').split(',').filter((s) => s.trim() !== '').map(Number)
if (seeds.length === 0) t.pass('no SIM_SEEDS given')
for (const seed of seeds) {
  t.test(`seed ${seed}`, (t) => {
    simulate(t, seed)
    t.end()
  })
}
