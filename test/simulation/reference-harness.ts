/**
 * What the reference model's own tests share (reference-*.test.ts): a harness that numbers and
 * times commands for the reference engine, the accounts and markets the scenarios use, order
 * builders, and the invariants every scenario checks (conservation of USDC and shares).
 */
import type {
  Command, MarketInput, OrderGroupAction, OrderInput, SelfTradePrevention, Side, TimeInForce
} from '../../src/engine/command.js'
import type { EngineEvent, OrderUpdate } from '../../src/engine/event.js'
import type { CommandResult, Rejection } from '../../src/engine/result.js'
import type { StateSummary } from '../../src/engine/summary.js'
import { Code, CODE_MESSAGES } from '../../src/engine/codes.js'
import { ALLOWANCE_MICROS_UNLIMITED } from '../../src/engine/limits.js'
import { ReferenceEngine } from './reference.js'

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/** A command without its stamp (the harness numbers and times it). */
export type Body = Command extends infer C ? (C extends Command ? Omit<C, 'seq' | 'timeMs'> : never) : never
export const T0 = 1_700_000_000_000
export const ALICE = `0x${'a'.repeat(40)}`
export const BOB = `0x${'b'.repeat(40)}`
export const CAROL = `0x${'c'.repeat(40)}`
export const DAVE = `0x${'d'.repeat(40)}`
export const ALICE_SIGNER = `0x${'e'.repeat(40)}`
/** Market M: no fee, tick 0.01, min size one lot. Market F: 100 bps. */
export const M = { id: 'market-m', yes: '1001', no: '1002' }
export const F = { id: 'market-f', yes: '2001', no: '2002' }
export const USDC = 1_000_000
export class Harness {
  readonly ref = new ReferenceEngine()
  seq = 0
  timeMs = T0

  run(body: Body, advanceMs = 1_000): { result: CommandResult; events: EngineEvent[] } {
    this.seq += 1
    this.timeMs += advanceMs
    return this.ref.apply({ ...body, seq: this.seq, timeMs: this.timeMs } as Command)
  }

  place(order: OrderInput): { result: CommandResult; events: EngineEvent[] } {
    return this.run({ kind: 'placeOrder', order })
  }

  summary(): StateSummary {
    return this.ref.summary()
  }

  usdc(address: string): number {
    return this.account(address)?.usdcMicros ?? 0
  }

  shares(address: string, tokenId: string): number {
    return this.account(address)?.shares.find((s) => s.tokenId === tokenId)?.balanceMicros ?? 0
  }

  held(address: string, asset: string): number {
    const a = this.account(address)
    if (asset === 'USDC') return a?.usdcHeldMicros ?? 0
    return a?.shares.find((s) => s.tokenId === asset)?.heldMicros ?? 0
  }

  market(id: string): StateSummary['markets'][number] | undefined {
    return this.summary().markets.find((m) => m.marketId === id)
  }

  private account(address: string): StateSummary['accounts'][number] | undefined {
    return this.summary().accounts.find((a) => a.address === address)
  }
}
export function marketInput(m: { id: string; yes: string; no: string }, feeRateBps: number): MarketInput {
  return {
    marketId: m.id,
    conditionId: `0x${m.yes.padStart(64, '0')}`,
    question: `Question ${m.id}?`,
    slug: m.id,
    description: '',
    yesTokenId: m.yes,
    noTokenId: m.no,
    tickSizeMicros: 10_000,
    minOrderSizeMicros: 10_000,
    feeRateBps,
    negRisk: false,
    endDateMs: 0,
    status: 'Active',
  }
}
/** Two markets; each account credited 1 000 USDC, approved, and holding 100 full sets of M. */
export function setup(accounts: readonly string[] = [ALICE, BOB, CAROL, DAVE]): Harness {
  const h = new Harness()
  h.run({ kind: 'createMarket', market: marketInput(M, 0) })
  h.run({ kind: 'createMarket', market: marketInput(F, 100) })
  for (const address of accounts) {
    h.run({ kind: 'credit', address, usdcMicros: 1_000 * USDC, gasMicros: 0 })
    h.run({ kind: 'approve', address, usdcAllowanceMicros: ALLOWANCE_MICROS_UNLIMITED })
    h.run({ kind: 'split', address, marketId: M.id, amountMicros: 100 * USDC })
  }
  return h
}
export interface OrderOptions {
  readonly tif?: TimeInForce
  readonly postOnly?: boolean
  readonly expirationSec?: number
  readonly feeRateBps?: number
  readonly signer?: string
  /** Self-trade prevention; absent when not given. */
  readonly stp?: SelfTradePrevention
}
/** A resting-style order at `pips` (0.0001 USDC) for `lots` (0.01 share), as clob-client builds it. */
export function limit(
  id: string,
  maker: string,
  tokenId: string,
  side: Side,
  pips: number,
  lots: number,
  o: OrderOptions = {},
): OrderInput {
  return {
    orderId: id,
    owner: `key-${maker.slice(2, 6)}`,
    maker,
    signer: o.signer ?? maker,
    tokenId,
    side,
    makerAmountMicros: side === 'BUY' ? pips * lots : lots * 10_000,
    takerAmountMicros: side === 'BUY' ? lots * 10_000 : pips * lots,
    expirationSec: o.expirationSec ?? 0,
    feeRateBps: o.feeRateBps ?? 0,
    timeInForce: o.tif ?? 'GTC',
    postOnly: o.postOnly ?? false,
    clientOrderId: '',
    ...(o.stp === undefined ? {} : { selfTradePrevention: o.stp }),
  }
}
/** An immediate order with explicit amounts (BUY: budget and limit ratio; SELL: shares). */
export function immediate(
  id: string,
  maker: string,
  tokenId: string,
  side: Side,
  ma: number,
  ta: number,
  tif: 'FOK' | 'FAK',
  feeRateBps = 0,
): OrderInput {
  return { ...limit(id, maker, tokenId, side, 1, 1, { tif, feeRateBps }), makerAmountMicros: ma, takerAmountMicros: ta }
}
/** `order` with self-trade prevention `mode` (any value: malformed ones too). */
export function withMode(order: OrderInput, mode: unknown): OrderInput {
  return { ...order, selfTradePrevention: mode as SelfTradePrevention }
}
export function ofType<K extends EngineEvent['type']>(events: readonly EngineEvent[], type: K): Extract<EngineEvent, { type: K }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: K }> => e.type === type)
}
export function update(orderId: string, maker: string, status: OrderUpdate['status'], matched: number, remaining: number, reason: OrderUpdate['reason']): OrderUpdate {
  return { type: 'orderUpdate', orderId, maker, status, sizeMatchedMicros: matched, remainingMicros: remaining, reason }
}
/** The one assertion checkConservation needs from a tap test. */
export interface Asserts {
  equal(found: number, wanted: number, message: string): boolean
}
/** Credited USDC = balances + collateral + fees, exactly (docs/engine.md, Invariants). */
export function checkConservation(t: Asserts, s: StateSummary): void {
  const balances = s.accounts.reduce((sum, a) => sum + a.usdcMicros, 0)
  const collateral = s.markets.reduce((sum, m) => sum + m.collateralMicros, 0)
  t.equal(balances + collateral + s.feesMicros, s.creditedMicros, 'USDC is conserved')
}
/** Token id -> its market and outcome, learnt from marketCreated events. */
export type TokenMap = Map<string, { readonly marketId: string; readonly yes: boolean }>
/**
 * The other invariants of docs/engine.md that a summary shows: shares conserved per market,
 * holds within balances, books not crossed in Yes-space. Returns the first violation, or ''.
 */
