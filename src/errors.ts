/**
 * THE error catalogue of Predex: every code any part can answer with (the engine's rejections,
 * the service's conditions, authentication failures, and the faces' own input errors), each with
 * its HTTP status and gRPC status. REST, WebSocket and gRPC all answer from here; the typing makes
 * a code without a mapping a compile error, and a test checks the table.
 *
 * Error bodies: `{"error": "<message>", "code": "<CODE>", ...context}` (api.md).
 */
import { Code, CODE_MESSAGES } from './engine/codes.js'

/** Codes of the API layer itself: bad input that never reaches the engine. */
export const ApiCode = {
  BAD_JSON: 'BAD_JSON',
  BAD_REQUEST: 'BAD_REQUEST',
  INVALID_PARAMETER: 'INVALID_PARAMETER',
  FORBIDDEN_KEY: 'FORBIDDEN_KEY',
  BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  QUERY_TOO_LONG: 'QUERY_TOO_LONG',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  INVALID_SIGNATURE: 'INVALID_SIGNATURE',
  NOT_OWNER: 'NOT_OWNER',
  /**
   * An order signed for an exchange version this server does not take (a V3 order: GET /version
   * says 2). The message starts with Polymarket's `order_version_mismatch`, on which
   * clob-client-v2 re-reads /version and retries once.
   */
  ORDER_VERSION_MISMATCH: 'ORDER_VERSION_MISMATCH',
  ORDER_UNKNOWN: 'ORDER_UNKNOWN',
  RATE_LIMITED: 'RATE_LIMITED',
  /** Too many long-lived streams at once (per API key or per client address). */
  TOO_MANY_STREAMS: 'TOO_MANY_STREAMS',
  /** A stream's client did not read fast enough: its backlog passed the bound and the stream was ended. */
  SLOW_CONSUMER: 'SLOW_CONSUMER',
  /** An order-entry session's request that is not valid where it comes (a second `open`, a request after `close`). */
  SESSION_PROTOCOL: 'SESSION_PROTOCOL',
  /** An order-entry session received no request in its dead-man interval: it was ended, its orders canceled. */
  DEAD_MAN_TIMER: 'DEAD_MAN_TIMER',
  FAUCET_COOLDOWN: 'FAUCET_COOLDOWN',
  /** The faucet gave all its credits of the hour (all clients together): retry after Retry-After. */
  FAUCET_BUDGET: 'FAUCET_BUDGET',
  /** The real chain's contract refused the transaction a request asked for (its simulation reverted): `reason`. */
  CHAIN_REVERTED: 'CHAIN_REVERTED',
  /**
   * On a real chain, a relayed merge or redeem moves the wallet's outcome tokens under its own
   * approval of the settling exchange (`setApprovalForAll`), which it has not given.
   */
  TOKENS_NOT_APPROVED: 'TOKENS_NOT_APPROVED',
  /** The real chain's node did not answer a call the request needs (faucet, new market, gas): retry. */
  CHAIN_UNAVAILABLE: 'CHAIN_UNAVAILABLE',
  /** On a real chain, too many matched trades wait for settlement: new orders wait until it catches up. */
  SETTLEMENT_BACKLOG: 'SETTLEMENT_BACKLOG',
  NOT_READY: 'NOT_READY',
  INTERNAL: 'INTERNAL',
} as const

export type ApiCode = (typeof ApiCode)[keyof typeof ApiCode]

/**
 * Authentication failures (src/auth: the checks that answer them): one code per check, so a
 * client learns which check failed (clock skew, unknown key, wrong passphrase, wrong address, bad
 * signature) instead of one opaque "Unauthorized/Invalid api key". Here, in the catalogue, so
 * that it imports nothing above it.
 */
