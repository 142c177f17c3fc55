/**
 * What Polymarket's current client (clob-client-v2 1.1.0) asks the exchange besides trading
 * (clob-v2-compat.md sections 4 and 5): the order protocol version, a market's terms as it reads
 * them before building an order, and the programs Polymarket runs and Predex does not (liquidity
 * rewards and their order scoring, builder fees, notifications, closed-only mode, the V1 to V2
 * migration). Each of those is answered truthfully, never as an unknown endpoint: none exists here.
 */
import type { MarketRecord } from '../../engine/event.js'
import { checkMarketOpen } from '../../engine/rules.js'

/**
 * The order protocol GET /version announces: V2, so clob-client-v2 builds V2 orders. V1 orders are
 * still taken (the server tells them apart by their fields), on the same books.
 */
export const EXCHANGE_VERSION = 2

const BPS_PER_UNIT = 10_000

/** The fee curve a client budgets a BUY with: `shares x rate x (p(1 - p))^exponent` USDC. */
export interface FeeCurve {
  readonly rate: number
  readonly exponent: number
}

/**
 * The curve clob-client-v2 budgets a BUY's fee with when it is given `userUSDCBalance` (it shrinks
 * the order so that cost plus budget fit the balance). Predex charges a taker
 * floor(bps / 10^4 x min(p, 1 - p) x shares) at match time (engine/units.ts feeOf), but at entry
 * it holds bps / 10^4 x p x shares beside the cost (feeBoundOf, since min(p, 1 - p) <= p) and
 * refuses a BUY the balance cannot cover with it. So the budget must cover that hold, not only the
 * fee: rate bps / 10^4 with exponent 0 budgets bps / 10^4 x shares, which is at least the hold
 * and the fee at every price. A curve with exponent e > 0 cannot: (p(1 - p))^e vanishes as p nears
 * 1 while the hold does not (e = 1 with rate 2 x bps / 10^4 bounds the fee, not the hold above 0.5,
 * where a BUY sized to the whole balance would be refused). The price of never being refused: at
 * low prices the budget is 1 / p times the hold (at 0.05 and 150 bps, 30% of the balance is set aside).
 */
export function feeCurveOf(market: MarketRecord): FeeCurve {
  return { rate: market.feeRateBps / BPS_PER_UNIT, exponent: 0 }
}

/** Basis points a maker and a taker pay: the taker pays the market's rate, a maker nothing. */
export function baseFeesBpsOf(market: MarketRecord): { makerBps: 0; takerBps: number } {
  return { makerBps: 0, takerBps: market.feeRateBps }
}

/** Whether the market takes new orders now: the engine's own rule (step 4 of placement). */
export function acceptsOrders(market: MarketRecord): boolean {
  return checkMarketOpen(market) === null
}

/** Markets of the liquidity-rewards program ("sampling" markets): Predex runs none, so none. */
export function samplingMarkets(): MarketRecord[] {
  return []
}

/** Whether an order earns liquidity rewards: never, there is no rewards program. */
export function isOrderScoring(_orderId: string): false {
  return false
}

/** Whether an address may only close positions (Polymarket's closed-only ban): Predex has no such mode. */
export function isClosedOnly(_address: string): false {
  return false
}

/** Builder fee rates of a builder code, basis points: Predex charges no builder fees. */
export function builderFeesBpsOf(_builderCode: string): { makerBps: 0; takerBps: 0 } {
  return { makerBps: 0, takerBps: 0 }
}
