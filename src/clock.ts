/**
 * The clocks of the process around the engine: wall time (signed timestamps, order expiry
 * checks at the edge, answers' timestamps) and monotonic time (rate budgets, blocks). One object
 * so that a test can stand in for both (test/support/clock.ts). The engine reads neither: its
 * time comes stamped on each command by the host.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  wallMs(): number
  /** Milliseconds from an arbitrary origin that never goes back. */
  monotonicMs(): number
}

export const systemClock: Clock = {
  wallMs: () => Date.now(),
  monotonicMs: () => performance.now(),
}
