/**
 * Unrecorded commands (docs/engine.md): a command whose events tell no change (none, or only
 * `orderRejected`) is rewound and not journaled. That is safe only if such a command really
 * changed nothing, so this applies a seeded workload to engine A, rewinding every command that
 * changed nothing, and to engine B only the commands A kept, restamped gap-free as a replay of
 * the journal would: every kept command must give B the same result and events as A, and the
 * state hashes must agree at checkpoints and at the end. A refused command that moved any state
 * (an account created on lookup, an order number taken, a nonce spent) would make them differ.
 */
import t from 'tap'
import { changedState, Engine } from '../../../src/engine/engine.js'
import { TwinEngines } from './twin-engines.js'
import { Workload } from '../../simulation/workload.js'

const SEED = Number(process.env.UNRECORDED_SEED ?? 1 + Math.floor(Math.random() * 1_000_000))
const COMMANDS = Number(process.env.UNRECORDED_COMMANDS ?? 30_000)
const CHECK_EVERY = 2_000

t.test(`commands that change nothing can be forgotten (seed ${SEED})`, (t) => {
  t.comment(`reproduce with UNRECORDED_SEED=${SEED} npx tap test/unit/engine/unrecorded.test.ts`)
  const twins = new TwinEngines(t, new Engine({ hashSeed: SEED }), new Engine({ hashSeed: SEED + 1 }), CHECK_EVERY)
  const { live, replay } = twins
  const workload = new Workload({ seed: SEED })
  let forgotten = 0
  for (let i = 0; i < COMMANDS && twins.mismatches === 0; i++) {
    const { command, before, applied } = twins.applyNext(workload)
    if (!changedState(applied.events)) {
      live.rewind(before.seq, before.timeMs)
      forgotten++
      continue
    }
    const replayed = replay.apply({ ...command, seq: replay.seq + 1 })
    if (JSON.stringify(replayed) !== JSON.stringify(applied)) {
      twins.differ(`command ${i} (${command.kind}) answered differently in the replay`)
    }
    twins.checkpoint(i)
  }
  twins.end('every kept command replays to the same answer')
  t.ok(forgotten > COMMANDS / 50, `the workload has commands that change nothing (${forgotten} of ${COMMANDS})`)
  t.end()
})

t.test('rewind refuses a command that changed state', (t) => {
  const engine = new Engine()
  engine.apply({ kind: 'credit', seq: 1, timeMs: 10, address: '0x' + '1'.repeat(40), usdcMicros: 1, gasMicros: 0 })
  t.throws(() => engine.rewind(0, 0), /changed nothing/)
  t.end()
})
