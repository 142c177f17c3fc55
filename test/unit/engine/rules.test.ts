/**
 * One rulebook: for a table of orders, markets and times, the edge pre-check (signed-order.ts
 * `checkOrderRules`, what a face runs before journaling) and the engine give the same answer:
 * the same code, message and context when the rule refuses, and no edge refusal when only the
 * engine's own state (duplicates, balances, the book) refuses. The comparison is shown to fail
 * on an edge check that forgets a rule. Seeded: the seed is printed (RULES_SEED replays it).
 */
import t from 'tap'
import { Harness, USDC, addressOf } from '../../support/harness.js'
import { checkOrderRules } from '../../../src/service/trading/signed-order.js'
import { PredexError } from '../../../src/errors.js'
import { checkOrderOnMarket, type MarketTerms } from '../../../src/engine/rules.js'
import type { OrderInput, Side, TimeInForce } from '../../../src/engine/command.js'
import type { MarketRecord } from '../../../src/engine/event.js'
import { GTD_MARGIN_MS, ORDER_AMOUNT_MICROS_MAX } from '../../../src/engine/limits.js'

const alice = addressOf(1)
const CASES = 1_500
/** Codes only the engine can give: they need its state, not just the order, its market and the time. */
const ENGINE_ONLY = new Set(['INVALID_ORDER_DUPLICATED', 'TOKEN_NOT_FOUND', 'INVALID_ORDER_NOT_ENOUGH_BALANCE',
  'ENGINE_ORDERS_FULL', 'INVALID_POST_ONLY_ORDER', 'FOK_ORDER_NOT_FILLED', 'FAK_ORDER_NOT_FILLED'])

interface Verdict {
  readonly code: string
  readonly message: string
  readonly context: unknown
}

type EdgeCheck = (input: OrderInput, market: MarketRecord, nowMs: number) => void

/** The edge's answer: null when it lets the order through to the engine. */
function edgeVerdict(check: EdgeCheck, input: OrderInput, market: MarketRecord, nowMs: number): Verdict | null {
  try {
    check(input, market, nowMs)
    return null
  } catch (error) {
    if (!(error instanceof PredexError)) throw error
    return { code: error.code, message: error.message, context: error.context }
  }
}

function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = Math.imul(state ^ (state >>> 15), 1 | state)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296
  }
}

const MARKETS = [
  { id: 'active', tickSizeMicros: 10_000, minOrderSizeMicros: 5 * USDC, feeRateBps: 0, status: 'Active' },
  { id: 'fine', tickSizeMicros: 100, minOrderSizeMicros: USDC, feeRateBps: 25, status: 'Active' },
  { id: 'soon', tickSizeMicros: 10_000, minOrderSizeMicros: USDC, feeRateBps: 0, status: 'Upcoming' },
  { id: 'paused', tickSizeMicros: 1_000, minOrderSizeMicros: USDC, feeRateBps: 0, status: 'Paused' },
  { id: 'closed', tickSizeMicros: 10_000, minOrderSizeMicros: USDC, feeRateBps: 0, status: 'Closed' },
] as const

/** A fresh engine with every market of the table and a rich trader holding shares of each. */
function setup(): Harness {
  const h = new Harness()
  h.fund(alice, 1_000_000 * USDC)
  for (const m of MARKETS) {
    const listed = m.status === 'Upcoming' ? 'Upcoming' : 'Active'
    h.market({ id: m.id, tickSizeMicros: m.tickSizeMicros, minOrderSizeMicros: m.minOrderSizeMicros, feeRateBps: m.feeRateBps, status: listed })
    h.split(alice, m.id, 10_000 * USDC)
    if (m.status !== listed) h.apply({ kind: 'setMarketStatus', marketId: m.id, status: m.status })
  }
  return h
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!
}

/** Amounts around the edges of every rule: lots, ticks, pips, the minimum size, the maximum. */
const AMOUNTS = [1, 9_999, 10_000, 20_000, 490_000, 500_000, 505_000, 1_000_000, 2_500_000, 4_990_000, 5_000_000, 5_010_000,
  10_000_000, 12_345_678, 99_990_000, 100_000_000, ORDER_AMOUNT_MICROS_MAX, ORDER_AMOUNT_MICROS_MAX + 10_000]