export const AuthCode = {
  AUTH_HEADERS_MISSING: 'AUTH_HEADERS_MISSING',
  AUTH_TIMESTAMP: 'AUTH_TIMESTAMP',
  AUTH_L1_SIGNATURE: 'AUTH_L1_SIGNATURE',
  AUTH_UNKNOWN_KEY: 'AUTH_UNKNOWN_KEY',
  AUTH_PASSPHRASE: 'AUTH_PASSPHRASE',
  AUTH_ADDRESS: 'AUTH_ADDRESS',
  AUTH_SIGNATURE: 'AUTH_SIGNATURE',
  AUTH_ADMIN_KEY: 'AUTH_ADMIN_KEY',
} as const

export type AuthCode = (typeof AuthCode)[keyof typeof AuthCode]

export const ServiceCode = {
  /** The command queue or the pending-request table is full: retry shortly. */
  ENGINE_BUSY: 'ENGINE_BUSY',
  /** The engine is starting, stopping or has stopped. */
  ENGINE_UNAVAILABLE: 'ENGINE_UNAVAILABLE',
  /** The signature verification pool's queue is full: retry shortly. */
  SIGNATURE_POOL_BUSY: 'SIGNATURE_POOL_BUSY',
  /** The front end's thread is overloaded (its event loop lags): order placements are shed; retry shortly. */
  SERVER_BUSY: 'SERVER_BUSY',
  /** This node follows the primary (a read replica or a standby, issue 34): writes go to the primary. */
  NOT_PRIMARY: 'NOT_PRIMARY',
  /** The replicated command log has no quorum: writes are refused until it has (issue 34); reads go on. */
  COMMAND_LOG_UNAVAILABLE: 'COMMAND_LOG_UNAVAILABLE',
} as const

export type ServiceCode = (typeof ServiceCode)[keyof typeof ServiceCode]

export type ErrorCode = Code | ServiceCode | AuthCode | ApiCode

/** gRPC status codes (grpc/status.h). */
export const Grpc = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const

export interface CatalogueEntry {
  readonly http: number
  readonly grpc: number
}

const BAD: CatalogueEntry = { http: 400, grpc: Grpc.INVALID_ARGUMENT }
const RULE: CatalogueEntry = { http: 400, grpc: Grpc.FAILED_PRECONDITION }
const UNAUTHENTICATED: CatalogueEntry = { http: 401, grpc: Grpc.UNAUTHENTICATED }
const NOT_FOUND: CatalogueEntry = { http: 404, grpc: Grpc.NOT_FOUND }
const UNAVAILABLE: CatalogueEntry = { http: 503, grpc: Grpc.UNAVAILABLE }

