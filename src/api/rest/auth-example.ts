/**
 * The worked examples of GET /docs's Authentication section, computed by the code clients and the
 * server use (src/crypto/request-headers.ts, src/crypto/wallet.ts, src/crypto/hmac.ts) from fixed inputs
 * when the page is built: the figures shown are what the code makes, not copies that could drift.
 * test/contract/docs-auth.test.ts checks them against an independent HMAC and EIP-712 signer, and
 * that the server's own checks accept them.
 *
 * The wallet key is Hardhat's and Foundry's first test account, public to everyone: never fund it.
 */
import { CLOB_AUTH_MESSAGE, CLOB_AUTH_NAME } from '../../crypto/eip712.js'
import { l1Headers, l2Headers } from '../../crypto/request-headers.js'
import { Wallet } from '../../crypto/wallet.js'
import type { ApiCredentials } from '../shapes/credential.js'

/** A well-known test key (anvil / hardhat account 0): for examples only. */
export const EXAMPLE_PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
/** 2026-01-01T00:00:00Z: a real request signs the time it is sent. */
export const EXAMPLE_TIMESTAMP_SEC = 1_767_225_600

export interface L1Example {
  readonly address: string
  readonly chainId: number
  readonly timestampSec: number
  readonly nonce: number
  /** What the wallet signs, as eth_signTypedData_v4 (viem's signTypedData) takes it. */
  readonly typedData: {
    readonly domain: { readonly name: string; readonly version: '1'; readonly chainId: number }
    readonly types: { readonly ClobAuth: readonly { readonly name: string; readonly type: string }[] }
    readonly primaryType: 'ClobAuth'
    readonly message: { readonly address: string; readonly timestamp: string; readonly nonce: number;
      readonly message: string }
  }
  /** The request's headers, Polymarket's names (clob-client's). */
  readonly headers: Readonly<Record<string, string>>
}

export interface L2Example {
  readonly credentials: ApiCredentials
  readonly address: string
  readonly timestampSec: number
  readonly method: string
  /** As requested: under /compat, with a query string. */
  readonly url: string
  /** What the HMAC covers of it: no /compat, no query. */
  readonly signedPath: string
  readonly body: string
  /** timestamp + METHOD + path + body, the HMAC's message. */
  readonly message: string
  /** The request's headers, Polymarket's names. */
  readonly headers: Readonly<Record<string, string>>
  /** The same request with the native names. */
  readonly nativeHeaders: Readonly<Record<string, string>>
}

export function l1Example(chainId: number): L1Example {
  const wallet = new Wallet(EXAMPLE_PRIVATE_KEY)
  const nonce = 0
  return {
    address: wallet.address, chainId, timestampSec: EXAMPLE_TIMESTAMP_SEC, nonce,
    typedData: {
      domain: { name: CLOB_AUTH_NAME, version: '1', chainId },
      types: { ClobAuth: [{ name: 'address', type: 'address' }, { name: 'timestamp', type: 'string' },
        { name: 'nonce', type: 'uint256' }, { name: 'message', type: 'string' }] },
      primaryType: 'ClobAuth',
      message: { address: wallet.address, timestamp: String(EXAMPLE_TIMESTAMP_SEC), nonce, message: CLOB_AUTH_MESSAGE },
    },
    headers: l1Headers(wallet, chainId, EXAMPLE_TIMESTAMP_SEC, nonce, 'POLY'),
  }
}

/** Credentials in the formats POST /auth/api-key answers: a UUID, base64url of 32 bytes, 64 hex digits. */
const EXAMPLE_CREDENTIALS: ApiCredentials = {
  apiKey: '2f6b1c1e-8a53-4c4e-9d7b-5b0f6c3a9e21',
  // Bytes chosen so that the url-safe alphabet's - and _ show.
  secret: Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 251) % 256)).toString('base64url') + '=',
  passphrase: 'a3'.repeat(32),
}

export function l2Example(): L2Example {
  const address = new Wallet(EXAMPLE_PRIVATE_KEY).address
  const method = 'DELETE'
  const url = '/compat/order'
  const signedPath = '/order'
  const body = JSON.stringify({ orderID: `0x${'1f'.repeat(32)}` })
  const sign = (family: 'POLY' | 'EXCHANGE'): Record<string, string> =>
    l2Headers(EXAMPLE_CREDENTIALS, address, method, signedPath, body, EXAMPLE_TIMESTAMP_SEC, family)
  return {
    credentials: EXAMPLE_CREDENTIALS, address, timestampSec: EXAMPLE_TIMESTAMP_SEC, method, url, signedPath, body,
    message: `${EXAMPLE_TIMESTAMP_SEC}${method}${signedPath}${body}`,
    headers: sign('POLY'), nativeHeaders: sign('EXCHANGE'),
  }
}
