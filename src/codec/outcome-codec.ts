/**
 * The binary form of a batch of outcomes on their way from the engine worker to the main thread
 * (issue 13, point 2). Structured clone (postMessage of objects) cost more per outcome than the
 * engine spent applying the command; here a batch is one ArrayBuffer, transferred (not copied).
 *
 * The engine writes each command's result and events into its log as it applies it (engine/
 * event-log.ts; issue 30), and the worker keeps each outcome's head in columns of numbers
 * (OutcomeHeads), so the batch is little more than two copies of memory:
 *
 * Layout, float64 words first (so every number is read in place, aligned): count, whether the
 * events are kept (they are not while nobody on the main thread reads events; the results always
 * are), the log's string count, its word count; then per outcome its head: requestId, seq, timeMs,
 * recorded (0 or 1), end (the word its command's records end at); then the log's words. Then the
 * log's strings: first one 32-bit little-endian header each (its byte length doubled, plus one
 * for UTF-8), then all their bytes, one after the other. Fixed-width heads replaced LEB128
 * integers, whose loops of float divisions (a time in ms is six bytes) were most of the worker's
 * encoding: issue 29, docs/performance.md. The bytes follow the headers so that a batch whose
 * strings are all ASCII (every id and address) writes them in one native call, joined: one call a
 * string cost the worker about 0.2 µs each (docs/performance.md, "Outcome strings joined").
 *
 * The main thread reads each outcome's records with the engine's EventReader: its result, and the
 * events of the kinds that cross (messages.ts, EVENTS_CROSSING). The decoder checks every bound,
 * like the journal's reader: a malformed batch is an assertion, not a wrong answer.
 */
import type { EngineEvent } from '../engine/event.js'
import type { EventLog } from '../engine/event-log.js'
import { EventReader } from '../engine/event-reader.js'
import { assert } from '../stdx/assert.js'
import { grown } from '../stdx/bytes.js'
import { BATCH_COMMANDS_MAX } from '../limits.js'
import { crosses, type AppliedOutcome, type Outcome } from '../host/messages.js'

/** requestId, seq, timeMs, recorded, end. */
const HEAD_FIELDS = 5
/** count, events kept, string count, word count. */
const PREAMBLE_WORDS = 4
const WORD_BYTES = Float64Array.BYTES_PER_ELEMENT
const STRING_HEADER_BYTES = 4
/** A UTF-16 code unit is at most three bytes of UTF-8 (a surrogate pair is four for two units). */
const UTF8_BYTES_PER_UNIT_MAX = 3
const INITIAL_BYTES = 1 << 16
const utf8Decoder = new TextDecoder('utf-8', { fatal: true })

/**
 * The heads of the outcomes of one group, as the worker applies its commands: columns of numbers
 * in one Float64Array, reused group after group, rather than an object per outcome. At most
 * BATCH_COMMANDS_MAX (a group's bound); it grows by doubling to that.
 */
export class OutcomeHeads {
  private columns = new Float64Array(HEAD_FIELDS * 64)
  private size = 0

  /** For tests and tools: heads made from outcome records. */
  static of(outcomes: readonly AppliedOutcome[]): OutcomeHeads {
    const heads = new OutcomeHeads()
    for (const o of outcomes) heads.push(o.requestId, o.seq, o.timeMs, o.recorded, o.end)
    return heads
  }

  get count(): number {
    return this.size
  }

  push(requestId: number, seq: number, timeMs: number, recorded: boolean, end: number): void {
    let at = this.size * HEAD_FIELDS
    if (at === this.columns.length) this.grow()
    const columns = this.columns
    columns[at++] = requestId
    columns[at++] = seq
    columns[at++] = timeMs
    columns[at++] = recorded ? 1 : 0
    columns[at] = end
    this.size++
  }

  requestId(index: number): number {
    return this.columns[index * HEAD_FIELDS]!
  }

