/**
 * The journal: every command the engine applied, in sequence order, in LMDB; and the engine's
 * snapshots, as files beside it (snapshot-files.ts). One LMDB environment holds these databases:
 *
 *   batches:   first seq -> a batch record: the commands of one group commit (batch-record.ts)
 *   commands:  seq -> [crc32 (4 bytes, little-endian)][stamped command (command-codec)]
 *              (journals written before batches, read and pruned but no longer written)
 *   snapshots: seq -> [crc32][engine snapshot at that seq]
 *              (journals written before snapshot files, read and pruned but no longer written)
 *
 * A batch is written in one transaction of one put; a snapshot, when one is due, to its file by
 * the snapshot thread, outside LMDB's one writer (snapshot-files.ts says why).
 * Commits are LMDB's own, synchronous to disk (data pages, fdatasync, meta page, sync): a
 * commit that has returned is durable. `appendSync` commits on the calling thread (the engine
 * worker's journal thread, src/host/journal-thread.ts), without lmdb-js's write thread: one at a
 * time its p99 was 0.7-1.4 ms here against 4-6 ms for an lmdb-js put and its flush
 * (docs/performance.md, "Write path v2"). A write error throws: the host stops.
 *
 * Recovery reads the newest sound snapshot and replays the commands after it. A damaged last
 * record is a write that never completed, so none of its commands was acknowledged: it is
 * dropped. A damaged record with sound records after it, or a missing sequence number, means the
 * journal cannot be trusted: recovery stops with an error naming the sequence number (fail closed).
 */
import { open, type Database, type RootDatabase } from 'lmdb'
import { mkdirSync } from 'node:fs'
import { crc32 } from 'node:zlib'
import { assert } from '../stdx/assert.js'
import type { Command } from '../engine/command.js'
import { decodeStampedCommand, decodeStampedCommands } from '../codec/command-codec.js'
import { BatchRecordWriter, batchCommandsOf, batchCountOf, checkedBatchBody } from './batch-record.js'
import { ENDED_ORDERS_RETAINED } from '../engine/limits.js'
import { DirectoryLock } from './directory-lock.js'
import { SnapshotFiles } from './snapshot-files.js'

export type Durability = 'sync' | 'async'

/** A setting asked for that the journal was not made with (the start is refused). */
export class JournalSettingError extends Error {}

export class JournalCorruptError extends Error {
  override readonly name = 'JournalCorruptError'
  constructor(readonly seq: number, reason: string) {
    super(`journal record ${seq} is damaged (${reason}) and later records exist: refusing to start; ` +
      'restore the data directory from a backup or investigate the disk')
  }
}

export interface RecoveredRecord {
  readonly seq: number
  readonly command: Command
}

export interface JournalOptions {
  /** Directory of the LMDB environment. */
  readonly path: string
  readonly durability: Durability
  readonly readOnly?: boolean
  /** How long to wait for the directory's lock held by another process (DATA_DIR_LOCK_WAIT_MS_MAX by default). */
  readonly lockWaitMsMax?: number
}

const CRC_BYTES = 4
/** The databases' names (tests damage records through LMDB directly). */
export const BATCHES_DB = 'batches'
export const LEGACY_COMMANDS_DB = 'commands'

/** One stored record: a batch, or a command of a journal written before batches. */
interface StoredRecord {
  readonly key: number
  /** As stored: a sealed single command (a journal's older records) or a batch (batch-record.ts). */
  readonly value: Buffer
  readonly isBatch: boolean
  readonly db: Database<Buffer, number>
}

/** The stamped commands a record holds (views into it), or null if it is damaged. */
function payloadsOf(record: StoredRecord): Uint8Array[] | null {
  if (record.isBatch) return batchCommandsOf(record.value)
  const payload = unsealed(record.value)
  return payload === null ? null : [payload]
}

/** A command as stored, unchecked beyond its record's checksum (tests and tools). */
export interface CommandRecord {
  readonly seq: number
  /** Its stamped command, or null when its record is damaged (then `seq` is the record's key). */
  readonly payload: Uint8Array | null
}

export class Journal {
  private readonly root: RootDatabase
  private readonly batches: Database<Buffer, number>
  private readonly commands: Database<Buffer, number>
  /** Snapshots written before they were files (read, pruned and truncated, no longer written). */
  private readonly snapshots: Database<Buffer, number>
  private readonly snapshotFiles: SnapshotFiles
  /** Settings fixed when the journal is made, which replaying it must use (endedOrdersRetained). */
  private readonly settings: Database<number, string>

