/**
 * GET /docs's Authentication section: the three levels (L1 wallet, L2 API key with its HMAC,
 * admin), their headers in both families, the recipes, and worked examples whose figures the
 * real client and crypto code compute when the page is built (auth-example.ts).
 */
import { DEFAULT_WINDOW } from '../../auth/failure.js'
import { AuthCode } from '../../errors.js'
import { CLOB_AUTH_TYPE } from '../../crypto/eip712.js'
import { EXAMPLE_PRIVATE_KEY, l1Example, l2Example } from './auth-example.js'
import { escape } from './docs-schema.js'

function headersTable(headers: Readonly<Record<string, string>>, what = 'header'): string {
  const rows = Object.entries(headers).map(([name, value]) =>
    `<tr><td><code>${escape(name)}</code></td><td><code>${escape(value)}</code></td></tr>`)
  return `<table><tr><th>${what}</th><th>value</th></tr>${rows.join('')}</table>`
}

function pre(text: string): string {
  return `<pre><code>${escape(text)}</code></pre>`
}

const LEVELS = '<table><tr><th>level</th><th>scheme in the document</th><th>headers</th><th>for</th></tr>' +
  '<tr><td>public</td><td>none</td><td>none</td><td>markets, books, prices, these documents</td></tr>' +
  '<tr><td>L1: the wallet</td><td><code>l1</code>, <code>poly_l1</code></td><td>ADDRESS, SIGNATURE (EIP-712), ' +
  'TIMESTAMP, NONCE</td><td>creating or deriving API credentials</td></tr>' +
  '<tr><td>L2: the API key</td><td><code>hmac_signature</code>, <code>poly_hmac_signature</code></td>' +
  '<td>ADDRESS, SIGNATURE (HMAC), TIMESTAMP, API_KEY, PASSPHRASE</td><td>orders, trades, balances, keys: ' +
  'everything of one user</td></tr>' +
  '<tr><td>admin</td><td><code>admin</code></td><td><code>EXCHANGE-ADMIN-KEY</code></td>' +
  '<td>listing and resolving markets, statistics</td></tr></table>'

function l1Section(chainId: number): string {
  const example = l1Example(chainId)
  return '<h3 id="auth-l1">L1: the wallet (EIP-712)</h3>' +
    `<p>The wallet signs the EIP-712 message <code>${escape(CLOB_AUTH_TYPE)}</code> for the server's chain ` +
    `(${chainId} here): the address, the timestamp of the header (unix seconds, as a string), the nonce ` +
    '(0 unless you keep several keys) and a fixed text. Headers: <code>POLY_ADDRESS</code>, ' +
    '<code>POLY_SIGNATURE</code>, <code>POLY_TIMESTAMP</code>, <code>POLY_NONCE</code> ' +
    '(or <code>EXCHANGE-ADDRESS</code>, ' +
    '<code>EXCHANGE-SIGNATURE</code>, ...). <code>POST /auth/api-key</code> then creates credentials, and ' +
    '<code>GET /auth/derive-api-key</code> gives back those of the same nonce: ' +
    '<code>{apiKey, secret, passphrase}</code>, shown once; keep them.</p>' +
    `<p><b>Worked example</b>, signed by Predex's wallet code when this page was built, with the private key ` +
    `<code>${EXAMPLE_PRIVATE_KEY}</code> (Hardhat's and Anvil's first test account, public to everyone: never ` +
    `fund it). The typed data, as <code>eth_signTypedData_v4</code> or viem's <code>signTypedData</code> take ` +
    'it:</p>' +
    pre(JSON.stringify(example.typedData, null, 2)) + '<p>and the request\'s headers:</p>' +
    headersTable(example.headers)
}

function l2Section(): string {
  const example = l2Example()
  const { apiKey, secret, passphrase } = example.credentials
  return '<h3 id="auth-l2">L2: the API key (HMAC-SHA256)</h3><ol>' +
    '<li><b>message</b> = timestamp + METHOD + path + body: the timestamp as sent in the header; the method in ' +
    'upper case; the path as requested, <b>without the query string and without <code>/compat</code></b>; ' +
    'the body exactly as sent, byte for byte (nothing when there is none: serialise the JSON once, sign and ' +
    'send the same string).</li>' +
    '<li><b>key</b> = the secret decoded from base64url (standard base64 is read too).</li>' +
    '<li><b>signature</b> = base64 of HMAC-SHA256(key, message), then <code>+</code> → <code>-</code> and ' +
    '<code>/</code> → <code>_</code>, the <code>=</code> padding kept.</li>' +
    '<li>Headers: <code>POLY_ADDRESS</code> (the wallet that owns the key), <code>POLY_SIGNATURE</code>, ' +
    '<code>POLY_TIMESTAMP</code>, <code>POLY_API_KEY</code>, <code>POLY_PASSPHRASE</code>; or the same with ' +
    `<code>EXCHANGE-</code> names. The timestamp must be within ${DEFAULT_WINDOW.pastSec} s past and ` +
    `${DEFAULT_WINDOW.futureSec} s ahead of the server's clock (by default; <code>GET /time</code> tells it).` +
    '</li></ol>' +
    '<p><b>Worked example</b>, computed by Predex\'s client code when this page was built. Credentials:</p>' +
    headersTable({ apiKey, secret, passphrase, address: example.address }, 'field') +
    `<p>The request <code>${escape(example.method)} ${escape(example.url)}</code> with the body</p>` +
    pre(example.body) +
    `<p>at timestamp <code>${example.timestampSec}</code> signs the message</p>${pre(example.message)}` +
    '<p>and sends</p>' + headersTable(example.headers) +
    '<p>or, with the native names,</p>' + headersTable(example.nativeHeaders) +
    '<p>A failure answers 401 with a code naming the check that failed, in this order: ' +
    [AuthCode.AUTH_HEADERS_MISSING, AuthCode.AUTH_TIMESTAMP, AuthCode.AUTH_UNKNOWN_KEY, AuthCode.AUTH_PASSPHRASE,
      AuthCode.AUTH_ADDRESS, AuthCode.AUTH_SIGNATURE].map((code) => `<code>${code}</code>`).join(', ') +
    '. The user WebSocket channel takes the credentials themselves in its first message (no HMAC).</p>'
}

const ADMIN = '<h3 id="auth-admin">Admin</h3><p>The header <code>EXCHANGE-ADMIN-KEY</code> carries the admin ' +
  'key: the one given with <code>--admin-key</code> (or <code>ADMIN_API_KEY</code>), else the one generated at ' +
  'the first start into <code>&lt;data-dir&gt;/admin-key</code> (<code>data/admin-key</code> by default; mode ' +
  '600, never printed or logged). It is compared in constant time; a wrong or missing key answers 401 ' +
  `<code>${AuthCode.AUTH_ADMIN_KEY}</code>.</p>` +
  '<pre><code>curl -H "EXCHANGE-ADMIN-KEY: $(cat data/admin-key)" http://127.0.0.1:8080/admin/stats</code></pre>'

/** The section, for the server's chain (the L1 example signs for it). */
export function authSection(chainId: number): string {
  return '<h2 id="authentication">Authentication</h2><p>Three levels; each operation below names its own. Both ' +
    'header families are read on both surfaces: Predex\'s <code>EXCHANGE-*</code> and Polymarket\'s ' +
    '<code>POLY_*</code> (what clob-client sends); names are case-insensitive.</p>' +
    LEVELS + l1Section(chainId) + l2Section() + ADMIN
}