export const CATALOGUE: Readonly<Record<ErrorCode, CatalogueEntry>> = {
  // Engine: order shape and rules (400), duplicates (409), cancel-only (503).
  INVALID_ORDER_PAYLOAD: BAD,
  INVALID_ORDER_AMOUNTS: BAD,
  INVALID_ORDER_PRICE: BAD,
  INVALID_ORDER_MIN_TICK_SIZE: BAD,
  INVALID_ORDER_MIN_SIZE: BAD,
  INVALID_ORDER_SIZE_MAX: BAD,
  INVALID_ORDER_EXPIRATION: BAD,
  INVALID_ORDER_FEE_RATE: BAD,
  INVALID_ORDER_DUPLICATED: { http: 409, grpc: Grpc.ALREADY_EXISTS },
  CLIENT_ORDER_ID_DUPLICATED: { http: 409, grpc: Grpc.ALREADY_EXISTS },
  INVALID_ORDER_NOT_ENOUGH_BALANCE: RULE,
  INVALID_POST_ONLY_ORDER_TYPE: BAD,
  INVALID_POST_ONLY_ORDER: RULE,
  FOK_ORDER_NOT_FILLED: RULE,
  FAK_ORDER_NOT_FILLED: RULE,
  TOKEN_NOT_FOUND: NOT_FOUND,
  MARKET_NOT_READY: RULE,
  MARKET_CANCEL_ONLY: UNAVAILABLE,
  MARKET_CLOSED: RULE,
  BATCH_TOO_LARGE: BAD,
  ENGINE_ORDERS_FULL: UNAVAILABLE,
  ORDER_NOT_FOUND: NOT_FOUND,
  ORDER_ALREADY_MATCHED: RULE,
  ORDER_ALREADY_CANCELED: RULE,
  CANCEL_TOO_MANY: BAD,
  ORDER_GROUP_INVALID: BAD,
  ORDER_GROUP_NOT_FOUND: NOT_FOUND,
  ORDER_GROUP_EXISTS: { http: 409, grpc: Grpc.ALREADY_EXISTS },
  ORDER_GROUPS_FULL: RULE,
  ORDER_GROUP_TRIGGERED: RULE,
  MASS_QUOTE_INVALID: BAD,
  MASS_QUOTE_TOO_LARGE: BAD,
  AMEND_SIZE_INVALID: BAD,
  AMEND_NOT_REDUCING: RULE,
  MARKET_NOT_FOUND: NOT_FOUND,
  MARKET_EXISTS: { http: 409, grpc: Grpc.ALREADY_EXISTS },
  MARKET_INVALID: BAD,
  MARKET_STATUS_TRANSITION: RULE,
  MARKET_TICK_SIZE_INVALID: BAD,
  MARKET_TICK_SIZE_OFF_GRID: RULE,
  MARKET_FEE_RATE_INVALID: BAD,
  MARKETS_FULL: UNAVAILABLE,
  LEDGER_AMOUNT_INVALID: BAD,
  LEDGER_BALANCE_LIMIT: RULE,
  LEDGER_INSUFFICIENT_BALANCE: RULE,
  LEDGER_ALLOWANCE_BELOW_HOLDS: RULE,
  LEDGER_MARKET_RESOLVED: RULE,
  LEDGER_MARKET_NOT_RESOLVED: RULE,
  LEDGER_NOTHING_TO_REDEEM: RULE,
  RELAY_INVALID: BAD,
  RELAY_DEADLINE_PASSED: RULE,
  RELAY_NONCE_MISMATCH: RULE,
  // Only the chain mirror sends these (never a client): a repeat, or a malformed sync.
  CHAIN_SYNC_STALE: RULE,
  CHAIN_SYNC_INVALID: BAD,
  TRADE_REVERSAL_INVALID: BAD,
  API_KEY_EXISTS: { http: 400, grpc: Grpc.ALREADY_EXISTS },
  API_KEY_NOT_FOUND: NOT_FOUND,
  API_KEY_INVALID: BAD,
  // Service.
  ENGINE_BUSY: UNAVAILABLE,
  ENGINE_UNAVAILABLE: UNAVAILABLE,
  SIGNATURE_POOL_BUSY: UNAVAILABLE,
  SERVER_BUSY: UNAVAILABLE,
  NOT_PRIMARY: UNAVAILABLE,
  COMMAND_LOG_UNAVAILABLE: UNAVAILABLE,
  // Authentication.
  AUTH_HEADERS_MISSING: UNAUTHENTICATED,
  AUTH_TIMESTAMP: UNAUTHENTICATED,
  AUTH_L1_SIGNATURE: UNAUTHENTICATED,
  AUTH_UNKNOWN_KEY: UNAUTHENTICATED,
  AUTH_PASSPHRASE: UNAUTHENTICATED,
  AUTH_ADDRESS: UNAUTHENTICATED,
  AUTH_SIGNATURE: UNAUTHENTICATED,
  AUTH_ADMIN_KEY: UNAUTHENTICATED,
  // API input.
  BAD_JSON: BAD,
  BAD_REQUEST: BAD,
  INVALID_PARAMETER: BAD,
  FORBIDDEN_KEY: BAD,
  BODY_TOO_LARGE: { http: 413, grpc: Grpc.RESOURCE_EXHAUSTED },
  HEADERS_TOO_LARGE: { http: 431, grpc: Grpc.RESOURCE_EXHAUSTED },
  QUERY_TOO_LONG: { http: 414, grpc: Grpc.INVALID_ARGUMENT },
  NOT_FOUND,
  METHOD_NOT_ALLOWED: { http: 405, grpc: Grpc.UNIMPLEMENTED },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, grpc: Grpc.INVALID_ARGUMENT },
  INVALID_SIGNATURE: BAD,
  NOT_OWNER: { http: 403, grpc: Grpc.PERMISSION_DENIED },
  ORDER_VERSION_MISMATCH: BAD,
  ORDER_UNKNOWN: NOT_FOUND,
  RATE_LIMITED: { http: 429, grpc: Grpc.RESOURCE_EXHAUSTED },
  TOO_MANY_STREAMS: { http: 429, grpc: Grpc.RESOURCE_EXHAUSTED },
  SLOW_CONSUMER: { http: 429, grpc: Grpc.RESOURCE_EXHAUSTED },
  SESSION_PROTOCOL: { http: 400, grpc: Grpc.INVALID_ARGUMENT },
  DEAD_MAN_TIMER: UNAVAILABLE,
  FAUCET_COOLDOWN: { http: 429, grpc: Grpc.RESOURCE_EXHAUSTED },
  FAUCET_BUDGET: { http: 429, grpc: Grpc.RESOURCE_EXHAUSTED },
  CHAIN_REVERTED: RULE,
  TOKENS_NOT_APPROVED: RULE,
  CHAIN_UNAVAILABLE: UNAVAILABLE,
  SETTLEMENT_BACKLOG: UNAVAILABLE,
  NOT_READY: UNAVAILABLE,
  INTERNAL: { http: 500, grpc: Grpc.INTERNAL },
}

