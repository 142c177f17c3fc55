/**
 * A bounded single-producer single-consumer queue of byte records on a SharedArrayBuffer: the
 * command queue from the front end (main thread) to the engine worker. Lock-free: the producer
 * owns `head`, the consumer owns `tail`, each published with an atomic store after the bytes it
 * covers are written or read. A consumer with nothing to read sleeps in Atomics.wait (or awaits
 * Atomics.waitAsync) on `head` instead of spinning.
 *
 * Wake-ups only for a sleeper (issue 13, point 3): Atomics.notify takes a process-wide lock, and
 * under load the engine never sleeps, so a notify per record was pure cost. A side about to sleep
 * raises its flag, then looks at the other side's counter once more; the other side publishes its
 * counter, then looks at the flag, and notifies only when it is up. All four are sequentially
 * consistent atomics, so at least one of the two sees the other's store (Dekker): either the
 * sleeper sees the new counter and does not sleep, or the publisher sees the flag and notifies
 * (and Atomics.wait on a counter that already moved returns at once).
 *
 * Layout: a 128-byte header (head and tail on separate cache lines), then `capacity` data bytes
 * (a power of two). A record is a 4-byte little-endian length, then the payload, padded to 4
 * bytes; positions are byte counters that wrap at 2^32, so `head - tail` is the bytes in use.
 * A full queue refuses the write (the caller answers "engine busy"): it never grows.
 */
import { assert } from '../stdx/assert.js'

const HEADER_BYTES = 128
const HEAD = 0
/** Raised by the producer while it sleeps waiting for space (beside `head`, which it owns). */
const PRODUCER_SLEEPING = 8
/** Index of `tail` in the Int32 header: 64 bytes after `head`. */
const TAIL = 16
/** Raised by the consumer while it sleeps waiting for records (beside `tail`, which it owns). */
const CONSUMER_SLEEPING = 24
const LENGTH_BYTES = 4

/** How a wait ended: a record (or space) was there already, a wake-up came, or the time ran out. */
export type WaitResult = 'not-empty' | 'woken' | 'timed-out'

export class Ring {
  readonly capacity: number
  private readonly header: Int32Array
  private readonly data: Uint8Array
  private readonly view: DataView
  /** The consumer's `tail` when the last refused write found the ring full (waitForSpaceSync). */
  private tailWhenFull = 0
  /**
   * Consumer: where the next `peekAhead` reads, past the records it gave and `advance` has not
   * dropped yet; -1 when it reads at `tail`.
   */
  private ahead = -1
  /** `ahead` before the last `peekAhead`, for `unpeekAhead`. */
  private aheadBefore = -1
  /** Where the record `recordAt` last read ends. */
  private recordEnd = 0

  /** Allocates the shared memory for a ring of `capacity` data bytes (a power of two). */
  static allocate(capacity: number): SharedArrayBuffer {
    assert(Number.isInteger(capacity) && capacity >= 64 && (capacity & (capacity - 1)) === 0,
      'ring capacity is a power of two of at least 64 bytes')
    return new SharedArrayBuffer(HEADER_BYTES + capacity)
  }

  constructor(readonly buffer: SharedArrayBuffer) {
    this.capacity = buffer.byteLength - HEADER_BYTES
    assert(this.capacity >= 64 && (this.capacity & (this.capacity - 1)) === 0, 'ring capacity is a power of two')
    this.header = new Int32Array(buffer, 0, HEADER_BYTES / 4)
    this.data = new Uint8Array(buffer, HEADER_BYTES, this.capacity)
    this.view = new DataView(buffer, HEADER_BYTES, this.capacity)
  }

  /** The largest payload a record can carry. */
  get payloadMax(): number {
    return this.capacity - LENGTH_BYTES
  }

  /** Bytes in use, as the consumer would see them now. */
  get usedBytes(): number {
    return (Atomics.load(this.header, HEAD) - Atomics.load(this.header, TAIL)) >>> 0
  }

