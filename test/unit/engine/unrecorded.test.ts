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
import type { Command } from '../../../src/engine/command.js'
import { stateHashOf } from '../../../src/engine/snapshot.js'
import { Workload } from '../../simulation/workload.js'

const SEED = Number(process.env.UNRECORDED_SEED ?? 1 + Math.floor(Math.random() * 1_000_000))
const COMMANDS = Number(process.env.UNRECORDED_COMMANDS ?? 30_000)
const CHECK_EVERY = 2_000

t.test(`commands that change nothing can be forgotten (seed ${SEED})`, (t) => {
  t.comment(`reproduce with UNRECORDED_SEED=${SEED} npx tap test/unit/engine/unrecorded.test.ts`)
  const live = new Engine({ hashSeed: SEED })
  const replay = new Engine({ hashSeed: SEED + 1 })
  const workload = new Workload({ seed: SEED })
  let forgotten = 0
  let mismatches = 0
  for (let i = 0; i < COMMANDS && mismatches === 0; i++) {
    const generated = workload.next()
    const before = { seq: live.seq, timeMs: live.timeMs }
    const command: Command = { ...generated, seq: live.seq + 1 }
    const applied = live.apply(command)
    workload.observe(generated, applied.result, applied.events)
    if (!changedState(applied.events)) {
      live.rewind(before.seq, before.timeMs)
      forgotten++
      continue
    }
    const replayed = replay.apply({ ...command, seq: replay.seq + 1 })
    if (JSON.stringify(replayed) !== JSON.stringify(applied)) {
      mismatches++
      t.fail(`command ${i} (${command.kind}) answered differently in the replay`)
    }
    if (i % CHECK_EVERY === 0 && stateHashOf(live) !== stateHashOf(replay)) {
      mismatches++
      t.fail(`state hashes differ after command ${i}`)
    }
  }
  t.equal(mismatches, 0, 'every kept command replays to the same answer')
  t.equal(live.seq, replay.seq, 'the same seq')
  t.equal(stateHashOf(live), stateHashOf(replay), 'the same state hash at the end')
  t.ok(forgotten > COMMANDS / 50, `the workload has commands that change nothing (${forgotten} of ${COMMANDS})`)
  t.end()
})

t.test('rewind refuses a command that changed state', (t) => {
  const engine = new Engine()
  engine.apply({ kind: 'credit', seq: 1, timeMs: 10, address: '0x' + '1'.repeat(40), usdcMicros: 1, gasMicros: 0 })
  t.throws(() => engine.rewind(0, 0), /changed nothing/)
  t.end()
})
