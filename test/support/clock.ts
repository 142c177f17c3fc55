/**
 * A clock a test moves (src/clock.ts). Wall time follows the real clock, shifted by what the test
 * advanced: clients sign headers with real time, so the server must stay near it. Monotonic time,
 * which rate budgets and blocks read, moves only when the test advances it: a budget refills when
 * the test says so, never because the machine was slow.
 */
import type { Clock } from '../../src/clock.js'

export class TestClock implements Clock {
  private offsetMs = 0
  private readonly monotonicOriginMs = performance.now()

  wallMs(): number {
    return Date.now() + this.offsetMs
  }

  monotonicMs(): number {
    return this.monotonicOriginMs + this.offsetMs
  }

  /** Moves both clocks forward by `ms`. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`a clock only moves forward (${ms} ms)`)
    this.offsetMs += ms
  }
}
