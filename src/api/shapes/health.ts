/** Health and readiness (GET /health, /ready); GET /time is a bare integer, GET /compat/ the string "OK". */

/** GET /health. */
export type Health = {
  readonly status: 'ok'
  /** The server's version (package.json), not the API's. */
  readonly version: string
  /** The engine sequence the read model has applied. */
  readonly seq: number
  /** Commands submitted and not yet durable (the same as pendingRequests). */
  readonly journalLag: number
  readonly uptimeSec: number
  readonly pendingRequests: number
  /** Bytes in use in the command ring, and its size. */
  readonly ringBytesUsed: number
  readonly ringBytes: number
}

/** GET /ready: 200 while commands are accepted (503 NOT_READY otherwise). */
export type Readiness = {
  readonly ready: true
  readonly seq: number
}

/** GET /time: unix seconds. */
export type ServerTime = number

/** GET /compat/: Polymarket's liveness answer. */
export type CompatLiveness = 'OK'
