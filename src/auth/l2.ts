/**
 * L2 authentication (reference section 2.2): an API key, its passphrase, the owner's address and
 * an HMAC over the timestamp and the signed message, which each face defines (REST:
 * `METHOD + path + raw body`; gRPC: the full method name + the request bytes). Checks run in
 * this order, and the failure names the one that failed: headers present, timestamp within the window, key known,
 * passphrase, address, HMAC (the last three in constant time). The same L2 headers may be used
 * again within the window: clob-client reuses them for every page of a listing.
 */
import { equalSecrets, l2Signature } from '../crypto/hmac.js'
import { normalAddress } from '../crypto/address.js'
import { AuthCode } from '../errors.js'
import { authFailure, checkTimestamp, type AuthFailure, type TimestampWindow } from './failure.js'
import { l2HeadersOf, type HeaderGetter } from './headers.js'
import { lookupBounded } from './api-key.js'

export interface ApiCredential {
  readonly apiKey: string
  /** Lower-case. */
  readonly address: string
  readonly secret: string
  readonly passphrase: string
  readonly nonce: number
}

export interface L2Request {
  readonly method: string
  /** The path without the query string (and without a /compat prefix). */
  readonly path: string
  readonly body: Uint8Array | string
  readonly headers: HeaderGetter
}

/** What the HMAC covers after the timestamp: `head`, then the raw `body` bytes as received. */
export interface L2Message {
  readonly head: string
  readonly body: Uint8Array | string
}

/** REST's signed message: `METHOD + path + body` (Polymarket's). */
export function restL2Message(method: string, path: string, body: Uint8Array | string): L2Message {
  return { head: method.toUpperCase() + path, body }
}

/** gRPC's signed message: the full method name ("/predex.v1.TradingService/PlaceOrder") + the request bytes. */
export function grpcL2Message(fullMethodName: string, requestBytes: Uint8Array): L2Message {
  return { head: fullMethodName, body: requestBytes }
}

export interface L2Identity {
  readonly ok: true
  readonly apiKey: string
  readonly address: string
}

export function verifyL2(request: L2Request, lookup: (apiKey: string) => ApiCredential | undefined, nowSec: number,
  window: TimestampWindow): L2Identity | AuthFailure {
  const message = restL2Message(request.method, request.path, request.body)
  return verifyL2Message(request.headers, message, lookup, nowSec, window)
}

/** verifyL2 over any face's signed message. */
export function verifyL2Message(get: HeaderGetter, message: L2Message,
  lookup: (apiKey: string) => ApiCredential | undefined, nowSec: number, window: TimestampWindow):
  L2Identity | AuthFailure {
  const headers = l2HeadersOf(get)
  if (Array.isArray(headers)) {
    return authFailure(AuthCode.AUTH_HEADERS_MISSING, `missing L2 headers: ${headers.join(', ')}`)
  }
  const stale = checkTimestamp(headers.timestamp, nowSec, window)
  if (stale !== null) return stale
  const credential = lookupBounded(lookup, headers.apiKey)
  if (credential === undefined) {
    return authFailure(AuthCode.AUTH_UNKNOWN_KEY, 'Unauthorized/Invalid api key: unknown or revoked key')
  }
  if (!equalSecrets(headers.passphrase, credential.passphrase)) {
    return authFailure(AuthCode.AUTH_PASSPHRASE, 'Unauthorized/Invalid api key: the passphrase does not match the key')
  }
  if (normalAddress(headers.address) !== credential.address) {
    return authFailure(AuthCode.AUTH_ADDRESS, 'Unauthorized/Invalid api key: the address is not the owner of the key')
  }
  // No method argument: the message's head already holds what follows the timestamp.
  const expected = l2Signature(credential.secret, headers.timestamp, '', message.head, message.body)
  if (!equalSecrets(headers.signature, expected)) {
    return authFailure(AuthCode.AUTH_SIGNATURE,
      'Unauthorized/Invalid api key: the HMAC does not match ' +
      '(it covers timestamp + METHOD + path, without the query, + the raw body)')
  }
  return { ok: true, apiKey: credential.apiKey, address: credential.address }
}
