/**
 * What the gRPC tests of the market-maker controls share: a call that must be refused, its code
 * with the catalogue's gRPC status, and a bounded wait.
 */
import type { Test } from 'tap'
import { GrpcCallError } from '../../src/client/grpc/transport.js'
import { CATALOGUE, type ErrorCode } from '../../src/errors.js'

/** How long a test waits for an answer or a stream message before it fails. */
export const WAIT_MS = 10_000

/** The call's refusal (it must be refused): a GrpcCallError. */
export async function refusalOf(call: Promise<unknown>): Promise<GrpcCallError> {
  try {
    await call
  } catch (error) {
    if (error instanceof GrpcCallError) return error
    throw error
  }
  throw new Error('not refused')
}

/** `error` is `code`, with the catalogue's gRPC status for it. */
export function isRefusal(t: Test, error: GrpcCallError, code: ErrorCode, what: string): void {
  t.equal(error.code, code, `${what}: ${code}`)
  t.equal(error.grpcCode, CATALOGUE[code].grpc, `${what}: the catalogue's gRPC status`)
}

/** `promise`, or a failure after WAIT_MS. */
export function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), WAIT_MS)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