  private constructor(private readonly options: JournalOptions, private readonly lock: DirectoryLock) {
    this.root = open({
      path: options.path,
      // A directory, always: lmdb-js takes a path with a dot in its last part ("./my.data",
      // mktemp's "/tmp/tmp.x1Y2") for a file unless told, and then cannot open it.
      noSubdir: false,
      // Synchronous commits (see the header): a transaction is on disk when its commit returns, so
      // there is no separate flush to wait for. (overlappingSync, lmdb-js's default here, commits
      // first and flushes after, through its write thread: a longer tail for each ack.)
      overlappingSync: false,
      readOnly: options.readOnly ?? false,
      maxDbs: 4,
    })
    this.batches = this.root.openDB<Buffer, number>({ name: BATCHES_DB, encoding: 'binary' })
    this.commands = this.root.openDB<Buffer, number>({ name: LEGACY_COMMANDS_DB, encoding: 'binary' })
    this.snapshots = this.root.openDB<Buffer, number>({ name: 'snapshots', encoding: 'binary' })
    this.settings = this.root.openDB<number, string>({ name: 'settings' })
    this.snapshotFiles = new SnapshotFiles(options.path)
  }

  /**
   * Removes a snapshot file a crash left half-written. Only before any snapshot thread of this
   * directory starts (the engine worker, before its recovery): a live one may be writing one.
   */
  removeUnfinishedSnapshots(): void {
    assert(!this.options.readOnly, 'the journal is open for writing')
    this.snapshotFiles.removeUnfinished()
  }

  /**
   * How many ended order ids the engine of this journal remembers (order-index.ts). It decides
   * which resubmissions are duplicates, so every replay of the journal must use the value its
   * commands were applied with: it is fixed when the journal is made (`requested`, or
   * ENDED_ORDERS_RETAINED) and kept here; a journal made before the setting existed was applied
   * with ENDED_ORDERS_RETAINED. A different `requested` later is refused, not applied.
   */
  endedOrdersRetained(requested: number | null): number {
    const stored = this.settings.get('endedOrdersRetained')
    const isNew = this.lastSeq() === 0 && this.oldestSnapshotSeq() === null
    const value = stored ?? (isNew && requested !== null ? requested : ENDED_ORDERS_RETAINED)
    if (requested !== null && requested !== value) {
      throw new JournalSettingError(`this data directory's engine remembers ${value} ended orders, fixed when its `
        + `journal was made; --ended-orders-retained ${requested} cannot change it`)
    }
    if (stored === undefined && this.options.readOnly !== true) this.settings.putSync('endedOrdersRetained', value)
    return value
  }

  /**
   * Opens the journal of `options.path`, read-only or not, after taking the directory's lock: a
   * directory another live process has open is refused (DataDirectoryInUseError), because an
   * LMDB open beside a writer can lose the writer's latest transaction (directory-lock.ts).
   */
  static open(options: JournalOptions): Journal {
    if (options.readOnly !== true) mkdirSync(options.path, { recursive: true })
    const lock = DirectoryLock.acquire(options.path, options.lockWaitMsMax)
    try {
      return new Journal(options, lock)
    } catch (error) {
      lock.release()
      throw error
    }
  }

  /** Sequence number of the last command journaled (0 when empty); a damaged last batch counts as one command. */
  lastSeq(): number {
    for (const { key, value } of this.batches.getRange({ reverse: true, limit: 1 })) {
      return key + Math.max(1, batchCountOf(value) ?? 1) - 1
    }
    for (const key of this.commands.getKeys({ reverse: true, limit: 1 })) return key
    return 0
  }

  /**
   * Appends a sealed batch record (BatchRecordWriter.seal) whose first command has seq
   * `firstSeq`, in one transaction committed on this thread: durable when it returns.
   */
  appendSync(firstSeq: number, batch: Buffer): void {
    assert(!this.options.readOnly, 'the journal is open for writing')
    this.root.transactionSync(() => this.batches.putSync(firstSeq, batch))
  }

