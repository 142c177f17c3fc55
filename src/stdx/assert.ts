/**
 * Assertions catch programmer errors, not bad input: bad input is rejected with a code. A failed
 * assertion means the engine is in a state nobody designed, so it throws and the host stops
 * (fail-stop) rather than carrying on.
 */
export class AssertionError extends Error {
  override readonly name = 'AssertionError'
}

/**
 * `message` may be a function that builds it: a template literal is built on every call, failing or
 * not, and assertions inside loops over the whole state (the invariants after every simulated
 * command) spent most of their time building messages nobody read.
 */
export function assert(condition: boolean, message: string | (() => string)): asserts condition {
  if (!condition) throw new AssertionError(typeof message === 'string' ? message : message())
}
