/**
 * Exact money at the stated bounds (src/engine/limits.ts, docs/engine.md "Units", "Validation",
 * "Holds", "Matching"): the largest order (ORDER_LOTS_MAX lots = ORDER_AMOUNT_MICROS_MAX
 * micro-shares) at the highest (0.9999) and lowest (0.0001) prices of a 0.0001-tick market, filled
 * against another largest order, with every balance exact to the micro-unit; one unit above each
 * bound rejected with its documented code; balances at BALANCE_MICROS_MAX; fees at
 * FEE_RATE_BPS_MAX on the largest fills, checked against BigInt.
 */
import t, { type Test } from 'tap'
import { Harness, addressOf } from '../../support/harness.js'
import { stateOf, accountOf, marketOf } from '../../support/engine-checks.js'
import type { ApplyResult } from '../../../src/engine/engine.js'
import { CODE_MESSAGES, type Code } from '../../../src/engine/codes.js'
import type { OrderInput, Side, TimeInForce } from '../../../src/engine/command.js'
import { tradeIdOf } from '../../../src/engine/ids.js'
import {
  BALANCE_MICROS_MAX,
  FEE_RATE_BPS_MAX,
  ORDER_AMOUNT_MICROS_MAX,
  ORDER_LOTS_MAX,
} from '../../../src/engine/limits.js'
import type { ContextValue } from '../../../src/engine/result.js'
import { summaryOf } from '../../../src/engine/view.js'


const alice = addressOf(1)
const bob = addressOf(2)
const carol = addressOf(3)

/** 10^9 lots = 10^13 micro-shares = 10 million shares. */
const LOTS = ORDER_LOTS_MAX
const SHARES = ORDER_AMOUNT_MICROS_MAX
const HIGH = 9_999 // 0.9999 in pips
const LOW = 1 // 0.0001 in pips

t.equal(LOTS, 1_000_000_000, 'ORDER_LOTS_MAX is 10^9 lots')
t.equal(SHARES, 10_000_000_000_000, 'ORDER_AMOUNT_MICROS_MAX is 10^13 micro-shares')
t.equal(BALANCE_MICROS_MAX, 1_000_000_000_000_000, 'BALANCE_MICROS_MAX is 10^15')
t.equal(FEE_RATE_BPS_MAX, 1_000, 'FEE_RATE_BPS_MAX is 10 %')

let orderSeq = 0

/** A resting (GTC) order of `lots` lots at `pips`, built with integer arithmetic only. */
function resting(maker: string, tokenId: string, side: Side, pips: number, lots: number, feeRateBps = 0): OrderInput {
  const usdc = pips * lots // exact: at most 9999 * 10^9 < 2^53
  const shares = lots * 10_000
  return order(maker, tokenId, side, side === 'BUY' ? usdc : shares, side === 'BUY' ? shares : usdc, 'GTC', feeRateBps)
}

function order(maker: string, tokenId: string, side: Side, makerAmountMicros: number, takerAmountMicros: number, timeInForce: TimeInForce = 'GTC', feeRateBps = 0): OrderInput {
  return {
    orderId: `0xbound${(++orderSeq).toString(16).padStart(58, '0')}`,
    owner: `key-${maker}`,
    maker,
    signer: maker,
    tokenId,
    side,
    makerAmountMicros,
    takerAmountMicros,
    expirationSec: 0,
    feeRateBps,
    timeInForce,
    postOnly: false,
    clientOrderId: '',
  }
}