  /**
   * Drops every command after `seq`, in one transaction: the batches after it go, a batch that
   * holds `seq` and more is written again with its commands up to `seq`, and so are the legacy
   * single commands and the snapshots after it. For a node rejoining a replicated cluster
   * (src/replication/rejoin.ts): what it drops was never acknowledged. Returns the commands dropped.
   */
  truncateAfter(seq: number): number {
    assert(!this.options.readOnly, 'the journal is open for writing')
    const before = this.lastSeq()
    if (before <= seq) return 0
    const batchesAfter = [...this.batches.getKeys({ start: seq + 1 })]
    const straddling = [...this.batches.getRange({ start: seq, reverse: true, limit: 1 })][0]
    const commandsAfter = [...this.commands.getKeys({ start: seq + 1 })]
    const snapshotsAfter = [...this.snapshots.getKeys({ start: seq + 1 })]
    // First: a snapshot past the journal's end would be a state no replay reaches.
    for (const snapshotSeq of this.snapshotFiles.seqs()) if (snapshotSeq > seq) this.snapshotFiles.remove(snapshotSeq)
    this.root.transactionSync(() => {
      for (const key of batchesAfter) this.batches.removeSync(key)
      for (const key of commandsAfter) this.commands.removeSync(key)
      for (const key of snapshotsAfter) this.snapshots.removeSync(key)
      const payloads = straddling === undefined ? null : batchCommandsOf(straddling.value)
      if (straddling !== undefined && payloads !== null && straddling.key + payloads.length - 1 > seq) {
        const writer = new BatchRecordWriter()
        for (const payload of payloads.slice(0, seq - straddling.key + 1)) writer.addStamped(payload)
        this.batches.putSync(straddling.key, writer.seal())
      }
    })
    return before - this.lastSeq()
  }

  /**
   * Writes the engine's snapshot at `seq` to its file, durably, on the calling thread (the
   * snapshot thread's), after the batch that ends at `seq` is durable. No LMDB transaction: the
   * group commits go on meanwhile.
   */
  writeSnapshot(seq: number, bytes: Uint8Array): void {
    assert(!this.options.readOnly, 'the journal is open for writing')
    this.snapshotFiles.write(seq, sealed(bytes))
  }

  /** Deletes all but the newest `keep` snapshots (files, and those of an older journal in LMDB). */
  pruneSnapshots(keep: number): Promise<void> {
    const { seqs, inFiles } = this.snapshotsStored()
    const deletes: Promise<unknown>[] = []
    for (const seq of seqs.slice(0, Math.max(0, seqs.length - keep))) {
      if (inFiles.has(seq)) this.snapshotFiles.remove(seq)
      else deletes.push(this.snapshots.remove(seq))
    }
    return Promise.all(deletes).then(() => undefined)
  }

  /** The seq of the oldest snapshot kept (null: none). */
  oldestSnapshotSeq(): number | null {
    return this.snapshotsStored().seqs[0] ?? null
  }

  /**
   * Every snapshot's seq, files' and LMDB's, in increasing order (a seq is in one place or the
   * other), and which are files: the directory listed once.
   */
  private snapshotsStored(): { seqs: number[]; inFiles: ReadonlySet<number> } {
    const inFiles = new Set(this.snapshotFiles.seqs())
    const seqs = [...new Set([...inFiles, ...this.snapshots.getKeys()])].sort((a, b) => a - b)
    return { seqs, inFiles }
  }

  /** The seq of the first command journaled (null when there is none). */
  firstSeq(): number | null {
    for (const key of this.commands.getKeys({ limit: 1 })) return key
    for (const key of this.batches.getKeys({ limit: 1 })) return key
    return null
  }

  /**
   * Deletes the records whose commands are all at or before `seq` (journal retention:
   * docs/host.md); returns how many. The deletes of one turn are one transaction, so a crash
   * leaves all of them or none.
   */
  pruneCommandsThrough(seq: number): Promise<number> {
    assert(!this.options.readOnly, 'the journal is open for writing')
    const deletes = [...this.commands.getKeys({ end: seq + 1 })].map((key) => this.commands.remove(key))
    for (const { key, value } of this.batches.getRange({ end: seq + 1 })) {
      const count = batchCountOf(value)
      if (count !== null && key + count - 1 <= seq) deletes.push(this.batches.remove(key))
    }
    return Promise.all(deletes).then(() => deletes.length)
  }

  /** Snapshots from the newest, each with its bytes if its checksum holds (null if damaged). */
  *snapshotsNewestFirst(): Generator<{ seq: number; bytes: Uint8Array | null }> {
    const { seqs, inFiles } = this.snapshotsStored()
    for (const seq of seqs.reverse()) {
      const record = inFiles.has(seq) ? this.snapshotFiles.read(seq) : this.snapshots.get(seq)
      // Gone since it was listed (pruned meanwhile): there is an older one, or a newer one was read first.
      if (record === null || record === undefined) continue
      yield { seq, bytes: unsealed(record) }
    }
  }

