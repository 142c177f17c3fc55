/**
 * The faucet's budgets (issue 14, finding 8: one shared faucet supply could be drained by many
 * addresses). Each address has its cooldown, but new addresses are free: one client asking for
 * a credit for address after address took one each, 100 per 10 s under the shared `testnet`
 * budget. Now a client has its own faucet budget (RATE_RULES.faucet: 30 a minute, 300 an hour),
 * and all clients together FAUCET_CREDITS_PER_HOUR_MAX (test/unit/service/testnet/testnet.test.ts).
 */
import t from 'tap'
import { RATE_RULES } from '../../src/limits.js'
import { send, startServer } from '../support/rest-harness.js'
import { TestClock } from '../support/clock.js'

t.test('one client cannot take a credit for address after address', async (t) => {
  // Budgets read the monotonic clock, which stands still unless advanced: a burst that takes more
  // than 2 s on a loaded machine (the budget refills one credit every 2 s) still meets the bound.
  const server = await startServer({ clock: new TestClock() })
  t.teardown(() => server.stop())
  const address = (n: number): string => '0x' + (0xfa0000 + n).toString(16).padStart(40, '0')
  const statuses: number[] = []
  let refusal: Awaited<ReturnType<typeof send>> | null = null
  for (let n = 1; n <= RATE_RULES.faucet.burst + 1; n++) {
    const reply = await send(server, 'POST', '/faucet', JSON.stringify({ address: address(n) }), {})
    statuses.push(reply.status)
    if (reply.status !== 200) refusal = reply
  }
  t.same(statuses, [...Array(RATE_RULES.faucet.burst).fill(200), 429], 'the burst, then 429')
  t.equal(refusal?.body.code, 'RATE_LIMITED')
  t.ok(Number(refusal?.headers.get('retry-after')) >= 1, `Retry-After: ${refusal?.headers.get('retry-after')}`)
  const relay = await send(server, 'GET', `/relay/nonce?address=${address(1)}`, '', {})
  t.equal(relay.status, 200, 'other test-network endpoints keep their own budget')
})
