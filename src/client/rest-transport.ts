/**
 * The SDK's HTTP transport: JSON requests with L1 or L2 headers made for each request, errors
 * turned into a typed `PredexApiError` with the server's code and context. The typed methods
 * for each endpoint of the native API are in predex-client.ts.
 */
import type { Wallet } from '../crypto/wallet.js'
import { l1Headers, l2Headers, type HeaderFamily } from '../crypto/request-headers.js'
import type { ApiCredentials } from '../api/shapes/credential.js'

export class PredexApiError extends Error {
  override readonly name = 'PredexApiError'
  constructor(readonly status: number, readonly code: string, message: string, readonly body: unknown) {
    super(message)
  }
}

export type Auth =
  | { readonly kind: 'none' }
  | { readonly kind: 'l1'; readonly wallet: Wallet; readonly chainId: number; readonly nonce?: number }
  | { readonly kind: 'l2'; readonly credentials: ApiCredentials; readonly address: string }
  | { readonly kind: 'admin'; readonly adminKey: string }

export interface TransportOptions {
  /** e.g. http://127.0.0.1:8080 (no trailing slash needed). */
  readonly baseUrl: string
  readonly headerFamily?: HeaderFamily
  /** Seconds since the epoch; defaults to the local clock. */
  readonly now?: () => number
}

export class RestTransport {
  private readonly baseUrl: string

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
  }

  /** Sends a request with a JSON body; `path` may carry a query string, which the HMAC does not cover. */
  request<T>(method: string, path: string, auth: Auth, body?: unknown): Promise<T> {
    return this.requestText<T>(method, path, auth, body === undefined ? '' : JSON.stringify(body))
  }

  /** Sends exactly `text` as the body (signed orders travel as written, and the HMAC covers these bytes). */
  async requestText<T>(method: string, path: string, auth: Auth, text: string): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (text !== '') headers['content-type'] = 'application/json'
    Object.assign(headers, this.authHeaders(method, path.split('?')[0]!, text, auth))
    const response = await fetch(this.baseUrl + path, { method, headers, body: text === '' ? undefined : text })
    const raw = await response.text()
    const parsed: unknown = raw === '' ? null : parseJson(raw)
    if (!response.ok) {
      const error = (parsed ?? {}) as { error?: string; code?: string }
      throw new PredexApiError(response.status, error.code ?? 'UNKNOWN', error.error ?? raw, parsed)
    }
    return parsed as T
  }

  private authHeaders(method: string, path: string, body: string, auth: Auth): Record<string, string> {
    const now = Math.floor(this.options.now?.() ?? Date.now() / 1000)
    const family = this.options.headerFamily ?? 'EXCHANGE'
    if (auth.kind === 'l1') return l1Headers(auth.wallet, auth.chainId, now, auth.nonce ?? 0, family)
    if (auth.kind === 'l2') return l2Headers(auth.credentials, auth.address, method, path, body, now, family)
    if (auth.kind === 'admin') return { 'EXCHANGE-ADMIN-KEY': auth.adminKey }
    return {}
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
