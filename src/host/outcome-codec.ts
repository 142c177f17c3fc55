/**
 * The binary form of a batch of outcomes on their way from the engine worker to the main thread
 * (issue 13, point 2). Structured clone (postMessage of objects) cost more per outcome than the
 * engine spent applying the command: V8 serialises every object and every string on its own,
 * and a batch repeats the same strings (market, token, order ids, addresses, field names) many
 * times. Here a batch is one ArrayBuffer, transferred (not copied), in which every string is
 * written once and named by its index afterwards, object keys included.
 *
 * The encoding is generic over plain values (null, undefined, booleans, numbers, strings, arrays,
 * plain objects), so a new field or event kind crosses without a schema to keep in step; the
 * round trip is exact (integers as LEB128, any other number as its float64 bits, unchanged). The
 * decoder checks every bound, like the journal's reader: a malformed batch is an assertion, not
 * a wrong answer.
 *
 * Layout: count, then per outcome: requestId, seq, timeMs (unsigned LEB128), recorded (a value),
 * result (a value), eventsEnd (LEB128). A result of one of the engine's common shapes
 * (result-shape.ts) is written by position under a tag of its own, keys left out, and the ids in
 * it that are new in every outcome (an order's id, its trade ids) as lone strings (a length with
 * a UTF-8 flag, then the bytes), outside the string table.
 *
 * Then the events, as the engine wrote them (engine/event-log.ts; issue 30): a byte saying whether
 * they are there (they are not while nobody on the main thread reads events), the batch's strings
 * (a count, then each as a lone string), the count of words, zero bytes up to a multiple of 8, and
 * the words' own bytes, copied in one go. Each outcome's `eventsEnd` is the word its command's
 * events end at. The main thread reads them with the engine's EventReader, keeping only the kinds
 * that cross (messages.ts, EVENTS_CROSSING).
 */
import type { EngineEvent, OrderStatus } from '../engine/event.js'
import type { EventLog } from '../engine/event-log.js'
import { EventReader } from '../engine/event-reader.js'
import type { CommandResult } from '../engine/result.js'
import { assert } from '../stdx/assert.js'
import { crosses, type AppliedOutcome, type Outcome } from './messages.js'
import { ORDER_STATUSES, ResultShape, resultShapeOf } from './result-shape.js'

const enum Tag {
  Null = 0,
  Undefined = 1,
  False = 2,
  True = 3,
  Uint = 4,
  NegativeInt = 5,
  Float = 6,
  /** A string not seen before in this batch, every char below 0x80: its length, then a byte per char. */
  AsciiNew = 7,
  /** A string not seen before, with a char of 0x80 or above: its UTF-8 byte length, then the bytes. */
  Utf8New = 8,
  /** A string seen before in this batch: its index in order of first appearance. */
  StringRef = 9,
  Array = 10,
  Object = 11,
  /** A result of a shape of result-shape.ts: this tag plus the shape, then its values by position. */
  Result = 12,
}

const encoder = new TextEncoder()
// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/
const utf8Decoder = new TextDecoder('utf-8', { fatal: true })
const INITIAL_BYTES = 1 << 16

