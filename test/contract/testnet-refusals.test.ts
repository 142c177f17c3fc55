/**
 * Refusals of the test network and admin endpoints over REST: each gets its status and
 * catalogue code, names the failed check, and changes nothing (same engine seq and state hash,
 * same balances and relay nonce).
 */
import t, { type Test } from 'tap'
import { PredexClient, type Market } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/client/wallet.js'
import type { RelayStruct } from '../../src/crypto/eip712.js'
import { CHAIN_ID, USDC, nowSec, send, startServer } from '../rest-harness.js'

const server = await startServer()
t.teardown(() => server.stop())
const adminKey = server.predex.adminKey
const admin = new PredexClient({ baseUrl: server.base, adminKey })
const ownerWallet = Wallet.random()
const owner = new PredexClient({ baseUrl: server.base, wallet: ownerWallet })
const ownerAddress = ownerWallet.address.toLowerCase()
const market: Market = await admin.createMarket({ question: 'Refusals?' })
await owner.faucet()
await owner.approve(500 * USDC)

async function engineState(): Promise<string> {
  const answer = await server.predex.context.host.query({ kind: 'stateHash' })
  if (answer.kind !== 'stateHash') throw new Error('unexpected answer')
  return `${answer.seq} ${answer.stateHash}`
}

/**
 * What a refusal must leave as it was when the engine itself refused (a refused command is still
 * journaled, so the seq moves): every account the test uses and every market.
 */
async function ledgerState(): Promise<string> {
  const host = server.predex.context.host
  const markets = await host.query({ kind: 'markets' })
  const account = await host.query({ kind: 'account', address: ownerAddress })
  return JSON.stringify([markets, account])
}

/** Engine codes: refusals the engine makes (journaled, state unchanged); all others never reach it. */
const ENGINE_CODES = new Set(['LEDGER_INSUFFICIENT_BALANCE', 'MARKET_EXISTS', 'MARKET_STATUS_TRANSITION',
  'MARKET_TICK_SIZE_OFF_GRID'])

/** Sends a request that must be refused with `status` and `code`; checks nothing changed; returns the body. */
async function refused(t: Test, label: string, status: number, code: string, method: string, path: string, body: unknown,
  headers: Record<string, string> = {}): Promise<any> {
  const state = ENGINE_CODES.has(code) ? ledgerState : engineState
  const before = await state()
  const answer = await send(server, method, path, body === undefined ? '' : JSON.stringify(body), headers)
  t.equal(answer.status, status, `${label}: status ${status}`)
  t.equal(answer.body?.code, code, `${label}: code ${code}`)
  t.equal(await state(), before, `${label}: nothing changed`)
  return { ...answer.body, retryAfter: answer.headers.get('retry-after') }
}

/** A relay body signed by `signer` (the owner's wallet unless another is given). */
function relayBody(fields: Partial<RelayStruct> & { action: string }, signer: Wallet = ownerWallet, chainId = CHAIN_ID): Record<string, string> {
  const struct: RelayStruct = { owner: ownerAddress, conditionId: '0x' + '0'.repeat(64), amount: String(100 * USDC), nonce: '1',
    deadline: String(nowSec() + 300), ...fields }
  return { owner: struct.owner, action: struct.action, condition_id: struct.conditionId, amount: struct.amount, nonce: struct.nonce,
    deadline: struct.deadline, signature: signer.signRelay(struct, chainId) }
}

