/**
 * The test network end to end over REST with SDK wallets (issue 6): faucet, approve via the
 * gasless relay, a trade that mints, split, merge, a trade, resolution (which cancels open orders
 * and releases their holds), redemption. After each step the wallet status, the engine's exact
 * balances and the allowance are what the step implies, worked out by hand below, and the USDC
 * of the two wallets always adds up to what the faucet gave them (fee rate 0 on this market).
 */
import t, { type Test } from 'tap'
import { PredexClient, type Market, type WalletStatus } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/client/wallet.js'
import { USDC, startServer } from '../rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())
const admin = new PredexClient({ baseUrl: server.base, adminKey: server.predex.adminKey })
const aliceWallet = Wallet.random()
const bobWallet = Wallet.random()
const alice = new PredexClient({ baseUrl: server.base, wallet: aliceWallet })
const bob = new PredexClient({ baseUrl: server.base, wallet: bobWallet })
const TX_HASH = /^0x[0-9a-f]{64}$/
let market: Market
/** Alice's ledger transactions as each step answered them, for the event history at the end. */
const aliceTransactions: { action: string; hash: string; amount: string; payout: string }[] = []

interface Expected {
  usdc: string
  available: string
  allowance: string
  eth: string
  yes: number
  no: number
}

/** Wallet status, engine balances and the compat balance view all agree with `expected`. */
async function check(t: Test, client: PredexClient, wallet: Wallet, expected: Expected, label: string): Promise<void> {
  const status: WalletStatus = await client.walletStatus()
  t.same({ usdc: status.usdc_balance, available: status.available_usdc, allowance: status.allowance, eth: status.eth_balance },
    { usdc: expected.usdc, available: expected.available, allowance: expected.allowance, eth: expected.eth }, `${label}: wallet status`)
  const account = await server.account(wallet.address.toLowerCase())
  t.equal(account.usdcMicros, Math.round(Number(expected.usdc) * USDC), `${label}: engine USDC`)
  t.equal(account.shares.get(market.yes_token_id) ?? 0, expected.yes * USDC, `${label}: Yes shares`)
  t.equal(account.shares.get(market.no_token_id) ?? 0, expected.no * USDC, `${label}: No shares`)
}

async function totalUsdcMicros(): Promise<number> {
  const accounts = await Promise.all([aliceWallet, bobWallet].map((w) => server.account(w.address.toLowerCase())))
  return accounts.reduce((sum, a) => sum + a.usdcMicros, 0)
}

t.test('admin lists a market: 201 with the full record', async (t) => {
  market = await admin.createMarket({ question: 'Will the test network work?', tick_size: '0.01', min_order_size: '5', fee_rate_bps: 0 })
  t.equal(market.slug, 'will-the-test-network-work')
  t.equal(market.status, 'Active')
  t.match(market.condition_id, TX_HASH)
  t.match(market.yes_token_id, /^\d+$/)
  t.match(market.no_token_id, /^\d+$/)
  t.same((await alice.market(market.slug)).id, market.id, 'readable at once by slug')
})

t.test('a new address has nothing; the faucet gives USDC and gas once, with a transaction', async (t) => {
  const empty = { usdc: '0', available: '0', allowance: '0', eth: '0', yes: 0, no: 0 }
  await check(t, alice, aliceWallet, empty, 'new alice')
  const credited = await alice.faucet()
  t.equal(credited.address, aliceWallet.address.toLowerCase())
  t.equal(credited.usdc_credited, '1000')
  t.equal(credited.eth_credited, '0.1', 'test gas for a new address')
  t.match(credited.transaction_hash, TX_HASH)
  t.equal(credited.block_number, server.predex.context.read.seq, 'the block of the credit is its command')
  aliceTransactions.push({ action: 'credit', hash: credited.transaction_hash, amount: '1000', payout: '0.1' })
  // No allowance yet: nothing is available to orders, as on a real chain.
  await check(t, alice, aliceWallet, { ...empty, usdc: '1000', eth: '0.1' }, 'alice after the faucet')
  const bobCredit = await bob.faucet('1000')
  t.not(bobCredit.transaction_hash, credited.transaction_hash, 'each transaction has its own hash')
})

t.test('approve through the relay: nonce 0 -> 1, allowance set, gasless', async (t) => {
  t.equal(await alice.relayNonce(), 0)
  const approved = await alice.approve(1_000 * USDC)
  t.equal(approved.status, 'CONFIRMED')
  t.match(approved.transaction_hash, TX_HASH)
  t.equal(await alice.relayNonce(), 1)
  aliceTransactions.push({ action: 'approve', hash: approved.transaction_hash, amount: '1000', payout: '0' })
  await check(t, alice, aliceWallet, { usdc: '1000', available: '1000', allowance: '1000', eth: '0.1', yes: 0, no: 0 }, 'alice approved')
  await bob.approve(1_000 * USDC)
  await check(t, bob, bobWallet, { usdc: '1000', available: '1000', allowance: '1000', eth: '0.1', yes: 0, no: 0 }, 'bob approved')
})

