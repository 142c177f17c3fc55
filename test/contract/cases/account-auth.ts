/**
 * Contract of the account and API keys, face-neutral. Account (seed: GET /balance-allowance,
 * `{balance, allowance}` as 6-decimal integer strings; api.md: also `allowances {<exchange>:
 * amount}`): COLLATERAL and CONDITIONAL, exact. API keys (api.md: L1 create and derive `{apiKey
 * (UUID), secret (base64url, 32 bytes), passphrase}`, same address and nonce give the same
 * credential, a new key is usable at once; L2 list and delete; "as the reference"): each failure
 * a 401 naming the check.
 *
 * Each case makes its own market and wallets. Polymarket's POLY_* header names are REST's own:
 * test/contract/rest-auth-headers.test.ts.
 */
import type { Test } from 'tap'
import type { ApiCredentials } from '../../../src/api/shapes/credential.js'
import { signLimitOrder, type LimitOrder } from '../../../src/client/orders.js'
import { Wallet } from '../../../src/crypto/wallet.js'
import type { MarketRecord } from '../../../src/engine/event.js'
import { ANONYMOUS, nowSec, orderRequest, termsOf, USDC } from '../../support/driver.js'
import type { Caller, ContractCase, Driver, Query, Reply, Trader } from '../../support/driver.js'

const EXCHANGE = '0xdFE02Eb6733538f8Ea35D585af8DE5958AD99E40'
const NEG_RISK_EXCHANGE = '0xC5d563A36AE78145C45a50134d48A1215220f80a'
const MAX_ALLOWANCE = String(Number.MAX_SAFE_INTEGER)
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const COLLATERAL: Query = { asset_type: 'COLLATERAL' }
const conditional = (tokenId: string): Query => ({ asset_type: 'CONDITIONAL', token_id: tokenId })

/** A market whose minimum order is 1 share. */
const smallMarket = (d: Driver): Promise<MarketRecord> => d.createMarket({ minOrderSizeMicros: 1 * USDC })

/** Signs a Yes limit order of `trader` on `market` and places it. */
async function placeYes(d: Driver, trader: Trader, market: MarketRecord, order: Omit<LimitOrder, 'tokenId'>): Promise<Reply> {
  const signed = signLimitOrder(trader.wallet, termsOf(market), { tokenId: market.yesTokenId, ...order })
  return d.placeOrder(trader, orderRequest(signed, trader.credentials.apiKey))
}

function checkCredentials(t: Test, body: any): void {
  t.same(Object.keys(body).sort(), ['apiKey', 'passphrase', 'secret'])
  t.match(body.apiKey, UUID, 'apiKey: a UUID')
  t.match(body.secret, /^[A-Za-z0-9_-]{43}=$/, 'secret: url-safe base64 with padding')
  t.equal(Buffer.from(body.secret, 'base64url').length, 32, 'of 32 bytes')
  t.equal(typeof body.passphrase, 'string')
  t.ok(body.passphrase.length >= 16)
}

/** `wallet` authenticating with `credentials`. */
const holder = (wallet: Wallet, credentials: ApiCredentials): Trader =>
  ({ wallet, address: wallet.address.toLowerCase(), credentials })

const sortedKeys = async (d: Driver, caller: Caller): Promise<string[]> => (await d.apiKeys(caller)).body.apiKeys.sort()

