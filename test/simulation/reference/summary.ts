/**
 * The state summary compared with the engine's (src/engine/summary.ts).
 */
import type { AccountSummary, MarketSummary, OpenOrderSummary, StateSummary } from '../../../src/engine/summary.js'
import { MICROS_PER_LOT, MICROS_PER_PIP } from '../../../src/engine/limits.js'
import { heldShares, heldUsdc, mustAccount } from './accounts.js'
import { LOT, type MarketState, type OrderState, ReferenceState, compareStrings, num } from './state.js'

export function marketSummary(m: MarketState): MarketSummary {
  return {
    marketId: m.input.marketId,
    status: m.status,
    tickSizeMicros: m.tickPips * MICROS_PER_PIP,
    feeRateBps: m.feeRateBps,
    winningOutcome: m.winningOutcome,
    collateralMicros: num(m.collateral),
    mintedMicros: num(m.minted),
    mergedMicros: num(m.merged),
    redeemedYesMicros: num(m.redeemedYes),
    redeemedNoMicros: num(m.redeemedNo),
  }
}

export function openOrderSummary(o: OrderState): OpenOrderSummary {
  const buy = o.input.side === 'BUY'
  return {
    orderNumber: o.number,
    orderId: o.input.orderId,
    maker: o.input.maker,
    tokenId: o.input.tokenId,
    side: o.input.side,
    timeInForce: o.input.timeInForce,
    priceMicros: o.pips * MICROS_PER_PIP,
    remainingMicros: o.lots * MICROS_PER_LOT,
    sizeMatchedMicros: o.matchedLots * MICROS_PER_LOT,
    heldMicros: num(buy ? BigInt(o.pips) * BigInt(o.lots) : BigInt(o.lots) * LOT),
  }
}

export function summaryOf(r: ReferenceState): StateSummary {
  return {
    seq: r.seq,
    timeMs: r.timeMs,
    creditedMicros: num(r.credited),
    feesMicros: num(r.fees),
    accounts: [...r.accounts.keys()].sort(compareStrings).map((a) => accountSummary(r, a)),
    openOrders: r.live.map(openOrderSummary),
    markets: r.markets.map(marketSummary),
    orderStatuses: [...r.orders.values()]
      .map((o) => ({ orderId: o.input.orderId, status: o.status }))
      .sort((x, y) => compareStrings(x.orderId, y.orderId)),
  }
}

export function accountSummary(r: ReferenceState, address: string): AccountSummary {
  const a = mustAccount(r, address)
  const tokens = new Set<string>(a.shares.keys())
  for (const o of r.live) {
    if (o.input.maker === address && o.input.side === 'SELL') tokens.add(o.input.tokenId)
  }
  const shares = [...tokens]
    .sort(compareStrings)
    .map((tokenId) => ({
      tokenId,
      balanceMicros: num(a.shares.get(tokenId) ?? 0n),
      heldMicros: num(heldShares(r, address, tokenId)),
    }))
    .filter((s) => s.balanceMicros !== 0 || s.heldMicros !== 0)
  return {
    address,
    usdcMicros: num(a.usdc),
    usdcHeldMicros: num(heldUsdc(r, address)),
    usdcAllowanceMicros: num(a.allowance),
    sharesApproved: a.sharesApproved,
    gasMicros: num(a.gas),
    relayNonce: a.relayNonce,
    shares,
  }
}
