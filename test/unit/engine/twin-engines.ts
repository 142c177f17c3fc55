/**
 * Two engines fed one seeded workload that must end in the same state (replay.test.ts,
 * unrecorded.test.ts): counts the differences found, compares state hashes every `checkEvery`
 * commands, and at the end asserts none were found, the same seq and the same state hash.
 */
import type { Test } from 'tap'
import type { Command } from '../../../src/engine/command.js'
import type { ApplyResult, Engine } from '../../../src/engine/engine.js'
import { stateHashOf } from '../../../src/engine/snapshot.js'
import type { Workload } from '../../simulation/workload.js'

/** One step of a workload on the live engine (`TwinEngines.applyNext`). */
export interface LiveStep {
  /** The command, numbered after the live engine's last (commands it rewound leave no gap). */
  readonly command: Command
  /** The live engine's seq and time before it, for a rewind. */
  readonly before: { readonly seq: number; readonly timeMs: number }
  readonly applied: ApplyResult
}

export class TwinEngines {
  mismatches = 0

  constructor(private readonly t: Test, readonly live: Engine, readonly replay: Engine,
    private readonly checkEvery: number) {}

  /** The workload's next command, applied to the live engine, and told to the workload. */
  applyNext(workload: Workload): LiveStep {
    const generated = workload.next()
    const before = { seq: this.live.seq, timeMs: this.live.timeMs }
    const command: Command = { ...generated, seq: this.live.seq + 1 }
    const applied = this.live.apply(command)
    workload.observe(generated, applied.result, applied.events)
    return { command, before, applied }
  }

  /** A difference found: fails the test and counts it (the loop stops at the first). */
  differ(message: string): void {
    this.mismatches++
    this.t.fail(message)
  }

  /** After command `i`: at each checkpoint, the two state hashes must agree. */
  checkpoint(i: number): void {
    if (i % this.checkEvery === 0 && stateHashOf(this.live) !== stateHashOf(this.replay)) {
      this.differ(`state hashes differ after command ${i}`)
    }
  }

  /** The end: no difference (`what` says which), the same seq and the same state hash. */
  end(what: string): void {
    this.t.equal(this.mismatches, 0, what)
    this.t.equal(this.replay.seq, this.live.seq, 'the same seq')
    this.t.equal(stateHashOf(this.replay), stateHashOf(this.live), 'the same state hash at the end')
  }
}