/**
 * The one error type of Predex: a catalogue code, a message, and context fields. Services and
 * the host throw it; every face turns it into its answer (REST body and status, WebSocket error
 * event, gRPC status and details) from the catalogue.
 */
export class PredexError extends Error {
  override readonly name = 'PredexError'
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly context: Readonly<Record<string, unknown>> | null = null,
  ) {
    // A refusal is an answer, not a fault: its code and context say why, and capturing a stack
    // made each cost 5.8 µs instead of 0.5 (a flood refuses tens of thousands a second). Only
    // INTERNAL, a fault to debug, keeps its stack.
    const stackFramesMax = Error.stackTraceLimit
    if (code !== 'INTERNAL') Error.stackTraceLimit = 0
    try {
      super(message)
    } finally {
      Error.stackTraceLimit = stackFramesMax
    }
  }

  get status(): number {
    return CATALOGUE[this.code].http
  }

  /**
   * `{error, code, ...context}`; a context field named `error` or `code` never replaces them. The
   * shape of ErrorBody (src/api/shapes/error.ts), the error answer of every face.
   */
  body(): { readonly error: string; readonly code: string; readonly [context: string]: unknown } {
    const { error: _error, code: _code, ...context } = this.context ?? {}
    return { error: this.message, code: this.code, ...context }
  }
}

export function engineError(
  code: Code,
  message: string = CODE_MESSAGES[code],
  context: Readonly<Record<string, unknown>> | null = null,
): PredexError {
  return new PredexError(code, message, context)
}

/** All codes of every source, for the catalogue test. */
export const ALL_CODES: readonly ErrorCode[] = [
  ...Object.values(Code), ...Object.values(ServiceCode), ...Object.values(AuthCode), ...Object.values(ApiCode),
]

/**
 * What `parse` gives, or the refusal it throws: one item of a batch parsed, or its error, which
 * the service reports in the item's place (REST's and gRPC's batches, mass quotes and dry runs,
 * the order-entry session). Any other error goes up.
 */
export function refusalOr<T>(parse: () => T): T | PredexError {
  try {
    return parse()
  } catch (error) {
    if (error instanceof PredexError) return error
    throw error
  }
}