function fund(h: Harness, address: string, usdcMicros: number): void {
  const credited = h.apply({ kind: 'credit', address, usdcMicros, gasMicros: 0 })
  if (!credited.result.ok) throw new Error(`credit failed: ${JSON.stringify(credited.result)}`)
  h.apply({ kind: 'approve', address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
}

function sharesOf(h: Harness, address: string, tokenId: string): { balanceMicros: number; heldMicros: number } {
  const s = accountOf(h, address)?.shares.find((x) => x.tokenId === tokenId)
  return s === undefined ? { balanceMicros: 0, heldMicros: 0 } : { balanceMicros: s.balanceMicros, heldMicros: s.heldMicros }
}

function placed(t: Test, applied: ApplyResult, status: string, makingMicros: number, takingMicros: number, feeMicros: number, trades: number, what: string): void {
  t.match(applied.result, { ok: true, status, makingMicros, takingMicros, feeMicros }, `${what}: result`)
  t.equal((applied.result as { tradeIds?: string[] }).tradeIds?.length, trades, `${what}: ${trades} trade(s)`)
}

function orderRejected(t: Test, h: Harness, o: OrderInput, code: Code, context: Record<string, ContextValue> | null, what: string): void {
  const before = stateOf(h)
  const applied = h.place(o)
  t.strictSame(applied.result, { ok: false, code, message: CODE_MESSAGES[code], context, orderId: o.orderId }, `${what}: ${code}`)
  t.strictSame(applied.events, [{ type: 'orderRejected', orderId: o.orderId, maker: o.maker, code, message: CODE_MESSAGES[code] }], `${what}: one orderRejected`)
  t.strictSame(stateOf(h), before, `${what}: nothing changed`)
}

/** The fee of docs/engine.md in BigInt: floor(rate * min(p, 1 - p) * shares / 10^10), p and shares in micros. */
function feeBig(rate: number, priceMicros: number, sharesMicros: number): bigint {
  const p = BigInt(priceMicros)
  const m = p < 1_000_000n - p ? p : 1_000_000n - p
  return (BigInt(rate) * m * BigInt(sharesMicros)) / 10_000_000_000n
}

function tickMarket(h: Harness, feeRateBps = 0) {
  return h.market({ tickSizeMicros: 100, feeRateBps })
}

// ---------------------------------------------------------------------------------------------
// The largest order at the extreme prices
// ---------------------------------------------------------------------------------------------

t.test('largest normal fill at 0.9999: exact to the micro-unit', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  fund(h, alice, SHARES)
  h.split(alice, m.marketId, SHARES) // alice: USDC 0, Yes 10^13, No 10^13
  // alice SELL Yes 0.9999 x 10^9 lots: maker 10^13 shares, taker 9999 * 10^9 = 9_999_000_000_000 USDC.
  const sell = resting(alice, m.yes, 'SELL', HIGH, LOTS)
  t.equal(sell.takerAmountMicros, 9_999_000_000_000)
  const s = h.place(sell)
  placed(t, s, 'LIVE', 0, 0, 0, 0, 'maker SELL')
  t.strictSame(Harness.eventsOf(s, 'bookLevel'), [{ type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'SELL', priceMicros: 999_900, sizeMicros: 10_000_000_000_000 }])
  t.strictSame(sharesOf(h, alice, m.yes), { balanceMicros: 10_000_000_000_000, heldMicros: 10_000_000_000_000 })

  // bob has exactly the cost 9_999_000_000_000 (fee 0).
  fund(h, bob, 9_999_000_000_000)
  const buy = h.place(resting(bob, m.yes, 'BUY', HIGH, LOTS))
  placed(t, buy, 'MATCHED', 9_999_000_000_000, 10_000_000_000_000, 0, 1, 'taker BUY')
  t.strictSame((buy.result as unknown as { tradeIds: readonly string[] }).tradeIds, [tradeIdOf(h.engine.seq, 0)])
  t.match(Harness.eventsOf(buy, 'trade'), [{
    matchType: 'normal', tokenId: m.yes, side: 'BUY', priceMicros: 999_900, sizeMicros: 10_000_000_000_000,
    feeMicros: 0, makerOrderId: sell.orderId, makerSide: 'SELL', makerPriceMicros: 999_900,
  }])
  t.strictSame(Harness.eventsOf(buy, 'balance'), [
    { type: 'balance', address: alice, asset: 'USDC', balanceMicros: 9_999_000_000_000, heldMicros: 0 },
    { type: 'balance', address: alice, asset: m.yes, balanceMicros: 0, heldMicros: 0 },
    { type: 'balance', address: bob, asset: 'USDC', balanceMicros: 0, heldMicros: 0 },
    { type: 'balance', address: bob, asset: m.yes, balanceMicros: 10_000_000_000_000, heldMicros: 0 },
  ])
  t.strictSame(Harness.eventsOf(buy, 'bookLevel'), [{ type: 'bookLevel', marketId: m.marketId, tokenId: m.yes, side: 'SELL', priceMicros: 999_900, sizeMicros: 0 }])
  t.match(marketOf(h, m.marketId), { collateralMicros: 10_000_000_000_000, mintedMicros: 10_000_000_000_000 })
  t.end()
})

t.test('largest normal fill at 0.0001: exact to the micro-unit', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  fund(h, alice, SHARES)
  h.split(alice, m.marketId, SHARES)
  // alice SELL Yes 0.0001 x 10^9 lots: taker amount 1 * 10^9 = 1_000_000_000 USDC.
  const sell = resting(alice, m.yes, 'SELL', LOW, LOTS)
  t.strictSame([sell.makerAmountMicros, sell.takerAmountMicros], [10_000_000_000_000, 1_000_000_000])
  placed(t, h.place(sell), 'LIVE', 0, 0, 0, 0, 'maker SELL')
  // bob BUY Yes 0.0001 x 10^9 lots pays 10^9 micro-USDC = 1000 USDC for 10 million shares.
  fund(h, bob, 1_000_000_000)
  const buy = h.place(resting(bob, m.yes, 'BUY', LOW, LOTS))
  placed(t, buy, 'MATCHED', 1_000_000_000, 10_000_000_000_000, 0, 1, 'taker BUY')
  t.match(Harness.eventsOf(buy, 'trade'), [{ matchType: 'normal', priceMicros: 100, sizeMicros: 10_000_000_000_000, makerPriceMicros: 100 }])
  t.match(accountOf(h, alice), { usdcMicros: 1_000_000_000, usdcHeldMicros: 0 })
  t.strictSame(sharesOf(h, alice, m.yes), { balanceMicros: 0, heldMicros: 0 })
  t.match(accountOf(h, bob), { usdcMicros: 0, usdcHeldMicros: 0 })
  t.strictSame(sharesOf(h, bob, m.yes), { balanceMicros: 10_000_000_000_000, heldMicros: 0 })
  t.end()
})

