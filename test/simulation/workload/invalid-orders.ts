/**
 * Orders built to be refused, one for each validation step (TARGETED_CODES), and duplicates.
 * Part of the simulation's workload (../workload.ts): functions over one WorkloadState.
 */
import type { OrderInput } from '../../../src/engine/command.js'
import { CLIENT_ORDER_ID_LENGTH_MAX, GTD_MARGIN_MS, ID_LENGTH_MAX, MICROS_PER_LOT, MICROS_PER_UNIT, ORDER_AMOUNT_MICROS_MAX, PIPS_PER_UNIT }
  from '../../../src/engine/limits.js'
import { WorkloadState, clamp, marketOfToken, onGrid, orderMarket, pickAccount, tokenPips } from './state.js'
import { limitOrder, newOrder } from './orders.js'

/** A valid order with exactly one fault, aimed at one validation step. */
export function invalidOrder(w: WorkloadState): OrderInput {
  const base = limitOrder(w, w.rng.chance(0.5) ? 'GTC' : 'GTD', false)
  const faults: readonly (() => OrderInput)[] = [
    () => badShape(w, base),
    () => ({ ...base, tokenId: w.rng.decimal(77) }),
    () => ({ ...base, feeRateBps: (base.feeRateBps ?? 0) + w.rng.pick([1, 50, 100]) }),
    () => ({ ...base, timeInForce: w.rng.pick(['FOK', 'FAK'] as const), expirationSec: 0, postOnly: true }),
    () => badExpiration(w, base),
    () => tooLarge(w, base),
    () => priceOutOfRange(w, base),
    () => notLots(w, base),
    () => offTick(w, base),
    () => unusableLimit(w, base),
    () => tooSmall(w, base),
    () => tooExpensive(base),
    () => unapprovedSell(w),
    () => unfillable(w, base),
  ]
  return w.rng.pick(faults)()
}

export function badShape(w: WorkloadState, base: OrderInput): OrderInput {
  const loose = { ...base } as Record<string, unknown>
  const field = w.rng.pick(Object.keys(loose))
  const bad: readonly unknown[] = [
    '', 'x'.repeat(ID_LENGTH_MAX + 1), 0, -1, 1.5, null, undefined, 'buy', 'IOC', 'true',
    Number.MAX_SAFE_INTEGER + 2, Number.NaN, 'y'.repeat(CLIENT_ORDER_ID_LENGTH_MAX + 1), 'tab\there', 'caf\u00e9',
  ]
  loose[field] = w.rng.pick(bad)
  return loose as unknown as OrderInput
}

export function badExpiration(w: WorkloadState, base: OrderInput): OrderInput {
  const earliest = Math.ceil((w.timeMs + GTD_MARGIN_MS) / 1000)
  const r = w.rng.int(0, 2)
  if (r === 0) return { ...base, timeInForce: 'GTD', expirationSec: earliest - w.rng.int(1, 70) }
  if (r === 1) return { ...base, timeInForce: 'GTD', expirationSec: 0 }
  return { ...base, timeInForce: w.rng.pick(['GTC', 'FOK', 'FAK'] as const), expirationSec: earliest + 100 }
}

export function tooLarge(w: WorkloadState, base: OrderInput): OrderInput {
  const huge = ORDER_AMOUNT_MICROS_MAX + w.rng.pick([1, MICROS_PER_LOT, 10 ** 14])
  return w.rng.chance(0.5) ? { ...base, makerAmountMicros: huge } : { ...base, takerAmountMicros: huge }
}

export function priceOutOfRange(w: WorkloadState, base: OrderInput): OrderInput {
  // A price of 1 or more: BUY offers at least the shares; SELL asks at least the shares.
  const size = base.side === 'BUY' ? base.takerAmountMicros : base.makerAmountMicros
  const cash = size + w.rng.pick([0, 0, MICROS_PER_LOT, size])
  return base.side === 'BUY'
    ? { ...base, makerAmountMicros: cash }
    : { ...base, takerAmountMicros: cash }
}

export function notLots(w: WorkloadState, base: OrderInput): OrderInput {
  const odd = w.rng.int(1, MICROS_PER_LOT - 1)
  return base.side === 'BUY'
    ? { ...base, takerAmountMicros: base.takerAmountMicros + odd }
    : { ...base, makerAmountMicros: base.makerAmountMicros + odd }
}

export function offTick(w: WorkloadState, base: OrderInput): OrderInput {
  const lots = (base.side === 'BUY' ? base.takerAmountMicros : base.makerAmountMicros) / MICROS_PER_LOT
  // Either one pip off the tick (when the tick is coarser than a pip) or not a whole pip.
  const bump = w.rng.chance(0.5) ? lots : 1
  return base.side === 'BUY'
    ? { ...base, makerAmountMicros: Math.max(1, base.makerAmountMicros - bump) }
    : { ...base, takerAmountMicros: base.takerAmountMicros + bump }
}