  /** The heads from `from` to the end, as a view (valid until the next push or clear). */
  view(from: number): Float64Array {
    return this.columns.subarray(from * HEAD_FIELDS, this.size * HEAD_FIELDS)
  }

  clear(): void {
    this.size = 0
  }

  private grow(): void {
    assert(this.size < BATCH_COMMANDS_MAX, 'a group holds at most BATCH_COMMANDS_MAX outcomes')
    const grown = new Float64Array(Math.min(this.columns.length * 2, BATCH_COMMANDS_MAX * HEAD_FIELDS))
    grown.set(this.columns)
    this.columns = grown
  }
}

/** Encodes batches on the worker; one per worker, reused batch after batch. */
export class OutcomeWriter {
  private buffer = alignedBuffer(INITIAL_BYTES)

  /**
   * The outcomes of `heads` from `from` on, as a new ArrayBuffer of its exact size, to be
   * transferred. `log` holds the results and events of exactly these outcomes; the caller clears
   * it after. `eventsKept` says whether the main thread reads the events (the results are read always).
   */
  encode(heads: OutcomeHeads, from: number, log: EventLog, eventsKept: boolean): ArrayBuffer {
    const count = heads.count - from
    const words = log.view()
    const numericWords = PREAMBLE_WORDS + count * HEAD_FIELDS + words.length
    this.reserve(0, numericWords * WORD_BYTES)
    const numbers = new Float64Array(this.buffer.buffer, 0, numericWords)
    numbers[0] = count
    numbers[1] = eventsKept ? 1 : 0
    numbers[2] = log.stringCount
    numbers[3] = words.length
    numbers.set(heads.view(from), PREAMBLE_WORDS)
    numbers.set(words, PREAMBLE_WORDS + count * HEAD_FIELDS)
    const length = this.strings(log, numericWords * WORD_BYTES)
    // The buffer is its own ArrayBuffer (alignedBuffer), never a SharedArrayBuffer.
    return (this.buffer.buffer as ArrayBuffer).slice(0, length)
  }

  /**
   * The log's strings from `at`: their headers, then their bytes; returns where they end. All of
   * them joined go in one native call; when that wrote a byte a character they were all ASCII, and
   * each string's bytes are its characters. Otherwise each is written on its own, its header
   * saying whether it took one byte per code unit (ASCII: the reader takes the faster latin1
   * decoder) or more (any other character takes two or more).
   */
  private strings(log: EventLog, at: number): number {
    const count = log.stringCount
    const strings = log.strings
    const bytesAt = at + count * STRING_HEADER_BYTES
    // The list is reused past stringCount: only the batch's own strings are joined.
    const joined = strings.length === count ? strings.join('') : strings.slice(0, count).join('')
    this.reserve(at, count * STRING_HEADER_BYTES + joined.length * UTF8_BYTES_PER_UNIT_MAX)
    const buffer = this.buffer
    if (buffer.write(joined, bytesAt, 'utf8') === joined.length) {
      for (let i = 0; i < count; i++) buffer.writeUInt32LE(strings[i]!.length * 2, at + i * STRING_HEADER_BYTES)
      return bytesAt + joined.length
    }
    let end = bytesAt
    for (let i = 0; i < count; i++) {
      const value = strings[i]!
      const written = buffer.write(value, end, 'utf8')
      buffer.writeUInt32LE(written * 2 + (written === value.length ? 0 : 1), at + i * STRING_HEADER_BYTES)
      end += written
    }
    return end
  }

  /** Room for `bytes` more after the first `used`, keeping those. */
  private reserve(used: number, bytes: number): void {
    if (used + bytes > this.buffer.length) this.buffer = grown(this.buffer, used, used + bytes, alignedBuffer)
  }
}

/** A Buffer of its own ArrayBuffer, at offset 0 (not a slice of Node's pool): float64 views need the alignment. */
function alignedBuffer(bytes: number): Buffer {
  return Buffer.from(new ArrayBuffer(bytes))
}