t.test('largest mint and merge across the extremes (0.9999 with 0.0001)', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  // Mint: alice BUY Yes 0.9999 (holds 9_999_000_000_000), bob BUY No 0.0001 (Yes-space ask 0.9999).
  fund(h, alice, 9_999_000_000_000)
  fund(h, bob, 1_000_000_000)
  const a = resting(alice, m.yes, 'BUY', HIGH, LOTS)
  placed(t, h.place(a), 'LIVE', 0, 0, 0, 0, 'maker BUY Yes 0.9999')
  t.match(accountOf(h, alice), { usdcMicros: 9_999_000_000_000, usdcHeldMicros: 9_999_000_000_000 })
  const b = h.place(resting(bob, m.no, 'BUY', LOW, LOTS))
  placed(t, b, 'MATCHED', 1_000_000_000, 10_000_000_000_000, 0, 1, 'taker BUY No 0.0001')
  t.match(Harness.eventsOf(b, 'trade'), [{ matchType: 'mint', tokenId: m.no, priceMicros: 100, makerTokenId: m.yes, makerPriceMicros: 999_900, sizeMicros: 10_000_000_000_000 }])
  // 9_999_000_000_000 + 1_000_000_000 = 10^13 micro-USDC minted 10^13 full sets.
  t.match(accountOf(h, alice), { usdcMicros: 0, usdcHeldMicros: 0 })
  t.match(accountOf(h, bob), { usdcMicros: 0, usdcHeldMicros: 0 })
  t.strictSame(sharesOf(h, alice, m.yes), { balanceMicros: 10_000_000_000_000, heldMicros: 0 })
  t.strictSame(sharesOf(h, bob, m.no), { balanceMicros: 10_000_000_000_000, heldMicros: 0 })
  t.match(marketOf(h, m.marketId), { collateralMicros: 10_000_000_000_000, mintedMicros: 10_000_000_000_000, mergedMicros: 0 })

  // Merge back: alice SELL Yes 0.0001 (ask 0.0001), bob SELL No 0.9999 (Yes-space bid 0.0001).
  const a2 = resting(alice, m.yes, 'SELL', LOW, LOTS)
  placed(t, h.place(a2), 'LIVE', 0, 0, 0, 0, 'maker SELL Yes 0.0001')
  const b2 = h.place(resting(bob, m.no, 'SELL', HIGH, LOTS))
  placed(t, b2, 'MATCHED', 10_000_000_000_000, 9_999_000_000_000, 0, 1, 'taker SELL No 0.9999')
  t.match(Harness.eventsOf(b2, 'trade'), [{ matchType: 'merge', tokenId: m.no, priceMicros: 999_900, makerPriceMicros: 100, sizeMicros: 10_000_000_000_000 }])
  // alice receives 1 * 10^9, bob 9999 * 10^9; the full sets are gone.
  t.match(accountOf(h, alice), { usdcMicros: 1_000_000_000 })
  t.match(accountOf(h, bob), { usdcMicros: 9_999_000_000_000 })
  t.strictSame(accountOf(h, alice)?.shares, [])
  t.strictSame(accountOf(h, bob)?.shares, [])
  t.match(marketOf(h, m.marketId), { collateralMicros: 0, mintedMicros: 10_000_000_000_000, mergedMicros: 10_000_000_000_000 })

  // The mirror mint at the other end: BUY Yes 0.0001 (bid 0.0001) with BUY No 0.9999 (ask 0.0001).
  placed(t, h.place(resting(alice, m.yes, 'BUY', LOW, LOTS)), 'LIVE', 0, 0, 0, 0, 'maker BUY Yes 0.0001')
  const b3 = h.place(resting(bob, m.no, 'BUY', HIGH, LOTS))
  placed(t, b3, 'MATCHED', 9_999_000_000_000, 10_000_000_000_000, 0, 1, 'taker BUY No 0.9999')
  t.match(accountOf(h, alice), { usdcMicros: 0, usdcHeldMicros: 0 })
  t.match(accountOf(h, bob), { usdcMicros: 0, usdcHeldMicros: 0 })
  t.match(marketOf(h, m.marketId), { collateralMicros: 10_000_000_000_000, mintedMicros: 20_000_000_000_000 })
  t.end()
})

t.test('largest immediate orders: FOK BUY budget, FAK SELL, and an unfillable FOK', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  fund(h, alice, SHARES)
  h.split(alice, m.marketId, SHARES)
  placed(t, h.place(resting(alice, m.yes, 'SELL', HIGH, LOTS)), 'LIVE', 0, 0, 0, 0, 'maker SELL 0.9999')

  // FOK BUY budget 10^13 - 1 for 10^13 shares: limit floor((10^13 - 1) * 10^4 / 10^13) = 9999.
  // It could buy floor((10^13 - 1) / 9999) = 1_000_100_010 lots, but only 10^9 rest: after them
  // 10^13 - 1 - 9_999_000_000_000 = 999_999_999_999 >= 9999 is left: not filled -> killed.
  fund(h, bob, 20_000_000_000_000)
  orderRejected(t, h, order(bob, m.yes, 'BUY', SHARES - 1, SHARES, 'FOK'), 'FOK_ORDER_NOT_FILLED', null, 'FOK beyond the book')
  // The same as FAK: fills the 10^9 lots and cancels the rest.
  const fak = order(bob, m.yes, 'BUY', SHARES - 1, SHARES, 'FAK')
  const f = h.place(fak)
  placed(t, f, 'CANCELED', 9_999_000_000_000, 10_000_000_000_000, 0, 1, 'FAK BUY')
  t.match(Harness.eventsOf(f, 'orderAccepted'), [{ priceMicros: 999_900, originalSizeMicros: 10_000_000_000_000, makerAmountMicros: 9_999_999_999_999 }])
  t.match(Harness.eventsOf(f, 'orderUpdate').at(-1), { orderId: fak.orderId, status: 'CANCELED', reason: 'unfilled', sizeMatchedMicros: 10_000_000_000_000, remainingMicros: 0 })
  // bob: 2 * 10^13 - 9_999_000_000_000 = 10_001_000_000_000.
  t.match(accountOf(h, bob), { usdcMicros: 10_001_000_000_000, usdcHeldMicros: 0 })
  t.match(accountOf(h, alice), { usdcMicros: 9_999_000_000_000 })

  // FOK BUY budget 9_999_000_000_000 exactly: limit 9999, buys 10^9 lots, budget 0 < 9999: filled.
  placed(t, h.place(resting(alice, m.no, 'SELL', LOW, LOTS)), 'LIVE', 0, 0, 0, 0, 'maker SELL No 0.0001')
  // (alice's SELL No 0.0001 is a Yes-space bid at 0.9999; bob buys No instead.)
  const fok = h.place(order(bob, m.no, 'BUY', 1_000_000_000, SHARES, 'FOK'))
  // FOK BUY No budget 10^9 for 10^13: limit floor(10^9 * 10^4 / 10^13) = 1 pip; 10^9 / 1 = 10^9 lots.
  placed(t, fok, 'MATCHED', 1_000_000_000, 10_000_000_000_000, 0, 1, 'FOK BUY No')
  t.match(accountOf(h, bob), { usdcMicros: 10_000_000_000_000 }) // 10_001_000_000_000 - 10^9
  t.match(accountOf(h, alice), { usdcMicros: 10_000_000_000_000 }) // 9_999_000_000_000 + 10^9

  // FAK SELL 10^13 Yes for at least 10^9: limit ceil(10^9 * 10^4 / 10^13) = 1 pip, into carol's
  // BUY Yes 0.0001 x 10^9.
  fund(h, carol, 1_000_000_000)
  placed(t, h.place(resting(carol, m.yes, 'BUY', LOW, LOTS)), 'LIVE', 0, 0, 0, 0, 'maker BUY Yes 0.0001')
  const sell = h.place(order(bob, m.yes, 'SELL', SHARES, 1_000_000_000, 'FAK'))
  placed(t, sell, 'MATCHED', 10_000_000_000_000, 1_000_000_000, 0, 1, 'FAK SELL')
  t.match(accountOf(h, bob), { usdcMicros: 10_001_000_000_000 })
  t.strictSame(sharesOf(h, carol, m.yes), { balanceMicros: 10_000_000_000_000, heldMicros: 0 })
  t.end()
})

