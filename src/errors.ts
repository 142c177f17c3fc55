/**
 * Errors of the service around the engine, with stable codes. The engine's own rejections are
 * results (src/engine/codes.ts), not exceptions; these are the conditions in which the service
 * cannot take a command at all. The API's error catalogue maps every code to its HTTP and gRPC
 * status (503 for all of these).
 */
export const ServiceCode = {
  /** The command queue or the pending-request table is full: retry shortly. */
  ENGINE_BUSY: 'ENGINE_BUSY',
  /** The engine is starting, stopping or has stopped. */
  ENGINE_UNAVAILABLE: 'ENGINE_UNAVAILABLE',
  /** The signature verification pool's queue is full: retry shortly. */
  SIGNATURE_POOL_BUSY: 'SIGNATURE_POOL_BUSY',
} as const

export type ServiceCode = (typeof ServiceCode)[keyof typeof ServiceCode]

export class ServiceError extends Error {
  override readonly name = 'ServiceError'

  constructor(
    readonly code: ServiceCode,
    message: string,
    readonly context: Readonly<Record<string, string | number | boolean>> | null = null,
  ) {
    super(message)
  }
}
