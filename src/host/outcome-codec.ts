/**
 * The binary form of a batch of outcomes on their way from the engine worker to the main thread
 * (issue 13, point 2). Structured clone (postMessage of objects) cost more per outcome than the
 * engine spent applying the command; here a batch is one ArrayBuffer, transferred (not copied).
 *
 * The engine writes each command's result and events into its log as it applies it (engine/
 * event-log.ts; issue 30), so the batch is little more than that log, shipped as written:
 *
 * Layout: count, then per outcome: requestId, seq, timeMs (unsigned LEB128), recorded (one byte),
 * end (LEB128: the word its command's records end at). Then a byte saying whether the events are
 * kept (they are not while nobody on the main thread reads events; the results always are), the
 * log's strings (a count, then each as a lone string: a length with a UTF-8 flag, then the bytes),
 * the count of words, zero bytes up to a multiple of 8, and the words' own bytes, copied in one go.
 *
 * The main thread reads each outcome's records with the engine's EventReader: its result, and the
 * events of the kinds that cross (messages.ts, EVENTS_CROSSING). The decoder checks every bound,
 * like the journal's reader: a malformed batch is an assertion, not a wrong answer.
 */
import type { EngineEvent } from '../engine/event.js'
import type { EventLog } from '../engine/event-log.js'
import { EventReader } from '../engine/event-reader.js'
import { assert } from '../stdx/assert.js'
import { BATCH_COMMANDS_MAX } from '../limits.js'
import { crosses, type AppliedOutcome, type Outcome } from './messages.js'

const encoder = new TextEncoder()
// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/
const utf8Decoder = new TextDecoder('utf-8', { fatal: true })
const INITIAL_BYTES = 1 << 16

/** Encodes batches on the worker; one per worker, reused batch after batch. */
export class OutcomeWriter {
  private buffer = Buffer.allocUnsafe(INITIAL_BYTES)
  private length = 0

  /**
   * The batch as a new ArrayBuffer of its exact size, to be transferred. `log` holds the results
   * and events of exactly these outcomes; the caller clears it after. `eventsKept` says whether
   * the main thread reads the events (the results are read always).
   */
  encode(outcomes: readonly AppliedOutcome[], log: EventLog, eventsKept: boolean): ArrayBuffer {
    this.length = 0
    this.uint(outcomes.length)
    for (const outcome of outcomes) {
      this.uint(outcome.requestId)
      this.uint(outcome.seq)
      this.uint(outcome.timeMs)
      this.byte(outcome.recorded ? 1 : 0)
      this.uint(outcome.end)
    }
    this.byte(eventsKept ? 1 : 0)
    this.log(log)
    return this.buffer.buffer.slice(this.buffer.byteOffset, this.buffer.byteOffset + this.length)
  }

  private log(log: EventLog): void {
    this.uint(log.stringCount)
    for (let i = 0; i < log.stringCount; i++) this.asciiOrUtf8(log.strings[i]!)
    const words = log.view()
    this.uint(words.length)
    this.reserve(7 + words.byteLength)
    while (this.length % Float64Array.BYTES_PER_ELEMENT !== 0) this.buffer[this.length++] = 0
    this.buffer.set(new Uint8Array(words.buffer, words.byteOffset, words.byteLength), this.length)
    this.length += words.byteLength
  }

  /**
   * A lone string: its length doubled (plus one for UTF-8), then its bytes. Most are ASCII (ids,
   * addresses), checked by one regular expression and copied natively.
   */
  private asciiOrUtf8(value: string): void {
    if (ASCII.test(value)) {
      this.reserve(8 + value.length)
      this.uint(value.length * 2)
      this.length += this.buffer.write(value, this.length, 'latin1')
      return
    }
    const bytes = encoder.encode(value)
    this.uint(bytes.length * 2 + 1)
    this.reserve(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  private byte(value: number): void {
    this.reserve(1)
    this.buffer[this.length++] = value
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
  }
}

/** Nothing crosses: the events of a batch whose main thread reads none. */
const NONE = (): boolean => false

/** The events of an outcome that carries none: one array for all of them (Outcome.events is readonly). */
const NO_EVENTS: readonly EngineEvent[] = Object.freeze([])

/**
 * Each outcome's head, read before the log that follows them, into one array reused from batch to
 * batch rather than an object per outcome: with the shared empty events, a sixth of what the main
 * thread allocated a command in bench:host's closed loop (1.6 KB, now 1.35 KB). A batch is one
 * group's outcomes or fewer, so BATCH_COMMANDS_MAX heads of HEAD_FIELDS numbers always fit.
 */
const HEAD_FIELDS = 5
const heads = new Float64Array(BATCH_COMMANDS_MAX * HEAD_FIELDS)

/** Decodes a batch made by OutcomeWriter.encode; only the events that cross are kept. */
export function decodeOutcomes(batch: ArrayBuffer): Outcome[] {
  const reader = new OutcomeReader(new Uint8Array(batch))
  const count = reader.uint()
  assert(count <= batch.byteLength, 'an outcome batch holds no more outcomes than bytes')
  assert(count <= BATCH_COMMANDS_MAX, 'an outcome batch holds at most one group of outcomes')
  for (let at = 0; at < count * HEAD_FIELDS; at += HEAD_FIELDS) {
    heads[at] = reader.uint() // requestId
    heads[at + 1] = reader.uint() // seq
    heads[at + 2] = reader.uint() // timeMs
    heads[at + 3] = reader.flag() ? 1 : 0 // recorded
    heads[at + 4] = reader.uint() // end
  }
  const eventsKept = reader.flag()
  const records = reader.log(batch)
  assert(reader.atEnd, 'an outcome batch has no trailing bytes')
  const outcomes = new Array<Outcome>(count)
  const read: EngineEvent[] = []
  for (let i = 0; i < count; i++) {
    const at = i * HEAD_FIELDS
    const result = records.readUntil(heads[at + 4]!, read, eventsKept ? crosses : NONE)
    assert(result !== null, 'every outcome has its result')
    outcomes[i] = { requestId: heads[at]!, seq: heads[at + 1]!, timeMs: heads[at + 2]!, recorded: heads[at + 3] === 1,
      result, events: read.length === 0 ? NO_EVENTS : read.splice(0) }
  }
  assert(records.atEnd, 'an outcome batch\'s records all belong to its outcomes')
  return outcomes
}

class OutcomeReader {
  private offset = 0
  private readonly latin1: Buffer

  constructor(private readonly bytes: Uint8Array) {
    this.latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  get atEnd(): boolean {
    return this.offset === this.bytes.length
  }

  /** The log section (see the layout): a reader over its words and strings. */
  log(batch: ArrayBuffer): EventReader {
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

  flag(): boolean {
    assert(this.offset < this.bytes.length, 'an outcome batch ends inside a flag')
    const value = this.bytes[this.offset++]!
    assert(value === 0 || value === 1, 'a flag is 0 or 1')
    return value === 1
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

  private loneString(): string {
    const header = this.uint()
    const byteLength = Math.floor(header / 2)
    const start = this.offset
    assert(start + byteLength <= this.bytes.length, 'an outcome batch ends inside a string')
    this.offset += byteLength
    return header % 2 === 1
      ? utf8Decoder.decode(this.bytes.subarray(start, start + byteLength))
      : this.latin1.toString('latin1', start, start + byteLength)
  }
}
