/**
 * Contract of the native account and auth endpoints over loopback. Account (seed: GET
 * /balance-allowance, `{balance, allowance}` as 6-decimal integer strings; api.md: also
 * `allowances {<exchange>: amount}`): COLLATERAL and CONDITIONAL, exact. Auth (api.md: L1 create
 * and derive `{apiKey (UUID), secret (base64url, 32 bytes), passphrase}`, same address and nonce
 * give the same credential, a new key is usable at once; L2 list and delete; "as the reference"):
 * POST /auth/api-key, GET /auth/derive-api-key, GET /auth/api-keys, DELETE /auth/api-key.
 */
import t, { type Test } from 'tap'
import { Wallet } from '../../src/client/wallet.js'
import { l1Headers, type ApiCredentials } from '../../src/client/headers.js'
import { CHAIN_ID, USDC, get, l2, nowSec, placeLimit, send, startServer, type Trader } from '../rest-harness.js'

const EXCHANGE = '0xdFE02Eb6733538f8Ea35D585af8DE5958AD99E40'
const NEG_RISK_EXCHANGE = '0xC5d563A36AE78145C45a50134d48A1215220f80a'
const MAX_ALLOWANCE = String(Number.MAX_SAFE_INTEGER)
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const server = await startServer()
t.teardown(() => server.stop())
const market = await server.createMarket({ minOrderSizeMicros: 1 * USDC })

const balance = (trader: Trader, query: string) => l2(server, trader, 'GET', `/balance-allowance?${query}`)

t.test('GET /balance-allowance COLLATERAL: the exact USDC balance and allowance as integer strings', async (t) => {
  const trader = await server.trader(123_456_789)
  const collateral = await balance(trader, 'asset_type=COLLATERAL')
  t.equal(collateral.status, 200)
  t.same(collateral.body, { balance: '123456789', allowance: MAX_ALLOWANCE,
    allowances: { [EXCHANGE]: MAX_ALLOWANCE, [NEG_RISK_EXCHANGE]: MAX_ALLOWANCE } })
  t.same((await balance(trader, 'asset_type=collateral&signature_type=0')).body, collateral.body, 'any case; signature_type accepted')

  // A resting order holds USDC; the balance is still the whole balance (as on chain).
  const placed = await placeLimit(server, trader, market, { side: 'BUY', price: '0.33', size: '3' })
  t.equal(placed.body.status, 'live')
  t.equal((await server.account(trader.address)).heldMicros, 990_000)
  t.equal((await balance(trader, 'asset_type=COLLATERAL')).body.balance, '123456789')

  // Splitting 10.5 USDC: USDC down, 10.5 of each outcome token.
  await server.command({ kind: 'split', address: trader.address, marketId: market.marketId, amountMicros: 10_500_000 })
  t.equal((await balance(trader, 'asset_type=COLLATERAL')).body.balance, '112956789')

  const limited = await server.trader()
  await server.command({ kind: 'credit', address: limited.address, usdcMicros: 7_000_001, gasMicros: 0 })
  t.same((await balance(limited, 'asset_type=COLLATERAL')).body, { balance: '7000001', allowance: '0',
    allowances: { [EXCHANGE]: '0', [NEG_RISK_EXCHANGE]: '0' } }, 'a new address has allowance 0')
  await server.command({ kind: 'approve', address: limited.address, usdcAllowanceMicros: 2_500_000 })
  t.same((await balance(limited, 'asset_type=COLLATERAL')).body, { balance: '7000001', allowance: '2500000',
    allowances: { [EXCHANGE]: '2500000', [NEG_RISK_EXCHANGE]: '2500000' } })

  const nobody = await server.trader()
  t.same((await balance(nobody, 'asset_type=COLLATERAL')).body, { balance: '0', allowance: '0',
    allowances: { [EXCHANGE]: '0', [NEG_RISK_EXCHANGE]: '0' } }, 'an unknown account has zeros')
})

