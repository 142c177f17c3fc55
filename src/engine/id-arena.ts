/**
 * Ids kept a batch to a string: the id table (id-table.ts) moves here the keys of entries that
 * are only ever compared again, never read on the hot path, which are the ended orders the order
 * index remembers (ENDED_ORDERS_RETAINED, 4 M on a server) for duplicate detection and for
 * cancels that name an ended order. One string each, they were millions of heap objects that
 * every major collection marked: at 3 M retained ids a full collection took 78 ms and the heap
 * was 304 MB (`node --expose-gc scripts/engine-ids-heap.mjs 3000000`; at 2 Mi ids, while the id
 * table doubled, 790 ms: docs/performance.md, "Issue 30, third step").
 *
 * Here the ids of a batch (up to BATCH_IDS_MAX) are joined into one string, which the collector
 * sees as one object; an id is found in it by its offset and length, and compared in place
 * (`startsWith` at the offset: no string is made). Joining copies the characters once, natively;
 * turning ids into bytes instead cost 120 ns an id here (the characters read one at a time, or
 * encoded as UTF-8), most of what packing would have cost the engine.
 *
 * A reference (IdRef) says which batch (its sequence number, modulo 2^31), where in it the id
 * starts and its length, in one float64 integer. A batch's string is let go once every id in it is released;
 * ids are released in about the order they were written (the order index forgets the order
 * that ended first), so the list of batches stays as long as the batches held.
 */
import { assert } from '../stdx/assert.js'

/** Ids in one `appendAll` at most. */
export const BATCH_IDS_MAX = 64
/** Ids are at most ID_LENGTH_MAX (128) code units; a reference has room for 255. */
const LENGTH_MAX = 255
/** Where an id starts in its batch: below 64 x 255 = 16 320 < 2^14. */
const OFFSET_SCALE = 1 << 14
/** A reference is (batch seq mod SEQ_SPACE * OFFSET_SCALE + offset) * LENGTH_SCALE + length: below 2^53. */
const LENGTH_SCALE = 1 << 8
/**
 * References name a batch by its sequence number modulo 2^31, so that they stay exact integers
 * however many batches a process writes (at 100 000 ids a second, 2^31 batches of 64 take 16
 * days); a batch is found from the oldest held, and fewer than 2^31 are ever held at once.
 */
const SEQ_SPACE = 2 ** 31

/** A reference to an id in the arena (see the header). */
export type IdRef = number

export class IdArena {
  /** The batches that may hold ids, oldest first ('' once none of its ids is held): batch i is `firstSeq + i`. */
  private readonly batches: string[] = []
  /** Per batch (same index): its ids not yet released. */
  private readonly held: number[] = []
  private firstSeq: number
  /** Ids written and not released. */
  private count = 0
  /** Characters of the batches held. */
  private chars = 0
  /** `append`'s batch of one. */
  private readonly one: string[] = ['']
  private readonly oneRef: IdRef[] = [0]

  /** `firstSeq`: the first batch's sequence number (0; tests start near 2^31 to see references wrap). */
  constructor(firstSeq = 0) {
    assert(Number.isSafeInteger(firstSeq) && firstSeq >= 0, 'a batch sequence number is a count')
    this.firstSeq = firstSeq
  }

  /** Ids held. */
  get size(): number {
    return this.count
  }

  /** Characters of the batches still held (tests: the arena lets memory go). */
  get heldChars(): number {
    return this.chars
  }

  /** Writes one id; returns its reference. */
  append(id: string): IdRef {
    this.one[0] = id
    this.appendAll(this.one, 1, this.oneRef)
    return this.oneRef[0]!
  }

  /**
   * Writes `ids[0, count)` as one batch (each id of 1 to 255 code units; `ids` holds '' after
   * them, or ends there) and sets `refs[i]` to the reference of `ids[i]`.
   */
  appendAll(ids: readonly string[], count: number, refs: IdRef[]): void {
    assert(count > 0 && count <= BATCH_IDS_MAX && (ids.length === count || ids[count] === ''),
      'a batch of ids is 1 to 64, and nothing after them')
    const joined = ids.join('')
    const seq = (this.firstSeq + this.batches.length) % SEQ_SPACE
    let at = 0
    for (let i = 0; i < count; i++) {
      const length = ids[i]!.length
      assert(length > 0 && length <= LENGTH_MAX, 'an arena id has 1 to 255 code units')
      refs[i] = (seq * OFFSET_SCALE + at) * LENGTH_SCALE + length
      at += length
    }
    this.batches.push(joined)
    this.held.push(count)
    this.count += count
    this.chars += joined.length
  }

  /** Whether the id at `ref` is `id` (compared in place: no string is made). */
  equals(ref: IdRef, id: string): boolean {
    const length = ref % LENGTH_SCALE
    if (length !== id.length) return false
    const place = (ref - length) / LENGTH_SCALE
    return this.batchOf(place).startsWith(id, place % OFFSET_SCALE)
  }

  /** The id at `ref`, as a string (snapshots and tools: not on the hot path). */
  read(ref: IdRef): string {
    const length = ref % LENGTH_SCALE
    const place = (ref - length) / LENGTH_SCALE
    const at = place % OFFSET_SCALE
    return this.batchOf(place).slice(at, at + length)
  }

  /** Lets go of the id at `ref`: its batch's string goes once none of its ids is held. */
  release(ref: IdRef): void {
    const index = this.indexOf(Math.floor(ref / LENGTH_SCALE / OFFSET_SCALE))
    assert(index < this.held.length && this.held[index]! > 0, 'a released id is held')
    this.count--
    if (--this.held[index]! === 0) {
      this.chars -= this.batches[index]!.length
      this.batches[index] = ''
    }
    while (this.held.length > 0 && this.held[0] === 0) {
      this.batches.shift()
      this.held.shift()
      this.firstSeq++
    }
  }

  /** The string of the batch an id's place (`seq * OFFSET_SCALE + offset`) is in. */
  private batchOf(place: number): string {
    const index = this.indexOf(Math.floor(place / OFFSET_SCALE))
    assert(index < this.held.length && this.held[index]! > 0, 'an id reference names a batch held')
    return this.batches[index]!
  }

  /** Where in `batches` the batch of sequence number `seq` (modulo 2^31) is. */
  private indexOf(seq: number): number {
    return (seq - (this.firstSeq % SEQ_SPACE) + SEQ_SPACE) % SEQ_SPACE
  }
}
