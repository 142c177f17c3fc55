/** The seeded PRNG of the simulation and the workload tests: src/stdx/random.ts, shared with the demo trader. */
export { Random } from '../../src/stdx/random.js'
