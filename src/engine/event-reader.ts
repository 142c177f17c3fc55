/**
 * Reads a batch of events written by EventLog (event-log.ts) back as EngineEvent objects, with
 * the same fields in the same order as the engine's event types: tests, the read model and the
 * feeds read these. Every bound and index is checked: a damaged batch is an assertion, never a
 * wrong event.
 */
import { assert } from '../stdx/assert.js'
import type { Code } from './codes.js'
import type { EngineEvent } from './event.js'
import {
  type LoggedBatch,
  ASSET_NO,
  ASSET_USDC,
  ASSET_YES,
  CANCEL_REASON_CODES,
  EventKind,
  FLAG_BUY,
  FLAG_NO,
  FLAG_POST_ONLY,
  MATCH_TYPE_CODES,
  ORDER_STATUS_CODES,
  TIME_IN_FORCE_CODES,
  TIME_IN_FORCE_SHIFT,
} from './event-log.js'
import { tradeIdOf } from './ids.js'
import { MICROS_PER_LOT, MICROS_PER_PIP, PIPS_PER_UNIT } from './limits.js'


/** Reads the events of one batch in order; `wanted` picks the kinds kept (all by default). */
export class EventReader {
  private offset = 0
  private readonly words: Float64Array
  private readonly strings: readonly string[]
  private readonly end: number

  constructor(batch: LoggedBatch) {
    this.words = batch.words
    this.strings = batch.strings
    this.end = batch.words.length
  }

  get atEnd(): boolean {
    return this.offset === this.end
  }

  /**
   * Reads events up to word `until` (a command's end in the batch), pushing the wanted ones. The
   * most numerous kind nobody may want, `balance`, and `orderRejected` are stepped over unbuilt.
   */
  readUntil(until: number, into: EngineEvent[], wanted?: (type: EngineEvent['type']) => boolean): void {
    assert(until >= this.offset && until <= this.end, 'a command\'s events end within the batch, after the last')
    while (this.offset < until) {
      const kind = this.words[this.offset]!
      if (wanted !== undefined && kind === EventKind.Balance && !wanted('balance')) this.skipBalance()
      else if (wanted !== undefined && kind === EventKind.OrderRejected && !wanted('orderRejected')) this.offset += 5
      else {
        const event = this.next()
        if (wanted === undefined || wanted(event.type)) into.push(event)
      }
    }
    assert(this.offset === until, 'a command\'s events end where the batch says')
  }

  /** Kind, account, asset, [market,] balance, held. */
  private skipBalance(): void {
    this.offset += 2
    // Read first: `offset += this.code() ...` would add to the offset from before the read.
    const asset = this.code()
    this.offset += asset === ASSET_USDC ? 2 : 3
  }

  private next(): EngineEvent {
    const kind = this.code() as EventKind
    switch (kind) {
      case EventKind.OrderAccepted: return this.orderAccepted()
      case EventKind.OrderRejected:
        return { type: 'orderRejected', orderId: this.string(), maker: this.string(), code: this.string() as Code,
          message: this.string() }
      case EventKind.OrderUpdate: return this.orderUpdate()
      case EventKind.Trade: return this.trade()
      case EventKind.Balance: return this.balance()
      case EventKind.BookLevel: return this.bookLevel()
      case EventKind.Other: return this.other()
      default: assert(false, `an event batch holds an unknown kind ${kind as number}`)
    }
  }

  private orderAccepted(): EngineEvent {
    const order = this.entity(2)
    const market = this.entity(3)
    const maker = this.entity(1)
    const flags = this.code()
    const isNo = (flags & FLAG_NO) !== 0
    const isBuy = (flags & FLAG_BUY) !== 0
    const timeInForce = TIME_IN_FORCE_CODES[flags >> TIME_IN_FORCE_SHIFT]
    assert(timeInForce !== undefined, 'a time in force is one of the known ones')
    const signer = this.string()
    const pips = this.uint()
    const makerAmountMicros = this.uint()
    const takerAmountMicros = this.uint()
    const expirationSec = this.uint()
    const clientOrderId = this.string()
    const timeMs = this.uint()
    return {
      type: 'orderAccepted',
      orderId: this.strings[order]!,
      marketId: this.strings[market]!,
      tokenId: this.strings[market + (isNo ? 2 : 1)]!,
      outcome: isNo ? 'No' : 'Yes',
      side: isBuy ? 'BUY' : 'SELL',
      owner: this.strings[order + 1]!,
      maker: this.strings[maker]!,
      signer,
      priceMicros: pips * MICROS_PER_PIP,
      originalSizeMicros: isBuy ? takerAmountMicros : makerAmountMicros,
      makerAmountMicros,
      takerAmountMicros,
      timeInForce,
      postOnly: (flags & FLAG_POST_ONLY) !== 0,
      expirationSec,
      clientOrderId,
      timeMs,
    }
  }