t.test('faucet: inside the cooldown 429 with Retry-After; bad amounts and addresses 400', async (t) => {
  const cooldown = await refused(t, 'again at once', 429, 'FAUCET_COOLDOWN', 'POST', '/faucet', { address: ownerAddress })
  t.ok(Number(cooldown.retryAfter) > 50 && Number(cooldown.retryAfter) <= 60, `Retry-After is the rest of the 60 s cooldown (${cooldown.retryAfter})`)
  t.equal(cooldown.retryAfterSeconds, Number(cooldown.retryAfter))
  const fresh = Wallet.random().address
  const over = await refused(t, 'over the cap', 400, 'INVALID_PARAMETER', 'POST', '/faucet', { address: fresh, amount: '1000.000001' })
  t.equal(over.field, 'amount')
  t.equal(over.max, '1000')
  await refused(t, 'zero', 400, 'INVALID_PARAMETER', 'POST', '/faucet', { address: fresh, amount: '0' })
  await refused(t, 'seven decimals', 400, 'INVALID_PARAMETER', 'POST', '/faucet', { address: fresh, amount: '1.0000001' })
  const address = await refused(t, 'not an address', 400, 'INVALID_PARAMETER', 'POST', '/faucet', { address: '0x1234' })
  t.equal(address.field, 'address')
  await refused(t, '__proto__', 400, 'FORBIDDEN_KEY', 'POST', '/faucet', JSON.parse(`{"address": "${fresh}", "__proto__": {"x": 1}}`))
})

t.test('relay: a reused nonce, a future nonce, a passed deadline', async (t) => {
  t.equal(await owner.relayNonce(), 1, 'one approval so far')
  const reused = await refused(t, 'nonce reused', 400, 'RELAY_NONCE_MISMATCH', 'POST', '/relay', relayBody({ action: 'approve', nonce: '0' }))
  t.match(reused, { expected: 1, nonce: 0 })
  await refused(t, 'nonce ahead', 400, 'RELAY_NONCE_MISMATCH', 'POST', '/relay', relayBody({ action: 'approve', nonce: '2' }))
  const late = await refused(t, 'deadline passed', 400, 'RELAY_DEADLINE_PASSED', 'POST', '/relay',
    relayBody({ action: 'approve', deadline: String(nowSec() - 1) }))
  t.ok(late.nowSec > late.deadlineSec, 'the error gives both times')
  t.equal(await owner.relayNonce(), 1, 'no nonce consumed')
})

t.test('relay: a signature by anyone but the owner, for another chain, or malformed', async (t) => {
  const stranger = Wallet.random()
  const other = await refused(t, 'another wallet', 400, 'INVALID_SIGNATURE', 'POST', '/relay', relayBody({ action: 'approve' }, stranger))
  t.match(other, { check: 'signature-signer', owner: ownerAddress, signer: stranger.address.toLowerCase() })
  await refused(t, 'another chain', 400, 'INVALID_SIGNATURE', 'POST', '/relay', relayBody({ action: 'approve' }, ownerWallet, 137))
  const tampered = relayBody({ action: 'approve' })
  await refused(t, 'amount changed after signing', 400, 'INVALID_SIGNATURE', 'POST', '/relay', { ...tampered, amount: String(400 * USDC) })
  const short = await refused(t, 'malformed', 400, 'INVALID_SIGNATURE', 'POST', '/relay', { ...tampered, signature: '0x1234' })
  t.equal(short.check, 'signature-length')
})

t.test('relay: bad shapes name the field; an unknown market is 404; an action the engine refuses keeps the nonce', async (t) => {
  const action = await refused(t, 'unknown action', 400, 'INVALID_PARAMETER', 'POST', '/relay', relayBody({ action: 'transfer' }))
  t.equal(action.field, 'action')
  const condition = await refused(t, 'approve with a condition', 400, 'INVALID_PARAMETER', 'POST', '/relay',
    relayBody({ action: 'approve', conditionId: market.condition_id }))
  t.equal(condition.field, 'condition_id')
  await refused(t, 'unknown market', 404, 'MARKET_NOT_FOUND', 'POST', '/relay', relayBody({ action: 'split', conditionId: '0x' + 'ab'.repeat(32) }))
  const poor = await refused(t, 'split above the balance', 400, 'LEDGER_INSUFFICIENT_BALANCE', 'POST', '/relay',
    relayBody({ action: 'split', conditionId: market.condition_id, amount: String(5_000 * USDC) }))
  t.equal(poor.asset, 'USDC')
  t.equal(await owner.relayNonce(), 1, 'a refused action consumes no nonce')
  const ok = await send(server, 'POST', '/relay', JSON.stringify(relayBody({ action: 'split', conditionId: market.condition_id, amount: String(10 * USDC) })), {})
  t.equal(ok.status, 200, 'the same nonce then works')
})

