/**
 * The authentication headers a client sends: L1 (wallet) to create or derive API credentials,
 * L2 (API key + HMAC) for everything user-specific. Polymarket's `POLY_*` names by default
 * (what the compat surface and clob-client use); the native `EXCHANGE-*` names on request. The
 * SDK sends them (src/client) and the server's docs page shows them (src/api/rest/auth-example.ts):
 * signing is crypto, below both.
 */
import { l2Signature } from './hmac.js'
import type { Wallet } from './wallet.js'

/**
 * What the L2 headers are made from: the API credential, as POST /auth/api-key answers it
 * (ApiCredentials, src/api/shapes/credential.ts, has these fields).
 */
export interface L2Credentials {
  readonly apiKey: string
  readonly secret: string
  readonly passphrase: string
}

export type HeaderFamily = 'POLY' | 'EXCHANGE'

function named(family: HeaderFamily, suffix: string): string {
  return family === 'POLY' ? `POLY_${suffix}` : `EXCHANGE-${suffix.replace(/_/g, '-')}`
}

export function l1Headers(wallet: Wallet, chainId: number, timestampSec: number, nonce = 0,
  family: HeaderFamily = 'POLY'): Record<string, string> {
  return {
    [named(family, 'ADDRESS')]: wallet.address,
    [named(family, 'SIGNATURE')]: wallet.signClobAuth(timestampSec, nonce, chainId),
    [named(family, 'TIMESTAMP')]: String(timestampSec),
    [named(family, 'NONCE')]: String(nonce),
  }
}

/** L2 headers for one request: the HMAC covers timestamp + METHOD + path (no query) + body. */
export function l2Headers(credentials: L2Credentials, address: string, method: string, path: string, body: string,
  timestampSec: number, family: HeaderFamily = 'POLY'): Record<string, string> {
  return {
    [named(family, 'ADDRESS')]: address,
    [named(family, 'SIGNATURE')]: l2Signature(credentials.secret, String(timestampSec), method, path, body),
    [named(family, 'TIMESTAMP')]: String(timestampSec),
    [named(family, 'API_KEY')]: credentials.apiKey,
    [named(family, 'PASSPHRASE')]: credentials.passphrase,
  }
}
