/**
 * API credentials over REST (src/service/account/credentials.ts): create and derive with L1, list
 * and delete with L2.
 */
import type { ApiCredential } from '../../../auth/l2.js'
import { REST_SMALL_BODY_BYTES_MAX } from '../../../limits.js'
import { apiKeysOf, createCredential, deriveCredential, revokeCredential }
  from '../../../service/account/credentials.js'
import type { ApiCredentials } from '../../shapes/credential.js'
import type { TypedRoute } from '../typed-route.js'
import { identityOf, traderOf } from './common.js'

const credentialBody = (c: ApiCredential): ApiCredentials =>
  ({ apiKey: c.apiKey, secret: c.secret, passphrase: c.passphrase })

export const authRoutes: TypedRoute[] = [
  { method: 'POST', path: '/auth/api-key', auth: 'l1', rate: 'apiKey', bodyMax: REST_SMALL_BODY_BYTES_MAX,
    openapi: { tag: 'auth', summary: 'Create (or return) the API credential of the wallet and nonce (L1)',
      response: '{apiKey, secret, passphrase}' },
    handler: async (_request, identity, context) => {
      const { address, nonce } = identityOf(identity)
      return { body: credentialBody(await createCredential(context, address, nonce)) }
    } },
  { method: 'GET', path: '/auth/derive-api-key', auth: 'l1', rate: 'apiKey', bodyMax: 0,
    openapi: { tag: 'auth', summary: 'The API credential of the wallet and nonce (L1)',
      response: '{apiKey, secret, passphrase}' },
    handler: (_request, identity, context) => {
      const { address, nonce } = identityOf(identity)
      return { body: credentialBody(deriveCredential(context, address, nonce)) }
    } },
  { method: 'GET', path: '/auth/api-keys', auth: 'l2', rate: 'apiKey', bodyMax: 0,
    openapi: { tag: 'auth', summary: "The caller's API keys (L2)", response: '{apiKeys: [apiKey]}' },
    handler: (_request, identity, context) =>
      ({ body: { apiKeys: apiKeysOf(context, identityOf(identity).address) } }) },
  { method: 'DELETE', path: '/auth/api-key', auth: 'l2', rate: 'apiKey', bodyMax: REST_SMALL_BODY_BYTES_MAX,
    openapi: { tag: 'auth', summary: 'Revoke the API key used to sign this request (L2)',
      response: '{deleted: true}' },
    handler: async (_request, identity, context) =>
      ({ body: { deleted: await revokeCredential(context, traderOf(identity).apiKey) } }) },
]
