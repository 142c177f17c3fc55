/**
 * Authentication header names over loopback: REST's own. Every L1 and L2 check is in the
 * face-neutral cases (test/contract/cases/account-auth.ts, with the native EXCHANGE-* names);
 * here, Polymarket's POLY_* names (what clob-client sends) authenticate the same way.
 */
import t from 'tap'
import { l1Headers } from '../../src/crypto/request-headers.js'
import type { ApiCredentials } from '../../src/api/shapes/credential.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { CHAIN_ID, l2, nowSec, send, startServer, type Trader } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())

const l1 = (wallet: Wallet, nonce: number, family: 'POLY' | 'EXCHANGE') =>
  send(server, 'POST', '/auth/api-key', '', l1Headers(wallet, CHAIN_ID, nowSec(), nonce, family))

t.test('POLY_* L1 headers: the same credential as EXCHANGE-* for the same address and nonce', async (t) => {
  const wallet = Wallet.random()
  const created = await l1(wallet, 0, 'EXCHANGE')
  const again = await l1(wallet, 0, 'POLY')
  t.equal(again.status, 200)
  t.same(again.body, created.body, 'same address and nonce: the same credential (POLY_* headers too)')
})

t.test('POLY_* L2 headers: the caller\'s keys, as with EXCHANGE-*', async (t) => {
  const wallet = Wallet.random()
  const first = (await l1(wallet, 0, 'EXCHANGE')).body as ApiCredentials
  const second = (await l1(wallet, 1, 'EXCHANGE')).body as ApiCredentials
  const withFirst: Trader = { wallet, address: wallet.address.toLowerCase(), credentials: first }
  t.same((await l2(server, withFirst, 'GET', '/auth/api-keys', undefined, 'POLY')).body.apiKeys.sort(),
    [first.apiKey, second.apiKey].sort(), 'POLY_* L2 headers too')
})
