/**
 * What both WebSocket channels send alike (src/api/ws/socket.ts): text PING answered PONG, and
 * an error event for a message the channel refuses. Type-only.
 */
import type { ErrorBody } from './error.js'

/** Text `PING`: answered `PONG` (send one every 10 s; a socket silent for 60 s is closed). */
export type WsPing = 'PING'
/** The answer to `PING`, as text. */
export type WsPong = 'PONG'

/** A refused message: the catalogue's error body (src/errors.ts: error, code, context) and its event type. */
export type WsError = { readonly event_type: 'error' } & ErrorBody