/** Encodes batches on the worker; one per worker, reused batch after batch. */
export class OutcomeWriter {
  private buffer = Buffer.allocUnsafe(INITIAL_BYTES)
  private view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength)
  private length = 0
  private readonly strings = new Map<string, number>()

  /**
   * The batch as a new ArrayBuffer of its exact size, to be transferred. `log` holds the events of
   * exactly these outcomes (null: send none); the caller clears it after.
   */
  encode(outcomes: readonly AppliedOutcome[], log: EventLog | null): ArrayBuffer {
    this.length = 0
    this.strings.clear()
    this.uint(outcomes.length)
    for (const outcome of outcomes) {
      this.uint(outcome.requestId)
      this.uint(outcome.seq)
      this.uint(outcome.timeMs)
      this.value(outcome.recorded)
      this.result(outcome.result)
      this.uint(log === null ? 0 : outcome.eventsEnd)
    }
    this.events(log)
    // Strings of a big batch are not kept alive by the writer until the next one.
    this.strings.clear()
    return this.buffer.buffer.slice(this.buffer.byteOffset, this.buffer.byteOffset + this.length)
  }

  private events(log: EventLog | null): void {
    this.tag(log === null ? Tag.False : Tag.True)
    if (log === null) return
    this.uint(log.stringCount)
    for (let i = 0; i < log.stringCount; i++) this.asciiOrUtf8(log.strings[i]!)
    const words = log.view()
    this.uint(words.length)
    this.reserve(7 + words.byteLength)
    while (this.length % Float64Array.BYTES_PER_ELEMENT !== 0) this.buffer[this.length++] = 0
    this.buffer.set(new Uint8Array(words.buffer, words.byteOffset, words.byteLength), this.length)
    this.length += words.byteLength
  }

  /** A lone string copied natively: most are ASCII (ids, addresses), checked by one regular expression. */
  private asciiOrUtf8(value: string): void {
    if (!ASCII.test(value)) return this.loneString(value)
    this.reserve(8 + value.length)
    this.uint(value.length * 2)
    this.length += this.buffer.write(value, this.length, 'latin1')
  }

  private value(value: unknown): void {
    switch (typeof value) {
      case 'string': return this.string(value)
      case 'number': return this.number(value)
      case 'boolean': return this.tag(value ? Tag.True : Tag.False)
      case 'undefined': return this.tag(Tag.Undefined)
      case 'object':
        if (value === null) return this.tag(Tag.Null)
        if (Array.isArray(value)) return this.array(value)
        return this.object(value as Record<string, unknown>)
      default:
        assert(false, `an outcome holds only plain values, not a ${typeof value}`)
    }
  }

  /** A result by position when it has one of the common shapes, else as any other value. */
  private result(value: unknown): void {
    const shape = typeof value === 'object' && value !== null && !Array.isArray(value)
      ? resultShapeOf(value as Record<string, unknown>) : null
    if (shape === null) return this.value(value)
    const record = value as Record<string, unknown>
    this.tag(Tag.Result)
    this.tag(shape as number)
    switch (shape) {
      case ResultShape.Done: return
      case ResultShape.OrderPlaced:
        this.loneString(record.orderId as string)
        this.tag(ORDER_STATUSES.indexOf(record.status as OrderStatus))
        this.uint(record.makingMicros as number)
        this.uint(record.takingMicros as number)
        this.uint(record.feeMicros as number)
        return this.loneStrings(record.tradeIds as readonly string[])
      case ResultShape.Rejection:
      case ResultShape.OrderRejection:
        this.string(record.code as string)
        this.string(record.message as string)
        this.value(record.context)
        if (shape === ResultShape.OrderRejection) this.loneString(record.orderId as string)
        return
      case ResultShape.BatchPlaced: {
        const results = record.results as readonly unknown[]
        this.uint(results.length)
        for (const item of results) this.result(item)
        return
      }
      case ResultShape.Canceled:
        this.loneStrings(record.canceled as readonly string[])
        return this.value(record.notCanceled)
    }
  }

  private loneStrings(values: readonly string[]): void {
    this.uint(values.length)
    for (const value of values) this.loneString(value)
  }

  /**
   * A string outside the table: its length doubled (plus one for UTF-8), then its bytes. ASCII,
   * the usual case, is copied char by char, checked as it goes.
   */
  private loneString(value: string): void {
    const start = this.length
    this.reserve(8 + value.length)
    this.uint(value.length * 2)
    const at = this.length
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i)
      if (code >= 0x80) {
        this.length = start
        const bytes = encoder.encode(value)
        this.uint(bytes.length * 2 + 1)
        return this.bytes(bytes)
      }
      this.buffer[at + i] = code
    }
    this.length = at + value.length
  }

  private array(values: readonly unknown[]): void {
    this.tag(Tag.Array)
    this.uint(values.length)
    for (const item of values) this.value(item)
  }

  private object(record: Record<string, unknown>): void {
    assert(Object.getPrototypeOf(record) === Object.prototype, 'an outcome holds only plain objects')
    this.tag(Tag.Object)
    // The count goes before the keys; it is patched in once they are walked (for-in allocates
    // nothing, where Object.keys makes an array per object). One byte: no object here has 128 keys.
    const countAt = this.length
    this.tag(Tag.Null)
    let count = 0
    for (const key in record) {
      this.string(key)
      this.value(record[key])
      count++
    }
    assert(count < 0x80, 'an outcome object has fewer than 128 keys')
    this.buffer[countAt] = count
  }

  private number(value: number): void {
    if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
      this.tag(value >= 0 ? Tag.Uint : Tag.NegativeInt)
      this.uint(Math.abs(value))
      return
    }
    this.tag(Tag.Float)
    this.reserve(8)
    this.view.setFloat64(this.length, value, true)
    this.length += 8
  }

  private string(value: string): void {
    const known = this.strings.get(value)
    if (known !== undefined) {
      this.tag(Tag.StringRef)
      this.uint(known)
      return
    }
    this.strings.set(value, this.strings.size)
    if (!ASCII.test(value)) return this.utf8(value)
    this.reserve(10 + value.length)
    this.tag(Tag.AsciiNew)
    this.uint(value.length)
    this.length += this.buffer.write(value, this.length, 'latin1')
  }

  private utf8(value: string): void {
    const bytes = encoder.encode(value)
    this.tag(Tag.Utf8New)
    this.uint(bytes.length)
    this.bytes(bytes)
  }

  private bytes(bytes: Uint8Array): void {
    this.reserve(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  private tag(tag: Tag): void {
    this.reserve(1)
    this.buffer[this.length++] = tag
  }

  private uint(value: number): void {
    this.reserve(8)
    let rest = value
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80
      rest = Math.floor(rest / 0x80)
    }
    this.buffer[this.length++] = rest
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return
    let size = this.buffer.length * 2
    while (size < this.length + bytes) size *= 2
    const grown = Buffer.allocUnsafe(size)
    grown.set(this.buffer.subarray(0, this.length))
    this.buffer = grown
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength)
  }
}

