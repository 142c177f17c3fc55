/**
 * The test network end to end, face-neutral (issue 6): faucet, approve via the gasless relay, a
 * trade that mints, split, merge, a trade, resolution (which cancels open orders and releases
 * their holds), redemption. After each step the wallet status, the engine's exact balances and
 * the allowance are what the step implies, worked out by hand below, and the USDC of the two
 * wallets always adds up to what the faucet gave them (fee rate 0 on this market).
 *
 * One story, one case: it lists its own market (a question of its own, so the case can run on a
 * Predex other cases use) and its own two wallets; the admin statistics are counted from what
 * they were when the story began.
 */
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { signLimitOrder, type LimitOrder, type MarketTerms } from '../../../src/client/orders.js'
import { Wallet } from '../../../src/crypto/wallet.js'
import { CHAIN_ID, nowSec, orderRequest, relayRequest, USDC, type ContractCase, type Driver, type Reply, type Trader }
  from '../../support/driver.js'
import { waitUntil } from '../../support/eventually.js'

const TX_HASH = /^0x[0-9a-f]{64}$/
/** The most gas (in 10^-6 ETH) a wallet's own approval may cost on the local chain (about 0.00005 ETH). */
const GAS_PAID_MICROS_MAX = 1_000

/** A decimal of at most 6 places, in 10^-6 units. */
function microsOf(decimal: string): number {
  const [whole, fraction = ''] = decimal.split('.')
  return Number(whole) * USDC + Number(fraction.padEnd(6, '0'))
}
const ZERO_CONDITION = '0x' + '0'.repeat(64)
/** The market's terms as the story lists it: tick 0.01, no fee. */
const TERMS: MarketTerms = { tickSize: '0.01', negRisk: false, feeRateBps: 0, chainId: CHAIN_ID }

interface Expected {
  usdc: string
  available: string
  allowance: string
  eth: string
  yes: number
  no: number
}