// ---------------------------------------------------------------------------------------------
// One unit above each bound
// ---------------------------------------------------------------------------------------------

t.test('one unit above each order bound is rejected with its code', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  fund(h, alice, BALANCE_MICROS_MAX)
  h.split(alice, m.marketId, SHARES + 20_000)

  // Lots: 10^9 + 1 lots = 10^13 + 10^4 micro-shares (step 8, before the lot check).
  orderRejected(t, h, resting(alice, m.yes, 'BUY', 5_000, LOTS + 1), 'INVALID_ORDER_SIZE_MAX', { field: 'takerAmountMicros' }, 'BUY 10^9 + 1 lots')
  orderRejected(t, h, resting(alice, m.yes, 'SELL', 5_000, LOTS + 1), 'INVALID_ORDER_SIZE_MAX', { field: 'makerAmountMicros' }, 'SELL 10^9 + 1 lots')
  // One micro above ORDER_AMOUNT_MICROS_MAX.
  orderRejected(t, h, order(alice, m.yes, 'BUY', 5_000_000_000_000, SHARES + 1), 'INVALID_ORDER_SIZE_MAX', { field: 'takerAmountMicros' }, 'BUY taker 10^13 + 1')
  orderRejected(t, h, order(alice, m.yes, 'BUY', SHARES + 1, SHARES + 2), 'INVALID_ORDER_SIZE_MAX', { field: 'makerAmountMicros' }, 'BUY maker 10^13 + 1')
  orderRejected(t, h, order(alice, m.yes, 'SELL', SHARES + 1, 5_000_000_000_000), 'INVALID_ORDER_SIZE_MAX', { field: 'makerAmountMicros' }, 'SELL maker 10^13 + 1')
  orderRejected(t, h, order(alice, m.yes, 'BUY', SHARES + 1, 2 * SHARES, 'FAK'), 'INVALID_ORDER_SIZE_MAX', { field: 'makerAmountMicros' }, 'FAK budget 10^13 + 1')
  orderRejected(t, h, order(alice, m.yes, 'SELL', SHARES + 10_000, 1, 'FOK'), 'INVALID_ORDER_SIZE_MAX', { field: 'makerAmountMicros' }, 'FOK SELL 10^9 + 1 lots')

  // Prices: one pip above 0.9999 is 1 (ma = ta for a BUY, ta = ma for a SELL); one below 0.0001 is 0.
  orderRejected(t, h, resting(alice, m.yes, 'BUY', 10_000, LOTS), 'INVALID_ORDER_PRICE', null, 'BUY at 1')
  orderRejected(t, h, resting(alice, m.yes, 'SELL', 10_000, LOTS), 'INVALID_ORDER_PRICE', null, 'SELL at 1')
  orderRejected(t, h, resting(alice, m.yes, 'BUY', 0, LOTS), 'INVALID_ORDER_PAYLOAD', { field: 'makerAmountMicros' }, 'BUY at 0')
  orderRejected(t, h, resting(alice, m.yes, 'SELL', 0, LOTS), 'INVALID_ORDER_PAYLOAD', { field: 'takerAmountMicros' }, 'SELL at 0')
  // A largest order one micro off the pip grid: 9_999_000_000_001 / 10^9 lots is not whole.
  orderRejected(t, h, order(alice, m.yes, 'BUY', 9_999_000_000_001, SHARES), 'INVALID_ORDER_MIN_TICK_SIZE', { tickSizeMicros: 100 }, 'BUY one micro off the pip')
  orderRejected(t, h, order(alice, m.yes, 'SELL', SHARES, 1_000_000_001), 'INVALID_ORDER_MIN_TICK_SIZE', { tickSizeMicros: 100 }, 'SELL one micro off the pip')
  // One micro-share off the lot: 10^13 - 1.
  orderRejected(t, h, order(alice, m.yes, 'BUY', 5_000_000_000_000, SHARES - 1), 'INVALID_ORDER_AMOUNTS', { field: 'takerAmountMicros', lotMicros: 10_000 }, 'BUY 10^13 - 1 shares')
  orderRejected(t, h, order(alice, m.yes, 'SELL', SHARES - 1, 5_000_000_000_000), 'INVALID_ORDER_AMOUNTS', { field: 'makerAmountMicros', lotMicros: 10_000 }, 'SELL 10^13 - 1 shares')

  // Exactly at the bounds: accepted.
  t.match(h.place(resting(alice, m.yes, 'BUY', LOW, LOTS)).result, { ok: true, status: 'LIVE' }, 'BUY 10^9 lots at 0.0001')
  t.match(h.place(resting(alice, m.no, 'BUY', LOW, LOTS)).result, { ok: true, status: 'LIVE' }, 'BUY No 10^9 lots at 0.0001')
  t.match(h.place(resting(alice, m.yes, 'SELL', HIGH, LOTS)).result, { ok: true, status: 'LIVE' }, 'SELL 10^9 lots at 0.9999')
  t.end()
})