/** Decodes a batch made by OutcomeWriter.encode; only the events that cross are kept. */
export function decodeOutcomes(batch: ArrayBuffer): Outcome[] {
  const reader = new OutcomeReader(new Uint8Array(batch))
  const count = reader.uint()
  assert(count <= batch.byteLength, 'an outcome batch holds no more outcomes than bytes')
  const outcomes: Outcome[] = []
  const ends: number[] = []
  for (let i = 0; i < count; i++) {
    const requestId = reader.uint()
    const seq = reader.uint()
    const timeMs = reader.uint()
    const recorded = reader.value()
    const result = reader.value()
    ends.push(reader.uint())
    assert(typeof recorded === 'boolean' && typeof result === 'object' && result !== null,
      'an outcome has a recorded flag and a result')
    outcomes.push({ requestId, seq, timeMs, recorded, result: result as CommandResult, events: [] })
  }
  const events = reader.events(batch)
  if (events !== null) {
    for (let i = 0; i < count; i++) events.readUntil(ends[i]!, outcomes[i]!.events as EngineEvent[], crosses)
    assert(events.atEnd, 'an outcome batch\'s events all belong to its outcomes')
  }
  assert(reader.atEnd, 'an outcome batch has no trailing bytes')
  return outcomes
}

class OutcomeReader {
  private offset = 0
  private readonly strings: string[] = []
  private readonly view: DataView
  private readonly latin1: Buffer

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  get atEnd(): boolean {
    return this.offset === this.bytes.length
  }

  /** The events section (see the layout): a reader over its words and strings, or null when absent. */
  events(batch: ArrayBuffer): EventReader | null {
    const present = this.value()
    assert(typeof present === 'boolean', 'an outcome batch says whether it carries events')
    if (!present) return null
    const stringCount = this.uint()
    assert(stringCount <= this.bytes.length - this.offset, 'an event string list is no longer than its batch')
    const strings: string[] = []
    for (let i = 0; i < stringCount; i++) strings.push(this.loneString())
    const wordCount = this.uint()
    while (this.offset % Float64Array.BYTES_PER_ELEMENT !== 0) this.offset++
    const byteLength = wordCount * Float64Array.BYTES_PER_ELEMENT
    assert(this.offset + byteLength <= this.bytes.length, 'an outcome batch ends inside its events')
    const words = new Float64Array(batch, this.bytes.byteOffset + this.offset, wordCount)
    this.offset += byteLength
    return new EventReader({ words, strings })
  }

  value(): unknown {
    assert(this.offset < this.bytes.length, 'an outcome batch ends inside a value')
    const tag = this.bytes[this.offset++]!
    switch (tag) {
      case Tag.Null: return null
      case Tag.Undefined: return undefined
      case Tag.False: return false
      case Tag.True: return true
      case Tag.Uint: return this.uint()
      case Tag.NegativeInt: return -this.uint()
      case Tag.Float: return this.float()
      case Tag.AsciiNew: return this.newString(this.uint(), false)
      case Tag.Utf8New: return this.newString(this.uint(), true)
      case Tag.StringRef: return this.stringRef()
      case Tag.Array: return this.array()
      case Tag.Object: return this.object()
      case Tag.Result: return this.result()
      default: assert(false, `an outcome batch holds an unknown tag ${tag}`)
    }
  }