/** The body of a reply the story needs to succeed; any other answer breaks the story's setup, not an assertion. */
async function ok(reply: Promise<Reply>, what: string): Promise<any> {
  const { status, body } = await reply
  if (status < 200 || status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`)
  return body
}

/** The story's cast (an admin, Alice and Bob), its market, and Alice's ledger transactions as each step answered them. */
class Story {
  market: any
  readonly aliceTransactions: { action: string; hash: string; amount: string; payout: string }[] = []

  constructor(readonly d: Driver, readonly alice: Trader, readonly bob: Trader, readonly tag: string) {}

  /** Signs `trader`'s relay message for `action` with their next nonce (valid 300 s) and submits it. */
  async relay(trader: Trader, action: 'approve' | 'split' | 'merge' | 'redeem', conditionId: string, amountMicros: number): Promise<any> {
    const { nonce } = await ok(this.d.relayNonce(trader.wallet.address), 'relay nonce')
    const request = relayRequest(trader.wallet, { owner: trader.address, action, conditionId, amount: String(amountMicros),
      nonce: String(nonce), deadline: String(nowSec() + 300) })
    return ok(this.d.relay(request), action)
  }

  async relayNonce(trader: Trader): Promise<number> {
    return (await ok(this.d.relayNonce(trader.wallet.address), 'relay nonce')).nonce
  }

  /** Signs a limit order of `trader` on the story's market and places it. */
  async limit(trader: Trader, order: LimitOrder): Promise<any> {
    const signed = signLimitOrder(trader.wallet, TERMS, order)
    return ok(this.d.placeOrder(trader, orderRequest(signed, trader.credentials.apiKey)), 'order')
  }

  /**
   * Wallet status and engine balances agree with `expected`. On a real chain the wallet's ETH is less by
   * the gas of the one transaction it sent itself (approveOutcomeTokens): at most GAS_PAID_MICROS_MAX.
   */
  async check(t: Test, trader: Trader, expected: Expected, label: string): Promise<void> {
    const status = await ok(this.d.walletStatus(trader.wallet.address), 'wallet status')
    const ethMicros = microsOf(status.eth_balance)
    if (this.d.chain === 'local' && ethMicros < microsOf(expected.eth)) {
      t.ok(microsOf(expected.eth) - ethMicros <= GAS_PAID_MICROS_MAX, `${label}: ${status.eth_balance} ETH: its own gas paid`)
      status.eth_balance = expected.eth
    }
    t.same({ usdc: status.usdc_balance, available: status.available_usdc, allowance: status.allowance, eth: status.eth_balance },
      { usdc: expected.usdc, available: expected.available, allowance: expected.allowance, eth: expected.eth }, `${label}: wallet status`)
    const account = await this.d.account(trader.address)
    t.equal(account.usdcMicros, Math.round(Number(expected.usdc) * USDC), `${label}: engine USDC`)
    t.equal(account.shares.get(this.market.yes_token_id) ?? 0, expected.yes * USDC, `${label}: Yes shares`)
    t.equal(account.shares.get(this.market.no_token_id) ?? 0, expected.no * USDC, `${label}: No shares`)
  }

  async totalUsdcMicros(): Promise<number> {
    const accounts = await Promise.all([this.alice, this.bob].map((trader) => this.d.account(trader.address)))
    return accounts.reduce((sum, a) => sum + a.usdcMicros, 0)
  }
}

async function listMarket(t: Test, s: Story): Promise<void> {
  const question = `Will the test network work ${s.tag}?`
  const listed = await s.d.adminCreateMarket('admin', { question, tick_size: '0.01', min_order_size: '5', fee_rate_bps: 0 })
  t.equal(listed.status, 201)
  const market = s.market = listed.body
  t.equal(market.slug, `will-the-test-network-work-${s.tag}`)
  t.equal(market.status, 'Active')
  t.match(market.condition_id, TX_HASH)
  t.match(market.yes_token_id, /^\d+$/)
  t.match(market.no_token_id, /^\d+$/)
  t.same((await ok(s.d.market(market.slug), 'market by slug')).id, market.id, 'readable at once by slug')
}

async function faucet(t: Test, s: Story): Promise<void> {
  const empty = { usdc: '0', available: '0', allowance: '0', eth: '0', yes: 0, no: 0 }
  await s.check(t, s.alice, empty, 'new alice')
  const credited = await ok(s.d.faucet({ address: s.alice.wallet.address }), 'faucet')
  t.equal(credited.address, s.alice.address)
  t.equal(credited.usdc_credited, '1000')
  t.equal(credited.eth_credited, '0.1', 'test gas for a new address')
  t.match(credited.transaction_hash, TX_HASH)
  if (s.d.chain === 'builtin') {
    t.equal(credited.block_number, (await s.d.engineState()).seq, 'the block of the credit is its command')
  } else {
    t.ok(Number.isSafeInteger(credited.block_number) && credited.block_number > 0, 'the block of the mint, on chain')
  }
  // On a real chain the ETH is the chain's, not a payout of the ledger's.
  const gasPayout = s.d.chain === 'builtin' ? '0.1' : '0'
  s.aliceTransactions.push({ action: 'credit', hash: credited.transaction_hash, amount: '1000', payout: gasPayout })
  // No allowance yet: nothing is available to orders, as on a real chain.
  await s.check(t, s.alice, { ...empty, usdc: '1000', eth: '0.1' }, 'alice after the faucet')
  const bobCredit = await ok(s.d.faucet({ address: s.bob.wallet.address, amount: '1000' }), 'faucet')
  t.not(bobCredit.transaction_hash, credited.transaction_hash, 'each transaction has its own hash')
}

async function approve(t: Test, s: Story): Promise<void> {
  t.equal(await s.relayNonce(s.alice), 0)
  const approved = await s.relay(s.alice, 'approve', ZERO_CONDITION, 1_000 * USDC)
  t.equal(approved.status, 'CONFIRMED')
  t.match(approved.transaction_hash, TX_HASH)
  t.equal(await s.relayNonce(s.alice), 1)
  s.aliceTransactions.push({ action: 'approve', hash: approved.transaction_hash, amount: '1000', payout: '0' })
  const tokens = await s.d.approveOutcomeTokens(s.alice)
  if (tokens !== null) {
    // On a real chain: the second approval, of the outcome tokens, a transaction of the wallet's own.
    s.aliceTransactions.push({ action: 'approve', hash: tokens.transactionHash, amount: '1000', payout: '0' })
  }
  await s.check(t, s.alice, { usdc: '1000', available: '1000', allowance: '1000', eth: '0.1', yes: 0, no: 0 }, 'alice approved')
  await s.relay(s.bob, 'approve', ZERO_CONDITION, 1_000 * USDC)
  await s.d.approveOutcomeTokens(s.bob)
  await s.check(t, s.bob, { usdc: '1000', available: '1000', allowance: '1000', eth: '0.1', yes: 0, no: 0 }, 'bob approved')
}

async function mintingTrade(t: Test, s: Story): Promise<void> {
  const { yes_token_id: yes, no_token_id: no } = s.market
  const resting = await s.limit(s.alice, { tokenId: yes, side: 'BUY', price: '0.40', size: '100' })
  t.equal(resting.status, 'live')
  t.same(resting.transactionsHashes, [], 'nothing settled yet')
  const taking = await s.limit(s.bob, { tokenId: no, side: 'BUY', price: '0.60', size: '100' })
  t.equal(taking.status, 'matched')
  if (s.d.chain === 'builtin') {
    t.equal(taking.transactionsHashes.length, 1, 'one settlement transaction')
    const trades = await ok(s.d.trades(s.bob), 'trades')
    t.equal(trades.data.length, 1)
    t.equal(trades.data[0].transaction_hash, taking.transactionsHashes[0], 'the trade carries it')
  } else {
    t.same(taking.transactionsHashes, [], 'on a real chain the trade settles in a transaction of its own, later')
    const trades = await waitUntil(() => ok(s.d.trades(s.bob), 'trades'), (page) => page.data[0]?.status === 'CONFIRMED',
      'the trade CONFIRMED')
    t.equal(trades.data.length, 1)
    t.match(trades.data[0].transaction_hash, TX_HASH, 'the trade carries its settlement transaction once CONFIRMED')
  }
  // Alice pays 100 x 0.40 = 40, Bob 100 x 0.60 = 60; 100 new pairs are minted.
  await s.check(t, s.alice, { usdc: '960', available: '960', allowance: '1000', eth: '0.1', yes: 100, no: 0 }, 'alice after the mint')
  await s.check(t, s.bob, { usdc: '940', available: '940', allowance: '1000', eth: '0.1', yes: 0, no: 100 }, 'bob after the mint')
  t.equal(await s.totalUsdcMicros(), 1_900 * USDC, '2 000 credited - 100 USDC locked in 100 full sets')
}

async function splitAndMerge(t: Test, s: Story): Promise<void> {
  const split = await s.relay(s.alice, 'split', s.market.condition_id, 50 * USDC)
  s.aliceTransactions.push({ action: 'split', hash: split.transaction_hash, amount: '50', payout: '0' })
  await s.check(t, s.alice, { usdc: '910', available: '910', allowance: '1000', eth: '0.1', yes: 150, no: 50 }, 'alice after the split')
  const merged = await s.relay(s.alice, 'merge', s.market.condition_id, 20 * USDC)
  s.aliceTransactions.push({ action: 'merge', hash: merged.transaction_hash, amount: '20', payout: '0' })
  await s.check(t, s.alice, { usdc: '930', available: '930', allowance: '1000', eth: '0.1', yes: 130, no: 30 }, 'alice after the merge')
  t.equal(await s.relayNonce(s.alice), 3, 'approve, split, merge: three nonces used')
}

async function plainTrade(t: Test, s: Story): Promise<void> {
  const no = s.market.no_token_id
  await s.limit(s.alice, { tokenId: no, side: 'SELL', price: '0.35', size: '30' })
  const bought = await s.limit(s.bob, { tokenId: no, side: 'BUY', price: '0.35', size: '30' })
  t.equal(bought.status, 'matched')
  // 30 x 0.35 = 10.5 USDC from Bob to Alice.
  await s.check(t, s.alice, { usdc: '940.5', available: '940.5', allowance: '1000', eth: '0.1', yes: 130, no: 0 }, 'alice after selling')
  await s.check(t, s.bob, { usdc: '929.5', available: '929.5', allowance: '1000', eth: '0.1', yes: 0, no: 130 }, 'bob after buying')
  t.equal(await s.totalUsdcMicros(), 1_870 * USDC, '2 000 - 130 full sets')
}

async function resolveAndRedeem(t: Test, s: Story): Promise<void> {
  const { id, condition_id: condition } = s.market
  const resting = await s.limit(s.bob, { tokenId: s.market.yes_token_id, side: 'BUY', price: '0.20', size: '10' })
  t.equal(resting.status, 'live')
  await s.check(t, s.bob, { usdc: '929.5', available: '927.5', allowance: '1000', eth: '0.1', yes: 0, no: 130 }, 'bob holding 2 USDC')
  const resolved = await ok(s.d.adminResolveMarket('admin', id, { outcome: 'Yes' }), 'resolve')
  t.equal(resolved.status, 'Resolved')
  t.equal(resolved.resolution?.outcome, 'Yes')
  t.same((await ok(s.d.market(id), 'market')).status, 'Resolved')
  const order = await ok(s.d.order(s.bob, resting.order_id), 'order')
  t.equal(order.status, 'CANCELED', 'the resting order was cancelled by the resolution')
  await s.check(t, s.bob, { usdc: '929.5', available: '929.5', allowance: '1000', eth: '0.1', yes: 0, no: 130 }, 'bob released')
  const redeemed = await s.relay(s.alice, 'redeem', condition, 0)
  s.aliceTransactions.push({ action: 'redeem', hash: redeemed.transaction_hash, amount: '130', payout: '130' })
  await s.check(t, s.alice, { usdc: '1070.5', available: '1000', allowance: '1000', eth: '0.1', yes: 0, no: 0 }, 'alice redeemed 130')
  await s.relay(s.bob, 'redeem', condition, 0)
  await s.check(t, s.bob, { usdc: '929.5', available: '929.5', allowance: '1000', eth: '0.1', yes: 0, no: 0 }, 'bob redeemed losing shares for 0')
  t.equal(await s.totalUsdcMicros(), 2_000 * USDC, 'every USDC the faucet gave is back in the wallets')
}

async function ledgerEvents(t: Test, s: Story): Promise<void> {
  const events = await ok(s.d.userRead('events', s.alice.wallet.address), 'events')
  t.same(events.data.map((e: any) => ({ action: e.action, hash: e.transaction_hash, amount: e.amount, payout: e.payout })),
    s.aliceTransactions)
  for (const event of events.data) {
    t.equal(event.address, s.alice.address)
    t.equal(event.condition_id, event.action === 'credit' || event.action === 'approve' ? null : s.market.condition_id,
      `${event.action}: its market`)
  }
  const blocks = events.data.map((e: any) => e.block_number)
  t.same(blocks, [...blocks].sort((a, b) => a - b), 'in block order')
}

/** The statistics now, minus what they were before the story: on a fresh Predex, the statistics themselves. */
async function statistics(t: Test, s: Story, before: any): Promise<void> {
  const stats = await ok(s.d.adminStats('admin'), 'stats')
  const since = {
    markets: stats.markets - before.markets,
    markets_by_status: { Resolved: stats.markets_by_status.Resolved - before.markets_by_status.Resolved },
    trades: stats.trades - before.trades, orders: stats.orders - before.orders, open_orders: stats.open_orders - before.open_orders,
  }
  t.match(since, { markets: 1, markets_by_status: { Resolved: 1 }, trades: 2, orders: 5, open_orders: 0 })
}

async function portfolioHistory(t: Test, s: Story): Promise<void> {
  const history = await ok(s.d.userRead('portfolioHistory', s.alice.wallet.address), 'portfolio history')
  t.equal(history.address, s.alice.address)
  const { yes_token_id: yes, no_token_id: no } = s.market
  t.same(history.milestones.map((m: any) => [m.kind, m.token_id, m.shares, m.price, m.usdc_delta, m.usdc_balance, m.positions]), [
    ['deposit', null, '0', null, '1000', '1000', {}],
    ['buy', yes, '100', '0.4', '-40', '960', { [yes]: '100' }],
    ['mint', null, '50', null, '-50', '910', { [yes]: '150', [no]: '50' }],
    ['merge', null, '20', null, '20', '930', { [yes]: '130', [no]: '30' }],
    ['sell', no, '30', '0.35', '10.5', '940.5', { [yes]: '130' }],
    ['redemption', null, '130', null, '130', '1070.5', {}],
  ], 'worked out by hand from the steps above')
  const status = await ok(s.d.walletStatus(s.alice.wallet.address), 'wallet status')
  t.equal(history.milestones.at(-1).usdc_balance, status.usdc_balance, 'the replay ends at the engine balance')
  const bobHistory = await ok(s.d.userRead('portfolioHistory', s.bob.wallet.address), 'portfolio history')
  t.same(bobHistory.milestones.map((m: any) => [m.kind, m.usdc_balance]),
    [['deposit', '1000'], ['buy', '940'], ['buy', '929.5'], ['redemption', '929.5']], 'the cancelled order moved nothing')
  const activity = await ok(s.d.userRead('activity', s.alice.wallet.address, { limit: 2 }), 'activity')
  t.same(activity.data.map((m: any) => m.kind), ['redemption', 'sell'], 'activity: newest first, paginated')
}

async function publicReads(t: Test, s: Story): Promise<void> {
  const alice = s.alice.address
  // Realized by average cost: merge +1.333334 (Yes) + 0 (No); sell No -4.5; redeem Yes +73.666666: 70.5 in all.
  t.match(await ok(s.d.userRead('profile', alice), 'profile'),
    { trades_count: 2, volume: '50.5', markets_traded: 1, realized_pnl: '70.5', open_orders_count: 0 })
  t.match(await ok(s.d.userRead('profile', s.bob.wallet.address), 'profile'), { trades_count: 2, volume: '70.5', realized_pnl: '-70.5' },
    'losing shares redeemed for nothing')
  const trades = await ok(s.d.userRead('trades', alice), 'trades')
  t.equal(trades.data.length, 2)
  t.notOk(JSON.stringify(trades).includes('"owner"'), 'no API key in public trades')
  t.same(await ok(s.d.userRead('balances', alice), 'balances'), { address: alice, usdc: '1070.5', usdc_held: '0', tokens: [] })
  const redemptions = await ok(s.d.userRead('redemptions', alice), 'redemptions')
  t.same(redemptions.data.map((r: any) => [r.action, r.amount, r.payout]), [['redeem', '130', '130']])
  t.match(await ok(s.d.userRead('profile', Wallet.random().address), 'profile'),
    { first_seen: null, trades_count: 0, volume: '0', realized_pnl: '0' }, 'an unknown address: nothing, not an error')
  t.equal((await s.d.userRead('trades', '0x1234')).status, 400, 'a bad address is 400')
}

const lifecycle: ContractCase = {
  name: 'the test network end to end: faucet, relay, trades, split, merge, resolution, redemption',
  async run(t, d) {
    const s = new Story(d, await d.trader(), await d.trader(), randomBytes(6).toString('hex'))
    const statsBefore = await ok(d.adminStats('admin'), 'stats')
    const steps: [string, (t: Test, s: Story) => Promise<void>][] = [
      ['admin lists a market: 201 with the full record', listMarket],
      ['a new address has nothing; the faucet gives USDC and gas once, with a transaction', faucet],
      ['approve through the relay: nonce 0 -> 1, allowance set, gasless', approve],
      ['a trade that mints: BUY Yes 100 @ 0.40 against BUY No 100 @ 0.60', mintingTrade],
      ['split 50 then merge 20 through the relay', splitAndMerge],
      ['a plain trade: Alice sells 30 No @ 0.35 to Bob', plainTrade],
      ['resolve Yes: open orders cancelled, holds released; redeem pays the winners', resolveAndRedeem],
      ["every ledger operation is an on-chain event in the address's history, with its transaction", ledgerEvents],
      ['the admin statistics count what happened', (t, s) => statistics(t, s, statsBefore)],
      ["portfolio history: every position change with the running USDC balance, ending at the engine's balances", portfolioHistory],
      ['profile, trades, orders, balances and redemptions of an address, public and without API keys', publicReads],
    ]
    for (const [name, step] of steps) await t.test(name, (t) => step(t, s))
  },
}

export const testnetLifecycleCases: readonly ContractCase[] = [lifecycle]
