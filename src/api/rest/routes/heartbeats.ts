/**
 * Heartbeats (cancel on disconnect for REST clients): POST /v1/heartbeats and /heartbeats. Parses
 * `{"heartbeat_id": id | "" | null}` and hands it to the heartbeats service (src/service/trading/heartbeats.ts).
 */
import { ApiCode, PredexError } from '../../../errors.js'
import { HEARTBEAT_ID_LENGTH_MAX, HEARTBEAT_TIMEOUT_MS, REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import type { HeartbeatAnswer } from '../../shapes/heartbeat.js'
import type { HeartbeatRequest, Unparsed } from '../../shapes/requests.js'
import { parseJsonBody, requireObject } from '../../wire.js'
import type { RestRequest } from '../route.js'
import type { HandlerOf, TypedRoute } from '../typed-route.js'
import { traderOf } from './common.js'

/**
 * The id the client sends back: null to start a chain ('' and an absent field or body too, as
 * clob-client-v2 starts with '' and 5.8.1 with null), else a string of at most HEARTBEAT_ID_LENGTH_MAX.
 */
export function heartbeatIdOf(request: RestRequest): string | null {
  if (request.body.length === 0) return null
  const id = (requireObject(parseJsonBody(request.body), 'body') as Unparsed<HeartbeatRequest>).heartbeat_id
  if (id === undefined || id === null || id === '') return null
  if (typeof id !== 'string') {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'heartbeat_id must be a string or null', { field: 'heartbeat_id' })
  }
  if (id.length > HEARTBEAT_ID_LENGTH_MAX) {
    throw new PredexError(ApiCode.INVALID_PARAMETER, 'heartbeat_id is too long',
      { field: 'heartbeat_id', lengthMax: HEARTBEAT_ID_LENGTH_MAX })
  }
  return id
}

const beat: HandlerOf<HeartbeatAnswer> = (request, identity, context) => {
  const answer: HeartbeatAnswer = {
    heartbeat_id: context.heartbeats.beat(traderOf(identity), heartbeatIdOf(request)),
    status: 'ok',
  }
  return { body: answer }
}

const openapi = {
  tag: 'trading',
  summary: `Heartbeat: once a key sends one, all its open orders are cancelled if none follows within ` +
    `${HEARTBEAT_TIMEOUT_MS / 1000} s (plus a grace)`,
  body: '{heartbeat_id: previous id, or "" / null to start}',
  response: '{heartbeat_id, status: "ok"}',
}

// The 'cancel' budget: Polymarket publishes none for heartbeats, and a heartbeat is a cancel put
// off; like the cancels, its budget is large enough that a throttled client can always keep it up.
export const heartbeatRoutes: TypedRoute[] = [
  { method: 'POST', path: '/heartbeats', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancel', openapi,
    handler: beat },
  { method: 'POST', path: '/v1/heartbeats', auth: 'l2', bodyMax: REST_SMALL_BODY_BYTES_MAX, rate: 'cancel',
    surface: 'compat', openapi, handler: beat },
]
