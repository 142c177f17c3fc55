/**
 * GET /docs's Authentication section against the code it describes: the worked examples are what
 * the client code computes (src/api/rest/auth-example.ts), and here they are checked the other way,
 * against an HMAC computed from the recipe as the page words it (node:crypto, nothing of Predex), an
 * EIP-712 signer that is not Predex's (viem), and the server's own checks (verifyL1, verifyL2), which
 * must accept them. The page shows those figures, for the live server's chain; the admin key is where
 * the page says it is and works as it says. One server for the file.
 */
import t from 'tap'
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { recoverTypedDataAddress } from 'viem'
import { EXAMPLE_PRIVATE_KEY, l1Example, l2Example } from '../../src/api/rest/auth-example.js'
import { DEFAULT_WINDOW } from '../../src/auth/failure.js'
import { verifyL1 } from '../../src/auth/l1.js'
import { verifyL2 } from '../../src/auth/l2.js'
import { configOf, type Config } from '../../src/config.js'
import { CHAIN_ID, send, startServer } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())

/** A header getter as the server has one (lower-case names). */
function getter(headers: Readonly<Record<string, string>>): (name: string) => string | undefined {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
  return (name) => lower.get(name)
}

/** The escaped text of a figure, as it appears in the page. */
function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

t.test('the L2 example: the recipe as worded, computed independently, gives the page\'s signature', async (t) => {
  const example = l2Example()
  const { secret } = example.credentials
  t.equal(example.message, `${example.timestampSec}${example.method}${example.signedPath}${example.body}`,
    'message = timestamp + METHOD + path + body')
  t.equal(example.signedPath, example.url.replace(/^\/compat/, '').split('?')[0], 'the path without /compat')
  const recipe = createHmac('sha256', Buffer.from(secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64'))
    .update(example.message).digest('base64').replace(/\+/g, '-').replace(/\//g, '_')
  t.match(recipe, /=$/, 'the padding is kept')
  t.equal(example.headers.POLY_SIGNATURE, recipe, 'POLY_SIGNATURE is the recipe\'s HMAC')
  t.equal(example.nativeHeaders['EXCHANGE-SIGNATURE'], recipe, 'the native family signs the same')
  t.match(secret, /[-_]/, 'the example secret shows the url-safe alphabet')
})

t.test('the L2 example passes the server\'s own check, and fails it when a byte of the body changes', async (t) => {
  const example = l2Example()
  const credential = { ...example.credentials, address: example.address.toLowerCase(), nonce: 0 }
  const lookup = (apiKey: string) => (apiKey === credential.apiKey ? credential : undefined)
  for (const headers of [example.headers, example.nativeHeaders]) {
    const request = { method: example.method, path: example.signedPath, body: example.body, headers: getter(headers) }
    t.match(verifyL2(request, lookup, example.timestampSec, DEFAULT_WINDOW), { ok: true, apiKey: credential.apiKey })
    t.match(verifyL2({ ...request, body: example.body.replace('1f', '2f') }, lookup, example.timestampSec,
      DEFAULT_WINDOW), { ok: false, code: 'AUTH_SIGNATURE' })
  }
})

t.test('the L1 example: viem recovers the example wallet from the typed data shown; the server accepts it',
  async (t) => {
    const example = l1Example(CHAIN_ID)
    const recovered = await recoverTypedDataAddress({ ...example.typedData,
      signature: example.headers.POLY_SIGNATURE as `0x${string}` })
    t.equal(recovered, example.address, 'the typed data on the page is what was signed')
    t.equal(example.headers.POLY_ADDRESS, example.address)
    t.not(EXAMPLE_PRIVATE_KEY, '', 'the key is shown, so a reader can reproduce it')
    t.match(verifyL1(getter(example.headers), CHAIN_ID, example.timestampSec, DEFAULT_WINDOW),
      { ok: true, address: example.address.toLowerCase(), nonce: 0 })
    t.match(verifyL1(getter(example.headers), 137, example.timestampSec, DEFAULT_WINDOW),
      { ok: false, code: 'AUTH_L1_SIGNATURE' }, 'for its chain only')
  })

t.test('GET /docs shows the examples for the server\'s chain, the window and the admin key', async (t) => {
  const page = (await send(server, 'GET', '/docs', '', {})).body as string
  t.match(page, '<h2 id="authentication">Authentication</h2>')
  const l1 = l1Example(server.predex.context.chainId)
  const l2 = l2Example()
  t.ok(page.includes(html(l1.headers.POLY_SIGNATURE!)), 'the L1 signature for this server\'s chain')
  t.ok(page.includes(`&#34;chainId&#34;: ${server.predex.context.chainId}`), 'the domain of this server\'s chain')
  t.ok(page.includes(html(l2.message)), 'the L2 message')
  for (const value of [...Object.values(l2.headers), ...Object.values(l2.nativeHeaders)]) {
    t.ok(page.includes(html(value)), `shows ${value}`)
  }
  const defaults = configOf([], {}) as Config
  t.ok(page.includes(`${defaults.authPastSec} s past and ${defaults.authFutureSec} s ahead`),
    'the window is the configuration\'s default')
  t.match(page, /EXCHANGE-ADMIN-KEY/)
  t.match(page, /data\/admin-key/)
})

t.test('the admin key is where the page says, and EXCHANGE-ADMIN-KEY is the header that carries it', async (t) => {
  const key = readFileSync(join(server.dataDir, 'admin-key'), 'utf8').trim()
  t.equal(key, server.predex.adminKey, '<data-dir>/admin-key')
  t.equal((await send(server, 'GET', '/admin/stats', '', { 'EXCHANGE-ADMIN-KEY': key })).status, 200)
  const refused = await send(server, 'GET', '/admin/stats', '', {})
  t.equal(refused.status, 401)
  t.equal(refused.body.code, 'AUTH_ADMIN_KEY')
})

t.test('the OpenAPI document names the schemes: both header families, L2 as the seed\'s hmac_signature', async (t) => {
  const doc = (await send(server, 'GET', '/openapi.json', '', {})).body
  const schemes = doc.components.securitySchemes
  const example = l2Example()
  t.match(schemes, { hmac_signature: { type: 'apiKey', in: 'header', name: 'EXCHANGE-SIGNATURE' },
    poly_hmac_signature: { type: 'apiKey', in: 'header', name: 'POLY_SIGNATURE' },
    l1: { name: 'EXCHANGE-SIGNATURE' }, poly_l1: { name: 'POLY_SIGNATURE' }, admin: { name: 'EXCHANGE-ADMIN-KEY' } })
  t.ok(Object.keys(example.headers).includes(schemes.poly_hmac_signature.name), 'the header the client sends')
  t.ok(Object.keys(example.nativeHeaders).includes(schemes.hmac_signature.name))
  t.match(schemes.hmac_signature.description, /timestamp \+ METHOD \+ path \+ body/)
  t.same(doc.paths['/compat/order'].post.security, [{ poly_hmac_signature: [] }, { hmac_signature: [] }],
    '/compat: Polymarket\'s headers, or the native ones')
  t.same(doc.paths['/order'].post.security, [{ hmac_signature: [] }])
})
