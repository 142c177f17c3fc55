/**
 * A test harness around the engine: stamps commands with the next sequence number and a clock
 * the test controls, builds orders the way clob-client does (price x size in micro-units), and
 * checks every invariant after every command, so each unit test also tests the invariants.
 */
import { Engine, type ApplyResult } from '../../src/engine/engine.js'
import type { Command, MarketInput, OrderInput, Side, TimeInForce } from '../../src/engine/command.js'
import { checkInvariants } from '../../src/engine/invariants.js'
import type { EngineEvent } from '../../src/engine/event.js'

type Unstamped<C> = C extends Command ? Omit<C, 'seq' | 'timeMs'> : never

export const T0_MS = 1_700_000_000_000
export const USDC = 1_000_000

/** An address from a small number, as a 0x + 40 hex string. */
export function addressOf(n: number): string {
  return '0x' + n.toString(16).padStart(40, '0')
}

/** A market `id` with tokens `<id>-yes` and `<id>-no`: Active, tick 0.01, min size 1, no fee, unless `overrides` say. */
export function marketInputOf(id: string, overrides: Partial<MarketInput> = {}): MarketInput {
  return {
    marketId: id,
    conditionId: `0xcond-${id}`,
    question: `Will ${id} happen?`,
    slug: `slug-${id}`,
    description: '',
    yesTokenId: `${id}-yes`,
    noTokenId: `${id}-no`,
    tickSizeMicros: 10_000,
    minOrderSizeMicros: 1_000_000,
    feeRateBps: 0,
    negRisk: false,
    endDateMs: 0,
    status: 'Active',
    ...overrides,
  }
}

export interface MarketOptions {
  readonly id?: string
  readonly tickSizeMicros?: number
  readonly minOrderSizeMicros?: number
  readonly feeRateBps?: number
  readonly status?: 'Active' | 'Upcoming'
}

export interface OrderOptions {
  readonly maker: string
  readonly tokenId: string
  readonly side: Side
  /** Price in micro-USDC per share. */
  readonly priceMicros: number
  /** Size in micro-shares. */
  readonly sizeMicros: number
  readonly timeInForce?: TimeInForce
  readonly postOnly?: boolean
  readonly expirationSec?: number
  readonly feeRateBps?: number
  readonly orderId?: string
  /** '' (none) unless given. */
  readonly clientOrderId?: string
  /** The API key that places it; `key-<maker>` unless given. */
  readonly owner?: string
}

export class Harness {
  readonly engine: Engine
  timeMs = T0_MS
  private orderCounter = 0
  /** All events so far. */
  readonly log: EngineEvent[] = []
  /** All commands applied so far, as stamped, and what each returned. */
  readonly commands: Command[] = []
  readonly results: ApplyResult[] = []

  constructor(engine: Engine = new Engine()) {
    this.engine = engine
    if (engine.timeMs > this.timeMs) this.timeMs = engine.timeMs
  }

  apply(command: Unstamped<Command>): ApplyResult {
    const stamped = { ...command, seq: this.engine.seq + 1, timeMs: this.timeMs } as Command
    this.commands.push(stamped)
    const applied = this.engine.apply(stamped)
    checkInvariants(this.engine)
    this.results.push(applied)
    this.log.push(...applied.events)
    return applied
  }

  /** Creates a market with tokens `<id>-yes` and `<id>-no`; returns their ids. */
  market(options: MarketOptions = {}): { marketId: string; yes: string; no: string } {
    const id = options.id ?? `m${this.engine.markets.length + 1}`
    const market = marketInputOf(id, {
      tickSizeMicros: options.tickSizeMicros ?? 10_000,
      minOrderSizeMicros: options.minOrderSizeMicros ?? 1_000_000,
      feeRateBps: options.feeRateBps ?? 0,
      status: options.status ?? 'Active',
    })
    const { result } = this.apply({ kind: 'createMarket', market })
    if (!result.ok) throw new Error(`createMarket failed: ${JSON.stringify(result)}`)
    return { marketId: id, yes: market.yesTokenId, no: market.noTokenId }
  }

  /** Credits USDC and approves the exchange for everything. */
  fund(address: string, usdcMicros: number): void {
    const credited = this.apply({ kind: 'credit', address, usdcMicros, gasMicros: 0 })
    if (!credited.result.ok) throw new Error('credit failed')
    this.apply({ kind: 'approve', address, usdcAllowanceMicros: Number.MAX_SAFE_INTEGER })
  }

  /** Gives an address full sets of a market (it must be funded). */
  split(address: string, marketId: string, amountMicros: number): void {
    const { result } = this.apply({ kind: 'split', address, marketId, amountMicros })
    if (!result.ok) throw new Error(`split failed: ${JSON.stringify(result)}`)
  }

  /** A limit order built like clob-client: BUY maker = price x size, taker = size. */
  order(options: OrderOptions): OrderInput {
    const cost = (options.priceMicros * options.sizeMicros) / USDC
    if (!Number.isInteger(cost)) throw new Error('price x size must be whole micro-units')
    const isBuy = options.side === 'BUY'
    return {
      orderId: options.orderId ?? `0x${(++this.orderCounter).toString(16).padStart(64, '0')}`,
      owner: options.owner ?? `key-${options.maker}`,
      maker: options.maker,
      signer: options.maker,
      tokenId: options.tokenId,
      side: options.side,
      makerAmountMicros: isBuy ? cost : options.sizeMicros,
      takerAmountMicros: isBuy ? options.sizeMicros : cost,
      expirationSec: options.expirationSec ?? 0,
      feeRateBps: options.feeRateBps ?? 0,
      timeInForce: options.timeInForce ?? 'GTC',
      postOnly: options.postOnly ?? false,
      clientOrderId: options.clientOrderId ?? '',
    }
  }

  place(order: OrderInput): ApplyResult {
    return this.apply({ kind: 'placeOrder', order })
  }

  /** Events of one type from an apply result. */
  static eventsOf<T extends EngineEvent['type']>(applied: ApplyResult, type: T): Extract<EngineEvent, { type: T }>[] {
    return applied.events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type)
  }
}
