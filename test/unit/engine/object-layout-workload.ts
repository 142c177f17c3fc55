/**
 * The seeded workload behind object-layout.fixture.ts: the commands, results and events that the
 * engine gave while its orders were objects (issue 30 moved them into typed arrays). The fixture
 * holds digests of all three and the snapshot at the end; object-layout.test.ts runs the same
 * commands through today's engine and compares. Regenerate the fixture only if the workload's
 * commands change (the test says so), and only with an engine that is known to agree.
 */
import { createHash } from 'node:crypto'
import type { Command } from '../../../src/engine/command.js'
import type { Engine } from '../../../src/engine/engine.js'
import { Workload } from '../../simulation/workload.js'

export const OBJECT_LAYOUT_SEED = 20261129
export const OBJECT_LAYOUT_COMMANDS = 3000

export interface WorkloadRun {
  /** The generator, ready to go on from where the fixture ended. */
  readonly workload: Workload
  readonly commands: Command[]
  /** SHA-256 over the commands' JSON, one after another. */
  readonly commandsDigest: string
  /** SHA-256 over each command's `apply` answer (result and events) as JSON, one after another. */
  readonly answersDigest: string
}

/** Applies the fixture's workload to `engine` (fresh), command by command. */
export function runObjectLayoutWorkload(engine: Engine): WorkloadRun {
  const workload = new Workload({ seed: OBJECT_LAYOUT_SEED, lifecycleEvery: 1500 })
  const commands: Command[] = []
  const commandsHash = createHash('sha256')
  const answersHash = createHash('sha256')
  for (let i = 0; i < OBJECT_LAYOUT_COMMANDS; i++) {
    const generated = workload.next()
    const command = { ...generated, seq: engine.seq + 1 } as Command
    const applied = engine.apply(command)
    workload.observe(generated, applied.result, applied.events)
    commands.push(command)
    commandsHash.update(JSON.stringify(command))
    answersHash.update(JSON.stringify(applied))
  }
  return { workload, commands, commandsDigest: commandsHash.digest('hex'), answersDigest: answersHash.digest('hex') }
}
