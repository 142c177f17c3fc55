/**
 * L1 and L2 request authentication and the admin key: each check passes when it should, fails
 * with its own code when it should, and both header families (EXCHANGE-*, POLY_*) work. The
 * fixtures are the reference's vectors (key 0x11..11, secret c2Vj..., timestamp 1700000000).
 */
import t from 'tap'
import { verifyL1 } from '../../../src/auth/l1.js'
import { verifyL2, type ApiCredential } from '../../../src/auth/l2.js'
import { verifyAdmin } from '../../../src/auth/admin.js'
import { DEFAULT_WINDOW } from '../../../src/auth/failure.js'
import { l2Signature } from '../../../src/crypto/hmac.js'

const ADDRESS = '0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A'
const NOW = 1_700_000_000
const L1_SIGNATURE = '0x0f08c184141f23f61012ba15fef7303dff47a1da48c10ae8a6737eff59618f6e568b2868fedf252be3eb6e80f3a5f09bfdf609cd8f1c9725f9862742b33dc5fc1b'
const credential: ApiCredential = {
  apiKey: '00000000-0000-4000-8000-000000000001', address: ADDRESS.toLowerCase(),
  secret: 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=', passphrase: 'p'.repeat(64), nonce: 0,
}
const lookup = (apiKey: string): ApiCredential | undefined => (apiKey === credential.apiKey ? credential : undefined)

function getter(headers: Record<string, string>): (name: string) => string | undefined {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  return (name) => lower[name]
}

t.test('L1: the reference ClobAuth signature authenticates its address on chain 137', (t) => {
  const headers = { POLY_ADDRESS: ADDRESS, POLY_SIGNATURE: L1_SIGNATURE, POLY_TIMESTAMP: String(NOW), POLY_NONCE: '0' }
  t.same(verifyL1(getter(headers), 137, NOW, DEFAULT_WINDOW), { ok: true, address: ADDRESS.toLowerCase(), nonce: 0 })
  t.same(verifyL1(getter({ 'EXCHANGE-ADDRESS': ADDRESS, 'EXCHANGE-SIGNATURE': L1_SIGNATURE, 'EXCHANGE-TIMESTAMP': String(NOW) }), 137, NOW,
    DEFAULT_WINDOW), { ok: true, address: ADDRESS.toLowerCase(), nonce: 0 }, 'native names; the nonce defaults to 0')
  t.match(verifyL1(getter(headers), 80002, NOW, DEFAULT_WINDOW), { ok: false, code: 'AUTH_L1_SIGNATURE', context: { chainId: 80002 } },
    'signed for chain 137, checked on 80002')
  t.match(verifyL1(getter({ ...headers, POLY_NONCE: '1' }), 137, NOW, DEFAULT_WINDOW), { ok: false, code: 'AUTH_L1_SIGNATURE' }, 'another nonce')
  t.match(verifyL1(getter({ ...headers, POLY_ADDRESS: '0x' + '1'.repeat(40) }), 137, NOW, DEFAULT_WINDOW), { ok: false, code: 'AUTH_L1_SIGNATURE' })
  t.match(verifyL1(getter({ POLY_ADDRESS: ADDRESS }), 137, NOW, DEFAULT_WINDOW), { ok: false, code: 'AUTH_HEADERS_MISSING' })
  t.match(verifyL1(getter(headers), 137, NOW + 61, DEFAULT_WINDOW), { ok: false, code: 'AUTH_TIMESTAMP' })
  t.end()
})

function l2Headers(method: string, path: string, body: string, timestamp = NOW, family = 'POLY'): Record<string, string> {
  const signature = l2Signature(credential.secret, String(timestamp), method, path, body)
  const name = (suffix: string): string => (family === 'POLY' ? `POLY_${suffix}` : `EXCHANGE-${suffix.replace(/_/g, '-')}`)
  return { [name('ADDRESS')]: ADDRESS, [name('SIGNATURE')]: signature, [name('TIMESTAMP')]: String(timestamp),
    [name('API_KEY')]: credential.apiKey, [name('PASSPHRASE')]: credential.passphrase }
}

