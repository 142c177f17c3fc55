/**
 * API credentials: create and derive with L1 (the wallet's ClobAuth signature), list and delete
 * with L2. Create is idempotent: the same address and nonce give the same credential, at once
 * usable (it is journaled before the answer).
 */
import type { ServiceContext } from '../../../service/context.js'
import { PredexError } from '../../../errors.js'
import { Code } from '../../../engine/codes.js'
import type { Route } from '../route.js'
import { REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import { identityOf } from './common.js'

const credentialBody = (c: { apiKey: string; secret: string; passphrase: string }) =>
  ({ apiKey: c.apiKey, secret: c.secret, passphrase: c.passphrase })

export const authRoutes: Route<ServiceContext>[] = [
  { method: 'POST', path: '/auth/api-key', auth: 'l1', rate: 'apiKey', bodyMax: REST_SMALL_BODY_BYTES_MAX,
    openapi: { tag: 'auth', summary: 'Create (or return) the API credential of the wallet and nonce (L1)', response: '{apiKey, secret, passphrase}' },
    handler: async (_request, identity, context) => {
      const { address, nonce } = identityOf(identity)
      return { body: credentialBody(await context.credentials.create(address, nonce)) }
    } },
  { method: 'GET', path: '/auth/derive-api-key', auth: 'l1', rate: 'apiKey', bodyMax: 0,
    openapi: { tag: 'auth', summary: 'The API credential of the wallet and nonce (L1)', response: '{apiKey, secret, passphrase}' },
    handler: (_request, identity, context) => {
      const { address, nonce } = identityOf(identity)
      const credential = context.credentials.derive(address, nonce)
      if (credential === undefined) throw new PredexError(Code.API_KEY_NOT_FOUND, 'Could not derive api key!', { nonce })
      return { body: credentialBody(credential) }
    } },
  { method: 'GET', path: '/auth/api-keys', auth: 'l2', rate: 'apiKey', bodyMax: 0,
    openapi: { tag: 'auth', summary: "The caller's API keys (L2)", response: '{apiKeys: [apiKey]}' },
    handler: (_request, identity, context) => ({ body: { apiKeys: context.credentials.keysOf(identityOf(identity).address).map((c) => c.apiKey) } }) },
  { method: 'DELETE', path: '/auth/api-key', auth: 'l2', rate: 'apiKey', bodyMax: REST_SMALL_BODY_BYTES_MAX,
    openapi: { tag: 'auth', summary: 'Revoke the API key used to sign this request (L2)', response: '{deleted: true}' },
    handler: async (_request, identity, context) => {
      const revoked = await context.credentials.revoke(identityOf(identity).apiKey!)
      return { body: { deleted: revoked } }
    } },
]
