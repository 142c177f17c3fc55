/**
 * Authentication by the credential itself (the WebSocket user channel, Polymarket's protocol):
 * the client sends its API key, secret and passphrase in its first message instead of signing
 * each request. The key must be known, the secret and passphrase must match, in constant time.
 */
import { equalSecrets } from '../crypto/hmac.js'
import type { ApiCredential } from './l2.js'
import { AuthCode } from '../errors.js'
import { authFailure, type AuthFailure } from './failure.js'
import { lookupBounded } from './api-key.js'

/** The credential as the face extracted it: a field the client did not send (or not as text) is undefined. */
export interface SecretCredential {
  readonly apiKey: string | undefined
  readonly secret: string | undefined
  readonly passphrase: string | undefined
}

export function verifySecret(given: SecretCredential, lookup: (apiKey: string) => ApiCredential | undefined):
  { ok: true; credential: ApiCredential } | AuthFailure {
  if (given.apiKey === undefined || given.secret === undefined || given.passphrase === undefined) {
    return authFailure(AuthCode.AUTH_HEADERS_MISSING, 'auth must carry apiKey, secret and passphrase')
  }
  const credential = lookupBounded(lookup, given.apiKey)
  if (credential === undefined) return authFailure(AuthCode.AUTH_UNKNOWN_KEY, 'unknown API key')
  // Both compared, whatever the first gives: the time taken says nothing about which one is wrong.
  const secretOk = equalSecrets(given.secret, credential.secret)
  const passphraseOk = equalSecrets(given.passphrase, credential.passphrase)
  if (!secretOk || !passphraseOk) {
    return authFailure(AuthCode.AUTH_PASSPHRASE, 'the secret or passphrase does not match the API key')
  }
  return { ok: true, credential }
}
