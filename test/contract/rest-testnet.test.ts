/**
 * What only the REST face of the test network says: a faucet refused inside its cooldown carries
 * the rest of the cooldown in a Retry-After header too, the same seconds as the body's
 * retryAfterSeconds (the body itself is checked for every face in cases/testnet-refusals.ts).
 */
import t from 'tap'
import { Wallet } from '../../src/crypto/wallet.js'
import { send, startServer } from '../support/rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())

t.test('faucet: inside the cooldown 429 with Retry-After, the rest of the 60 s cooldown', async (t) => {
  const body = JSON.stringify({ address: Wallet.random().address })
  t.equal((await send(server, 'POST', '/faucet', body, {})).status, 200, 'the first time')
  const again = await send(server, 'POST', '/faucet', body, {})
  t.equal(again.status, 429)
  t.equal(again.body.code, 'FAUCET_COOLDOWN')
  const retryAfter = again.headers.get('retry-after')
  t.ok(Number(retryAfter) > 50 && Number(retryAfter) <= 60, `Retry-After is the rest of the 60 s cooldown (${retryAfter})`)
  t.equal(again.body.retryAfterSeconds, Number(retryAfter))
})
