/**
 * Replay without events (docs/engine.md, "Replay"): recovery applies journaled commands with
 * `applyForReplay`, which builds no event. That is safe only if events are pure output, so this
 * applies a seeded workload to engine A with `apply` and to engine B with `applyForReplay`: the
 * state hashes must agree at checkpoints and at the end, and B, back to `apply`, must answer the
 * next commands with exactly A's results and events.
 */
import t from 'tap'
import { Engine } from '../../../src/engine/engine.js'
import { TwinEngines } from './twin-engines.js'
import { Workload } from '../../simulation/workload.js'
import { decodeStampedCommand, encodeStampedCommand } from '../../../src/codec/command-codec.js'

const SEED = Number(process.env.REPLAY_SEED ?? 1 + Math.floor(Math.random() * 1_000_000))
const COMMANDS = Number(process.env.REPLAY_COMMANDS ?? 20_000)
const AFTER = 2_000
const CHECK_EVERY = 2_000
const CONTROLS_COMMANDS = Number(process.env.REPLAY_COMMANDS ?? 20_000)

t.test(`applyForReplay reaches the state apply does (seed ${SEED})`, (t) => {
  t.comment(`reproduce with REPLAY_SEED=${SEED} npx tap test/unit/engine/replay.test.ts`)
  const twins = new TwinEngines(t, new Engine({ hashSeed: SEED }), new Engine({ hashSeed: SEED + 1 }), CHECK_EVERY)
  const { live, replay } = twins
  const workload = new Workload({ seed: SEED })
  for (let i = 0; i < COMMANDS + AFTER && twins.mismatches === 0; i++) {
    const command = workload.next()
    const applied = live.apply(command)
    workload.observe(command, applied.result, applied.events)
    if (i < COMMANDS) {
      replay.applyForReplay(command)
      if (replay.log.length !== 0) twins.differ(`command ${i} (${command.kind}): the replay wrote events`)
    } else if (JSON.stringify(replay.apply(command)) !== JSON.stringify(applied)) {
      twins.differ(`command ${i} (${command.kind}) after the replay answered differently`)
    }
    twins.checkpoint(i)
  }
  twins.end('every replayed command leaves the same state, and apply answers the same after it')
  t.end()
})

t.test(`a journal with every market-maker control replays to the same state, through the codec (seed ${SEED})`,
  (t) => {
    t.comment(`reproduce with REPLAY_SEED=${SEED} npx tap test/unit/engine/replay.test.ts`)
    const twins = new TwinEngines(t, new Engine({ hashSeed: SEED }), new Engine({ hashSeed: SEED + 1 }), CHECK_EVERY)
    const { live, replay } = twins
    // Amends, cancel-replaces, self-trade prevention modes, mass quotes and order groups on.
    const workload = new Workload({ seed: SEED, amendsAndReplaces: true, selfTradeModes: true, massQuotes: true,
      orderGroups: true })
    const kinds = new Set<string>()
    for (let i = 0; i < CONTROLS_COMMANDS && twins.mismatches === 0; i++) {
      const command = workload.next()
      const applied = live.apply(command)
      workload.observe(command, applied.result, applied.events)
      kinds.add(command.kind)
      // As the journal keeps it, and as recovery reads it back.
      replay.applyForReplay(decodeStampedCommand(encodeStampedCommand(command)))
      twins.checkpoint(i)
    }
    twins.end('every command, journaled and read back, leaves the same state')
    for (const kind of ['amendOrder', 'cancelReplace', 'massQuote', 'orderGroup']) t.ok(kinds.has(kind), `${kind} replayed`)
    t.end()
  })

t.test('applyForReplay refuses to nest and leaves recording on', (t) => {
  const engine = new Engine()
  engine.applyForReplay({ kind: 'expire', seq: 1, timeMs: 1 })
  t.equal(engine.recording, true, 'recording is back on')
  t.equal(engine.seq, 1, 'the command was applied')
  t.end()
})
