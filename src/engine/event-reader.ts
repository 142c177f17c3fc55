/**
 * Reads a batch of events written by EventLog (event-log.ts) back as EngineEvent objects, with
 * the same fields in the same order as the engine's event types, and each command's result back
 * as its CommandResult: tests, the host, the read model and the feeds read these. Every bound and
 * index is checked: a damaged batch is an assertion, never a wrong event.
 */
import { assert } from '../stdx/assert.js'
import type { Code } from './codes.js'
import type { EngineEvent } from './event.js'
import type { CommandResult, ContextValue, KeptQuote, NotCanceled, PlaceResult } from './result.js'
import {
  type LoggedBatch,
  ASSET_NO,
  ASSET_USDC,
  ASSET_YES,
  CANCEL_REASON_CODES,
  CONTEXT_FALSE,
  CONTEXT_NUMBER,
  CONTEXT_STRING,
  CONTEXT_TRUE,
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


/** The event type of each event kind, by kind (0 is no kind). */
const EVENT_TYPES: readonly (EngineEvent['type'] | undefined)[] = [undefined, 'orderAccepted', 'orderRejected',
  'orderUpdate', 'trade', 'balance', 'bookLevel', undefined]
/** Words of each event kind but `balance` (5 or 6) and the results; `other` is any kind but the hot ones. */
const EVENT_WORDS: readonly (number | undefined)[] = [undefined, 12, 5, 7, 17, undefined, 5, 2]

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
   * Reads a command's records up to word `until` (its end in the batch): pushes the wanted events
   * and returns its result (null when the range holds none). Events nobody wants are stepped over
   * unbuilt, by their sizes.
   */
  readUntil(until: number, into: EngineEvent[], wanted?: (type: EngineEvent['type']) => boolean):
    CommandResult | null {
    assert(until >= this.offset && until <= this.end, 'a command\'s events end within the batch, after the last')
    let result: CommandResult | null = null
    while (this.offset < until) {
      const kind = this.words[this.offset]!
      if (kind >= EventKind.ResultDone) {
        assert(result === null, 'a command has one result')
        result = this.result()
      } else {
        // A JSON event's type is known once it is read; every other kind's by its kind.
        const type = EVENT_TYPES[kind]
        if (wanted !== undefined && type !== undefined && !wanted(type)) this.skip(kind)
        else {
          const event = this.next()
          if (wanted === undefined || wanted(event.type)) into.push(event)
        }
      }
    }
    assert(this.offset === until, 'a command\'s events end where the batch says')
    return result
  }

  /** Steps over an event without building it: every kind has a fixed size but `balance`'s two. */
  private skip(kind: number): void {
    if (kind === EventKind.Balance) return this.skipBalance()
    const words = EVENT_WORDS[kind]
    assert(words !== undefined, `an event batch holds an unknown kind ${kind}`)
    assert(this.offset + words <= this.end, 'an event batch ends inside an event')
    this.offset += words
  }

  private result(): CommandResult {
    const kind = this.code()
    switch (kind) {
      case EventKind.ResultDone: return { ok: true }
      case EventKind.ResultRejection: return this.rejection()
      case EventKind.ResultPlaced: return this.placed()
      case EventKind.ResultBatch: {
        const count = this.uint()
        assert(count <= this.end - this.offset, 'a batch result holds no more orders than its words')
        const results: PlaceResult[] = []
        for (let i = 0; i < count; i++) results.push(this.placeResult())
        return { ok: true, results }
      }
      case EventKind.ResultCanceled: return this.canceled()
      case EventKind.ResultAmended: return { ok: true, orderId: this.string(), sizeMatchedMicros: this.uint(),
        remainingMicros: this.uint(), reducedByMicros: this.uint() }
      case EventKind.ResultReplaced: return { ok: true, canceledOrderId: this.string(),
        canceledRemainingMicros: this.uint(), placed: this.placeResult() }
      case EventKind.ResultQuotes: return this.quotes()
      default: assert(false, `an event batch holds an unknown result kind ${kind}`)
    }
  }

  /** One order's result inside a batch's: placed, or refused with its order id. */
  private placeResult(): PlaceResult {
    const kind = this.code()
    if (kind === EventKind.ResultPlaced) return this.placed()
    assert(kind === EventKind.ResultRejection, 'a batch result holds order results')
    const rejection = this.rejection()
    assert(!rejection.ok && 'orderId' in rejection, 'an order\'s refusal names the order')
    return rejection as PlaceResult
  }

  private rejection(): CommandResult {
    const code = this.string() as Code
    const message = this.string()
    const orderIdIndex = this.uint()
    const entries = this.uint()
    let context: Record<string, ContextValue> | null = null
    if (entries > 0) {
      assert((entries - 1) * 3 <= this.end - this.offset, 'a refusal\'s context ends within its batch')
      context = {}
      for (let i = 1; i < entries; i++) {
        const key = this.string()
        assert(key !== '__proto__', 'a context key is not __proto__')
        context[key] = this.contextValue()
      }
    }
    if (orderIdIndex === 0) return { ok: false, code, message, context }
    assert(orderIdIndex <= this.strings.length, 'a result names strings of its batch')
    return { ok: false, code, message, context, orderId: this.strings[orderIdIndex - 1]! }
  }

  private contextValue(): ContextValue {
    const type = this.code()
    assert(this.offset < this.end, 'an event batch ends inside a result')
    switch (type) {
      case CONTEXT_STRING: return this.string()
      case CONTEXT_NUMBER: return this.words[this.offset++]!
      case CONTEXT_FALSE:
      case CONTEXT_TRUE:
        this.offset++
        return type === CONTEXT_TRUE
      default: assert(false, `a context value has an unknown type ${type}`)
    }
  }

  private placed(): PlaceResult {
    const orderId = this.string()
    const status = ORDER_STATUS_CODES[this.code()]
    assert(status !== undefined, 'an order status is one of the known ones')
    const makingMicros = this.uint()
    const takingMicros = this.uint()
    const feeMicros = this.uint()
    const seq = this.uint()
    const firstTrade = this.uint()
    const tradeCount = this.uint()
    assert(tradeCount <= 2 ** 20, 'a placement\'s trades are counted')
    const tradeIds: string[] = []
    for (let k = firstTrade; k < firstTrade + tradeCount; k++) tradeIds.push(tradeIdOf(seq, k))
    return { ok: true, orderId, status, makingMicros, takingMicros, feeMicros, tradeIds }
  }

  private canceled(): CommandResult {
    const canceledCount = this.uint()
    const notCanceledCount = this.uint()
    assert(canceledCount + notCanceledCount * 2 <= this.end - this.offset, 'a cancel result ends within its batch')
    const canceled: string[] = []
    for (let i = 0; i < canceledCount; i++) canceled.push(this.string())
    const notCanceled: NotCanceled[] = []
    for (let i = 0; i < notCanceledCount; i++) notCanceled.push({ orderId: this.string(), reason: this.string() })
    return { ok: true, canceled, notCanceled }
  }

  private quotes(): CommandResult {
    const canceledCount = this.uint()
    const keptCount = this.uint()
    const placedCount = this.uint()
    assert(canceledCount + keptCount * 2 + placedCount <= this.end - this.offset,
      'a quote result ends within its batch')
    const canceled: string[] = []
    for (let i = 0; i < canceledCount; i++) canceled.push(this.string())
    const kept: KeptQuote[] = []
    for (let i = 0; i < keptCount; i++) {
      const orderId = this.string()
      const reasonIndex = this.uint()
      assert(reasonIndex <= this.strings.length, 'a result names strings of its batch')
      kept.push({ orderId, reason: reasonIndex === 0 ? null : this.strings[reasonIndex - 1]! })
    }
    const placed: PlaceResult[] = []
    for (let i = 0; i < placedCount; i++) placed.push(this.placeResult())
    return { ok: true, canceledQuotes: canceled, keptQuotes: kept, newQuotes: placed }
  }

  /** One record (an event, pushed, or a result, dropped): readEvents' step when no ends are known. */
  readRecord(into: EngineEvent[]): void {
    const kind = this.words[this.offset]!
    if (kind >= EventKind.ResultDone) this.result()
    else into.push(this.next())
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

/** Every event of a batch, in order (the results are read and left out). */
export function readEvents(batch: LoggedBatch): EngineEvent[] {
  const events: EngineEvent[] = []
  const reader = new EventReader(batch)
  while (!reader.atEnd) reader.readRecord(events)
  return events
}
