/**
 * The id of a REST request: the client's own `X-Request-Id` when it sends a sensible one (a proxy
 * or a client that traces its calls), or a new one. It is returned in the `X-Request-Id` response
 * header and written on every log line of the request, so a user reporting a failed call can
 * name the line an operator should look for.
 */
import { randomBytes } from 'node:crypto'

/** What a client may send as its own id: printable, short, no spaces (it goes into log lines). */
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/

// A random prefix per process and a counter: unique across restarts without a random draw per request.
const PREFIX = randomBytes(6).toString('base64url')
let counter = 0

export function requestIdOf(sent: string): string {
  if (sent !== '' && CLIENT_ID.test(sent)) return sent
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER
  return `${PREFIX}-${counter.toString(36)}`
}
