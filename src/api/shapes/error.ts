/**
 * Every error answer, on both surfaces and every status: the message, the catalogue code
 * (src/errors.ts), then the error's context (e.g. `field`, `retryAfterSeconds`).
 */

export type ErrorBody = {
  readonly error: string
  readonly code: string
  readonly [context: string]: unknown
}