t.test('GET /balance-allowance CONDITIONAL: the balance of one outcome token', async (t) => {
  const trader = await server.trader(50 * USDC)
  await server.command({ kind: 'split', address: trader.address, marketId: market.marketId, amountMicros: 12_345_678 })
  const yes = await balance(trader, `asset_type=CONDITIONAL&token_id=${market.yesTokenId}`)
  t.equal(yes.status, 200)
  t.equal(yes.body.balance, '12345678')
  t.match(yes.body.allowance, /^[1-9]\d*$/, 'approved for the exchange: a non-zero allowance')
  t.same(yes.body.allowances, { [EXCHANGE]: yes.body.allowance, [NEG_RISK_EXCHANGE]: yes.body.allowance })
  t.equal((await balance(trader, `asset_type=conditional&token_id=${market.noTokenId}`)).body.balance, '12345678')

  // Selling 2.5 Yes holds them; the balance stays until a trade.
  const sold = await placeLimit(server, trader, market, { side: 'SELL', price: '0.70', size: '2.5' })
  t.equal(sold.body.status, 'live')
  t.equal((await balance(trader, `asset_type=CONDITIONAL&token_id=${market.yesTokenId}`)).body.balance, '12345678')
  const buyer = await server.trader(10 * USDC)
  t.equal((await placeLimit(server, buyer, market, { side: 'BUY', price: '0.70', size: '2.5' })).body.status, 'matched')
  t.equal((await balance(trader, `asset_type=CONDITIONAL&token_id=${market.yesTokenId}`)).body.balance, '9845678')
  t.equal((await balance(buyer, `asset_type=CONDITIONAL&token_id=${market.yesTokenId}`)).body.balance, '2500000')
  t.equal((await balance(buyer, 'asset_type=COLLATERAL')).body.balance, '8250000', '10 - 2.5 x 0.70')
  t.equal((await balance(buyer, `asset_type=CONDITIONAL&token_id=${market.noTokenId}`)).body.balance, '0')

  // Without approval, no allowance for outcome tokens.
  const unapproved = await server.trader()
  await server.command({ kind: 'credit', address: unapproved.address, usdcMicros: 5 * USDC, gasMicros: 0 })
  await server.command({ kind: 'split', address: unapproved.address, marketId: market.marketId, amountMicros: 1 * USDC })
  t.same((await balance(unapproved, `asset_type=CONDITIONAL&token_id=${market.yesTokenId}`)).body,
    { balance: '1000000', allowance: '0', allowances: { [EXCHANGE]: '0', [NEG_RISK_EXCHANGE]: '0' } })
})

t.test('GET /balance-allowance: bad parameters and missing authentication', async (t) => {
  const trader = await server.trader()
  for (const [query, status, code] of [
    ['', 400, 'INVALID_PARAMETER'],
    ['asset_type=USDC', 400, 'INVALID_PARAMETER'],
    ['asset_type=CONDITIONAL', 400, 'INVALID_PARAMETER'],
    ['asset_type=CONDITIONAL&token_id=', 400, 'INVALID_PARAMETER'],
    ['asset_type=CONDITIONAL&token_id=999', 404, 'TOKEN_NOT_FOUND'],
  ] as const) {
    const response = await balance(trader, query)
    t.equal(response.status, status, query)
    t.equal(response.body.code, code, query)
    t.equal(typeof response.body.error, 'string')
  }
  const anonymous = await get(server, '/balance-allowance?asset_type=COLLATERAL')
  t.equal(anonymous.status, 401)
  t.equal(anonymous.body.code, 'AUTH_HEADERS_MISSING')
})

const l1 = (wallet: Wallet, method: string, path: string, nonce = 0, family: 'POLY' | 'EXCHANGE' = 'EXCHANGE', timestamp = nowSec()) =>
  send(server, method, path, '', l1Headers(wallet, CHAIN_ID, timestamp, nonce, family))

function checkCredentials(t: Test, body: any): void {
  t.same(Object.keys(body).sort(), ['apiKey', 'passphrase', 'secret'])
  t.match(body.apiKey, UUID, 'apiKey: a UUID')
  t.match(body.secret, /^[A-Za-z0-9_-]{43}=$/, 'secret: url-safe base64 with padding')
  t.equal(Buffer.from(body.secret, 'base64url').length, 32, 'of 32 bytes')
  t.equal(typeof body.passphrase, 'string')
  t.ok(body.passphrase.length >= 16)
}

t.test('POST /auth/api-key and GET /auth/derive-api-key (L1): one credential per address and nonce', async (t) => {
  const wallet = Wallet.random()
  const created = await l1(wallet, 'POST', '/auth/api-key')
  t.equal(created.status, 200)
  checkCredentials(t, created.body)
  const trader: Trader = { wallet, address: wallet.address.toLowerCase(), credentials: created.body as ApiCredentials }
  const keys = await l2(server, trader, 'GET', '/auth/api-keys')
  t.equal(keys.status, 200, 'a new key is usable at once')
  t.same(keys.body, { apiKeys: [created.body.apiKey] })

  const again = await l1(wallet, 'POST', '/auth/api-key', 0, 'POLY')
  t.equal(again.status, 200)
  t.same(again.body, created.body, 'same address and nonce: the same credential (POLY_* headers too)')
  const derived = await l1(wallet, 'GET', '/auth/derive-api-key')
  t.equal(derived.status, 200)
  t.same(derived.body, created.body)

  const other = await l1(wallet, 'POST', '/auth/api-key', 1)
  t.equal(other.status, 200)
  checkCredentials(t, other.body)
  t.not(other.body.apiKey, created.body.apiKey, 'another nonce: another key')
  t.not(other.body.secret, created.body.secret)
  t.same((await l1(wallet, 'GET', '/auth/derive-api-key', 1)).body, other.body)
  t.same((await l2(server, trader, 'GET', '/auth/api-keys')).body.apiKeys.sort(), [created.body.apiKey, other.body.apiKey].sort())

  const missing = await l1(wallet, 'GET', '/auth/derive-api-key', 7)
  // The reference's message; the status is the catalogue's "not found" (api.md, Conventions).
  t.equal(missing.status, 404, 'nothing to derive')
  t.equal(missing.body.error, 'Could not derive api key!')
  t.equal(missing.body.code, 'API_KEY_NOT_FOUND')
  const stranger = await l1(Wallet.random(), 'GET', '/auth/derive-api-key')
  t.equal(stranger.status, 404)
  t.equal(stranger.body.code, 'API_KEY_NOT_FOUND')
})