function randomOrder(random: () => number, n: number, nowMs: number): OrderInput {
  const market = pick(random, MARKETS)
  const timeInForce: TimeInForce = pick(random, ['GTC', 'GTD', 'FOK', 'FAK'])
  const side: Side = pick(random, ['BUY', 'SELL'])
  const expirationSec = pick(random, [0, 0, Math.floor((nowMs + GTD_MARGIN_MS) / 1000), Math.ceil((nowMs + GTD_MARGIN_MS) / 1000),
    Math.floor(nowMs / 1000) + 3_600])
  const order: OrderInput = {
    orderId: `0x${n.toString(16).padStart(64, '0')}`, owner: 'key-alice', maker: alice, signer: alice,
    tokenId: `${market.id}-${pick(random, ['yes', 'no'])}`, side, timeInForce,
    makerAmountMicros: pick(random, AMOUNTS), takerAmountMicros: pick(random, AMOUNTS), expirationSec,
    feeRateBps: random() < 0.8 ? market.feeRateBps : pick(random, [0, 25, 100]), postOnly: random() < 0.2,
    clientOrderId: '',
  }
  // Now and then a shape the engine refuses at step 1.
  if (random() < 0.05) return { ...order, makerAmountMicros: 0 }
  return order
}

/** Cases where the two disagree, as readable lines (empty: one rulebook). */
function disagreements(check: EdgeCheck, seed: number): string[] {
  const random = prng(seed)
  const lines: string[] = []
  for (let n = 1; n <= CASES; n++) {
    const h = setup()
    const input = randomOrder(random, n, h.timeMs)
    const token = h.engine.tokens.get(input.tokenId)!
    const edge = edgeVerdict(check, input, token.market.record(), h.timeMs)
    const result = h.place(input).result
    const engine: Verdict | null = result.ok || ENGINE_ONLY.has(result.code) ? null
      : { code: result.code, message: result.message, context: result.context }
    if (JSON.stringify(edge) !== JSON.stringify(engine)) {
      lines.push(`${JSON.stringify(input)}: edge ${JSON.stringify(edge)}, engine ${JSON.stringify(engine)}`)
    }
  }
  return lines
}

const seed = Number(process.env.RULES_SEED ?? Math.floor(Math.random() * 2 ** 31))
t.comment(`seed ${seed} (replay with RULES_SEED=${seed})`)

t.test('the edge pre-check and the engine give the same code, message and context', (t) => {
  const found = disagreements(checkOrderRules, seed)
  t.same(found.slice(0, 5), [], `no disagreement in ${CASES} cases`)
  t.end()
})

/**
 * The table's reach is checked on a fixed seed: whether a rare rule comes up by chance must not
 * decide a run (seed 1738208634 gave no INVALID_ORDER_MIN_SIZE in 1 500 cases and failed CI).
 * The agreement above runs a new seed each time.
 */
const REACH_SEED = 1

t.test('every rule of the table is exercised: each refusal code the edge can give occurs', (t) => {
  const random = prng(REACH_SEED)
  const codes = new Set<string>()
  for (let n = 1; n <= CASES; n++) {
    const h = setup()
    const input = randomOrder(random, n, h.timeMs)
    const verdict = edgeVerdict(checkOrderRules, input, h.engine.tokens.get(input.tokenId)!.market.record(), h.timeMs)
    codes.add(verdict?.code ?? 'passed')
  }
  for (const code of ['passed', 'INVALID_ORDER_PAYLOAD', 'MARKET_NOT_READY', 'MARKET_CANCEL_ONLY', 'MARKET_CLOSED',
    'INVALID_POST_ONLY_ORDER_TYPE', 'INVALID_ORDER_EXPIRATION', 'INVALID_ORDER_FEE_RATE', 'INVALID_ORDER_SIZE_MAX',
    'INVALID_ORDER_PRICE', 'INVALID_ORDER_AMOUNTS', 'INVALID_ORDER_MIN_TICK_SIZE', 'INVALID_ORDER_MIN_SIZE']) {
    t.ok(codes.has(code), code)
  }
  t.end()
})

t.test('the comparison fails for an edge check that forgets a rule', (t) => {
  const forgetsFeeRate: EdgeCheck = (input, market, nowMs) => {
    const terms: MarketTerms = { ...market, feeRateBps: input.feeRateBps ?? market.feeRateBps }
    const verdict = checkOrderOnMarket(input, terms, nowMs)
    if (!verdict.ok) throw new PredexError(verdict.code, verdict.message, verdict.context)
  }
  t.ok(disagreements(forgetsFeeRate, seed).length > 0, 'a forgotten fee-rate rule is caught')
  const lateClock: EdgeCheck = (input, market, nowMs) => checkOrderRules(input, market, nowMs - 2 * GTD_MARGIN_MS)
  t.ok(disagreements(lateClock, seed).length > 0, 'an edge reading another time is caught')
  t.end()
})
