/**
 * An API key's secret and passphrase derived from the server's master key and the key's public
 * identity, so that neither is stored: the journal keeps the key's id, owner and nonce, and the
 * front end recomputes the two at start and at creation. The key's id (a random UUID) is part of
 * the input, so a key revoked and created again for the same (address, nonce) gets new secrets,
 * and the revoked ones stay unusable. Formats are the ones clients expect: the secret url-safe
 * base64 of 32 bytes with its padding (44 characters), the passphrase 64 hex characters.
 */
import type { ApiCredential } from './l2.js'
import type { MasterKey } from '../crypto/master-key.js'

/** Versioned labels: a change of derivation gets new labels, never new outputs under these. */
const SECRET_LABEL = 'predex/api-secret/v1'
const PASSPHRASE_LABEL = 'predex/api-passphrase/v1'

/** The public identity a key's secrets derive from. */
export interface KeyIdentity {
  readonly apiKey: string
  /** Lower-case. */
  readonly address: string
  readonly nonce: number
}

/** The HMAC's message: a JSON array, so no choice of fields can make two identities read the same. */
function message(label: string, key: KeyIdentity): string {
  return JSON.stringify([label, key.apiKey, key.address, key.nonce])
}

export function derivedSecret(master: MasterKey, key: KeyIdentity): string {
  return master.mac(message(SECRET_LABEL, key)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_')
}

export function derivedPassphrase(master: MasterKey, key: KeyIdentity): string {
  return master.mac(message(PASSPHRASE_LABEL, key)).toString('hex')
}

export function derivedCredential(master: MasterKey, key: KeyIdentity): ApiCredential {
  const { apiKey, address, nonce } = key
  return { apiKey, address, nonce, secret: derivedSecret(master, key), passphrase: derivedPassphrase(master, key) }
}