  /**
   * Producer: appends one record, or returns false at once when it does not fit (the queue is
   * full). Wakes the consumer if it sleeps, unless told not to: a producer writing several records
   * in a row then calls wakeConsumer() once.
   */
  tryWrite(payload: Uint8Array, wake = true): boolean {
    assert(payload.length <= this.payloadMax, 'a record fits in the ring')
    const head = Atomics.load(this.header, HEAD) >>> 0
    const tail = Atomics.load(this.header, TAIL) >>> 0
    const recordBytes = LENGTH_BYTES + align4(payload.length)
    if (this.capacity - ((head - tail) >>> 0) < recordBytes) {
      this.tailWhenFull = tail
      return false
    }
    const mask = this.capacity - 1
    const at = head & mask
    this.view.setUint32(at, payload.length, true)
    this.copyIn(payload, (at + LENGTH_BYTES) & mask)
    Atomics.store(this.header, HEAD, (head + recordBytes) | 0)
    if (wake) this.wakeConsumer()
    return true
  }

  /**
   * Producer: wakes the consumer if it sleeps; true when it notified. Called after the records it
   * announces are published (tryWrite's store of `head`), so the Dekker argument above holds. The
   * flag stays the consumer's to take down: a producer that took it down could spend its notify
   * on a consumer that had raised it but not yet started waiting, and that consumer would then
   * sleep through the next records with its flag down (test/integration/ring/ring.test.ts found it).
   */
  wakeConsumer(): boolean {
    if (Atomics.load(this.header, CONSUMER_SLEEPING) === 0) return false
    Atomics.notify(this.header, HEAD)
    return true
  }

  /**
   * Consumer: the oldest record without taking it, or null when empty. The bytes are a view
   * into the ring when the record does not wrap (a copy when it does): use them, then call
   * `advance()`; until then the producer cannot overwrite them.
   */
  peek(): Uint8Array | null {
    const tail = Atomics.load(this.header, TAIL) >>> 0
    const head = Atomics.load(this.header, HEAD) >>> 0
    return head === tail ? null : this.recordAt(tail, head)
  }

  /**
   * Consumer: the record after the ones `peekAhead` gave already (the oldest, at first), or null
   * when there is none yet; nothing is dropped. Each stays valid until `advance` drops it, in the
   * order given: a consumer may look at several records before it is done with the first (the
   * engine worker decodes a run of commands, then applies them).
   */
  peekAhead(): Uint8Array | null {
    const from = this.ahead === -1 ? Atomics.load(this.header, TAIL) >>> 0 : this.ahead
    const head = Atomics.load(this.header, HEAD) >>> 0
    if (head === from) return null
    const record = this.recordAt(from, head)
    this.aheadBefore = this.ahead
    this.ahead = this.recordEnd
    return record
  }

  /** Consumer: the record the last `peekAhead` gave is given again by the next (once, and before any `advance`). */
  unpeekAhead(): void {
    this.ahead = this.aheadBefore
  }

  /** Consumer: drops the oldest record (the one `peek()` returned, or the first `peekAhead` gave). */
  advance(): void {
    const tail = Atomics.load(this.header, TAIL) >>> 0
    const length = this.view.getUint32(tail & (this.capacity - 1), true)
    const next = (tail + LENGTH_BYTES + align4(length)) >>> 0
    if (next === this.ahead) this.ahead = -1
    Atomics.store(this.header, TAIL, next | 0)
    if (Atomics.load(this.header, PRODUCER_SLEEPING) !== 0) Atomics.notify(this.header, TAIL)
  }

  /** Consumer: takes the oldest record (a copy), or null when the queue is empty. */
  read(): Uint8Array | null {
    const record = this.peek()
    if (record === null) return null
    // peek() gives a view into the ring (or, for a record that wraps, a copy already).
    const payload = record.buffer === this.buffer ? record.slice() : record
    this.advance()
    return payload
  }

