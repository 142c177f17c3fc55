/**
 * A journal batch: the commands of one group commit in one record, so a transaction is one LMDB
 * put whatever the number of commands (a put per command cost the worker its JavaScript side and
 * lmdb-js its per-write bookkeeping for each). Keyed by the batch's first seq:
 *
 *   [crc32 of the rest (4, LE)][format (1) = 1][count (4, LE)]
 *   then `count` times: [length (LEB128)][stamped command: seq, time, command (command-codec)]
 *
 * Command i of the batch has seq `firstSeq + i` and says so itself, which the reader checks.
 * The worker writes each command's bytes as the ring gave them, prefixed by its stamp, straight
 * into one reusable buffer: nothing is allocated per command; sealing copies the batch out once.
 */
import { crc32 } from 'node:zlib'
import { ByteReader, ByteWriter } from '../stdx/bytes.js'
import { assert } from '../stdx/assert.js'

const CRC_BYTES = 4
const FORMAT = 1
const COUNT_AT = CRC_BYTES + 1
const HEADER_BYTES = COUNT_AT + 4
const HEADER_PLACEHOLDER = new Uint8Array(HEADER_BYTES)
/** A command's stamp at most: its length, seq and time, each a LEB128 of up to 53 bits (8 bytes). */
const STAMP_BYTES_MAX = 3 * 8

/**
 * Builds batch records, one at a time, in one buffer reused for all of them: it grows to the
 * largest batch, at most BATCH_COMMANDS_MAX commands of at most COMMAND_BYTES_MAX (src/limits.ts).
 */
export class BatchRecordWriter {
  private readonly writer = new ByteWriter(1 << 16)
  private commands = 0

  constructor() {
    this.writer.raw(HEADER_PLACEHOLDER)
  }

  /** Commands added since the last seal. */
  get count(): number {
    return this.commands
  }

  /**
   * Whether a command of `commandBytes` bytes keeps the record within `recordBytesMax`
   * (BATCH_RECORD_BYTES_MAX), after `pendingCommands` more of `pendingBytes` in all that may
   * be added before it (the engine worker decodes a run of commands before it adds them). An
   * empty record takes any command: a command is never refused here.
   */
  fits(commandBytes: number, recordBytesMax: number, pendingCommands = 0, pendingBytes = 0): boolean {
    return this.commands + pendingCommands === 0 || this.writer.byteLength + (pendingCommands + 1) * STAMP_BYTES_MAX
      + pendingBytes + commandBytes <= recordBytesMax
  }

  /** Adds a command stamped with `seq` and `timeMs`; `commandBytes` is its command-codec encoding. */
  add(seq: number, timeMs: number, commandBytes: Uint8Array): void {
    this.writer.uint(ByteWriter.uintLength(seq) + ByteWriter.uintLength(timeMs) + commandBytes.length)
    this.writer.uint(seq)
    this.writer.uint(timeMs)
    this.writer.raw(commandBytes)
    this.commands++
  }

  /**
   * Adds a command already stamped (its seq, time and command, as another record holds it: a
   * replica copies the primary's records command by command, issue 34).
   */
  addStamped(stamped: Uint8Array): void {
    this.writer.uint(stamped.length)
    this.writer.raw(stamped)
    this.commands++
  }

  /** The record of the commands added so far, sealed, in an ArrayBuffer of its own; the writer starts over. */
  seal(): Buffer {
    assert(this.commands > 0, 'a batch record holds at least one command')
    const bytes = this.writer.bytes()
    // An ArrayBuffer of its own (not a slice of Node's shared pool): it is transferred to the journal thread.
    const record = Buffer.from(new ArrayBuffer(bytes.length))
    record.set(bytes)
    record[CRC_BYTES] = FORMAT
    record.writeUInt32LE(this.commands, COUNT_AT)
    record.writeUInt32LE(crc32(record.subarray(CRC_BYTES)), 0)
    this.writer.reset()
    this.writer.raw(HEADER_PLACEHOLDER)
    this.commands = 0
    return record
  }
}

/** How many commands a record says it holds, if its header is whole (its checksum unchecked). */
export function batchCountOf(record: Uint8Array): number | null {
  if (record.length < HEADER_BYTES || record[CRC_BYTES] !== FORMAT) return null
  return Buffer.from(record.buffer, record.byteOffset, record.byteLength).readUInt32LE(COUNT_AT)
}

/**
 * A batch record's commands as one view (`count` of them, each a LEB128 length then the stamped
 * command), if its header is whole and its checksum holds; null otherwise. A replay reads them
 * with one reader rather than a view and a reader per command (batchCommandsOf).
 */
export function checkedBatchBody(record: Uint8Array): { readonly count: number; readonly bytes: Uint8Array } | null {
  const count = batchCountOf(record)
  if (count === null) return null
  const buffer = Buffer.from(record.buffer, record.byteOffset, record.byteLength)
  if (buffer.readUInt32LE(0) !== crc32(buffer.subarray(CRC_BYTES))) return null
  return { count, bytes: buffer.subarray(HEADER_BYTES) }
}

/**
 * The stamped commands of a batch record (each a view into `record`), or null if the record is
 * damaged: checksum, format, or lengths that do not add up to the record.
 */
export function batchCommandsOf(record: Uint8Array): Uint8Array[] | null {
  const body = checkedBatchBody(record)
  if (body === null) return null
  const count = body.count
  const reader = new ByteReader(body.bytes)
  const commands: Uint8Array[] = []
  try {
    for (let i = 0; i < count; i++) commands.push(reader.raw(reader.uint()))
  } catch {
    return null // lengths that run past the record
  }
  return reader.isAtEnd() ? commands : null
}