export const accountAuthCases: readonly ContractCase[] = [
  {
    name: 'GET /balance-allowance COLLATERAL: the exact USDC balance and allowance as integer strings',
    async run(t, d) {
      const market = await smallMarket(d)
      const trader = await d.trader(123_456_789)
      const collateral = await d.balance(trader, COLLATERAL)
      t.equal(collateral.status, 200)
      t.same(collateral.body, { balance: '123456789', allowance: MAX_ALLOWANCE,
        allowances: { [EXCHANGE]: MAX_ALLOWANCE, [NEG_RISK_EXCHANGE]: MAX_ALLOWANCE } })
      t.same((await d.balance(trader, { asset_type: 'collateral', signature_type: 0 })).body, collateral.body,
        'any case; signature_type accepted')

      // A resting order holds USDC; the balance is still the whole balance (as on chain).
      const placed = await placeYes(d, trader, market, { side: 'BUY', price: '0.33', size: '3' })
      t.equal(placed.body.status, 'live')
      t.equal((await d.account(trader.address)).heldMicros, 990_000)
      t.equal((await d.balance(trader, COLLATERAL)).body.balance, '123456789')

      // Splitting 10.5 USDC: USDC down, 10.5 of each outcome token.
      await d.command({ kind: 'split', address: trader.address, marketId: market.marketId, amountMicros: 10_500_000 })
      t.equal((await d.balance(trader, COLLATERAL)).body.balance, '112956789')

      const limited = await d.trader()
      await d.command({ kind: 'credit', address: limited.address, usdcMicros: 7_000_001, gasMicros: 0 })
      t.same((await d.balance(limited, COLLATERAL)).body, { balance: '7000001', allowance: '0',
        allowances: { [EXCHANGE]: '0', [NEG_RISK_EXCHANGE]: '0' } }, 'a new address has allowance 0')
      await d.command({ kind: 'approve', address: limited.address, usdcAllowanceMicros: 2_500_000 })
      t.same((await d.balance(limited, COLLATERAL)).body, { balance: '7000001', allowance: '2500000',
        allowances: { [EXCHANGE]: '2500000', [NEG_RISK_EXCHANGE]: '2500000' } })

      const nobody = await d.trader()
      t.same((await d.balance(nobody, COLLATERAL)).body, { balance: '0', allowance: '0',
        allowances: { [EXCHANGE]: '0', [NEG_RISK_EXCHANGE]: '0' } }, 'an unknown account has zeros')
    },
  },
  {
    name: 'GET /balance-allowance CONDITIONAL: the balance of one outcome token',
    async run(t, d) {
      const market = await smallMarket(d)
      const trader = await d.trader(50 * USDC)
      await d.command({ kind: 'split', address: trader.address, marketId: market.marketId, amountMicros: 12_345_678 })
      const yes = await d.balance(trader, conditional(market.yesTokenId))
      t.equal(yes.status, 200)
      t.equal(yes.body.balance, '12345678')
      t.match(yes.body.allowance, /^[1-9]\d*$/, 'approved for the exchange: a non-zero allowance')
      t.same(yes.body.allowances, { [EXCHANGE]: yes.body.allowance, [NEG_RISK_EXCHANGE]: yes.body.allowance })
      t.equal((await d.balance(trader, { asset_type: 'conditional', token_id: market.noTokenId })).body.balance, '12345678')

      // Selling 2.5 Yes holds them; the balance stays until a trade.
      const sold = await placeYes(d, trader, market, { side: 'SELL', price: '0.70', size: '2.5' })
      t.equal(sold.body.status, 'live')
      t.equal((await d.balance(trader, conditional(market.yesTokenId))).body.balance, '12345678')
      const buyer = await d.trader(10 * USDC)
      t.equal((await placeYes(d, buyer, market, { side: 'BUY', price: '0.70', size: '2.5' })).body.status, 'matched')
      t.equal((await d.balance(trader, conditional(market.yesTokenId))).body.balance, '9845678')
      t.equal((await d.balance(buyer, conditional(market.yesTokenId))).body.balance, '2500000')
      t.equal((await d.balance(buyer, COLLATERAL)).body.balance, '8250000', '10 - 2.5 x 0.70')
      t.equal((await d.balance(buyer, conditional(market.noTokenId))).body.balance, '0')

      // Without approval, no allowance for outcome tokens.
      const unapproved = await d.trader()
      await d.command({ kind: 'credit', address: unapproved.address, usdcMicros: 5 * USDC, gasMicros: 0 })
      await d.command({ kind: 'split', address: unapproved.address, marketId: market.marketId, amountMicros: 1 * USDC })
      t.same((await d.balance(unapproved, conditional(market.yesTokenId))).body,
        { balance: '1000000', allowance: '0', allowances: { [EXCHANGE]: '0', [NEG_RISK_EXCHANGE]: '0' } })
    },
  },
  {
    name: 'GET /balance-allowance: bad parameters and missing authentication',
    async run(t, d) {
      const trader = await d.trader()
      for (const [query, status, code] of [
        [{}, 400, 'INVALID_PARAMETER'],
        [{ asset_type: 'USDC' }, 400, 'INVALID_PARAMETER'],
        [{ asset_type: 'CONDITIONAL' }, 400, 'INVALID_PARAMETER'],
        [conditional(''), 400, 'INVALID_PARAMETER'],
        [conditional('999'), 404, 'TOKEN_NOT_FOUND'],
      ] as const) {
        const response = await d.balance(trader, query)
        t.equal(response.status, status, JSON.stringify(query))
        t.equal(response.body.code, code, JSON.stringify(query))
        t.equal(typeof response.body.error, 'string')
      }
      const anonymous = await d.balance(ANONYMOUS, COLLATERAL)
      t.equal(anonymous.status, 401)
      t.equal(anonymous.body.code, 'AUTH_HEADERS_MISSING')
    },
  },
  {
    name: 'POST /auth/api-key and GET /auth/derive-api-key (L1): one credential per address and nonce',
    async run(t, d) {
      const wallet = Wallet.random()
      const created = await d.createApiKey({ wallet })
      t.equal(created.status, 200)
      checkCredentials(t, created.body)
      const trader = holder(wallet, created.body)
      const keys = await d.apiKeys(trader)
      t.equal(keys.status, 200, 'a new key is usable at once')
      t.same(keys.body, { apiKeys: [created.body.apiKey] })

      const again = await d.createApiKey({ wallet })
      t.equal(again.status, 200)
      t.same(again.body, created.body, 'same address and nonce: the same credential')
      const derived = await d.deriveApiKey({ wallet })
      t.equal(derived.status, 200)
      t.same(derived.body, created.body)

      const other = await d.createApiKey({ wallet, nonce: 1 })
      t.equal(other.status, 200)
      checkCredentials(t, other.body)
      t.not(other.body.apiKey, created.body.apiKey, 'another nonce: another key')
      t.not(other.body.secret, created.body.secret)
      t.same((await d.deriveApiKey({ wallet, nonce: 1 })).body, other.body)
      t.same(await sortedKeys(d, trader), [created.body.apiKey, other.body.apiKey].sort())

      const missing = await d.deriveApiKey({ wallet, nonce: 7 })
      // The reference's message; the status is the catalogue's "not found" (api.md, Conventions).
      t.equal(missing.status, 404, 'nothing to derive')
      t.equal(missing.body.error, 'Could not derive api key!')
      t.equal(missing.body.code, 'API_KEY_NOT_FOUND')
      const stranger = await d.deriveApiKey({ wallet: Wallet.random() })
      t.equal(stranger.status, 404)
      t.equal(stranger.body.code, 'API_KEY_NOT_FOUND')
    },
  },
  {
    name: 'L1 failures: 401 naming the check',
    async run(t, d) {
      const wallet = Wallet.random()
      const forged = await d.createApiKey({ wallet: Wallet.random(), address: wallet.address })
      t.equal(forged.status, 401)
      t.equal(forged.body.code, 'AUTH_L1_SIGNATURE')
      const stale = await d.createApiKey({ wallet, timestampSec: nowSec() - 3600 })
      t.equal(stale.status, 401)
      t.equal(stale.body.code, 'AUTH_TIMESTAMP')
      const otherChain = await d.deriveApiKey({ wallet, chainId: 137 })
      t.equal(otherChain.status, 401, 'signed for another chain')
      const bare = await d.createApiKey(ANONYMOUS)
      t.equal(bare.status, 401)
      t.equal(bare.body.code, 'AUTH_HEADERS_MISSING')
      t.equal((await d.deriveApiKey(ANONYMOUS)).status, 401)
    },
  },
  {
    name: 'GET /auth/api-keys and DELETE /auth/api-key (L2): list, revoke the key used, keep the others',
    async run(t, d) {
      const wallet = Wallet.random()
      const first = (await d.createApiKey({ wallet, nonce: 0 })).body as ApiCredentials
      const second = (await d.createApiKey({ wallet, nonce: 1 })).body as ApiCredentials
      const withFirst = holder(wallet, first)
      const withSecond = holder(wallet, second)
      t.same(await sortedKeys(d, withFirst), [first.apiKey, second.apiKey].sort(), 'both keys')
      const someoneElse = await d.trader()
      t.same((await d.apiKeys(someoneElse)).body, { apiKeys: [someoneElse.credentials.apiKey] }, 'only the caller\'s keys')

      const deleted = await d.deleteApiKey(withSecond)
      t.equal(deleted.status, 200)
      t.same(deleted.body, { deleted: true })
      const revoked = await d.apiKeys(withSecond)
      t.equal(revoked.status, 401, 'the revoked key no longer authenticates')
      t.equal(revoked.body.code, 'AUTH_UNKNOWN_KEY')
      t.same((await d.apiKeys(withFirst)).body, { apiKeys: [first.apiKey] }, 'the other key still works')
      t.equal((await d.deriveApiKey({ wallet, nonce: 1 })).status, 404, 'nothing to derive for the revoked slot')
      const renewed = await d.createApiKey({ wallet, nonce: 1 })
      t.equal(renewed.status, 200)
      t.not(renewed.body.apiKey, second.apiKey, 'a new credential for the slot')
      t.same(await sortedKeys(d, holder(wallet, renewed.body)), [first.apiKey, renewed.body.apiKey].sort())
    },
  },
  {
    name: 'L2 failures: 401 naming the check',
    async run(t, d) {
      const trader = await d.trader()
      const other = await d.trader()
      const wrongPassphrase = await d.apiKeys({ ...trader, credentials: { ...trader.credentials, passphrase: 'x'.repeat(64) } })
      t.equal(wrongPassphrase.status, 401)
      t.equal(wrongPassphrase.body.code, 'AUTH_PASSPHRASE')
      const wrongAddress = await d.apiKeys({ ...trader, address: other.address })
      t.equal(wrongAddress.status, 401)
      t.equal(wrongAddress.body.code, 'AUTH_ADDRESS')
      const otherSecret = { ...trader.credentials, secret: other.credentials.secret }
      const wrongSecret = await d.deleteApiKey({ ...trader, credentials: otherSecret })
      t.equal(wrongSecret.status, 401)
      t.equal(wrongSecret.body.code, 'AUTH_SIGNATURE')
      t.same((await d.apiKeys(trader)).body, { apiKeys: [trader.credentials.apiKey] }, 'the failed delete deleted nothing')
      const unknownKey = { ...trader.credentials, apiKey: '00000000-0000-4000-8000-000000000000' }
      const unknown = await d.apiKeys({ ...trader, credentials: unknownKey })
      t.equal(unknown.status, 401)
      t.equal(unknown.body.code, 'AUTH_UNKNOWN_KEY')
      t.equal((await d.deleteApiKey(ANONYMOUS)).status, 401)
    },
  },
]