t.test('L2: a signed request authenticates, with either header family', (t) => {
  const body = '{"orderID":"0xabc"}'
  for (const family of ['POLY', 'EXCHANGE']) {
    const result = verifyL2({ method: 'DELETE', path: '/order', body, headers: getter(l2Headers('DELETE', '/order', body, NOW, family)) },
      lookup, NOW, DEFAULT_WINDOW)
    t.same(result, { ok: true, apiKey: credential.apiKey, address: credential.address }, family)
  }
  t.equal(l2Headers('GET', '/data/orders', '').POLY_SIGNATURE, 'vNkgXDS1sUHHCyN3pBe-_WOl-3EI_Q76WWBN4UvFwws=', 'the reference vector')
  t.end()
})

t.test('L2: each check fails with its own code', (t) => {
  const body = '{"orderID":"0xabc"}'
  const headers = l2Headers('DELETE', '/order', body)
  const check = (overrides: Partial<{ method: string; path: string; body: string; headers: Record<string, string>; now: number }>) =>
    verifyL2({ method: overrides.method ?? 'DELETE', path: overrides.path ?? '/order', body: overrides.body ?? body,
      headers: getter(overrides.headers ?? headers) }, lookup, overrides.now ?? NOW, DEFAULT_WINDOW)
  t.match(check({ headers: { ...headers, POLY_API_KEY: '' } }), { code: 'AUTH_HEADERS_MISSING' })
  t.match(check({ now: NOW + 60 }), { ok: true }, '60 s old: accepted')
  t.match(check({ now: NOW + 61 }), { code: 'AUTH_TIMESTAMP', context: { serverTime: NOW + 61, deltaSec: -61 } }, '61 s old: refused')
  t.match(check({ now: NOW - 10 }), { ok: true }, '10 s ahead: accepted')
  t.match(check({ now: NOW - 11 }), { code: 'AUTH_TIMESTAMP', context: { deltaSec: 11 } }, '11 s ahead: refused')
  t.match(check({ headers: { ...headers, POLY_API_KEY: 'unknown' } }), { code: 'AUTH_UNKNOWN_KEY' })
  t.match(check({ headers: { ...headers, POLY_PASSPHRASE: 'wrong' } }), { code: 'AUTH_PASSPHRASE' })
  t.match(check({ headers: { ...headers, POLY_ADDRESS: '0x' + '2'.repeat(40) } }), { code: 'AUTH_ADDRESS' })
  t.match(check({ headers: { ...headers, POLY_ADDRESS: ADDRESS.toLowerCase() } }), { ok: true }, 'the address in any case')
  t.match(check({ body: '{"orderID":"0xabd"}' }), { code: 'AUTH_SIGNATURE' }, 'body changed')
  t.match(check({ body: '{"orderID": "0xabc"}' }), { code: 'AUTH_SIGNATURE' }, 'body re-serialised')
  t.match(check({ path: '/orders' }), { code: 'AUTH_SIGNATURE' }, 'path changed')
  t.match(check({ method: 'POST' }), { code: 'AUTH_SIGNATURE' }, 'method changed')
  t.match(check({ headers: { ...headers, POLY_TIMESTAMP: String(NOW - 1) } }), { code: 'AUTH_SIGNATURE' }, 'timestamp changed')
  t.end()
})

t.test('admin key', (t) => {
  t.same(verifyAdmin(getter({ 'EXCHANGE-ADMIN-KEY': 'k'.repeat(40) }), 'k'.repeat(40)), { ok: true })
  t.match(verifyAdmin(getter({ 'EXCHANGE-ADMIN-KEY': 'k'.repeat(39) + 'j' }), 'k'.repeat(40)), { ok: false, code: 'AUTH_ADMIN_KEY' })
  t.match(verifyAdmin(getter({}), 'k'.repeat(40)), { ok: false, code: 'AUTH_ADMIN_KEY' })
  t.end()
})
