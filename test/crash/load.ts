/**
 * The crash test's command stream: command `index` is a pure function of (seed, index), so the
 * parent can regenerate any command a child submitted and compare it with the journal. It mixes
 * credits, approvals, splits, resting orders on both tokens (so trades, mints and merges happen),
 * cancels of earlier orders and the odd rejected command.
 */
import type { OrderInput, UnstampedCommand } from '../../src/engine/command.js'

export const MARKET_ID = 'crash-market'
export const YES = 'crash-yes'
export const NO = 'crash-no'
const TRADERS = 8

export function traderOf(n: number): string {
  return '0x' + (n + 1).toString(16).padStart(40, '0')
}

export function orderIdOf(seed: number, index: number): string {
  return '0x' + seed.toString(16).padStart(8, '0') + index.toString(16).padStart(56, '0')
}

/** A small integer hash: the stream's only source of variety. */
function mix(seed: number, index: number, salt: number): number {
  let x = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + salt * 0x632be5ab, 0xc2b2ae35)) >>> 0
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0
  return (x ^ (x >>> 16)) >>> 0
}

export function commandOf(seed: number, index: number): UnstampedCommand {
  if (index === 0) {
    return { kind: 'createMarket', market: {
      marketId: MARKET_ID, conditionId: '0x' + 'a'.repeat(64), question: 'Crash?', slug: 'crash', description: '',
      yesTokenId: YES, noTokenId: NO, tickSizeMicros: 10_000, minOrderSizeMicros: 0, feeRateBps: 10, negRisk: false,
      endDateMs: 0, status: 'Active' } }
  }
  const trader = traderOf(mix(seed, index, 1) % TRADERS)
  const roll = mix(seed, index, 2) % 100
  if (roll < 4) return { kind: 'credit', address: trader, usdcMicros: 1_000_000_000, gasMicros: 0 }
  if (roll < 6) return { kind: 'approve', address: trader, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER }
  if (roll < 9) return { kind: 'split', address: trader, marketId: MARKET_ID, amountMicros: 50_000_000 }
  if (roll < 25) {
    const target = mix(seed, index, 3) % index
    return { kind: 'cancelOrder', address: trader, orderId: orderIdOf(seed, target) }
  }
  return { kind: 'placeOrder', order: orderOf(seed, index, trader) }
}

function orderOf(seed: number, index: number, trader: string): OrderInput {
  const isBuy = mix(seed, index, 4) % 2 === 0
  const onNo = mix(seed, index, 5) % 3 === 0
  const priceMicros = (35 + (mix(seed, index, 6) % 31)) * 10_000
  const sizeMicros = (1 + (mix(seed, index, 7) % 20)) * 1_000_000
  const cost = (priceMicros * sizeMicros) / 1_000_000
  return {
    orderId: orderIdOf(seed, index), owner: `key-${trader}`, maker: trader, signer: trader, tokenId: onNo ? NO : YES,
    side: isBuy ? 'BUY' : 'SELL', makerAmountMicros: isBuy ? cost : sizeMicros, takerAmountMicros: isBuy ? sizeMicros : cost,
    expirationSec: 0, feeRateBps: 10, timeInForce: mix(seed, index, 8) % 10 === 0 ? 'FAK' : 'GTC', postOnly: false,
    clientOrderId: '',
  }
}
