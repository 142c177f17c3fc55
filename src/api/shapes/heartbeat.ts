/** Bodies of the heartbeat routes (routes/heartbeats.ts; reference clob-v2-compat.md section 5.5). */
import type { RoutesOf } from './keys.js'

/**
 * A heartbeat acknowledged: the id to send with the next one (clob-client-v2 types the answer
 * `{heartbeat_id, error_msg?}`; Polymarket's docs show `{status: "ok"}`: both are here).
 */
export type HeartbeatAnswer = {
  /** A UUID, new each time. */
  readonly heartbeat_id: string
  readonly status: 'ok'
}

/** Routes answering the same body on both surfaces. */
export type HeartbeatSharedBodies = {
  'POST /heartbeats': HeartbeatAnswer
}

/** Routes only under /compat: the path clob-client (5.8.1 and V2) posts to. */
export type HeartbeatCompatBodies = {
  'POST /v1/heartbeats': HeartbeatAnswer
}

/** Routes only on the native API. */
export type HeartbeatNativeBodies = object

/**
 * The routes above as runtime lists (object keys, so the compiler checks both directions), for
 * src/api/shapes/keys.ts to add to NATIVE_ROUTES and COMPAT_ROUTES.
 */
export const HEARTBEAT_SHARED_ROUTES: RoutesOf<HeartbeatSharedBodies> = { 'POST /heartbeats': true }
export const HEARTBEAT_COMPAT_ROUTES: RoutesOf<HeartbeatCompatBodies> = { 'POST /v1/heartbeats': true }
export const HEARTBEAT_NATIVE_ROUTES: RoutesOf<HeartbeatNativeBodies> = {}