t.test('one micro short of the largest order\'s funds', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  // The largest BUY at 0.9999 needs 9_999_000_000_000; one less is refused with the whole picture.
  fund(h, alice, 9_999_000_000_000 - 1)
  orderRejected(t, h, resting(alice, m.yes, 'BUY', HIGH, LOTS), 'INVALID_ORDER_NOT_ENOUGH_BALANCE', {
    asset: 'USDC', requiredMicros: 9_999_000_000_000, availableMicros: 9_998_999_999_999,
    balanceMicros: 9_998_999_999_999, allowanceMicros: Number.MAX_SAFE_INTEGER, heldMicros: 0,
  }, 'USDC one micro short')
  // The largest SELL needs 10^13 shares; 10^13 - 1 is one short.
  fund(h, bob, SHARES)
  h.split(bob, m.marketId, SHARES - 1)
  orderRejected(t, h, resting(bob, m.yes, 'SELL', LOW, LOTS), 'INVALID_ORDER_NOT_ENOUGH_BALANCE', {
    asset: m.yes, requiredMicros: 10_000_000_000_000, availableMicros: 9_999_999_999_999,
    balanceMicros: 9_999_999_999_999, heldMicros: 0, approved: true,
  }, 'shares one micro short')
  // With the fee at its maximum the BUY needs the fee bound on top:
  // ceil(1000 * 9_999_000_000_000 / 10_000) = 999_900_000_000 -> 10_998_900_000_000 in all.
  const f = new Harness()
  const fm = tickMarket(f, FEE_RATE_BPS_MAX)
  fund(f, alice, 10_998_900_000_000 - 1)
  orderRejected(t, f, resting(alice, fm.yes, 'BUY', HIGH, LOTS, FEE_RATE_BPS_MAX), 'INVALID_ORDER_NOT_ENOUGH_BALANCE', {
    asset: 'USDC', requiredMicros: 10_998_900_000_000, availableMicros: 10_998_899_999_999,
    balanceMicros: 10_998_899_999_999, allowanceMicros: Number.MAX_SAFE_INTEGER, heldMicros: 0,
  }, 'fee bound one micro short')
  f.apply({ kind: 'credit', address: alice, usdcMicros: 1, gasMicros: 0 })
  t.match(f.place(resting(alice, fm.yes, 'BUY', HIGH, LOTS, FEE_RATE_BPS_MAX)).result, { ok: true, status: 'LIVE' }, 'exactly enough')
  // The resting hold is the cost only: 9_999_000_000_000.
  t.match(accountOf(f, alice), { usdcMicros: 10_998_900_000_000, usdcHeldMicros: 9_999_000_000_000 })
  t.end()
})

t.test('ledger and market bounds: one unit above is rejected', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  const over = h.apply({ kind: 'credit', address: alice, usdcMicros: BALANCE_MICROS_MAX + 1, gasMicros: 0 })
  t.strictSame(over.result, { ok: false, code: 'LEDGER_BALANCE_LIMIT', message: CODE_MESSAGES.LEDGER_BALANCE_LIMIT, context: { asset: 'USDC' } })
  t.strictSame(h.apply({ kind: 'credit', address: alice, usdcMicros: BALANCE_MICROS_MAX, gasMicros: 0 }).result, { ok: true })

  // BALANCE_MICROS_MAX caps credits only (docs/engine.md, Units): a split may take a share
  // balance above it, since the supply bound already keeps every amount exact.
  h.split(alice, m.marketId, BALANCE_MICROS_MAX) // Yes = No = 10^15, USDC 0
  t.strictSame(h.apply({ kind: 'credit', address: alice, usdcMicros: 1, gasMicros: 0 }).result, { ok: true })
  const split = h.apply({ kind: 'split', address: alice, marketId: m.marketId, amountMicros: 1 })
  t.strictSame(split.result, { ok: true }, 'split to 10^15 + 1 shares')
  t.match(accountOf(h, alice), { usdcMicros: 0, shares: [{ balanceMicros: BALANCE_MICROS_MAX + 1 }, { balanceMicros: BALANCE_MICROS_MAX + 1 }] })
  // ...and merging them back takes the USDC above the cap too: 10^15 + 1.
  t.strictSame(h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: BALANCE_MICROS_MAX + 1 }).result, { ok: true })
  t.match(accountOf(h, alice), { usdcMicros: BALANCE_MICROS_MAX + 1 })
  // But it cannot be credited more now.
  t.match(h.apply({ kind: 'credit', address: alice, usdcMicros: 1, gasMicros: 0 }).result, { ok: false, code: 'LEDGER_BALANCE_LIMIT' })

  // Fee rate: FEE_RATE_BPS_MAX accepted, one above refused.
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: FEE_RATE_BPS_MAX }).result, { ok: true })
  t.strictSame(h.apply({ kind: 'setFeeRate', marketId: m.marketId, feeRateBps: FEE_RATE_BPS_MAX + 1 }).result,
    { ok: false, code: 'MARKET_FEE_RATE_INVALID', message: CODE_MESSAGES.MARKET_FEE_RATE_INVALID, context: { feeRateBps: 1_001 } })
  t.end()
})