t.test('a trade that mints: BUY Yes 100 @ 0.40 against BUY No 100 @ 0.60', async (t) => {
  await alice.createApiKey()
  await bob.createApiKey()
  const resting = await alice.placeLimitOrder({ tokenId: market.yes_token_id, side: 'BUY', price: '0.40', size: '100' })
  t.equal(resting.status, 'live')
  t.same(resting.transactionsHashes, [], 'nothing settled yet')
  const taking = await bob.placeLimitOrder({ tokenId: market.no_token_id, side: 'BUY', price: '0.60', size: '100' })
  t.equal(taking.status, 'matched')
  t.equal(taking.transactionsHashes.length, 1, 'one settlement transaction')
  const trades = await bob.trades()
  t.equal(trades.data.length, 1)
  t.equal(trades.data[0]!.transaction_hash, taking.transactionsHashes[0], 'the trade carries it')
  // Alice pays 100 x 0.40 = 40, Bob 100 x 0.60 = 60; 100 new pairs are minted.
  await check(t, alice, aliceWallet, { usdc: '960', available: '960', allowance: '1000', eth: '0.1', yes: 100, no: 0 }, 'alice after the mint')
  await check(t, bob, bobWallet, { usdc: '940', available: '940', allowance: '1000', eth: '0.1', yes: 0, no: 100 }, 'bob after the mint')
  t.equal(await totalUsdcMicros(), 1_900 * USDC, '2 000 credited - 100 USDC locked in 100 full sets')
})

t.test('split 50 then merge 20 through the relay', async (t) => {
  const split = await alice.split(market.condition_id, 50 * USDC)
  aliceTransactions.push({ action: 'split', hash: split.transaction_hash, amount: '50', payout: '0' })
  await check(t, alice, aliceWallet, { usdc: '910', available: '910', allowance: '1000', eth: '0.1', yes: 150, no: 50 }, 'alice after the split')
  const merged = await alice.merge(market.condition_id, 20 * USDC)
  aliceTransactions.push({ action: 'merge', hash: merged.transaction_hash, amount: '20', payout: '0' })
  await check(t, alice, aliceWallet, { usdc: '930', available: '930', allowance: '1000', eth: '0.1', yes: 130, no: 30 }, 'alice after the merge')
  t.equal(await alice.relayNonce(), 3, 'approve, split, merge: three nonces used')
})

t.test('a plain trade: Alice sells 30 No @ 0.35 to Bob', async (t) => {
  await alice.placeLimitOrder({ tokenId: market.no_token_id, side: 'SELL', price: '0.35', size: '30' })
  const bought = await bob.placeLimitOrder({ tokenId: market.no_token_id, side: 'BUY', price: '0.35', size: '30' })
  t.equal(bought.status, 'matched')
  // 30 x 0.35 = 10.5 USDC from Bob to Alice.
  await check(t, alice, aliceWallet, { usdc: '940.5', available: '940.5', allowance: '1000', eth: '0.1', yes: 130, no: 0 }, 'alice after selling')
  await check(t, bob, bobWallet, { usdc: '929.5', available: '929.5', allowance: '1000', eth: '0.1', yes: 0, no: 130 }, 'bob after buying')
  t.equal(await totalUsdcMicros(), 1_870 * USDC, '2 000 - 130 full sets')
})

t.test('resolve Yes: open orders cancelled, holds released; redeem pays the winners', async (t) => {
  const resting = await bob.placeLimitOrder({ tokenId: market.yes_token_id, side: 'BUY', price: '0.20', size: '10' })
  t.equal(resting.status, 'live')
  await check(t, bob, bobWallet, { usdc: '929.5', available: '927.5', allowance: '1000', eth: '0.1', yes: 0, no: 130 }, 'bob holding 2 USDC')
  const resolved = await admin.resolveMarket(market.id, 'Yes')
  t.equal(resolved.status, 'Resolved')
  t.equal(resolved.resolution?.outcome, 'Yes')
  t.same((await admin.market(market.id)).status, 'Resolved')
  const order = await bob.order(resting.order_id)
  t.equal(order.status, 'CANCELED', 'the resting order was cancelled by the resolution')
  await check(t, bob, bobWallet, { usdc: '929.5', available: '929.5', allowance: '1000', eth: '0.1', yes: 0, no: 130 }, 'bob released')
  const redeemed = await alice.redeem(market.condition_id)
  aliceTransactions.push({ action: 'redeem', hash: redeemed.transaction_hash, amount: '130', payout: '130' })
  await check(t, alice, aliceWallet, { usdc: '1070.5', available: '1000', allowance: '1000', eth: '0.1', yes: 0, no: 0 }, 'alice redeemed 130')
  await bob.redeem(market.condition_id)
  await check(t, bob, bobWallet, { usdc: '929.5', available: '929.5', allowance: '1000', eth: '0.1', yes: 0, no: 0 }, 'bob redeemed losing shares for 0')
  t.equal(await totalUsdcMicros(), 2_000 * USDC, 'every USDC the faucet gave is back in the wallets')
})

