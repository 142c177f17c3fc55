/**
 * gRPC errors from the one catalogue (src/errors.ts): the status code is the catalogue's, the
 * details are the message, and the trailers carry the stable code twice, for every kind of client:
 * `predex-code` as plain text, and `grpc-status-details-bin`, gRPC's rich error model
 * (google.rpc.Status with an ErrorInfo {reason: code, domain: "predex", metadata: context as JSON
 * text} and, for RATE_LIMITED and other retryable refusals, a RetryInfo with the wait).
 */
import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf'
import { anyPack, DurationSchema } from '@bufbuild/protobuf/wkt'
import { Metadata, status as Status, type StatusObject } from '@grpc/grpc-js'
import { ApiCode, CATALOGUE, PredexError } from '../../errors.js'
import { ErrorInfoSchema, RetryInfoSchema } from '../../gen/google/rpc/error_details_pb.js'
import { StatusSchema } from '../../gen/google/rpc/status_pb.js'
import type { ErrorDetailSchema } from '../../gen/predex/v1/common_pb.js'

/** The domain of Predex's ErrorInfo details. */
export const ERROR_DOMAIN = 'predex'
export const CODE_TRAILER = 'predex-code'
export const DETAILS_TRAILER = 'grpc-status-details-bin'

/** Any thrown value as a catalogue error: a PredexError as it is, anything else INTERNAL (logged by the caller). */
export function asPredexError(error: unknown): PredexError {
  if (error instanceof PredexError) return error
  return new PredexError(ApiCode.INTERNAL, 'internal error')
}

/** The error's context fields as the proto carries them: each value as JSON text. */
export function contextOf(error: PredexError): Record<string, string> {
  const context: Record<string, string> = {}
  for (const [key, value] of Object.entries(error.context ?? {})) {
    if (value !== undefined) context[key] = JSON.stringify(value)
  }
  return context
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
  const metadata = new Metadata()
  metadata.set(CODE_TRAILER, error.code)
  metadata.set(DETAILS_TRAILER, Buffer.from(toBinary(StatusSchema,
    create(StatusSchema, { code: grpcCode, message: error.message, details }))))
  return { code: grpcCode, details: error.message, metadata }
}