// ---------------------------------------------------------------------------------------------
// Balances at BALANCE_MICROS_MAX
// ---------------------------------------------------------------------------------------------

t.test('balances at BALANCE_MICROS_MAX stay exact', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  fund(h, alice, BALANCE_MICROS_MAX)
  // Two largest BUYs at 0.9999 hold 2 * 9_999_000_000_000 = 19_998_000_000_000.
  const a1 = resting(alice, m.yes, 'BUY', HIGH, LOTS)
  const a2 = resting(alice, m.yes, 'BUY', HIGH, LOTS)
  placed(t, h.place(a1), 'LIVE', 0, 0, 0, 0, 'first largest BUY')
  placed(t, h.place(a2), 'LIVE', 0, 0, 0, 0, 'second largest BUY')
  t.match(accountOf(h, alice), { usdcMicros: 1_000_000_000_000_000, usdcHeldMicros: 19_998_000_000_000 })
  t.strictSame(summaryOf(h.engine).openOrders.map((o) => o.heldMicros), [9_999_000_000_000, 9_999_000_000_000])

  // bob sells 10^13 Yes at 0.9999 into the first.
  fund(h, bob, SHARES)
  h.split(bob, m.marketId, SHARES)
  const s = h.place(resting(bob, m.yes, 'SELL', HIGH, LOTS))
  placed(t, s, 'MATCHED', 10_000_000_000_000, 9_999_000_000_000, 0, 1, 'largest SELL')
  t.match(Harness.eventsOf(s, 'trade'), [{ makerOrderId: a1.orderId }])
  // alice: 10^15 - 9_999_000_000_000 = 990_001_000_000_000, still holding 9_999_000_000_000.
  t.strictSame(Harness.eventsOf(s, 'balance'), [
    { type: 'balance', address: alice, asset: 'USDC', balanceMicros: 990_001_000_000_000, heldMicros: 9_999_000_000_000 },
    { type: 'balance', address: alice, asset: m.yes, balanceMicros: 10_000_000_000_000, heldMicros: 0 },
    { type: 'balance', address: bob, asset: 'USDC', balanceMicros: 9_999_000_000_000, heldMicros: 0 },
    { type: 'balance', address: bob, asset: m.yes, balanceMicros: 0, heldMicros: 0 },
  ])

  // carol splits and merges a whole 10^15.
  fund(h, carol, BALANCE_MICROS_MAX)
  h.split(carol, m.marketId, BALANCE_MICROS_MAX)
  t.strictSame(accountOf(h, carol)?.shares, [
    { tokenId: m.no, balanceMicros: 1_000_000_000_000_000, heldMicros: 0 },
    { tokenId: m.yes, balanceMicros: 1_000_000_000_000_000, heldMicros: 0 },
  ])
  t.match(accountOf(h, carol), { usdcMicros: 0 })
  const merged = h.apply({ kind: 'merge', address: carol, marketId: m.marketId, amountMicros: BALANCE_MICROS_MAX })
  t.strictSame(merged.result, { ok: true })
  t.match(accountOf(h, carol), { usdcMicros: 1_000_000_000_000_000 })
  t.strictSame(accountOf(h, carol)?.shares, [])
  // Credited 10^15 + 10^13 + 10^15; collateral = bob's 10^13 sets.
  t.equal(summaryOf(h.engine).creditedMicros, 2_010_000_000_000_000)
  t.match(marketOf(h, m.marketId), { collateralMicros: 10_000_000_000_000, mintedMicros: 1_010_000_000_000_000, mergedMicros: 1_000_000_000_000_000 })
  t.end()
})

// ---------------------------------------------------------------------------------------------
// Fees at FEE_RATE_BPS_MAX on the largest fills
// ---------------------------------------------------------------------------------------------

interface FeeCase {
  readonly what: string
  /** Yes-space price in pips of the maker's level. */
  readonly makerToken: 'yes' | 'no'
  readonly makerSide: Side
  readonly makerPips: number
  readonly takerToken: 'yes' | 'no'
  readonly takerSide: Side
  readonly takerPips: number
  readonly lots: number
  /** Hand-computed fee: floor(1000 * min(p, 1 - p) * lots / 10_000), p in pips. */
  readonly fee: number
}