/** Nothing crosses: the events of a batch whose main thread reads none. */
const NONE = (): boolean => false

/** The events of an outcome that carries none: one array for all of them (Outcome.events is readonly). */
const NO_EVENTS: readonly EngineEvent[] = Object.freeze([])

/** Decodes a batch made by OutcomeWriter.encode; only the events that cross are kept. */
export function decodeOutcomes(batch: ArrayBuffer): Outcome[] {
  assert(batch.byteLength >= PREAMBLE_WORDS * WORD_BYTES, 'an outcome batch holds its preamble')
  const preamble = new Float64Array(batch, 0, PREAMBLE_WORDS)
  const count = preamble[0]!
  const eventsKept = preamble[1]!
  const stringCount = preamble[2]!
  const wordCount = preamble[3]!
  assert(isCount(count, BATCH_COMMANDS_MAX), 'an outcome batch holds at most one group of outcomes')
  assert(eventsKept === 0 || eventsKept === 1, 'an outcome batch says whether it keeps events')
  const numericWords = PREAMBLE_WORDS + count * HEAD_FIELDS + wordCount
  assert(isCount(wordCount, batch.byteLength) && numericWords * WORD_BYTES <= batch.byteLength,
    'an outcome batch ends after its numbers')
  assert(isCount(stringCount, batch.byteLength), 'an event string list is no longer than its batch')
  const heads = new Float64Array(batch, PREAMBLE_WORDS * WORD_BYTES, count * HEAD_FIELDS)
  const words = new Float64Array(batch, (PREAMBLE_WORDS + count * HEAD_FIELDS) * WORD_BYTES, wordCount)
  const records = new EventReader({ words, strings: readStrings(batch, numericWords * WORD_BYTES, stringCount) })
  const outcomes = new Array<Outcome>(count)
  const read: EngineEvent[] = []
  for (let i = 0; i < count; i++) {
    const at = i * HEAD_FIELDS
    const requestId = heads[at]!
    const seq = heads[at + 1]!
    const timeMs = heads[at + 2]!
    const recorded = heads[at + 3]!
    const end = heads[at + 4]!
    assert(isCount(requestId, Number.MAX_SAFE_INTEGER) && isCount(seq, Number.MAX_SAFE_INTEGER)
      && isCount(timeMs, Number.MAX_SAFE_INTEGER) && (recorded === 0 || recorded === 1) && isCount(end, wordCount),
    'an outcome\'s head is whole numbers within their bounds')
    const result = records.readUntil(end, read, eventsKept === 1 ? crosses : NONE)
    assert(result !== null, 'every outcome has its result')
    outcomes[i] = { requestId, seq, timeMs, recorded: recorded === 1, result,
      events: read.length === 0 ? NO_EVENTS : read.splice(0) }
  }
  assert(records.atEnd, 'an outcome batch\'s records all belong to its outcomes')
  return outcomes
}

function isCount(value: number, max: number): boolean {
  return Number.isSafeInteger(value) && value >= 0 && value <= max
}

/** The strings after the numbers: their headers, then their bytes; they must end the batch exactly. */
function readStrings(batch: ArrayBuffer, from: number, count: number): string[] {
  const bytes = Buffer.from(batch)
  const strings: string[] = []
  let start = from + count * STRING_HEADER_BYTES
  assert(start <= bytes.length, 'an outcome batch ends inside its string headers')
  for (let i = 0; i < count; i++) {
    const header = bytes.readUInt32LE(from + i * STRING_HEADER_BYTES)
    const end = start + Math.floor(header / 2)
    assert(end <= bytes.length, 'an outcome batch ends inside a string')
    const utf8 = header % 2 === 1
    strings.push(utf8 ? utf8Decoder.decode(bytes.subarray(start, end)) : bytes.toString('latin1', start, end))
    start = end
  }
  assert(start === bytes.length, 'an outcome batch has no trailing bytes')
  return strings
}
