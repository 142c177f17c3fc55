/**
 * Refusals of the test network and admin operations, face-neutral: each gets its status and
 * catalogue code, names the failed check, and changes nothing (same engine seq and state hash,
 * same balances and relay nonce).
 *
 * Each case sets its own stage: an owner who took the faucet and approved 500 USDC through the
 * relay (relay nonce 1), and a market listed by the admin under a question of the case's own.
 */
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { signLimitOrder, type LimitOrder, type MarketTerms } from '../../../src/client/orders.js'
import { Wallet } from '../../../src/crypto/wallet.js'
import type { RelayStruct } from '../../../src/crypto/eip712.js'
import { CHAIN_ID, nowSec, orderRequest, relayRequest, USDC, type ContractCase, type Driver, type Reply, type Trader }
  from '../../support/driver.js'

/** Engine codes: refusals the engine makes (journaled, state unchanged); all others never reach it. */
const ENGINE_CODES = new Set(['LEDGER_INSUFFICIENT_BALANCE', 'MARKET_EXISTS', 'MARKET_STATUS_TRANSITION',
  'MARKET_TICK_SIZE_OFF_GRID'])

/** The body of a reply the stage needs to succeed; any other answer breaks the setup, not an assertion. */
async function ok(reply: Promise<Reply>, what: string): Promise<any> {
  const { status, body } = await reply
  if (status < 200 || status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`)
  return body
}

/** The terms to sign orders for a market as the native API shows it. */
function termsOf(market: any): MarketTerms {
  return { tickSize: market.tick_size, negRisk: market.neg_risk, feeRateBps: market.fee_rate_bps, chainId: CHAIN_ID }
}

class Stage {
  private constructor(readonly d: Driver, readonly owner: Trader, readonly market: any, readonly tag: string) {}

  static async set(d: Driver): Promise<Stage> {
    const tag = randomBytes(6).toString('hex')
    const market = await ok(d.adminCreateMarket('admin', { question: `Refusals ${tag}?` }), 'list')
    const owner = await d.trader()
    await ok(d.faucet({ address: owner.wallet.address }), 'faucet')
    const stage = new Stage(d, owner, market, tag)
    await ok(d.relay(stage.relayBody({ action: 'approve', nonce: '0', amount: String(500 * USDC) })), 'approve')
    return stage
  }

  /** A market the admin lists for this case, `question` made the case's own. */
  list(question: string, fields: Record<string, unknown> = {}): Promise<any> {
    return ok(this.d.adminCreateMarket('admin', { question: `${question} ${this.tag}`, ...fields }), 'list')
  }

  /** The engine's seq and state hash, or (for a refusal the engine journals) the markets and the owner's account. */
  async state(engine: boolean): Promise<string> {
    return engine ? this.d.ledgerState(this.owner.address) : JSON.stringify(await this.d.engineState())
  }

  /** A request that must be refused with `status` and `code`; checks nothing changed; returns the body. */
  async refused(t: Test, label: string, status: number, code: string, request: () => Promise<Reply>): Promise<any> {
    const engine = ENGINE_CODES.has(code)
    const before = await this.state(engine)
    const answer = await request()
    t.equal(answer.status, status, `${label}: status ${status}`)
    t.equal(answer.body?.code, code, `${label}: code ${code}`)
    t.equal(await this.state(engine), before, `${label}: nothing changed`)
    return answer.body
  }

  /** A relay request signed by `signer` (the owner's wallet unless another is given); nonce 1 unless `fields` say. */
  relayBody(fields: Partial<RelayStruct> & { action: string }, signer: Wallet = this.owner.wallet, chainId = CHAIN_ID): Record<string, string> {
    const struct: RelayStruct = { owner: this.owner.address, conditionId: '0x' + '0'.repeat(64), amount: String(100 * USDC), nonce: '1',
      deadline: String(nowSec() + 300), ...fields }
    return relayRequest(signer, struct, chainId)
  }

  async relayNonce(): Promise<number> {
    return (await ok(this.d.relayNonce(this.owner.wallet.address), 'relay nonce')).nonce
  }

  /** Signs the owner's limit order on `market` and places it. */
  placeLimit(market: any, order: Omit<LimitOrder, 'tokenId'>): Promise<Reply> {
    const signed = signLimitOrder(this.owner.wallet, termsOf(market), { tokenId: market.yes_token_id, ...order })
    return this.d.placeOrder(this.owner, orderRequest(signed, this.owner.credentials.apiKey))
  }
}

const faucet: ContractCase = {
  name: 'faucet: inside the cooldown 429 with the rest of the cooldown; bad amounts and addresses 400',
  async run(t, d) {
    const s = await Stage.set(d)
    const cooldown = await s.refused(t, 'again at once', 429, 'FAUCET_COOLDOWN', () => d.faucet({ address: s.owner.address }))
    t.ok(cooldown.retryAfterSeconds > 50 && cooldown.retryAfterSeconds <= 60,
      `retryAfterSeconds is the rest of the 60 s cooldown (${cooldown.retryAfterSeconds})`)
    const fresh = Wallet.random().address
    const over = await s.refused(t, 'over the cap', 400, 'INVALID_PARAMETER', () => d.faucet({ address: fresh, amount: '1000.000001' }))
    t.equal(over.field, 'amount')
    t.equal(over.max, '1000')
    await s.refused(t, 'zero', 400, 'INVALID_PARAMETER', () => d.faucet({ address: fresh, amount: '0' }))
    await s.refused(t, 'seven decimals', 400, 'INVALID_PARAMETER', () => d.faucet({ address: fresh, amount: '1.0000001' }))
    const address = await s.refused(t, 'not an address', 400, 'INVALID_PARAMETER', () => d.faucet({ address: '0x1234' }))
    t.equal(address.field, 'address')
    await s.refused(t, '__proto__', 400, 'FORBIDDEN_KEY', () => d.faucet(JSON.parse(`{"address": "${fresh}", "__proto__": {"x": 1}}`)))
  },
}

const relayNonces: ContractCase = {
  name: 'relay: a reused nonce, a future nonce, a passed deadline',
  async run(t, d) {
    const s = await Stage.set(d)
    t.equal(await s.relayNonce(), 1, 'one approval so far')
    const reused = await s.refused(t, 'nonce reused', 400, 'RELAY_NONCE_MISMATCH', () => d.relay(s.relayBody({ action: 'approve', nonce: '0' })))
    t.match(reused, { expected: 1, nonce: 0 })
    await s.refused(t, 'nonce ahead', 400, 'RELAY_NONCE_MISMATCH', () => d.relay(s.relayBody({ action: 'approve', nonce: '2' })))
    const late = await s.refused(t, 'deadline passed', 400, 'RELAY_DEADLINE_PASSED',
      () => d.relay(s.relayBody({ action: 'approve', deadline: String(nowSec() - 1) })))
    t.ok(late.nowSec > late.deadlineSec, 'the error gives both times')
    t.equal(await s.relayNonce(), 1, 'no nonce consumed')
  },
}

const relaySignatures: ContractCase = {
  name: 'relay: a signature by anyone but the owner, for another chain, or malformed',
  async run(t, d) {
    const s = await Stage.set(d)
    const stranger = Wallet.random()
    const other = await s.refused(t, 'another wallet', 400, 'INVALID_SIGNATURE', () => d.relay(s.relayBody({ action: 'approve' }, stranger)))
    t.match(other, { check: 'signature-signer', owner: s.owner.address, signer: stranger.address.toLowerCase() })
    await s.refused(t, 'another chain', 400, 'INVALID_SIGNATURE', () => d.relay(s.relayBody({ action: 'approve' }, s.owner.wallet, 137)))
    const tampered = s.relayBody({ action: 'approve' })
    await s.refused(t, 'amount changed after signing', 400, 'INVALID_SIGNATURE', () => d.relay({ ...tampered, amount: String(400 * USDC) }))
    const short = await s.refused(t, 'malformed', 400, 'INVALID_SIGNATURE', () => d.relay({ ...tampered, signature: '0x1234' }))
    t.equal(short.check, 'signature-length')
  },
}

const relayShapes: ContractCase = {
  name: 'relay: bad shapes name the field; an unknown market is 404; an action the engine refuses keeps the nonce',
  async run(t, d) {
    const s = await Stage.set(d)
    const condition = s.market.condition_id
    const action = await s.refused(t, 'unknown action', 400, 'INVALID_PARAMETER', () => d.relay(s.relayBody({ action: 'transfer' })))
    t.equal(action.field, 'action')
    const withCondition = await s.refused(t, 'approve with a condition', 400, 'INVALID_PARAMETER',
      () => d.relay(s.relayBody({ action: 'approve', conditionId: condition })))
    t.equal(withCondition.field, 'condition_id')
    await s.refused(t, 'unknown market', 404, 'MARKET_NOT_FOUND', () => d.relay(s.relayBody({ action: 'split', conditionId: '0x' + 'ab'.repeat(32) })))
    const poor = await s.refused(t, 'split above the balance', 400, 'LEDGER_INSUFFICIENT_BALANCE',
      () => d.relay(s.relayBody({ action: 'split', conditionId: condition, amount: String(5_000 * USDC) })))
    t.equal(poor.asset, 'USDC')
    t.equal(await s.relayNonce(), 1, 'a refused action consumes no nonce')
    const split = await d.relay(s.relayBody({ action: 'split', conditionId: condition, amount: String(10 * USDC) }))
    t.equal(split.status, 200, 'the same nonce then works')
  },
}

const admin: ContractCase = {
  name: 'admin: no key or a wrong one is 401; bad bodies 400; unknown market 404; a transition the lifecycle forbids 400',
  async run(t, d) {
    const s = await Stage.set(d)
    const id = s.market.id
    const create = (body: unknown) => () => d.adminCreateMarket('admin', body)
    const update = (marketId: string, change: unknown) => () => d.adminUpdateMarket('admin', marketId, change)
    await s.refused(t, 'no key', 401, 'AUTH_ADMIN_KEY', () => d.adminCreateMarket('no key', { question: 'x?' }))
    await s.refused(t, 'wrong key', 401, 'AUTH_ADMIN_KEY', () => d.adminCreateMarket('wrong key', { question: 'x?' }))
    await s.refused(t, 'stats without key', 401, 'AUTH_ADMIN_KEY', () => d.adminStats('no key'))
    const tick = await s.refused(t, 'bad tick', 400, 'INVALID_PARAMETER', create({ question: 'x?', tick_size: '0.02' }))
    t.match(tick, { field: 'tick_size', allowed: ['0.1', '0.01', '0.005', '0.0025', '0.001', '0.0001'] })
    const fee = await s.refused(t, 'fee above the maximum', 400, 'INVALID_PARAMETER', create({ question: 'x?', fee_rate_bps: 1001 }))
    t.equal(fee.field, 'fee_rate_bps')
    const size = await s.refused(t, 'size off the lot', 400, 'INVALID_PARAMETER', create({ question: 'x?', min_order_size: '0.001' }))
    t.equal(size.field, 'min_order_size')
    await s.refused(t, 'PATCH with a bad tick', 400, 'INVALID_PARAMETER', update(id, { tick_size: '0.5' }))
    await s.refused(t, 'no question', 400, 'INVALID_PARAMETER', create({ slug: 'no-question' }))
    await s.refused(t, 'slug taken', 409, 'MARKET_EXISTS', create({ question: s.market.question }))
    await s.refused(t, 'bad end date', 400, 'INVALID_PARAMETER', create({ question: 'y?', end_date: 'tomorrow' }))
    await s.refused(t, 'unknown market', 404, 'MARKET_NOT_FOUND', update('no-such-market', { status: 'Paused' }))
    await s.refused(t, 'unknown field', 400, 'INVALID_PARAMETER', update(id, { question: 'new?' }))
    await s.refused(t, 'Resolved by PATCH', 400, 'INVALID_PARAMETER', update(id, { status: 'Resolved' }))
    await s.refused(t, 'resolve without outcome', 400, 'INVALID_PARAMETER', () => d.adminResolveMarket('admin', id, {}))
    const upcoming = await s.list('Later?', { status: 'Upcoming' })
    const transition = await s.refused(t, 'Upcoming -> Resolving', 400, 'MARKET_STATUS_TRANSITION', update(upcoming.id, { status: 'Resolving' }))
    t.match(transition, { from: 'Upcoming', to: 'Resolving', applied: [] })
  },
}

const notActive: ContractCase = {
  name: 'orders on a market that is not Active are refused before the engine, each status with its code',
  async run(t, d) {
    const s = await Stage.set(d)
    const lifecycle = await s.list('Lifecycle?', { status: 'Upcoming' })
    const upcoming = await ok(d.upcomingMarkets({ limit: 10 }), 'upcoming')
    t.same(upcoming.map((m: any) => m.id).includes(lifecycle.id), true, '/markets/upcoming lists it')
    const order = { side: 'BUY', price: '0.5', size: '10' } as const
    const attempt = async (label: string, code: string): Promise<void> => {
      const before = JSON.stringify(await d.engineState())
      const refusal = await s.placeLimit(lifecycle, order)
      t.equal(refusal.body?.code, code, `${label}: ${code}`)
      t.equal(JSON.stringify(await d.engineState()), before, `${label}: nothing journaled`)
    }
    const status = (to: string): Promise<any> => ok(d.adminUpdateMarket('admin', lifecycle.id, { status: to }), to)
    await attempt('Upcoming', 'MARKET_NOT_READY')
    await status('Active')
    const placed = await ok(s.placeLimit(lifecycle, order), 'order')
    t.equal(placed.status, 'live', 'Active: accepted')
    await status('Paused')
    await attempt('Paused', 'MARKET_CANCEL_ONLY')
    t.same((await ok(d.cancelOrder(s.owner, { orderID: placed.order_id }), 'cancel')).canceled, [placed.order_id], 'Paused: cancels still work')
    await status('Resolving')
    t.same((await ok(d.resolvingMarkets(), 'resolving')).map((m: any) => m.id), [lifecycle.id], '/markets/resolving lists it')
    await attempt('Resolving', 'MARKET_CLOSED')
    await ok(d.adminResolveMarket('admin', lifecycle.id, { outcome: 'No' }), 'resolve')
    await attempt('Resolved', 'MARKET_CLOSED')
    t.same(await ok(d.resolvingMarkets(), 'resolving'), [], 'resolved: no longer resolving')
  },
}

const tickAndFee: ContractCase = {
  name: 'admin changes tick size and fee rate; a tick the resting orders are not on is refused, naming what was applied',
  async run(t, d) {
    const s = await Stage.set(d)
    const listed = await s.list('Ticks?', { tick_size: '0.01' })
    const changed = await ok(d.adminUpdateMarket('admin', listed.id, { tick_size: '0.001', fee_rate_bps: 25 }), 'update')
    t.match(changed, { tick_size: '0.001', fee_rate_bps: 25 })
    t.same((await d.tokenRead('tickSize', { token_id: changed.yes_token_id })).body, { minimum_tick_size: 0.001 })
    t.same((await d.tokenRead('feeRate', { token_id: changed.yes_token_id })).body, { base_fee: 25 })
    // An order at 0.505 rests on the 0.001 grid; back to 0.01 would leave it off the grid.
    const resting = await ok(s.placeLimit(changed, { side: 'BUY', price: '0.505', size: '10' }), 'order')
    t.equal(resting.status, 'live')
    const publicOrders = await ok(d.userRead('orders', s.owner.address), 'public orders')
    t.ok(publicOrders.data.some((o: any) => o.id === resting.order_id), 'the open order is in the public list')
    t.notOk(JSON.stringify(publicOrders).includes('"owner"'), 'without the API key')
    const offGrid = await s.refused(t, 'tick off the grid', 400, 'MARKET_TICK_SIZE_OFF_GRID',
      () => d.adminUpdateMarket('admin', listed.id, { fee_rate_bps: 30, tick_size: '0.01' }))
    t.same(offGrid.applied, [], 'the tick size goes first: nothing applied')
    const partly = await d.adminUpdateMarket('admin', listed.id, { fee_rate_bps: 30, status: 'Upcoming' })
    t.equal(partly.status, 400)
    t.match(partly.body, { code: 'MARKET_STATUS_TRANSITION', field: 'status', applied: ['fee_rate_bps'] }, 'the fee rate was applied, the status not')
    t.equal((await ok(d.market(listed.id), 'market')).fee_rate_bps, 30)
  },
}

export const testnetRefusalCases: readonly ContractCase[] = [faucet, relayNonces, relaySignatures, relayShapes, admin, notActive, tickAndFee]