const FEE_CASES: FeeCase[] = [
  // 0.9999 BUY taker vs SELL maker: m = min(9999, 1) = 1 pip: 1000 * 1 * 10^9 / 10^4 = 10^8.
  { what: 'BUY Yes 0.9999 x 10^9 lots (normal)', makerToken: 'yes', makerSide: 'SELL', makerPips: HIGH, takerToken: 'yes', takerSide: 'BUY', takerPips: HIGH, lots: LOTS, fee: 100_000_000 },
  // 0.0001: m = 1 pip: 10^8.
  { what: 'SELL Yes 0.0001 x 10^9 lots (normal)', makerToken: 'yes', makerSide: 'BUY', makerPips: LOW, takerToken: 'yes', takerSide: 'SELL', takerPips: LOW, lots: LOTS, fee: 100_000_000 },
  // 0.5: 1000 * 5000 * 10^9 / 10^4 = 5 * 10^11.
  { what: 'SELL Yes 0.5 x 10^9 lots (normal)', makerToken: 'yes', makerSide: 'BUY', makerPips: 5_000, takerToken: 'yes', takerSide: 'SELL', takerPips: 5_000, lots: LOTS, fee: 500_000_000_000 },
  // 0.4999 x (10^9 - 1): 1000 * 4999 * 999_999_999 / 10^4 = 4_998_999_995_001 / 10 -> 499_899_999_500.
  { what: 'BUY Yes 0.4999 x (10^9 - 1) lots (normal, floored)', makerToken: 'yes', makerSide: 'SELL', makerPips: 4_999, takerToken: 'yes', takerSide: 'BUY', takerPips: 4_999, lots: LOTS - 1, fee: 499_899_999_500 },
  // Mint: taker BUY No 0.0001 vs maker BUY Yes 0.9999: m = 1 pip -> 10^8.
  { what: 'BUY No 0.0001 x 10^9 lots (mint)', makerToken: 'yes', makerSide: 'BUY', makerPips: HIGH, takerToken: 'no', takerSide: 'BUY', takerPips: LOW, lots: LOTS, fee: 100_000_000 },
  // Merge: taker SELL No 0.7001 vs maker SELL Yes 0.2999, (10^9 - 3) lots:
  // m = min(2999, 7001) = 2999: 1000 * 2999 * 999_999_997 / 10^4 = 2_998_999_991_003 / 10 -> 299_899_999_100.
  { what: 'SELL No 0.7001 x (10^9 - 3) lots (merge, floored)', makerToken: 'yes', makerSide: 'SELL', makerPips: 2_999, takerToken: 'no', takerSide: 'SELL', takerPips: 7_001, lots: LOTS - 3, fee: 299_899_999_100 },
]

t.test('fees at FEE_RATE_BPS_MAX on the largest fills match floor(rate * min(p, 1-p) * shares / 10^10)', (t) => {
  for (const c of FEE_CASES) {
    const h = new Harness()
    const m = tickMarket(h, FEE_RATE_BPS_MAX)
    const tokenOf = (x: 'yes' | 'no') => (x === 'yes' ? m.yes : m.no)
    const shares = c.lots * 10_000
    const takerPriceMicros = c.takerPips * 100
    const fee = feeBig(FEE_RATE_BPS_MAX, takerPriceMicros, shares)
    t.equal(BigInt(c.fee), fee, `${c.what}: the hand fee agrees with BigInt`)
    // The same from the maker's side of the market (min(p, 1 - p) is symmetric).
    t.equal(feeBig(FEE_RATE_BPS_MAX, c.makerPips * 100, shares), fee, `${c.what}: symmetric`)

    // Fund both sides with exactly what they need.
    const makerCost = c.makerPips * c.lots
    const takerCost = c.takerPips * c.lots
    const bound = (cost: number) => Number((BigInt(FEE_RATE_BPS_MAX) * BigInt(cost) + 9_999n) / 10_000n)
    if (c.makerSide === 'BUY') {
      fund(h, alice, makerCost + bound(makerCost))
    } else {
      fund(h, alice, shares)
      h.split(alice, m.marketId, shares)
    }
    if (c.takerSide === 'BUY') {
      fund(h, bob, takerCost + bound(takerCost))
    } else {
      fund(h, bob, shares)
      h.split(bob, m.marketId, shares)
    }
    const aliceBefore = accountOf(h, alice)!.usdcMicros
    const bobBefore = accountOf(h, bob)!.usdcMicros
    const maker = resting(alice, tokenOf(c.makerToken), c.makerSide, c.makerPips, c.lots, FEE_RATE_BPS_MAX)
    t.match(h.place(maker).result, { ok: true, status: 'LIVE' }, `${c.what}: maker rests`)
    const taker = h.place(resting(bob, tokenOf(c.takerToken), c.takerSide, c.takerPips, c.lots, FEE_RATE_BPS_MAX))
    placed(t, taker, 'MATCHED',
      c.takerSide === 'BUY' ? takerCost : shares,
      c.takerSide === 'BUY' ? shares : takerCost,
      c.fee, 1, c.what)
    t.match(Harness.eventsOf(taker, 'trade'), [{ feeMicros: c.fee, feeRateBps: 1_000, sizeMicros: shares, priceMicros: takerPriceMicros, makerPriceMicros: c.makerPips * 100 }], `${c.what}: trade`)
    // Taker BUY pays cost + fee; taker SELL receives cost - fee; the maker moves its price only.
    const bobAfter = c.takerSide === 'BUY' ? bobBefore - takerCost - c.fee : bobBefore + takerCost - c.fee
    const aliceAfter = c.makerSide === 'BUY' ? aliceBefore - makerCost : aliceBefore + makerCost
    t.match(accountOf(h, bob), { usdcMicros: bobAfter, usdcHeldMicros: 0 }, `${c.what}: taker USDC`)
    t.match(accountOf(h, alice), { usdcMicros: aliceAfter, usdcHeldMicros: 0 }, `${c.what}: maker USDC`)
    t.equal(summaryOf(h.engine).feesMicros, c.fee, `${c.what}: fee total`)
  }
  t.end()
})

