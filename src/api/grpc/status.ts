/**
 * gRPC errors from the one catalogue (src/errors.ts): the status code is the catalogue's, the
 * details are the message, and the trailers carry the stable code twice, for every kind of client:
 * `predex-code` as plain text, and `grpc-status-details-bin`, gRPC's rich error model
 * (google.rpc.Status with an ErrorInfo {reason: code, domain: "predex", metadata: context as JSON
 * text} and, for RATE_LIMITED and other retryable refusals, a RetryInfo with the wait). The message
 * and each context value are bounded (GRPC_ERROR_*_CHARS_MAX): trailers are headers.
 */
import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf'
import { anyPack, DurationSchema } from '@bufbuild/protobuf/wkt'
import { Metadata, status as Status, type StatusObject } from '@grpc/grpc-js'
import { ApiCode, CATALOGUE, PredexError } from '../../errors.js'
import { GRPC_ERROR_CONTEXT_CHARS_MAX, GRPC_ERROR_MESSAGE_CHARS_MAX } from '../../limits.js'
import { ErrorInfoSchema, RetryInfoSchema } from '../../gen/google/rpc/error_details_pb.js'
import { StatusSchema } from '../../gen/google/rpc/status_pb.js'
import type { ErrorDetailSchema } from '../../gen/predex/v1/common_pb.js'
import type { BudgetState } from '../../auth/rate-limit.js'

/** The domain of Predex's ErrorInfo details. */
export const ERROR_DOMAIN = 'predex'
export const CODE_TRAILER = 'predex-code'
export const DETAILS_TRAILER = 'grpc-status-details-bin'

/** Any thrown value as a catalogue error: a PredexError as it is, anything else INTERNAL (logged by the caller). */
export function asPredexError(error: unknown): PredexError {
  if (error instanceof PredexError) return error
  return new PredexError(ApiCode.INTERNAL, 'internal error')
}

/**
 * The error's context fields as the proto carries them: each value as JSON text of at most
 * GRPC_ERROR_CONTEXT_CHARS_MAX characters. A longer one (a context naming a huge input) is cut and
 * ends with '…', still a JSON string, so that the trailers stay within every client's limits.
 */
export function contextOf(error: PredexError): Record<string, string> {
  const context: Record<string, string> = {}
  for (const [key, value] of Object.entries(error.context ?? {})) {
    if (value !== undefined) context[key] = boundedJson(value)
  }
  return context
}

function boundedJson(value: unknown): string {
  let json: string
  try {
    json = JSON.stringify(value) ?? 'null'
  } catch {
    json = JSON.stringify(String(value)) // a bigint, a cycle: never a reason to lose the status
  }
  if (json.length <= GRPC_ERROR_CONTEXT_CHARS_MAX) return json
  // Escapes make a string's JSON longer than the string: cut until the JSON fits.
  let cut = (typeof value === 'string' ? value : json).slice(0, GRPC_ERROR_CONTEXT_CHARS_MAX)
  while (JSON.stringify(`${cut}…`).length > GRPC_ERROR_CONTEXT_CHARS_MAX) {
    cut = cut.slice(0, Math.floor(cut.length * 0.8))
  }
  return JSON.stringify(`${cut}…`)
}

/** The message a status carries, at most GRPC_ERROR_MESSAGE_CHARS_MAX characters. */
function boundedMessage(message: string): string {
  return message.length <= GRPC_ERROR_MESSAGE_CHARS_MAX ? message
    : `${message.slice(0, GRPC_ERROR_MESSAGE_CHARS_MAX - 1)}…`
}

/** The ErrorDetail of an acknowledgement or a batch item. */
export function errorDetailOf(error: PredexError): MessageInitShape<typeof ErrorDetailSchema> {
  return { code: error.code, message: error.message, context: contextOf(error) }
}

/** The status a call ends with for `error`. */
export function statusOf(error: PredexError): Partial<StatusObject> {
  const grpcCode = CATALOGUE[error.code].grpc as Status
  const details = [anyPack(ErrorInfoSchema, create(ErrorInfoSchema,
    { reason: error.code, domain: ERROR_DOMAIN, metadata: contextOf(error) }))]
  const retryAfterSeconds = error.context?.['retryAfterSeconds']
  if (typeof retryAfterSeconds === 'number') {
    const retryDelay = create(DurationSchema, { seconds: BigInt(Math.ceil(retryAfterSeconds)) })
    details.push(anyPack(RetryInfoSchema, create(RetryInfoSchema, { retryDelay })))
  }
  const message = boundedMessage(error.message)
  const metadata = new Metadata()
  metadata.set(CODE_TRAILER, error.code)
  metadata.set(DETAILS_TRAILER, Buffer.from(toBinary(StatusSchema,
    create(StatusSchema, { code: grpcCode, message, details }))))
  // A spent budget: none left, the next call allowed after the retry delay (REST's X-RateLimit-* on its 429).
  const limit = error.context?.['limit']
  if (error.code === ApiCode.RATE_LIMITED && typeof limit === 'number' && typeof retryAfterSeconds === 'number') {
    setBudgetTrailers(metadata, { limit, remaining: 0, resetMs: retryAfterSeconds * 1000 })
  }
  return { code: grpcCode, details: message, metadata }
}

/**
 * A call's budget as trailers, the names and meanings of REST's headers (docs/rest.md, "Rate
 * limits"): its size, the whole calls left and the seconds until it is whole again.
 */
export function setBudgetTrailers(metadata: Metadata, budget: BudgetState): void {
  metadata.set('x-ratelimit-limit', String(budget.limit))
  metadata.set('x-ratelimit-remaining', String(Math.floor(budget.remaining)))
  metadata.set('x-ratelimit-reset', String(Math.ceil(budget.resetMs / 1000)))
}