t.test('admin: no key or a wrong one is 401; bad bodies 400; unknown market 404; a transition the lifecycle forbids 400', async (t) => {
  await refused(t, 'no key', 401, 'AUTH_ADMIN_KEY', 'POST', '/admin/markets', { question: 'x?' })
  await refused(t, 'wrong key', 401, 'AUTH_ADMIN_KEY', 'POST', '/admin/markets', { question: 'x?' }, { 'EXCHANGE-ADMIN-KEY': adminKey + 'x' })
  await refused(t, 'stats without key', 401, 'AUTH_ADMIN_KEY', 'GET', '/admin/stats', undefined)
  const key = { 'EXCHANGE-ADMIN-KEY': adminKey }
  const tick = await refused(t, 'bad tick', 400, 'INVALID_PARAMETER', 'POST', '/admin/markets', { question: 'x?', tick_size: '0.02' }, key)
  t.match(tick, { field: 'tick_size', allowed: ['0.1', '0.01', '0.001', '0.0001'] })
  const fee = await refused(t, 'fee above the maximum', 400, 'INVALID_PARAMETER', 'POST', '/admin/markets', { question: 'x?', fee_rate_bps: 1001 }, key)
  t.equal(fee.field, 'fee_rate_bps')
  const size = await refused(t, 'size off the lot', 400, 'INVALID_PARAMETER', 'POST', '/admin/markets', { question: 'x?', min_order_size: '0.001' }, key)
  t.equal(size.field, 'min_order_size')
  await refused(t, 'PATCH with a bad tick', 400, 'INVALID_PARAMETER', 'PATCH', `/admin/markets/${market.id}`, { tick_size: '0.5' }, key)
  await refused(t, 'no question', 400, 'INVALID_PARAMETER', 'POST', '/admin/markets', { slug: 'no-question' }, key)
  await refused(t, 'slug taken', 409, 'MARKET_EXISTS', 'POST', '/admin/markets', { question: 'Refusals?' }, key)
  await refused(t, 'bad end date', 400, 'INVALID_PARAMETER', 'POST', '/admin/markets', { question: 'y?', end_date: 'tomorrow' }, key)
  await refused(t, 'unknown market', 404, 'MARKET_NOT_FOUND', 'PATCH', '/admin/markets/no-such-market', { status: 'Paused' }, key)
  await refused(t, 'unknown field', 400, 'INVALID_PARAMETER', 'PATCH', `/admin/markets/${market.id}`, { question: 'new?' }, key)
  await refused(t, 'Resolved by PATCH', 400, 'INVALID_PARAMETER', 'PATCH', `/admin/markets/${market.id}`, { status: 'Resolved' }, key)
  await refused(t, 'resolve without outcome', 400, 'INVALID_PARAMETER', 'POST', `/admin/markets/${market.id}/resolve`, {}, key)
  const upcoming = await admin.createMarket({ question: 'Later?', status: 'Upcoming' })
  const transition = await refused(t, 'Upcoming -> Resolving', 400, 'MARKET_STATUS_TRANSITION', 'PATCH', `/admin/markets/${upcoming.id}`,
    { status: 'Resolving' }, key)
  t.match(transition, { from: 'Upcoming', to: 'Resolving', applied: [] })
})

