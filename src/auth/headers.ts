/**
 * Authentication headers in both families: Predex's native `EXCHANGE-*` and Polymarket's
 * `POLY_*`, so unmodified clob-client requests authenticate too. HTTP header names are
 * case-insensitive; the getter receives lower-case names.
 */
export type HeaderGetter = (lowerCaseName: string) => string | undefined

export interface L1Headers {
  readonly address: string
  readonly signature: string
  readonly timestamp: string
  readonly nonce: string
}

export interface L2Headers {
  readonly address: string
  readonly signature: string
  readonly timestamp: string
  readonly apiKey: string
  readonly passphrase: string
}

function either(get: HeaderGetter, suffix: string): string | undefined {
  return get(`exchange-${suffix.replace(/_/g, '-')}`) ?? get(`poly_${suffix}`)
}

/** The L1 headers, or the list of missing ones. POLY_NONCE / EXCHANGE-NONCE defaults to "0". */
export function l1HeadersOf(get: HeaderGetter): L1Headers | string[] {
  const address = either(get, 'address')
  const signature = either(get, 'signature')
  const timestamp = either(get, 'timestamp')
  const missing = missingOf({ address, signature, timestamp })
  if (missing.length > 0) return missing
  return { address: address!, signature: signature!, timestamp: timestamp!, nonce: either(get, 'nonce') ?? '0' }
}

export function l2HeadersOf(get: HeaderGetter): L2Headers | string[] {
  const headers = {
    address: either(get, 'address'),
    signature: either(get, 'signature'),
    timestamp: either(get, 'timestamp'),
    apiKey: either(get, 'api_key'),
    passphrase: either(get, 'passphrase'),
  }
  const missing = missingOf(headers)
  if (missing.length > 0) return missing
  return headers as L2Headers
}

const NAMES: Readonly<Record<string, string>> = {
  address: 'EXCHANGE-ADDRESS', signature: 'EXCHANGE-SIGNATURE', timestamp: 'EXCHANGE-TIMESTAMP',
  apiKey: 'EXCHANGE-API-KEY', passphrase: 'EXCHANGE-PASSPHRASE',
}

function missingOf(headers: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(headers)
    .filter(([, value]) => value === undefined || value === '')
    .map(([name]) => NAMES[name]!)
}

/** The wallet address a request's headers claim (lower case), before any check; "" without one. */
export function claimedAddress(get: HeaderGetter): string {
  return either(get, 'address')?.toLowerCase() ?? ''
}

/**
 * Who a request claims to be, before any check: its API key, else its wallet address (lower
 * case), else "". Rate limiting counts failed authentications against this claim.
 */
export function claimedSubject(get: HeaderGetter): string {
  return either(get, 'api_key') ?? either(get, 'address')?.toLowerCase() ?? ''
}

/**
 * Whether a (lower-case) header name is one of the authentication families': such a header given
 * twice makes a request ambiguous (which admin key, which API key?), so the REST face refuses it.
 */
export function isAuthHeaderName(lowerCaseName: string): boolean {
  return lowerCaseName.startsWith('exchange-') || lowerCaseName.startsWith('poly_')
}
