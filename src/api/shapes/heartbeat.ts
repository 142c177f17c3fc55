/** Bodies of the heartbeat routes (routes/heartbeats.ts; reference clob-v2-compat.md section 5.5). */

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
export type HeartbeatSharedBodyMap = {
  'POST /heartbeats': HeartbeatAnswer
}

/** Routes only under /compat: the path clob-client (5.8.1 and V2) posts to. */
export type HeartbeatCompatBodyMap = {
  'POST /v1/heartbeats': HeartbeatAnswer
}

/** Routes only on the native API. */
export type HeartbeatNativeBodyMap = object

/** The maps above, as src/api/shapes/bodies.ts joins them. */
export type HeartbeatSharedBodies = HeartbeatSharedBodyMap
export type HeartbeatCompatBodies = HeartbeatCompatBodyMap
export type HeartbeatNativeBodies = HeartbeatNativeBodyMap

type RoutesOf<B> = { readonly [R in keyof B]: true }

/**
 * The routes above as runtime lists (object keys, so the compiler checks both directions), for
 * src/api/shapes/keys.ts to add to NATIVE_ROUTES and COMPAT_ROUTES.
 */
export const HEARTBEAT_SHARED_ROUTES: RoutesOf<HeartbeatSharedBodyMap> = { 'POST /heartbeats': true }
export const HEARTBEAT_COMPAT_ROUTES: RoutesOf<HeartbeatCompatBodyMap> = { 'POST /v1/heartbeats': true }
export const HEARTBEAT_NATIVE_ROUTES: RoutesOf<HeartbeatNativeBodyMap> = {}
