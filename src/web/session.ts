/**
 * Who is using the page: the chain id the server wrote into the page, and the test wallet with
 * its API credentials (wallet.ts keeps both in localStorage). Components follow it with
 * useSession(); `authed` signs a request with the credentials (L2).
 */
import { useEffect, useState } from 'preact/hooks'
import type { ApiCredentials } from '../api/shapes/credential.js'
import type { NativeRoute } from '../api/shapes/bodies.js'
import { get, send, type Body } from './api.js'
import { forgetWallet, l1Headers, l2Headers, loadCredentials, loadWallet, saveCredentials, saveWallet,
  type PageWallet } from './wallet.js'

/** The server's chain (80002 when the page is opened from a file, with no server to write it). */
const chainMeta = document.querySelector<HTMLMetaElement>('meta[name="predex-chain-id"]')
export const CHAIN_ID = Number(chainMeta?.content || 80002)

interface SessionState {
  readonly wallet: PageWallet | null
  readonly credentials: ApiCredentials | null
}

let state: SessionState = stateOf(loadWallet())
const listeners = new Set<() => void>()

function stateOf(wallet: PageWallet | null): SessionState {
  return { wallet, credentials: wallet === null ? null : loadCredentials(wallet.account.address) }
}

function publish(next: SessionState): void {
  state = next
  for (const listener of listeners) listener()
}

export function useSession(): SessionState {
  const [current, setCurrent] = useState(state)
  useEffect(() => {
    const listener = (): void => setCurrent(state)
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [])
  return current
}

export function createWallet(privateKey?: string): void {
  publish(stateOf(saveWallet(privateKey)))
}

export function removeWallet(): void {
  forgetWallet()
  publish({ wallet: null, credentials: null })
}

/** The wallet's API credentials, made (POST /auth/api-key, idempotent per address and nonce) when it has none. */
export async function ensureCredentials(): Promise<ApiCredentials> {
  const { wallet, credentials } = state
  if (wallet === null) throw new Error('make or import a wallet first')
  if (credentials !== null) return credentials
  const made = await send('POST /auth/api-key', 'POST', '/auth/api-key', '', await l1Headers(wallet, CHAIN_ID))
  saveCredentials(wallet.account.address, made)
  publish({ wallet, credentials: made })
  return made
}

/** A request signed with the wallet's credentials; the HMAC covers the path without its query, and the body. */
export async function authed<R extends NativeRoute>(route: R, method: 'GET' | 'POST' | 'DELETE', pathAndQuery: string,
  body = ''): Promise<Body<R>> {
  const credentials = await ensureCredentials()
  const address = state.wallet!.account.address
  const path = pathAndQuery.split('?')[0]!
  const headers = await l2Headers(credentials, address, method, path, body)
  return method === 'GET' ? get(route, pathAndQuery, headers) : send(route, method, pathAndQuery, body, headers)
}
