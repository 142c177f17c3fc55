/**
 * Assertions catch programmer errors, not bad input: bad input is rejected with a code. A failed
 * assertion means the engine is in a state nobody designed, so it throws and the host stops
 * (fail-stop) rather than carrying on.
 */
export class AssertionError extends Error {
  override readonly name = 'AssertionError'
}

export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new AssertionError(message)
}