t.test('a fee-max BUY funded to the micro ends with exactly the unused fee bound', (t) => {
  // BUY Yes 0.4999 x (10^9 - 1) lots: cost 4999 * 999_999_999 = 4_998_999_995_001; bound
  // ceil(1000 * cost / 10^4) = ceil(499_899_999_500.1) = 499_899_999_501; required
  // 5_498_899_994_502. The fill's fee is 499_899_999_500, so exactly 1 micro is left.
  const h = new Harness()
  const m = tickMarket(h, FEE_RATE_BPS_MAX)
  fund(h, alice, 10_000_000_000_000)
  h.split(alice, m.marketId, 10_000_000_000_000)
  t.match(h.place(resting(alice, m.yes, 'SELL', 4_999, LOTS - 1, FEE_RATE_BPS_MAX)).result, { ok: true, status: 'LIVE' })
  fund(h, bob, 5_498_899_994_502)
  const buy = h.place(resting(bob, m.yes, 'BUY', 4_999, LOTS - 1, FEE_RATE_BPS_MAX))
  placed(t, buy, 'MATCHED', 4_998_999_995_001, 9_999_999_990_000, 499_899_999_500, 1, 'BUY at the fee bound')
  t.match(accountOf(h, bob), { usdcMicros: 1, usdcHeldMicros: 0 })
  // alice: 10^13 - 10^13 (split) + 4_998_999_995_001.
  t.match(accountOf(h, alice), { usdcMicros: 4_998_999_995_001 })
  t.equal(summaryOf(h.engine).feesMicros, 499_899_999_500)
  t.end()
})

// ---------------------------------------------------------------------------------------------
// The other bounds of limits.ts that a unit test can reach
// ---------------------------------------------------------------------------------------------

t.test('merge and redeem may take a USDC balance above BALANCE_MICROS_MAX (only credits are capped)', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  fund(h, alice, BALANCE_MICROS_MAX)
  h.split(alice, m.marketId, 2) // USDC 10^15 - 2, Yes 2, No 2
  h.apply({ kind: 'credit', address: alice, usdcMicros: 2, gasMicros: 0 }) // USDC 10^15 again
  // Merging one set makes 10^15 + 1: allowed, so that nobody is ever stuck with full sets.
  t.strictSame(h.apply({ kind: 'merge', address: alice, marketId: m.marketId, amountMicros: 1 }).result, { ok: true })
  t.match(accountOf(h, alice), { usdcMicros: BALANCE_MICROS_MAX + 1 })
  // Redeeming the last winning share makes 10^15 + 2: a winner can always redeem.
  h.apply({ kind: 'resolveMarket', marketId: m.marketId, outcome: 'Yes' })
  t.strictSame(h.apply({ kind: 'redeem', address: alice, marketId: m.marketId }).result, { ok: true })
  t.match(accountOf(h, alice), { usdcMicros: BALANCE_MICROS_MAX + 2, shares: [] })
  t.end()
})

t.test('GTD_MARGIN_MS: exactly the margin is accepted, one second less is not', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  fund(h, alice, 10_000_000)
  const gtd = (expirationSec: number): OrderInput => ({ ...resting(alice, m.yes, 'BUY', 5_000, 100), timeInForce: 'GTD', expirationSec })
  // T0 = 1_700_000_000_000 ms is a whole second: earliest = T0 / 1000 + 60 = 1_700_000_060.
  t.equal(h.timeMs, 1_700_000_000_000)
  orderRejected(t, h, gtd(1_700_000_059), 'INVALID_ORDER_EXPIRATION', { expirationSec: 1_700_000_059, earliestSec: 1_700_000_060 }, 'GTD 59 s ahead')
  t.match(h.place(gtd(1_700_000_060)).result, { ok: true, status: 'LIVE' }, 'GTD exactly 60 s ahead')
  // Half a second later: earliest = ceil((T0 + 500 + 60_000) / 1000) = 1_700_000_061.
  h.timeMs += 500
  orderRejected(t, h, gtd(1_700_000_060), 'INVALID_ORDER_EXPIRATION', { expirationSec: 1_700_000_060, earliestSec: 1_700_000_061 }, 'GTD 59.5 s ahead')
  t.match(h.place(gtd(1_700_000_061)).result, { ok: true, status: 'LIVE' }, 'GTD 60.5 s ahead')
  t.end()
})

t.test('BATCH_ORDERS_MAX and ID_LENGTH_MAX', (t) => {
  const h = new Harness()
  const m = tickMarket(h)
  fund(h, alice, 10_000_000)
  const small = () => resting(alice, m.yes, 'BUY', 100, 100) // 0.01 x 1 share: 10_000 micro-USDC
  const sixteen = Array.from({ length: 16 }, small)
  const before = stateOf(h)
  const tooMany = h.apply({ kind: 'placeOrders', orders: sixteen })
  t.strictSame(tooMany.result, { ok: false, code: 'BATCH_TOO_LARGE', message: CODE_MESSAGES.BATCH_TOO_LARGE, context: { max: 15 } })
  t.strictSame(tooMany.events, [], 'rejected whole: no order events')
  t.strictSame(stateOf(h), before)
  const fifteen = h.apply({ kind: 'placeOrders', orders: sixteen.slice(0, 15) })
  t.equal((fifteen.result as unknown as { results: unknown[] }).results.length, 15)
  t.equal(summaryOf(h.engine).openOrders.length, 15)
  // Order id of 128 characters: fine; 129: INVALID_ORDER_PAYLOAD {field: 'orderId'}.
  t.match(h.place({ ...small(), orderId: 'o'.repeat(128) }).result, { ok: true, status: 'LIVE' })
  orderRejected(t, h, { ...small(), orderId: 'p'.repeat(129) }, 'INVALID_ORDER_PAYLOAD', { field: 'orderId' }, '129-character order id')
  t.end()
})
