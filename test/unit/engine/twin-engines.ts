/**
 * Two engines fed one seeded workload that must end in the same state (replay.test.ts,
 * unrecorded.test.ts): counts the differences found, compares state hashes every `checkEvery`
 * commands, and at the end asserts none were found, the same seq and the same state hash.
 */
import type { Test } from 'tap'
import type { Engine } from '../../../src/engine/engine.js'
import { stateHashOf } from '../../../src/engine/snapshot.js'

export class TwinEngines {
  mismatches = 0

  constructor(private readonly t: Test, readonly live: Engine, readonly replay: Engine,
    private readonly checkEvery: number) {}

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