  /**
   * Producer, after a refused write: blocks until the consumer frees space or `timeoutMs` passes
   * (tests, tools). It sleeps on the `tail` that write saw, with its flag raised first: had it
   * slept on a `tail` read now, a consumer that emptied the ring in between, unflagged, would
   * leave it asleep with room to write (test/integration/ring/ring.test.ts found it, waking once per run).
   */
  waitForSpaceSync(timeoutMs: number): WaitResult {
    Atomics.store(this.header, PRODUCER_SLEEPING, 1)
    try {
      return waitResult(Atomics.wait(this.header, TAIL, this.tailWhenFull | 0, timeoutMs))
    } finally {
      Atomics.store(this.header, PRODUCER_SLEEPING, 0)
    }
  }

  /** Consumer: blocks this thread until a record may be there or `timeoutMs` passes. */
  waitSync(timeoutMs: number): WaitResult {
    const head = this.headToSleepOn()
    if (head === null) return 'not-empty'
    try {
      return waitResult(Atomics.wait(this.header, HEAD, head, timeoutMs))
    } finally {
      Atomics.store(this.header, CONSUMER_SLEEPING, 0)
    }
  }

  /**
   * Consumer: a promise that resolves when a record may be there or `timeoutMs` passes, without
   * blocking the thread's event loop (the engine worker also answers queries).
   */
  async waitAsync(timeoutMs: number): Promise<WaitResult> {
    const head = this.headToSleepOn()
    if (head === null) return 'not-empty'
    try {
      const waiting = Atomics.waitAsync(this.header, HEAD, head, timeoutMs)
      return waitResult(waiting.async ? await waiting.value : waiting.value)
    } finally {
      Atomics.store(this.header, CONSUMER_SLEEPING, 0)
    }
  }

  /**
   * Raises the consumer's flag and returns the `head` to sleep on, or null (flag lowered) when a
   * record is there after all: the flag goes up before this last look (see the header comment).
   */
  private headToSleepOn(): number | null {
    if (Atomics.load(this.header, HEAD) !== Atomics.load(this.header, TAIL)) return null
    Atomics.store(this.header, CONSUMER_SLEEPING, 1)
    const head = Atomics.load(this.header, HEAD)
    if (head === Atomics.load(this.header, TAIL)) return head
    Atomics.store(this.header, CONSUMER_SLEEPING, 0)
    return null
  }

  /**
   * The payload of the published record at position `from` (before `head`): a view when it does
   * not wrap, else a copy. Leaves where the record ends in `recordEnd` (a field, not a second
   * result: this runs once a command).
   */
  private recordAt(from: number, head: number): Uint8Array {
    const mask = this.capacity - 1
    const at = from & mask
    const length = this.view.getUint32(at, true)
    assert(LENGTH_BYTES + length <= ((head - from) >>> 0), 'a published record is complete')
    this.recordEnd = (from + LENGTH_BYTES + align4(length)) >>> 0
    const start = (at + LENGTH_BYTES) & mask
    if (start + length <= this.capacity) return this.data.subarray(start, start + length)
    return this.copyOut(start, length)
  }

  private copyIn(payload: Uint8Array, at: number): void {
    const first = this.capacity - at
    // Most records do not wrap: copied whole, with no view made for them.
    if (payload.length <= first) return this.data.set(payload, at)
    this.data.set(payload.subarray(0, first), at)
    this.data.set(payload.subarray(first), 0)
  }

  private copyOut(at: number, length: number): Uint8Array {
    const payload = new Uint8Array(length)
    const first = Math.min(length, this.capacity - at)
    payload.set(this.data.subarray(at, at + first), 0)
    if (first < length) payload.set(this.data.subarray(0, length - first), first)
    return payload
  }
}

/** Atomics' answer in the ring's words: 'not-equal' means the counter had moved already. */
function waitResult(answer: 'ok' | 'not-equal' | 'timed-out'): WaitResult {
  return answer === 'ok' ? 'woken' : answer === 'timed-out' ? 'timed-out' : 'not-empty'
}

function align4(bytes: number): number {
  return (bytes + 3) & ~3
}