  /**
   * The commands after `afterSeq`, checked: sequence numbers without gaps, checksums sound,
   * each command's own seq the one its place says. Drops a damaged last record (see the header).
   */
  *recordsAfter(afterSeq: number): Generator<RecoveredRecord> {
    for (const commands of this.batchesAfter(afterSeq)) {
      for (const command of commands) yield { seq: command.seq, command }
    }
  }

  /**
   * recordsAfter's commands a record at a time, in order (a record's commands at or before
   * `afterSeq` left out): what a replay loops over, with no step of a generator per command.
   */
  *batchesAfter(afterSeq: number): Generator<readonly Command[]> {
    let expected = afterSeq + 1
    const lastKey = this.lastRecordKey()
    for (const record of this.storedFrom(afterSeq + 1)) {
      if (record.key > expected) throw new JournalCorruptError(expected, `missing; the next record is ${record.key}`)
      const decoded = decodeRecord(record)
      if (typeof decoded === 'string') {
        if (record.key === lastKey) {
          this.dropTornTail(record)
          return
        }
        throw new JournalCorruptError(record.key, decoded)
      }
      // A batch that began at or before afterSeq: its commands from `expected` on.
      const fresh = record.key < expected ? decoded.slice(expected - record.key) : decoded
      if (fresh.length === 0) continue
      expected += fresh.length
      yield fresh
    }
  }

  /** Each command from `fromSeq` on (seq 1 by default), checked only by its record's checksum (tests and tools). */
  *commandRecords(fromSeq = 1): Generator<CommandRecord> {
    for (const record of this.storedFrom(fromSeq)) {
      const payloads = payloadsOf(record)
      if (payloads === null) {
        yield { seq: record.key, payload: null }
        continue
      }
      for (let i = 0; i < payloads.length; i++) {
        if (record.key + i >= fromSeq) yield { seq: record.key + i, payload: payloads[i]! }
      }
    }
  }

  async close(): Promise<void> {
    try {
      await this.root.close()
    } finally {
      this.lock.release()
    }
  }

  /** The records holding `fromSeq` and after: a journal's older single commands first, then its batches. */
  private *storedFrom(fromSeq: number): Generator<StoredRecord> {
    for (const { key, value } of this.commands.getRange({ start: fromSeq })) {
      yield { key, value, isBatch: false, db: this.commands }
    }
    let start = fromSeq
    for (const key of this.batches.getKeys({ start: fromSeq, reverse: true, limit: 1 })) start = key
    for (const { key, value } of this.batches.getRange({ start })) {
      yield { key, value, isBatch: true, db: this.batches }
    }
  }

  private lastRecordKey(): number {
    for (const key of this.batches.getKeys({ reverse: true, limit: 1 })) return key
    for (const key of this.commands.getKeys({ reverse: true, limit: 1 })) return key
    return 0
  }

  private dropTornTail(record: StoredRecord): void {
    if (this.options.readOnly) return
    record.db.removeSync(record.key)
  }
}

/** [crc32 of payload][payload]. */
export function sealed(payload: Uint8Array): Buffer {
  const record = Buffer.allocUnsafe(CRC_BYTES + payload.length)
  record.set(payload, CRC_BYTES)
  record.writeUInt32LE(crc32(payload), 0)
  return record
}

/** The payload if the checksum holds, else null. */
export function unsealed(record: Uint8Array): Uint8Array | null {
  if (record.length < CRC_BYTES) return null
  const payload = record.subarray(CRC_BYTES)
  const stored = Buffer.from(record.buffer, record.byteOffset, CRC_BYTES).readUInt32LE(0)
  return stored === crc32(payload) ? payload : null
}

/** A record's commands, each saying the seq its place gives it; or why the record is damaged. */
function decodeRecord(record: StoredRecord): Command[] | string {
  let commands: Command[] | null
  try {
    commands = record.isBatch ? decodedBatch(record.value) : decodedSingle(record.value)
  } catch {
    commands = null // a command that does not decode (codec assertions)
  }
  if (commands === null) return 'checksum or format'
  for (let i = 0; i < commands.length; i++) {
    const seq = commands[i]!.seq
    if (seq !== record.key + i) return `it says seq ${seq}`
  }
  return commands
}

/** Null when the checksum or the header is wrong; throws when the commands do not decode. */
function decodedBatch(record: Buffer): Command[] | null {
  const body = checkedBatchBody(record)
  return body === null ? null : decodeStampedCommands(body.bytes, body.count)
}

function decodedSingle(record: Buffer): Command[] | null {
  const payload = unsealed(record)
  return payload === null ? null : [decodeStampedCommand(payload)]
}
