/**
 * The server's log over a session with real credentials (issue 15, point 3): the pino log at
 * debug level, JSON lines, captured while a wallet makes its API key (L1), is funded, places and
 * cancels orders (L2, native and /compat), subscribes to its user channel (key, secret and
 * passphrase in the message), fails authentication, and an operator uses the admin API. Every
 * secret of that session is then searched for in the whole output: the API secret and
 * passphrase, each L1 and L2 signature sent, the order signature, the admin key, the master key
 * and the wallet's private key. Also shown: one line per request at debug, a refusal at info
 * with its code, and the request id, the client's or a new one, in the X-Request-Id header and
 * on the request's line.
 */
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { CHAIN_ID, USDC, nowSec, send, startServer } from '../support/rest-harness.js'
import { l1Headers, l2Headers } from '../../src/crypto/request-headers.js'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { orderBody, signLimitOrder } from '../../src/client/orders.js'
import { termsOf } from '../support/driver.js'
import { openLog } from '../../src/log.js'
import { WsClient } from '../support/ws-client.js'

const output: string[] = []
const logger = await openLog({ level: 'debug', format: 'json', destination: { write: (line) => void output.push(line) } })
const adminKey = randomBytes(24).toString('base64url')
const masterKeyHex = randomBytes(32).toString('hex')
const server = await startServer({ logger, argv: ['--admin-key', adminKey, '--master-key', masterKeyHex] })
t.teardown(() => server.stop())

interface Line {
  readonly level: number
  readonly msg: string
  readonly requestId?: string
  readonly route?: string
  readonly status?: number
  readonly code?: string
}

function lines(): Line[] {
  return output.join('').split('\n').filter((text) => text !== '').map((text) => JSON.parse(text) as Line)
}

const privateKeyHex = randomBytes(32).toString('hex')
const wallet = new Wallet(privateKeyHex)
const address = wallet.address.toLowerCase()
/** Every secret the session shows the server, searched for in the log at the end. */
const secrets = new Map<string, string>([['admin key', adminKey], ['master key', masterKeyHex],
  ['private key', privateKeyHex]])

t.test('a session with real credentials leaves none of them in the log', async (t) => {
  const l1 = l1Headers(wallet, CHAIN_ID, nowSec(), 0, 'EXCHANGE')
  secrets.set('L1 signature', l1['EXCHANGE-SIGNATURE']!)
  const made = await send(server, 'POST', '/auth/api-key', '', l1)
  t.equal(made.status, 200, 'API key made')
  const credentials = made.body as ApiCredentials
  secrets.set('API secret', credentials.secret).set('passphrase', credentials.passphrase)
  await server.fund(address, 100 * USDC)
  const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })

  const l2 = async (method: string, path: string, body: string, family: 'EXCHANGE' | 'POLY' = 'EXCHANGE') => {
    const headers = l2Headers(credentials, address, method, path, body, nowSec(), family)
    secrets.set(`L2 signature of ${method} ${path} (${family})`, headers[`${family}-SIGNATURE`] ?? headers.POLY_SIGNATURE!)
    return send(server, method, family === 'POLY' ? `/compat${path}` : path, body, headers)
  }
  const signed = signLimitOrder(wallet, termsOf(market), { tokenId: market.yesTokenId, side: 'BUY', price: '0.4',
    size: '5' })
  secrets.set('order signature', signed.signature)
  const placed = await l2('POST', '/order', orderBody(signed, credentials.apiKey, 'GTC', false))
  t.equal(placed.status, 200, 'order placed', { body: placed.body })
  t.equal((await l2('GET', '/data/orders', '')).status, 200, 'orders read')
  t.equal((await l2('GET', '/data/orders', '', 'POLY')).status, 200, 'orders read under /compat')
  t.equal((await l2('DELETE', '/cancel-all', '')).status, 200, 'orders canceled')

  const socket = await WsClient.open(`ws://127.0.0.1:${server.predex.port}/ws/user`)
  t.teardown(() => socket.socket.close())
  socket.send({ type: 'user', auth: credentials, markets: [] })
  socket.send('PING')
  t.equal(await socket.next(), 'PONG', 'user channel subscribed')

  const wrongPassphrase = { ...credentials, passphrase: `${credentials.passphrase.slice(0, -2)}xy` }
  secrets.set('wrong passphrase', wrongPassphrase.passphrase)
  const refused = await send(server, 'GET', '/data/orders', '',
    l2Headers(wrongPassphrase, address, 'GET', '/data/orders', '', nowSec(), 'EXCHANGE'))
  t.equal(refused.status, 401, 'a wrong passphrase is refused')

  const admin = await send(server, 'GET', '/admin/stats', '', { 'EXCHANGE-ADMIN-KEY': adminKey })
  t.equal(admin.status, 200, 'the admin API used')
  t.equal((await send(server, 'GET', '/admin/stats', '', { 'EXCHANGE-ADMIN-KEY': `${adminKey}x` })).status, 401)

  const text = output.join('')
  const requestLines = lines().filter((line) => line.requestId !== undefined)
  t.ok(requestLines.length >= 9, `each request was logged (${requestLines.length} lines)`)
  for (const [name, secret] of secrets) {
    t.ok(secret.length >= 16, `${name} is long enough to search for`)
    t.notOk(text.includes(secret), `no ${name} in the log`)
    // A hex secret could appear without its 0x, or in the other case.
    const bare = secret.replace(/^0x/, '').toLowerCase()
    t.notOk(text.toLowerCase().includes(bare), `no ${name} in the log, whatever its prefix or case`)
  }
  t.ok(text.includes(credentials.apiKey), 'the API key id (not a secret) is there, so lines can be traced to a key')
})

t.test('a line per request at debug, a refusal at info with its code; the request id in the header and the line',
  async (t) => {
    const answered = await send(server, 'GET', '/markets', '', { 'x-request-id': 'trace-42.a' })
    t.equal(answered.headers.get('x-request-id'), 'trace-42.a', "the client's id is echoed")
    const line = lines().find((l) => l.requestId === 'trace-42.a')
    t.match(line, { level: 20, msg: 'request', route: 'GET /markets', status: 200 }, 'a debug line with it')

    const fresh = await send(server, 'GET', '/markets/nope', '', {})
    const id = fresh.headers.get('x-request-id')
    t.match(id, /^[A-Za-z0-9_-]+-[0-9a-z]+$/, 'a new id when the client sends none')
    t.match(lines().find((l) => l.requestId === id), { level: 30, msg: 'request refused', status: 404,
      code: 'MARKET_NOT_FOUND' }, 'a refusal at info, with its code')

    const odd = await send(server, 'GET', '/time', '', { 'x-request-id': 'has spaces and "quotes"' })
    t.not(odd.headers.get('x-request-id'), 'has spaces and "quotes"', 'an id that is not a short token is replaced')
    t.notMatch(output.join(''), /has spaces/, 'and never written to the log')
    const another = await send(server, 'GET', '/time', '', {})
    t.not(another.headers.get('x-request-id'), odd.headers.get('x-request-id'), 'ids differ')
  })
