/**
 * bench:host's open-loop steps (bench/host.ts, StepHost) run whatever their rate: a step longer
 * than the stream it was given takes a longer one rather than failing. The stream is sized from
 * the closed-loop hosts' median before the steps' host measures its own maximum, which sets the
 * steps' rates; on a noisy machine that maximum came out above the median and a suite run's host
 * workload died on "the stream holds a step and its warm-ups" (2026-12-01). Times are not judged.
 */
import t from 'tap'
import { join } from 'node:path'
import type { Command, UnstampedCommand } from '../../../src/engine/command.js'
import { ensureBuilt, ROOT } from '../../support/compiled.js'
import type { StepHost as StepHostClass } from '../../../bench/host.js'
import type { engineCommands as EngineCommands, setupCommands as SetupCommands } from '../../../bench/engine-adapters.js'
import type { generateStream as GenerateStream } from '../../../bench/engine-stream.js'

// The host's threads start from the build: the compiled bench, built if stale.
ensureBuilt()
const { StepHost } = await import(join(ROOT, 'dist/bench/host.js')) as { StepHost: typeof StepHostClass }
const { engineCommands, setupCommands } = await import(join(ROOT, 'dist/bench/engine-adapters.js')) as
  { engineCommands: typeof EngineCommands; setupCommands: typeof SetupCommands }
const { generateStream } = await import(join(ROOT, 'dist/bench/engine-stream.js')) as
  { generateStream: typeof GenerateStream }

function unstamped(command: Command): UnstampedCommand {
  const { seq: _seq, timeMs: _timeMs, ...rest } = command
  return rest as UnstampedCommand
}

t.test('a step longer than its stream takes a longer stream, and runs', async (t) => {
  const setup = setupCommands(100)
  const stream = generateStream({ seed: 7, commands: 3_000, iocSizeMax: 400, tradersPerSide: 50 })
  const commands = engineCommands(stream, setup.length + 1, 0.4, 7).map(unstamped)
  const asked: number[] = []
  // 100 commands given; the step needs its host's warm-up (50), its own (0.2 s) and itself (0.5 s) at 1 000/s.
  const hosts = new StepHost(setup.map(unstamped), commands.slice(0, 100), 0.2, 50, (count) => {
    asked.push(count)
    return commands
  })
  t.teardown(() => hosts.stop())
  const step = await hosts.step(1_000, 0.5)
  t.same(asked, [50 + 200 + 500], 'one longer stream, of what the step needs')
  t.equal(step.latencies.length, 500, 'every command of the step acknowledged')
  t.equal(step.ratePerSecond, 1_000)
})
