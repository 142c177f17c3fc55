/** Bodies of the heartbeat routes (routes/heartbeats.ts). */

/** Routes answering the same body on both surfaces. */
export type HeartbeatSharedBodies = object

/** Routes only under /compat. */
export type HeartbeatCompatBodies = object

/** Routes only on the native API. */
export type HeartbeatNativeBodies = object