  private orderUpdate(): EngineEvent {
    const order = this.entity(2)
    const maker = this.entity(1)
    const status = ORDER_STATUS_CODES[this.code()]
    assert(status !== undefined, 'an order status is one of the known ones')
    const matchedLots = this.uint()
    const lots = this.uint()
    const reason = CANCEL_REASON_CODES[this.code()]
    assert(reason !== undefined, 'a cancel reason is one of the known ones')
    return {
      type: 'orderUpdate',
      orderId: this.strings[order]!,
      maker: this.strings[maker]!,
      status,
      sizeMatchedMicros: matchedLots * MICROS_PER_LOT,
      remainingMicros: lots * MICROS_PER_LOT,
      reason,
    }
  }

  private trade(): EngineEvent {
    const seq = this.uint()
    const k = this.uint()
    const market = this.entity(3)
    const matchType = MATCH_TYPE_CODES[this.code()]
    assert(matchType !== undefined, 'a match type is one of the known ones')
    const taker = this.entity(2)
    const takerAccount = this.entity(1)
    const takerFlags = this.code()
    const takerPips = this.uint()
    const lots = this.uint()
    const feeMicros = this.uint()
    const feeRateBps = this.uint()
    const maker = this.entity(2)
    const makerAccount = this.entity(1)
    const makerFlags = this.code()
    const makerPips = this.uint()
    const timeMs = this.uint()
    const takerIsNo = (takerFlags & FLAG_NO) !== 0
    const makerIsNo = (makerFlags & FLAG_NO) !== 0
    return {
      type: 'trade',
      tradeId: tradeIdOf(seq, k),
      marketId: this.strings[market]!,
      matchType,
      takerOrderId: this.strings[taker]!,
      takerAddress: this.strings[takerAccount]!,
      takerOwner: this.strings[taker + 1]!,
      tokenId: this.strings[market + (takerIsNo ? 2 : 1)]!,
      outcome: takerIsNo ? 'No' : 'Yes',
      side: (takerFlags & FLAG_BUY) !== 0 ? 'BUY' : 'SELL',
      priceMicros: takerPips * MICROS_PER_PIP,
      sizeMicros: lots * MICROS_PER_LOT,
      feeMicros,
      feeRateBps,
      makerOrderId: this.strings[maker]!,
      makerAddress: this.strings[makerAccount]!,
      makerOwner: this.strings[maker + 1]!,
      makerTokenId: this.strings[market + (makerIsNo ? 2 : 1)]!,
      makerOutcome: makerIsNo ? 'No' : 'Yes',
      makerSide: (makerFlags & FLAG_BUY) !== 0 ? 'BUY' : 'SELL',
      makerPriceMicros: makerPips * MICROS_PER_PIP,
      timeMs,
    }
  }

  private balance(): EngineEvent {
    const account = this.entity(1)
    const asset = this.code()
    assert(asset === ASSET_USDC || asset === ASSET_YES || asset === ASSET_NO, 'a balance\'s asset is USDC or a token')
    const tokenId = asset === ASSET_USDC ? 'USDC' : this.strings[this.entity(3) + asset]!
    return { type: 'balance', address: this.strings[account]!, asset: tokenId, balanceMicros: this.uint(),
      heldMicros: this.uint() }
  }

  private bookLevel(): EngineEvent {
    const market = this.entity(3)
    const flags = this.code()
    const isNo = (flags & FLAG_NO) !== 0
    const pips = this.uint()
    assert(pips < PIPS_PER_UNIT, 'a book level\'s price is below one')
    return {
      type: 'bookLevel',
      marketId: this.strings[market]!,
      tokenId: this.strings[market + (isNo ? 2 : 1)]!,
      side: (flags & FLAG_BUY) !== 0 ? 'BUY' : 'SELL',
      priceMicros: pips * MICROS_PER_PIP,
      sizeMicros: this.uint() * MICROS_PER_LOT,
    }
  }

  private other(): EngineEvent {
    const event = JSON.parse(this.string()) as EngineEvent
    assert(typeof event === 'object' && event !== null && typeof event.type === 'string', 'a JSON event has a type')
    return event
  }

  /** An entity of `count` strings: the index of its first one in the batch's list. */
  private entity(count: number): number {
    const first = this.uint()
    assert(first + count <= this.strings.length, 'an event names strings of its batch')
    return first
  }

  private string(): string {
    const index = this.uint()
    assert(index < this.strings.length, 'an event names strings of its batch')
    return this.strings[index]!
  }

  /** A small code: a kind, a flag set or an index into a list of names. */
  private code(): number {
    const value = this.uint()
    assert(value < 0x100, 'an event code is below 256')
    return value
  }

  private uint(): number {
    assert(this.offset < this.end, 'an event batch ends inside an event')
    const value = this.words[this.offset++]!
    assert(Number.isSafeInteger(value) && value >= 0, 'an event field is a safe integer, not negative')
    return value
  }
}

/** Every event of a batch, in order. */
export function readEvents(batch: LoggedBatch): EngineEvent[] {
  const events: EngineEvent[] = []
  new EventReader(batch).readUntil(batch.words.length, events)
  return events
}
