/**
 * The engine's snapshots as files beside the journal's LMDB environment, one per snapshot:
 * `snapshot-<seq, 16 digits>.bin`, holding [crc32][snapshot] as LMDB's snapshot records did.
 *
 * Why files: LMDB has one writer at a time, and a snapshot (6 MB at the bench's 400 000th
 * command) written in a transaction held that lock, and the journal thread, for its write and
 * its flush: every group commit behind it waited, and with a snapshot every 100 000 commands the
 * ack p99 of an open loop at half load was 120-135 ms against 16-30 ms with the same replica
 * making no snapshot (docs/performance.md, "A Map's old tables, objects tenured too soon, and
 * snapshots off the commit path"). A file is written by the snapshot thread itself, beside the
 * commits, on no lock of theirs.
 *
 * A file is written under a temporary name, flushed a megabyte at a time as it is written (so the
 * disk's queue never holds a whole snapshot in front of a commit: SNAPSHOT_FLUSH_BYTES) and
 * fsync'd at the end, renamed, and the directory flushed:
 * when `write` returns the snapshot is durable, and a crash mid-write leaves only a temporary
 * file, never a half snapshot under a snapshot's name (the engine worker removes it at its next
 * start). Its checksum still guards against the disk.
 */
import { closeSync, fdatasyncSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync,
  writeSync } from 'node:fs'
import { join } from 'node:path'
import { assert } from '../stdx/assert.js'
import { SNAPSHOT_FLUSH_BYTES } from '../limits.js'

const PREFIX = 'snapshot-'
const SUFFIX = '.bin'
const TEMPORARY_SUFFIX = '.tmp'
/** Digits of a seq in a file's name: names sort as their seqs do (Number.MAX_SAFE_INTEGER has 16). */
const SEQ_DIGITS = 16
const NAME = /^snapshot-(\d{16})\.bin$/
const OWNER_ONLY_FILE = 0o600

export class SnapshotFiles {
  constructor(private readonly dir: string) {}

  /** Writes `sealed` as the snapshot at `seq`, durably (see the header). */
  write(seq: number, sealed: Uint8Array): void {
    const path = this.pathOf(seq)
    const temporary = path + TEMPORARY_SUFFIX
    // The owner's alone, as every file of the data directory (data-dir.ts): a snapshot holds the API keys.
    const fd = openSync(temporary, 'w', OWNER_ONLY_FILE)
    try {
      let written = 0
      while (written < sealed.length) {
        written += writeSync(fd, sealed, written, Math.min(SNAPSHOT_FLUSH_BYTES, sealed.length - written))
        fdatasyncSync(fd)
      }
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
    this.flushDirectory()
  }

  /** The seqs of the snapshots here, in increasing order. */
  seqs(): number[] {
    const seqs: number[] = []
    for (const name of readdirSync(this.dir)) {
      const match = NAME.exec(name)
      if (match !== null) seqs.push(Number(match[1]))
    }
    return seqs.sort((a, b) => a - b)
  }

  /** The file of the snapshot at `seq`, or null when there is none (removed since it was listed). */
  read(seq: number): Uint8Array | null {
    try {
      return readFileSync(this.pathOf(seq))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
  }

  /** Removes the snapshot at `seq` (if there is one), durably. */
  remove(seq: number): void {
    try {
      unlinkSync(this.pathOf(seq))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    this.flushDirectory()
  }

  /** Removes what a write that never finished left (a crash between its start and its rename). */
  removeUnfinished(): void {
    for (const name of readdirSync(this.dir)) {
      if (name.startsWith(PREFIX) && name.endsWith(SUFFIX + TEMPORARY_SUFFIX)) unlinkSync(join(this.dir, name))
    }
  }

  private pathOf(seq: number): string {
    assert(Number.isSafeInteger(seq) && seq >= 0, 'a snapshot\'s seq is a whole number')
    return join(this.dir, `${PREFIX}${String(seq).padStart(SEQ_DIGITS, '0')}${SUFFIX}`)
  }

  /** A rename or unlink is durable once its directory is flushed. */
  private flushDirectory(): void {
    const fd = openSync(this.dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
}