t.test('L1 failures: 401 naming the check', async (t) => {
  const wallet = Wallet.random()
  const impostor = Wallet.random()
  const headers = l1Headers(impostor, CHAIN_ID, nowSec(), 0, 'EXCHANGE')
  const forged = await send(server, 'POST', '/auth/api-key', '', { ...headers, 'EXCHANGE-ADDRESS': wallet.address })
  t.equal(forged.status, 401)
  t.equal(forged.body.code, 'AUTH_L1_SIGNATURE')
  const stale = await l1(wallet, 'POST', '/auth/api-key', 0, 'EXCHANGE', nowSec() - 3600)
  t.equal(stale.status, 401)
  t.equal(stale.body.code, 'AUTH_TIMESTAMP')
  const otherChain = await send(server, 'GET', '/auth/derive-api-key', '', l1Headers(wallet, 137, nowSec(), 0, 'EXCHANGE'))
  t.equal(otherChain.status, 401, 'signed for another chain')
  const bare = await send(server, 'POST', '/auth/api-key', '', {})
  t.equal(bare.status, 401)
  t.equal(bare.body.code, 'AUTH_HEADERS_MISSING')
  t.equal((await send(server, 'GET', '/auth/derive-api-key', '', {})).status, 401)
})

t.test('GET /auth/api-keys and DELETE /auth/api-key (L2): list, revoke the key used, keep the others', async (t) => {
  const wallet = Wallet.random()
  const first = (await l1(wallet, 'POST', '/auth/api-key', 0)).body as ApiCredentials
  const second = (await l1(wallet, 'POST', '/auth/api-key', 1)).body as ApiCredentials
  const address = wallet.address.toLowerCase()
  const withFirst: Trader = { wallet, address, credentials: first }
  const withSecond: Trader = { wallet, address, credentials: second }
  t.same((await l2(server, withFirst, 'GET', '/auth/api-keys', undefined, 'POLY')).body.apiKeys.sort(), [first.apiKey, second.apiKey].sort(),
    'POLY_* L2 headers too')
  const someoneElse = await server.trader()
  t.same((await l2(server, someoneElse, 'GET', '/auth/api-keys')).body, { apiKeys: [someoneElse.credentials.apiKey] }, 'only the caller\'s keys')

  const deleted = await l2(server, withSecond, 'DELETE', '/auth/api-key')
  t.equal(deleted.status, 200)
  t.same(deleted.body, { deleted: true })
  const revoked = await l2(server, withSecond, 'GET', '/auth/api-keys')
  t.equal(revoked.status, 401, 'the revoked key no longer authenticates')
  t.equal(revoked.body.code, 'AUTH_UNKNOWN_KEY')
  t.same((await l2(server, withFirst, 'GET', '/auth/api-keys')).body, { apiKeys: [first.apiKey] }, 'the other key still works')
  t.equal((await l1(wallet, 'GET', '/auth/derive-api-key', 1)).status, 404, 'nothing to derive for the revoked slot')
  const renewed = await l1(wallet, 'POST', '/auth/api-key', 1)
  t.equal(renewed.status, 200)
  t.not(renewed.body.apiKey, second.apiKey, 'a new credential for the slot')
  t.same((await l2(server, { wallet, address, credentials: renewed.body }, 'GET', '/auth/api-keys')).body.apiKeys.sort(),
    [first.apiKey, renewed.body.apiKey].sort())
})

t.test('L2 failures: 401 naming the check', async (t) => {
  const trader = await server.trader()
  const other = await server.trader()
  const wrongPassphrase = await l2(server, { ...trader, credentials: { ...trader.credentials, passphrase: 'x'.repeat(64) } }, 'GET', '/auth/api-keys')
  t.equal(wrongPassphrase.status, 401)
  t.equal(wrongPassphrase.body.code, 'AUTH_PASSPHRASE')
  const wrongAddress = await l2(server, { ...trader, address: other.address }, 'GET', '/auth/api-keys')
  t.equal(wrongAddress.status, 401)
  t.equal(wrongAddress.body.code, 'AUTH_ADDRESS')
  const wrongSecret = await l2(server, { ...trader, credentials: { ...trader.credentials, secret: other.credentials.secret } }, 'DELETE', '/auth/api-key')
  t.equal(wrongSecret.status, 401)
  t.equal(wrongSecret.body.code, 'AUTH_SIGNATURE')
  t.same((await l2(server, trader, 'GET', '/auth/api-keys')).body, { apiKeys: [trader.credentials.apiKey] }, 'the failed delete deleted nothing')
  const unknown = await l2(server, { ...trader, credentials: { ...trader.credentials, apiKey: '00000000-0000-4000-8000-000000000000' } }, 'GET', '/auth/api-keys')
  t.equal(unknown.status, 401)
  t.equal(unknown.body.code, 'AUTH_UNKNOWN_KEY')
  t.equal((await send(server, 'DELETE', '/auth/api-key', '', {})).status, 401)
})