export function invariantViolation(s: StateSummary, tokens: TokenMap): string {
  const supply = new Map<string, number>()
  for (const a of s.accounts) {
    if (a.usdcHeldMicros > Math.min(a.usdcMicros, a.usdcAllowanceMicros)) return `USDC hold of ${a.address}`
    for (const sh of a.shares) {
      if (sh.heldMicros > sh.balanceMicros || sh.balanceMicros < 0) return `shares of ${a.address}`
      supply.set(sh.tokenId, (supply.get(sh.tokenId) ?? 0) + sh.balanceMicros)
    }
  }
  for (const [tokenId, { marketId, yes }] of tokens) {
    const m = s.markets.find((x) => x.marketId === marketId)
    const redeemed = yes ? m?.redeemedYesMicros : m?.redeemedNoMicros
    const expected = (m?.mintedMicros ?? 0) - (m?.mergedMicros ?? 0) - (redeemed ?? 0)
    if ((supply.get(tokenId) ?? 0) !== expected) return `supply of ${tokenId}`
  }
  const bestBid = new Map<string, number>()
  const bestAsk = new Map<string, number>()
  for (const o of s.openOrders) {
    const token = tokens.get(o.tokenId)
    if (token === undefined) return `unknown token ${o.tokenId}`
    const yesPrice = token.yes ? o.priceMicros : 1_000_000 - o.priceMicros
    if ((o.side === 'BUY') === token.yes) bestBid.set(token.marketId, Math.max(bestBid.get(token.marketId) ?? 0, yesPrice))
    else bestAsk.set(token.marketId, Math.min(bestAsk.get(token.marketId) ?? 1_000_000, yesPrice))
  }
  for (const [marketId, bid] of bestBid) if (bid >= (bestAsk.get(marketId) ?? 1_000_000)) return `crossed ${marketId}`
  return ''
}
// ---------------------------------------------------------------------------------------------
// Mass quotes
// ---------------------------------------------------------------------------------------------

/** The API keys of the harness's orders (`limit` names the owner after the maker). */
export const KEY_A = 'key-aaaa'
export const KEY_B = 'key-bbbb'
/** A mass quote of Alice's key on market M unless told otherwise. */
export function quote(keep: readonly unknown[], orders: readonly OrderInput[], o: { address?: string; owner?: string; marketId?: string } = {}): Body {
  return { kind: 'massQuote', address: o.address ?? ALICE, owner: o.owner ?? KEY_A, marketId: o.marketId ?? M.id, keep: keep as string[], orders }
}
export function refusal(code: Code, context: Rejection['context']): Rejection {
  return { ok: false, code, message: CODE_MESSAGES[code], context }
}
/** The events of a command but the aggregated ones (balance, bookLevel). */
export function stepEvents(events: readonly EngineEvent[]): EngineEvent[] {
  return events.filter((e) => e.type !== 'balance' && e.type !== 'bookLevel')
}
/** An orderGroup command (limits default: none, a 5 s window, no freeze); any value may be given. */
export function groupCommand(action: unknown, owner: string, groupId: unknown, l: Limits = {}, address = ALICE): Body {
  return {
    kind: 'orderGroup', action: action as OrderGroupAction, address, owner, groupId: groupId as string,
    contractsLimitMicros: l.contracts ?? 0, notionalLimitMicros: l.notional ?? 0, windowMs: l.windowMs ?? 5_000, freezeMs: l.freezeMs ?? 0,
  }
}
/** `order` joining group `groupId` (any value: malformed ones too). */
export function inGroup(order: OrderInput, groupId: unknown): OrderInput {
  return { ...order, orderGroupId: groupId as string }
}

export interface Limits {
  readonly contracts?: number
  readonly notional?: number
  readonly windowMs?: number
  readonly freezeMs?: number
}
