/**
 * API credentials, kept in the engine so that they are journaled with everything else: a key
 * registered by a command is durable and usable as soon as the command is acknowledged. One
 * credential per (address, nonce), as Polymarket derives them. Events never carry the secret.
 * A key's secret and passphrase are derived (both empty): the front end computes them from the
 * server's master key, which the engine never sees, so nothing of them is journaled. Keys
 * registered with the two in clear (by servers before the derivation) keep them and keep working.
 */
import { Code } from './codes.js'
import type { RegisterApiKey, RevokeApiKey } from './command.js'
import type { Engine } from './engine.js'
import { isId, isSafeCount } from './order-shape.js'
import { rejection } from './rejection.js'
import type { Done, Rejection } from './result.js'

export interface ApiKeyRecord {
  readonly apiKey: string
  readonly address: string
  /** Empty with the passphrase: derived from the master key (isDerived). */
  readonly secret: string
  readonly passphrase: string
  readonly nonce: number
  readonly createdMs: number
}

/** True for a key whose secret and passphrase the front end derives: both empty, none stored. */
export function isDerived(key: { readonly secret: string; readonly passphrase: string }): boolean {
  return key.secret === '' && key.passphrase === ''
}

export function addressNonceKey(address: string, nonce: number): string {
  return `${address}/${nonce}`
}

export function registerApiKey(engine: Engine, command: RegisterApiKey): Done | Rejection {
  const field = firstBadField(command)
  if (field !== null) return rejection(Code.API_KEY_INVALID, { field })
  if (engine.apiKeys.has(command.apiKey)) return rejection(Code.API_KEY_EXISTS, { field: 'apiKey' })
  const slot = addressNonceKey(command.address, command.nonce)
  if (engine.apiKeysByAddressNonce.has(slot)) return rejection(Code.API_KEY_EXISTS, { field: 'nonce' })
  const record: ApiKeyRecord = {
    apiKey: command.apiKey,
    address: command.address,
    secret: command.secret,
    passphrase: command.passphrase,
    nonce: command.nonce,
    createdMs: engine.timeMs,
  }
  engine.apiKeys.set(record.apiKey, record)
  engine.apiKeysByAddressNonce.set(slot, record.apiKey)
  const { apiKey, address, nonce } = record
  engine.emit({ type: 'apiKey', action: 'registered', apiKey, address, nonce })
  return { ok: true }
}

export function revokeApiKey(engine: Engine, command: RevokeApiKey): Done | Rejection {
  const record = engine.apiKeys.get(command.apiKey)
  if (record === undefined) return rejection(Code.API_KEY_NOT_FOUND, null)
  engine.apiKeys.delete(record.apiKey)
  engine.apiKeysByAddressNonce.delete(addressNonceKey(record.address, record.nonce))
  const { apiKey, address, nonce } = record
  engine.emit({ type: 'apiKey', action: 'revoked', apiKey, address, nonce })
  return { ok: true }
}

function firstBadField(command: RegisterApiKey): string | null {
  if (!isId(command.apiKey)) return 'apiKey'
  if (!isId(command.address)) return 'address'
  // Both empty (derived), or both given in clear; one without the other is neither.
  if (!isDerived(command) && !isId(command.secret)) return 'secret'
  if (!isDerived(command) && !isId(command.passphrase)) return 'passphrase'
  if (!isSafeCount(command.nonce)) return 'nonce'
  return null
}
