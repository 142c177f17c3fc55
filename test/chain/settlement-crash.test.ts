/**
 * kill -9 with settlement in flight (issue 35 point 4 and "not done until"), on a real server
 * process with `--chain local`: trades matched just before the kill (not yet recorded for
 * settlement, or sent and not yet confirmed) all settle after the restart, each exactly once, and
 * the chain's balances and the API's agree to the micro-unit. A node that stops answering for a
 * while (anvil paused with SIGSTOP) makes settlement wait and go on, losing and doubling nothing,
 * and a request that needs it (the faucet) is refused with 503 CHAIN_UNAVAILABLE and a Retry-After.
 * Bounded: every wait has a deadline, and the paused node is resumed by the test.
 */
import t from 'tap'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { PredexClient } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { ensureBuilt } from '../support/compiled.js'
import { chainTrader, rpcUrlOf, tokensOnChain, usdcOnChain, waitUntil as until } from '../support/chain-server.js'
import { startPredex } from '../support/predex-process.js'

const ADMIN_KEY = 'settlement-crash-test-admin-key-0123456789'
const ARGS = ['--chain', 'local', '--chain-block-ms', '100', '--faucet-cooldown', '0', '--admin-key', ADMIN_KEY,
  '--rate-limits', 'false']
const ORDERS = 6
const SIZE = 5

/** `ORDERS` resting buys of Yes by the maker, then one buy of No by the taker that mints against all of them. */
async function mintAgainstAll(maker: PredexClient, taker: PredexClient, yes: string, no: string): Promise<void> {
  for (let i = 0; i < ORDERS; i++) {
    await maker.placeLimitOrder({ tokenId: yes, side: 'BUY', price: `0.${50 + i}`, size: String(SIZE) })
  }
  const crossing = await taker.placeLimitOrder({ tokenId: no, side: 'BUY', price: '0.50', size: String(ORDERS * SIZE) })
  if (crossing.status !== 'matched') throw new Error(`the taker did not match: ${JSON.stringify(crossing)}`)
}

ensureBuilt()

t.test('kill -9 right after matches, and again with settlements sent: every trade settles once', async (t) => {
  const first = await startPredex(t, ARGS)
  const market = await new PredexClient({ baseUrl: first.base, adminKey: ADMIN_KEY })
    .createMarket({ question: 'Does settlement survive kill -9?' })
  const [makerKey, takerKey] = [generatePrivateKey(), generatePrivateKey()]
  const [maker, taker] = [(await chainTrader(first, makerKey)).client, (await chainTrader(first, takerKey)).client]
  await mintAgainstAll(maker, taker, market.yes_token_id, market.no_token_id)
  first.child.kill('SIGKILL') // at once: the trades may not even be recorded for settlement yet
  await first.exited

  const second = await startPredex(t, ARGS, first.dataDir)
  const taker2 = new PredexClient({ baseUrl: second.base, wallet: new Wallet(takerKey) })
  await taker2.deriveApiKey()
  const maker2 = new PredexClient({ baseUrl: second.base, wallet: new Wallet(makerKey) })
  await maker2.deriveApiKey()
  await until(() => taker2.trades(), (page) => page.data.length === ORDERS && page.data.every((tr) => tr.status === 'CONFIRMED'),
    'every trade of before the first kill CONFIRMED')

  // Again, killed once a settlement is in a block but not yet confirmed (or later).
  await mintAgainstAll(maker2, taker2, market.yes_token_id, market.no_token_id)
  await until(() => taker2.trades(), (page) => page.data.some((tr) => tr.status === 'MINED' || tr.status === 'CONFIRMED') &&
    page.data.length === 2 * ORDERS && page.data.filter((tr) => tr.status === 'CONFIRMED').length < 2 * ORDERS,
  'a settlement sent before the second kill')
  second.child.kill('SIGKILL')
  await second.exited

  const third = await startPredex(t, ARGS, first.dataDir)
  const taker3 = new PredexClient({ baseUrl: third.base, wallet: new Wallet(takerKey) })
  await taker3.deriveApiKey()
  const trades = await until(() => taker3.trades(), (page) => page.data.length === 2 * ORDERS &&
    page.data.every((tr) => tr.status === 'CONFIRMED'), 'every trade CONFIRMED after the second kill')
  t.equal(new Set(trades.data.map((tr) => tr.id)).size, 2 * ORDERS, 'no trade lost')

  const rpcUrl = await rpcUrlOf(third)
  const makerAddress = privateKeyToAccount(makerKey).address
  const takerAddress = privateKeyToAccount(takerKey).address
  const sharesEach = BigInt(2 * ORDERS * SIZE) * 1_000_000n
  t.equal(await tokensOnChain(rpcUrl, makerAddress, market.yes_token_id), sharesEach, 'the maker\'s Yes: each trade once')
  t.equal(await tokensOnChain(rpcUrl, takerAddress, market.no_token_id), sharesEach, 'the taker\'s No: each trade once')
  // The maker paid 0.50 .. 0.55 for 5 each, twice: 2 x 5 x (0.50 + ... + 0.55) = 31.50; the taker the rest of 60.
  t.equal(await usdcOnChain(rpcUrl, makerAddress), 68_500_000n, 'the maker\'s USDC on chain')
  t.equal(await usdcOnChain(rpcUrl, takerAddress), 71_500_000n, 'the taker\'s USDC on chain')
  t.equal((await taker3.walletStatus()).usdc_balance, '71.5', 'and in the API')
})

t.test('a node that stops answering: settlement waits, then settles each trade once', async (t) => {
  const node = await startPredex(t, ARGS)
  const market = await new PredexClient({ baseUrl: node.base, adminKey: ADMIN_KEY })
    .createMarket({ question: 'Does settlement wait for a silent node?' })
  const [makerTrader, takerTrader] = [await chainTrader(node), await chainTrader(node)]
  const [maker, taker, takerKey] = [makerTrader.client, takerTrader.client, takerTrader.key]
  const anvilPid = Number(/"anvilPid":(\d+)/.exec(node.output())?.[1])
  t.ok(anvilPid > 0, 'the node\'s pid is logged')
  process.kill(anvilPid, 'SIGSTOP')
  try {
    await mintAgainstAll(maker, taker, market.yes_token_id, market.no_token_id)
    await until(() => taker.trades(), (page) => page.data.length === ORDERS && page.data.some((tr) => tr.status === 'RETRYING'),
      'settlement says it is retrying')
    const faucet = await fetch(`${node.base}/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: privateKeyToAccount(generatePrivateKey()).address, amount: '1' }) })
    t.equal(faucet.status, 503, 'a request that needs the silent node is refused, not an internal error')
    t.match(await faucet.json(), { code: 'CHAIN_UNAVAILABLE' })
    t.equal(faucet.headers.get('retry-after'), '5')
  } finally {
    process.kill(anvilPid, 'SIGCONT')
  }
  await until(() => taker.trades(), (page) => page.data.every((tr) => tr.status === 'CONFIRMED'), 'all CONFIRMED once it answers')
  const rpcUrl = await rpcUrlOf(node)
  t.equal(await tokensOnChain(rpcUrl, privateKeyToAccount(takerKey).address, market.no_token_id),
    BigInt(ORDERS * SIZE) * 1_000_000n, 'each trade settled once')
})