t.test('orders on a market that is not Active are refused before the engine, each status with its code', async (t) => {
  const trader = new PredexClient({ baseUrl: server.base, wallet: ownerWallet })
  await trader.createApiKey()
  const lifecycle = await admin.createMarket({ question: 'Lifecycle?', status: 'Upcoming' })
  t.same((await admin.upcomingMarkets(10)).map((m) => m.id).includes(lifecycle.id), true, '/markets/upcoming lists it')
  const attempt = async (label: string, code: string): Promise<void> => {
    const before = await engineState()
    const error = await trader.placeLimitOrder({ tokenId: lifecycle.yes_token_id, side: 'BUY', price: '0.5', size: '10' })
      .catch((e: unknown) => e as { status: number; code: string })
    t.equal((error as { code: string }).code, code, `${label}: ${code}`)
    t.equal(await engineState(), before, `${label}: nothing journaled`)
  }
  await attempt('Upcoming', 'MARKET_NOT_READY')
  await admin.updateMarket(lifecycle.id, { status: 'Active' })
  const placed = await trader.placeLimitOrder({ tokenId: lifecycle.yes_token_id, side: 'BUY', price: '0.5', size: '10' })
  t.equal(placed.status, 'live', 'Active: accepted')
  await admin.updateMarket(lifecycle.id, { status: 'Paused' })
  await attempt('Paused', 'MARKET_CANCEL_ONLY')
  t.same((await trader.cancelOrder(placed.order_id)).canceled, [placed.order_id], 'Paused: cancels still work')
  await admin.updateMarket(lifecycle.id, { status: 'Resolving' })
  t.same((await admin.resolvingMarkets()).map((m) => m.id), [lifecycle.id], '/markets/resolving lists it')
  await attempt('Resolving', 'MARKET_CLOSED')
  await admin.resolveMarket(lifecycle.id, 'No')
  await attempt('Resolved', 'MARKET_CLOSED')
  t.same(await admin.resolvingMarkets(), [], 'resolved: no longer resolving')
})

t.test('admin changes tick size and fee rate; a tick the resting orders are not on is refused, naming what was applied', async (t) => {
  const changing = await admin.createMarket({ question: 'Ticks?', tick_size: '0.01' })
  const changed = await admin.updateMarket(changing.id, { tick_size: '0.001', fee_rate_bps: 25 })
  t.match(changed, { tick_size: '0.001', fee_rate_bps: 25 })
  t.same(await (await fetch(`${server.base}/tick-size?token_id=${changing.yes_token_id}`)).json(), { minimum_tick_size: 0.001 })
  t.same(await (await fetch(`${server.base}/fee-rate?token_id=${changing.yes_token_id}`)).json(), { base_fee: 25 })
  // An order at 0.505 rests on the 0.001 grid; back to 0.01 would leave it off the grid.
  const trader = new PredexClient({ baseUrl: server.base, wallet: ownerWallet })
  await trader.createApiKey()
  const resting = await trader.placeLimitOrder({ tokenId: changing.yes_token_id, side: 'BUY', price: '0.505', size: '10' })
  t.equal(resting.status, 'live')
  const publicOrders = await (await fetch(`${server.base}/users/${ownerAddress}/orders`)).json() as any
  t.ok(publicOrders.data.some((o: any) => o.id === resting.order_id), 'the open order is in the public list')
  t.notOk(JSON.stringify(publicOrders).includes('"owner"'), 'without the API key')
  const offGrid = await refused(t, 'tick off the grid', 400, 'MARKET_TICK_SIZE_OFF_GRID', 'PATCH', `/admin/markets/${changing.id}`,
    { fee_rate_bps: 30, tick_size: '0.01' }, { 'EXCHANGE-ADMIN-KEY': adminKey })
  t.same(offGrid.applied, [], 'the tick size goes first: nothing applied')
  const partly = await send(server, 'PATCH', `/admin/markets/${changing.id}`, JSON.stringify({ fee_rate_bps: 30, status: 'Upcoming' }),
    { 'EXCHANGE-ADMIN-KEY': adminKey })
  t.equal(partly.status, 400)
  t.match(partly.body, { code: 'MARKET_STATUS_TRANSITION', field: 'status', applied: ['fee_rate_bps'] }, 'the fee rate was applied, the status not')
  t.equal((await admin.market(changing.id)).fee_rate_bps, 30)
})
