/**
 * Turns the Yes-space stream (engine-stream.ts) into engine commands and into calls on the peer,
 * nodejs-order-book. Sizes are whole shares and prices 0.01 ticks, which both sides can carry
 * exactly. Marketable buys become FAK BUYs whose budget is exactly what the stream's own book
 * says the fills cost, so that the engine's "market buy for $X" fills the same shares as the
 * peer's IOC of N shares.
 */
import type { Command, OrderInput } from '../src/engine/command.js'
import { mulberry32, type Stream, type StreamItem } from './engine-stream.js'

export const MARKET_ID = 'bench-market'
export const YES = 'bench-yes'
export const NO = 'bench-no'
const SHARE = 1_000_000
const TICK_MICROS = 10_000
const TICK_PIPS = 100
const T0_MS = 1_700_000_000_000

type Unstamped = Command extends infer C ? (C extends Command ? Omit<C, 'seq' | 'timeMs'> : never) : never

/**
 * Ids and addresses arrive in JSON, so they are flat strings; built by concatenation they would
 * be V8 cons-strings, which cost a flattening on first hashing that real requests do not pay.
 */
function flat(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string
}

export function traderAddress(trader: number): string {
  return flat('0x' + trader.toString(16).padStart(40, '0'))
}

export function orderIdOf(id: number): string {
  return flat('0x' + id.toString(16).padStart(64, '0'))
}

/** Commands that set the stage (untimed): the market and funded, approved traders with shares. */
export function setupCommands(traders: number): Command[] {
  const commands: Command[] = []
  const add = (command: Unstamped): void => {
    commands.push({ ...command, seq: commands.length + 1, timeMs: T0_MS } as Command)
  }
  add({ kind: 'createMarket', market: {
    marketId: MARKET_ID, conditionId: '0x' + 'c'.repeat(64), question: 'Bench?', slug: 'bench', description: '',
    yesTokenId: YES, noTokenId: NO, tickSizeMicros: TICK_MICROS, minOrderSizeMicros: 0, feeRateBps: 0,
    negRisk: false, endDateMs: 0, status: 'Active' } })
  for (let trader = 0; trader < traders; trader++) {
    const address = traderAddress(trader)
    add({ kind: 'credit', address, usdcMicros: 10_000_000 * SHARE, gasMicros: 0 })
    add({ kind: 'approve', address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
    add({ kind: 'split', address, marketId: MARKET_ID, amountMicros: 3_000_000 * SHARE })
  }
  return commands
}

/**
 * The stream as engine commands, numbered after the setup. With `noShare` > 0, that share of the
 * orders is expressed on the No token (a bid at p as SELL No at 1 - p, an ask as BUY No), which
 * leaves the Yes-space book unchanged but turns matches into mints and merges.
 */
export function engineCommands(stream: Stream, firstSeq: number, noShare: number, seed: number): Command[] {
  const random = mulberry32(seed ^ 0x9e3779b9)
  const commands: Command[] = []
  for (const item of stream.items) {
    const seq = firstSeq + commands.length
    const timeMs = T0_MS + commands.length
    if (item.kind === 'cancel') {
      commands.push({ kind: 'cancelOrder', seq, timeMs, address: traderAddress(item.trader), orderId: orderIdOf(item.id) })
    } else {
      const order = orderOf(item, random() < noShare)
      commands.push({ kind: 'placeOrder', seq, timeMs, order })
    }
  }
  return commands
}

function orderOf(item: Exclude<StreamItem, { kind: 'cancel' }>, onNo: boolean): OrderInput {
  // A Yes-space bid is BUY Yes, or SELL No at the complementary price; an ask, SELL Yes or BUY No.
  const isBuy = item.isBid !== onNo
  const tick = onNo ? 100 - item.tick : item.tick
  let makerAmountMicros = isBuy ? tick * TICK_MICROS * item.size : item.size * SHARE
  let takerAmountMicros = isBuy ? item.size * SHARE : tick * TICK_MICROS * item.size
  if (item.kind === 'ioc' && isBuy && item.filled > 0) {
    // The budget is exactly the cost of the fills; the ratio must still reach the limit tick.
    makerAmountMicros = (onNo ? item.noCost : item.yesCost) * TICK_MICROS
    takerAmountMicros = Math.floor((makerAmountMicros * 10_000) / (tick * TICK_PIPS))
  }
  const trader = traderAddress(item.trader)
  return {
    orderId: orderIdOf(item.id), owner: `key-${item.trader}`, maker: trader, signer: trader,
    tokenId: onNo ? NO : YES, side: isBuy ? 'BUY' : 'SELL', makerAmountMicros, takerAmountMicros,
    expirationSec: 0, feeRateBps: 0, timeInForce: item.kind === 'ioc' ? 'FAK' : 'GTC', postOnly: false,
    clientOrderId: '',
  }
}

/** The peer's calls, pre-built so that timing covers only the order book. */
export type PeerCall =
  | { readonly kind: 'limit'; readonly options: { side: 'buy' | 'sell'; id: string; size: number; price: number; timeInForce: 'GTC' | 'IOC' } }
  | { readonly kind: 'cancel'; readonly id: string }

export function peerCalls(stream: Stream): PeerCall[] {
  return stream.items.map((item): PeerCall => item.kind === 'cancel'
    ? { kind: 'cancel', id: String(item.id) }
    : { kind: 'limit', options: { side: item.isBid ? 'buy' : 'sell', id: String(item.id), size: item.size,
        price: item.tick, timeInForce: item.kind === 'ioc' ? 'IOC' : 'GTC' } })
}
