/**
 * The page's test-network wallet: a private key kept in this browser's localStorage (test funds
 * only: anyone with access to this browser profile can read it), its API credentials, and what
 * it signs with viem: L1 authentication (ClobAuth), the relay's approve, and the L2 request
 * signature (HMAC-SHA256 through Web Crypto). The typed data are the ones the server verifies
 * (src/crypto/eip712.ts); the headers are Predex's native EXCHANGE-* names.
 */
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { ApiCredentials } from '../api/shapes/credential.js'

const KEY_ITEM = 'predex.testnet.privateKey'
const CREDENTIALS_PREFIX = 'predex.testnet.credentials.'
const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet'
const ZERO_BYTES32 = `0x${'0'.repeat(64)}` as const
/** The largest uint256: the allowance the relay's approve grants (as an ERC-20 approve of "unlimited"). */
const MAX_UINT256 = (1n << 256n) - 1n

export type Hex = `0x${string}`

export interface PageWallet {
  readonly account: PrivateKeyAccount
  readonly privateKey: Hex
}

export function loadWallet(): PageWallet | null {
  const privateKey = localStorage.getItem(KEY_ITEM)
  if (privateKey === null || !/^0x[0-9a-fA-F]{64}$/.test(privateKey)) return null
  return { privateKey: privateKey as Hex, account: privateKeyToAccount(privateKey as Hex) }
}

/** A new key, or the one given (0x and 64 hex digits), kept in this browser. */
export function saveWallet(privateKey: string = generatePrivateKey()): PageWallet {
  const key = privateKey.trim()
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new RangeError('a private key is 0x followed by 64 hex digits')
  const account = privateKeyToAccount(key as Hex)
  localStorage.setItem(KEY_ITEM, key)
  return { privateKey: key as Hex, account }
}

export function forgetWallet(): void {
  const wallet = loadWallet()
  if (wallet !== null) localStorage.removeItem(CREDENTIALS_PREFIX + wallet.account.address.toLowerCase())
  localStorage.removeItem(KEY_ITEM)
}

export function loadCredentials(address: string): ApiCredentials | null {
  const text = localStorage.getItem(CREDENTIALS_PREFIX + address.toLowerCase())
  return text === null ? null : JSON.parse(text) as ApiCredentials
}

export function saveCredentials(address: string, credentials: ApiCredentials): void {
  localStorage.setItem(CREDENTIALS_PREFIX + address.toLowerCase(), JSON.stringify(credentials))
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000)
}

/** L1 headers: the wallet signs ClobAuth (POST /auth/api-key, GET /auth/derive-api-key). */
export async function l1Headers(wallet: PageWallet, chainId: number, nonce = 0): Promise<Record<string, string>> {
  const timestamp = String(nowSeconds())
  const signature = await wallet.account.signTypedData({
    domain: { name: 'ClobAuthDomain', version: '1', chainId },
    types: { ClobAuth: [{ name: 'address', type: 'address' }, { name: 'timestamp', type: 'string' },
      { name: 'nonce', type: 'uint256' }, { name: 'message', type: 'string' }] },
    primaryType: 'ClobAuth',
    message: { address: wallet.account.address, timestamp, nonce: BigInt(nonce), message: CLOB_AUTH_MESSAGE },
  })
  return { 'EXCHANGE-ADDRESS': wallet.account.address, 'EXCHANGE-SIGNATURE': signature,
    'EXCHANGE-TIMESTAMP': timestamp, 'EXCHANGE-NONCE': String(nonce) }
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/[^A-Za-z0-9+/]/g, '')
  const binary = atob(standard + '='.repeat((4 - standard.length % 4) % 4))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}

function bytesToBase64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_')
}

/** L2 headers for one request: HMAC-SHA256 of timestamp + METHOD + path (no query) + body, keyed by the secret. */
export async function l2Headers(credentials: ApiCredentials, address: string, method: string, path: string,
  body = ''): Promise<Record<string, string>> {
  const timestamp = String(nowSeconds())
  const key = await crypto.subtle.importKey('raw', base64ToBytes(credentials.secret), { name: 'HMAC', hash: 'SHA-256' },
    false, ['sign'])
  const message = new TextEncoder().encode(timestamp + method.toUpperCase() + path + body)
  const signature = bytesToBase64Url(new Uint8Array(await crypto.subtle.sign('HMAC', key, message)))
  return { 'EXCHANGE-ADDRESS': address, 'EXCHANGE-SIGNATURE': signature, 'EXCHANGE-TIMESTAMP': timestamp,
    'EXCHANGE-API-KEY': credentials.apiKey, 'EXCHANGE-PASSPHRASE': credentials.passphrase }
}

/** The relay's approve of the exchange for all of the wallet's USDC: the body of POST /relay. */
export async function signedApprove(wallet: PageWallet, chainId: number, nonce: number): Promise<string> {
  const deadline = BigInt(nowSeconds() + 300)
  const message = { owner: wallet.account.address, action: 'approve', conditionId: ZERO_BYTES32, amount: MAX_UINT256,
    nonce: BigInt(nonce), deadline }
  const signature = await wallet.account.signTypedData({
    domain: { name: 'Predex Relay', version: '1', chainId },
    types: { Relay: [{ name: 'owner', type: 'address' }, { name: 'action', type: 'string' },
      { name: 'conditionId', type: 'bytes32' }, { name: 'amount', type: 'uint256' },
      { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
    primaryType: 'Relay',
    message,
  })
  return JSON.stringify({ owner: message.owner, action: 'approve', condition_id: ZERO_BYTES32,
    amount: MAX_UINT256.toString(), nonce: String(nonce), deadline: deadline.toString(), signature })
}
