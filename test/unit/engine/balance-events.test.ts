/**
 * An engine that writes no `balance` events (`Engine.balanceEvents = false`, as the host's engine
 * worker runs it: nobody on its path reads them) must do everything else exactly as one that
 * writes them: a seeded workload goes to both; for every command the result and every other
 * event must be the same, and so must `changed` (which decides what is journaled), and the state
 * hashes must agree at checkpoints and at the end. Commands that changed nothing are rewound on
 * both, as the worker does.
 */
import t from 'tap'
import { emitAggregates } from '../../../src/engine/aggregate.js'
import { Engine } from '../../../src/engine/engine.js'
import { TwinEngines } from './twin-engines.js'
import { Workload } from '../../simulation/workload.js'

const SEED = Number(process.env.BALANCE_EVENTS_SEED ?? 1 + Math.floor(Math.random() * 1_000_000))
const COMMANDS = Number(process.env.BALANCE_EVENTS_COMMANDS ?? 20_000)
const CHECK_EVERY = 2_000

t.test(`without balance events, the same results, other events, changes and state (seed ${SEED})`, (t) => {
  t.comment(`reproduce with BALANCE_EVENTS_SEED=${SEED} npx tap test/unit/engine/balance-events.test.ts`)
  const quiet = new Engine({ hashSeed: SEED + 1 })
  quiet.balanceEvents = false
  const twins = new TwinEngines(t, new Engine({ hashSeed: SEED }), quiet, CHECK_EVERY)
  const { live: full } = twins
  const workload = new Workload({ seed: SEED })
  let balanceEvents = 0
  for (let i = 0; i < COMMANDS && twins.mismatches === 0; i++) {
    const { command, before, applied } = twins.applyNext(workload)
    const fullChanged = full.changed
    const answered = quiet.apply(command)
    const others = applied.events.filter((event) => event.type !== 'balance')
    balanceEvents += applied.events.length - others.length
    if (JSON.stringify(answered.result) !== JSON.stringify(applied.result)) {
      twins.differ(`command ${i} (${command.kind}): another result`)
    } else if (JSON.stringify(answered.events) !== JSON.stringify(others)) {
      twins.differ(`command ${i} (${command.kind}): other events than the full engine's less its balance events`)
    } else if (quiet.changed !== fullChanged) {
      twins.differ(`command ${i} (${command.kind}): changed ${quiet.changed}, the full engine ${fullChanged}`)
    }
    if (!fullChanged) {
      full.rewind(before.seq, before.timeMs)
      if (!quiet.changed) quiet.rewind(before.seq, before.timeMs)
    }
    twins.checkpoint(i)
  }
  twins.end('every command alike but for its balance events')
  t.ok(balanceEvents > COMMANDS, `the full engine wrote balance events (${balanceEvents}); the other none`)
  t.end()
})

// No command of today's changes a balance without another event, so the end of a command is run
// by hand here: a balance changed and nothing else written must still count as a change, or the
// host would forget the command and a replay would miss it.
t.test('a changed balance counts as a change even unwritten', (t) => {
  const engine = new Engine()
  engine.balanceEvents = false
  const address = '0x' + '1'.repeat(40)
  engine.apply({ kind: 'credit', seq: 1, timeMs: 10, address, usdcMicros: 5, gasMicros: 0 })
  const account = engine.accountsByAddress.get(address)!
  const endCommand = (change: number): void => {
    engine.log.beginCommand()
    engine.touches.begin(true)
    engine.touches.account(account)
    account.usdcMicros += change
    emitAggregates(engine)
  }
  const written = engine.log.length
  endCommand(0)
  t.notOk(engine.changed, 'a balance touched and not changed: no change')
  endCommand(1)
  t.ok(engine.changed, 'changed: a change')
  t.equal(engine.log.length, written, 'and nothing written either time')
  t.end()
})
