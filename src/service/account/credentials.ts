/**
 * API credentials: create and derive for a wallet that proved itself with L1 (its ClobAuth
 * signature over a nonce), list and revoke for a caller authenticated with L2. Create is
 * idempotent: the same address and nonce give the same credential, usable at once (journaled
 * before the answer).
 */
import type { ApiCredential } from '../../auth/l2.js'
import { Code } from '../../engine/codes.js'
import { PredexError } from '../../errors.js'
import type { ServiceContext } from '../context.js'

export function createCredential(context: ServiceContext, address: string, nonce: number): Promise<ApiCredential> {
  return context.credentials.create(address, nonce)
}

/** The credential of (address, nonce); API_KEY_NOT_FOUND if none was created. */
export function deriveCredential(context: ServiceContext, address: string, nonce: number): ApiCredential {
  const credential = context.credentials.derive(address, nonce)
  if (credential === undefined) throw new PredexError(Code.API_KEY_NOT_FOUND, 'Could not derive api key!', { nonce })
  return credential
}

export function apiKeysOf(context: ServiceContext, address: string): string[] {
  return context.credentials.keysOf(address).map((c) => c.apiKey)
}

/** Revokes the key; false if it was not there. */
export function revokeCredential(context: ServiceContext, apiKey: string): Promise<boolean> {
  return context.credentials.revoke(apiKey)
}