export function unusableLimit(w: WorkloadState, base: OrderInput): OrderInput {
  if (w.rng.chance(0.5)) {
    // A BUY limit below one pip: at most 99 micro-USDC for 2 shares.
    return { ...base, side: 'BUY', timeInForce: 'FAK', expirationSec: 0, makerAmountMicros: w.rng.int(1, 99), takerAmountMicros: 2_000_000 }
  }
  // SELL whose ratio rounds up to 1: 0.99999 per share.
  return { ...base, side: 'SELL', timeInForce: 'FOK', expirationSec: 0, makerAmountMicros: MICROS_PER_UNIT, takerAmountMicros: 999_999 }
}

export function tooSmall(w: WorkloadState, base: OrderInput): OrderInput {
  if (w.rng.chance(0.3)) {
    // An immediate BUY whose budget cannot buy one lot at its limit (0.003 USDC at 0.75).
    return { ...base, side: 'BUY', timeInForce: 'FAK', expirationSec: 0, makerAmountMicros: 3_000, takerAmountMicros: 4_000 }
  }
  const m = marketOfToken(w, base.tokenId)
  const minLots = m === undefined ? 1 : Math.ceil(m.input.minOrderSizeMicros / MICROS_PER_LOT)
  const lots = w.rng.int(1, Math.max(1, minLots - 1))
  return atLots(base, lots)
}

export function tooExpensive(base: OrderInput): OrderInput {
  // A million shares (within the bounds) at the order's price: more than anyone has.
  const lots = 100_000_000
  return atLots(base, lots)
}

/** The never-approved account sells shares it holds (it split some at the start). */
export function unapprovedSell(w: WorkloadState): OrderInput {
  const m = orderMarket(w)
  const a = w.accounts[w.accounts.length - 1] ?? pickAccount(w)
  const pips = onGrid(m, m.midPips + 5 * m.tickPips)
  const lots = 500
  return newOrder(w, a, m, {
    tokenId: m.input.yesTokenId, side: 'SELL', makerAmountMicros: lots * MICROS_PER_LOT,
    takerAmountMicros: pips * lots, timeInForce: 'GTC', expirationSec: 0, postOnly: false,
  })
}

/** A FOK far larger than the book, or a FAK whose limit is far from it. */
export function unfillable(w: WorkloadState, base: OrderInput): OrderInput {
  const m = marketOfToken(w, base.tokenId)
  if (m === undefined) return base
  const a = w.accounts.find((x) => x.address === base.maker) ?? pickAccount(w)
  if (w.rng.chance(0.5)) {
    const tokenId = base.tokenId
    const pips = clamp(tokenPips(w, tokenId, m.midPips) + 20 * m.tickPips, 1, 9_999)
    const free = Math.min(a.usdc.balance, a.allowance) - a.usdc.held
    const budget = clamp(Math.floor(free * 0.9), 1_000_000, 5_000_000_000)
    const ta = Math.max(budget + 1, Math.floor((budget * PIPS_PER_UNIT) / pips))
    return { ...base, side: 'BUY', timeInForce: 'FOK', expirationSec: 0, makerAmountMicros: budget, takerAmountMicros: ta, postOnly: false }
  }
  // A FAK BUY limited to one pip (0.0001) per share: far below any ask.
  return { ...base, side: 'BUY', timeInForce: 'FAK', expirationSec: 0, makerAmountMicros: 1_000_000, takerAmountMicros: 10_000_000_000, postOnly: false }
}

export function duplicate(w: WorkloadState): OrderInput {
  const accepted = w.sent.filter((x) => x.accepted)
  const pool = accepted.length > 0 && w.rng.chance(0.75) ? accepted : w.sent
  if (pool.length === 0) return limitOrder(w, 'GTC', false)
  return w.rng.pick(pool).input
}

/** `base` resized to `lots` lots at its own price (pips a lot). */
function atLots(base: OrderInput, lots: number): OrderInput {
  const pips = base.side === 'BUY'
    ? base.makerAmountMicros / (base.takerAmountMicros / MICROS_PER_LOT)
    : base.takerAmountMicros / (base.makerAmountMicros / MICROS_PER_LOT)
  return base.side === 'BUY'
    ? { ...base, makerAmountMicros: pips * lots, takerAmountMicros: lots * MICROS_PER_LOT }
    : { ...base, makerAmountMicros: lots * MICROS_PER_LOT, takerAmountMicros: pips * lots }
}
