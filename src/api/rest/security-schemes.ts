/**
 * The OpenAPI security schemes (components.securitySchemes) and which a route of each level and
 * surface names. Predex takes both header families on both surfaces (src/auth/headers.ts): its
 * native `EXCHANGE-*` names and Polymarket's `POLY_*` ones, which clob-client sends. An OpenAPI
 * apiKey scheme names one header, so each family is a scheme of its own, and a /compat route lists
 * Polymarket's first and the native one as the alternative. The full recipes, with a worked
 * example, are the Authentication section of GET /docs (src/api/rest/docs-auth.ts).
 */
import { DEFAULT_WINDOW } from '../../auth/failure.js'
import { CLOB_AUTH_MESSAGE, CLOB_AUTH_NAME, CLOB_AUTH_TYPE } from '../../crypto/eip712.js'
import type { AuthLevel } from './route.js'

export type Surface = 'native' | 'compat'

/** Security requirements by surface and level: each entry an alternative (OpenAPI: any one of them). */
export const SECURITY: Readonly<Record<Surface, Readonly<Record<AuthLevel, readonly unknown[]>>>> = {
  // L2 is the seed's `hmac_signature` scheme.
  native: { none: [], l1: [{ l1: [] }], l2: [{ hmac_signature: [] }], admin: [{ admin: [] }] },
  compat: {
    none: [], l1: [{ poly_l1: [] }, { l1: [] }], l2: [{ poly_hmac_signature: [] }, { hmac_signature: [] }],
    admin: [{ admin: [] }],
  },
}

const L1_SIGNED = `the wallet's EIP-712 signature (65 bytes, 0x and hex) of ${CLOB_AUTH_TYPE} with message ` +
  `"${CLOB_AUTH_MESSAGE}", the address and timestamp of the headers and the nonce (0 when the header is ` +
  `absent), under the domain {name: "${CLOB_AUTH_NAME}", version: "1", chainId} of the server's chain ` +
  '(no verifying contract). It creates or derives API credentials.'

const L2_SIGNED = 'base64url(HMAC-SHA256(key: the base64url-decoded API secret, message: timestamp + METHOD + path ' +
  '+ body)), "=" padding kept: the path without the query string and without /compat, the body the raw bytes ' +
  'sent (nothing when there is none), the timestamp unix seconds within the server\'s window ' +
  `(${DEFAULT_WINDOW.pastSec} s past, ${DEFAULT_WINDOW.futureSec} s ahead by default).`

function l1Scheme(family: 'EXCHANGE' | 'POLY'): Record<string, string> {
  const [address, timestamp, nonce] = family === 'POLY' ? ['POLY_ADDRESS', 'POLY_TIMESTAMP', 'POLY_NONCE']
    : ['EXCHANGE-ADDRESS', 'EXCHANGE-TIMESTAMP', 'EXCHANGE-NONCE']
  return { type: 'apiKey', in: 'header', name: family === 'POLY' ? 'POLY_SIGNATURE' : 'EXCHANGE-SIGNATURE',
    description: `L1 (wallet), with ${address}, ${timestamp} and ${nonce}: ${L1_SIGNED}` }
}

function l2Scheme(family: 'EXCHANGE' | 'POLY'): Record<string, string> {
  const others = family === 'POLY' ? 'POLY_ADDRESS, POLY_TIMESTAMP, POLY_API_KEY and POLY_PASSPHRASE'
    : 'EXCHANGE-ADDRESS, EXCHANGE-TIMESTAMP, EXCHANGE-API-KEY and EXCHANGE-PASSPHRASE'
  return { type: 'apiKey', in: 'header', name: family === 'POLY' ? 'POLY_SIGNATURE' : 'EXCHANGE-SIGNATURE',
    description: `L2 (API key), with ${others}: ${L2_SIGNED}` }
}

/** components.securitySchemes. */
export function securitySchemes(): Record<string, unknown> {
  return {
    l1: l1Scheme('EXCHANGE'),
    poly_l1: l1Scheme('POLY'),
    hmac_signature: l2Scheme('EXCHANGE'),
    poly_hmac_signature: l2Scheme('POLY'),
    admin: { type: 'apiKey', in: 'header', name: 'EXCHANGE-ADMIN-KEY',
      description: 'The admin key, compared in constant time: --admin-key (ADMIN_API_KEY), else generated at the ' +
        'first start into <data-dir>/admin-key (mode 600, never printed or logged).' },
  }
}