t.test("every ledger operation is an on-chain event in the address's history, with its transaction", async (t) => {
  const events = await alice.userEvents()
  t.same(events.data.map((e) => ({ action: e.action, hash: e.transaction_hash, amount: e.amount, payout: e.payout })), aliceTransactions)
  for (const event of events.data) {
    t.equal(event.address, aliceWallet.address.toLowerCase())
    t.equal(event.condition_id, event.action === 'credit' || event.action === 'approve' ? null : market.condition_id, `${event.action}: its market`)
  }
  const blocks = events.data.map((e) => e.block_number)
  t.same(blocks, [...blocks].sort((a, b) => a - b), 'in block order')
})

t.test('the admin statistics count what happened', async (t) => {
  const stats = await admin.adminStats()
  t.match(stats, { markets: 1, markets_by_status: { Resolved: 1 }, trades: 2, orders: 5, open_orders: 0 })
})

t.test("portfolio history: every position change with the running USDC balance, ending at the engine's balances", async (t) => {
  const history = await (await fetch(`${server.base}/users/${aliceWallet.address}/portfolio-history`)).json() as any
  t.equal(history.address, aliceWallet.address.toLowerCase())
  const yes = market.yes_token_id
  const no = market.no_token_id
  t.same(history.milestones.map((m: any) => [m.kind, m.token_id, m.shares, m.price, m.usdc_delta, m.usdc_balance, m.positions]), [
    ['deposit', null, '0', null, '1000', '1000', {}],
    ['buy', yes, '100', '0.4', '-40', '960', { [yes]: '100' }],
    ['mint', null, '50', null, '-50', '910', { [yes]: '150', [no]: '50' }],
    ['merge', null, '20', null, '20', '930', { [yes]: '130', [no]: '30' }],
    ['sell', no, '30', '0.35', '10.5', '940.5', { [yes]: '130' }],
    ['redemption', null, '130', null, '130', '1070.5', {}],
  ], 'worked out by hand from the steps above')
  t.equal(history.milestones.at(-1).usdc_balance, (await alice.walletStatus()).usdc_balance, 'the replay ends at the engine balance')
  const bobHistory = await (await fetch(`${server.base}/users/${bobWallet.address}/portfolio-history`)).json() as any
  t.same(bobHistory.milestones.map((m: any) => [m.kind, m.usdc_balance]),
    [['deposit', '1000'], ['buy', '940'], ['buy', '929.5'], ['redemption', '929.5']], 'the cancelled order moved nothing')
  const activity = await (await fetch(`${server.base}/users/${aliceWallet.address}/activity?limit=2`)).json() as any
  t.same(activity.data.map((m: any) => m.kind), ['redemption', 'sell'], 'activity: newest first, paginated')
})

t.test('profile, trades, orders, balances and redemptions of an address, public and without API keys', async (t) => {
  const get = async (path: string): Promise<any> => (await fetch(`${server.base}${path}`)).json()
  const alicePath = `/users/${aliceWallet.address.toLowerCase()}`
  // Realized by average cost: merge +1.333334 (Yes) + 0 (No); sell No -4.5; redeem Yes +73.666666: 70.5 in all.
  t.match(await get(alicePath), { trades_count: 2, volume: '50.5', markets_traded: 1, realized_pnl: '70.5', open_orders_count: 0 })
  t.match(await get(`/users/${bobWallet.address}`), { trades_count: 2, volume: '70.5', realized_pnl: '-70.5' }, 'losing shares redeemed for nothing')
  const trades = await get(`${alicePath}/trades`)
  t.equal(trades.data.length, 2)
  t.notOk(JSON.stringify(trades).includes('"owner"'), 'no API key in public trades')
  t.same((await get(`${alicePath}/balances`)), { address: aliceWallet.address.toLowerCase(), usdc: '1070.5', usdc_held: '0', tokens: [] })
  const redemptions = await get(`${alicePath}/redemptions`)
  t.same(redemptions.data.map((r: any) => [r.action, r.amount, r.payout]), [['redeem', '130', '130']])
  const fresh = await get(`/users/${Wallet.random().address}`)
  t.match(fresh, { first_seen: null, trades_count: 0, volume: '0', realized_pnl: '0' }, 'an unknown address: nothing, not an error')
  t.equal((await fetch(`${server.base}/users/0x1234/trades`)).status, 400, 'a bad address is 400')
})