  uint(): number {
    let value = 0
    let scale = 1
    for (;;) {
      assert(this.offset < this.bytes.length, 'an outcome batch ends inside an integer')
      const byte = this.bytes[this.offset++]!
      value += (byte & 0x7f) * scale
      if (byte < 0x80) break
      scale *= 0x80
      assert(scale <= 2 ** 49, 'an outcome integer fits in 53 bits')
    }
    assert(Number.isSafeInteger(value), 'an outcome integer is safe')
    return value
  }

  private float(): number {
    assert(this.offset + 8 <= this.bytes.length, 'an outcome batch ends inside a number')
    const value = this.view.getFloat64(this.offset, true)
    this.offset += 8
    return value
  }

  private newString(byteLength: number, utf8: boolean): string {
    const value = this.text(byteLength, utf8)
    this.strings.push(value)
    return value
  }

  private result(): Record<string, unknown> {
    assert(this.offset < this.bytes.length, 'an outcome batch ends inside a result')
    const shape = this.bytes[this.offset++]! as ResultShape
    switch (shape) {
      case ResultShape.Done: return { ok: true }
      case ResultShape.OrderPlaced: {
        const orderId = this.loneString()
        assert(this.offset < this.bytes.length, 'an outcome batch ends inside a result')
        const status = ORDER_STATUSES[this.bytes[this.offset++]!]
        assert(status !== undefined, 'an order status is one of the known ones')
        const makingMicros = this.uint()
        const takingMicros = this.uint()
        const feeMicros = this.uint()
        return { ok: true, orderId, status, makingMicros, takingMicros, feeMicros, tradeIds: this.loneStrings() }
      }
      case ResultShape.Rejection:
      case ResultShape.OrderRejection: {
        const code = this.string()
        const message = this.string()
        const context = this.value()
        return shape === ResultShape.Rejection ? { ok: false, code, message, context }
          : { ok: false, code, message, context, orderId: this.loneString() }
      }
      case ResultShape.BatchPlaced: return { ok: true, results: this.list(() => this.value()) }
      case ResultShape.Canceled: {
        const canceled = this.loneStrings()
        return { ok: true, canceled, notCanceled: this.value() }
      }
      default: assert(false, `an outcome batch holds an unknown result shape ${shape as number}`)
    }
  }

  private loneStrings(): string[] {
    return this.list(() => this.loneString())
  }

  private loneString(): string {
    const header = this.uint()
    return this.text(Math.floor(header / 2), header % 2 === 1)
  }

  /** The next `byteLength` bytes as text: UTF-8, or one char a byte (written only for ASCII). */
  private text(byteLength: number, utf8: boolean): string {
    const start = this.offset
    assert(start + byteLength <= this.bytes.length, 'an outcome batch ends inside a string')
    this.offset += byteLength
    return utf8
      ? utf8Decoder.decode(this.bytes.subarray(start, start + byteLength))
      : this.latin1.toString('latin1', start, start + byteLength)
  }

  /** A length, then that many items; a length beyond the batch's bytes is damage, not a huge list. */
  private list<T>(item: () => T): T[] {
    const length = this.uint()
    assert(length <= this.bytes.length - this.offset, 'an outcome list is no longer than its batch')
    const values: T[] = []
    for (let i = 0; i < length; i++) values.push(item())
    return values
  }

  private stringRef(): string {
    const index = this.uint()
    assert(index < this.strings.length, 'an outcome string reference names a string seen before')
    return this.strings[index]!
  }

  private string(): string {
    const value = this.value()
    assert(typeof value === 'string', 'an object key is a string')
    return value
  }

  private array(): unknown[] {
    return this.list(() => this.value())
  }

  private object(): Record<string, unknown> {
    const count = this.uint()
    assert(count <= this.bytes.length - this.offset, 'an outcome object is no larger than its batch')
    const record: Record<string, unknown> = {}
    for (let i = 0; i < count; i++) {
      const key = this.string()
      assert(key !== '__proto__', 'an outcome object key is not __proto__')
      record[key] = this.value()
    }
    return record
  }
}
