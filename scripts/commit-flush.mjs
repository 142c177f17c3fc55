#!/usr/bin/env node
/**
 * What a journal commit costs against the disk's own flush, side by side: `node
 * scripts/commit-flush.mjs [--commits 1500] [--rounds 3]`. Each round, in turn, on fresh
 * directories (all timed on this thread, wall time per commit):
 *
 * - `lmdb`: a synchronous LMDB commit of one 2 000-byte record under a new key, as the journal
 *   commits a group (src/journal/journal.ts appendSync: data pages, fdatasync, meta page written
 *   through the synchronous descriptor);
 * - `lmdb, no meta sync`: the same with MDB_NOMETASYNC for the transaction (one flush; the commit
 *   is durable only after the next flush of the file);
 * - `lmdb, file grown first`: `lmdb` on a data file extended by 16 MiB of zeros beforehand, so
 *   its flushes change no file size;
 * - `4 KiB + fdatasync`: a 4 KiB write within a file already that long, and fdatasync: the floor
 *   bench:host and bench:rest measure under a durable acknowledgement.
 *
 * Prints p50, p90, p99 and the mean of each, per round (the disk here moves from minute to minute:
 * compare within a round).
 */
import { closeSync, fdatasyncSync, fstatSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { open } from 'lmdb'

const { values } = parseArgs({ options: {
  commits: { type: 'string', default: '1500' },
  rounds: { type: 'string', default: '3' },
} })
const commits = Number(values.commits)
const rounds = Number(values.rounds)
if (!(commits >= 100 && rounds >= 1)) {
  console.error('usage: node scripts/commit-flush.mjs [--commits N >= 100] [--rounds N >= 1]')
  process.exit(2)
}
/** lmdb-js passes these bits to mdb_txn_begin: MDB_NOMETASYNC for this transaction only. */
const NO_META_SYNC = 0x40000
/** lmdb-js's default flags for transactionSync: abortable, committed before it returns. */
const SYNC_COMMIT = 3
const RECORD = Buffer.alloc(2_000, 0x5a)
const GROWN_BYTES = 16 << 20

function lmdbCommits({ metaSync, grown }) {
  const dir = mkdtempSync(join(tmpdir(), 'predex-commit-flush-'))
  const root = open({ path: dir, overlappingSync: false, maxDbs: 2 })
  const db = root.openDB({ name: 'batches', encoding: 'binary' })
  try {
    if (grown) grow(join(dir, 'data.mdb'))
    const flags = metaSync ? SYNC_COMMIT : SYNC_COMMIT | NO_META_SYNC
    const times = []
    for (let i = 0; i < commits; i++) {
      const started = performance.now()
      root.transactionSync(() => db.putSync(i, RECORD), flags)
      times.push(performance.now() - started)
    }
    return times
  } finally {
    root.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Extends the file by GROWN_BYTES of zeros past what LMDB uses, and flushes that once. */
function grow(path) {
  const fd = openSync(path, 'r+')
  try {
    const end = fstatSync(fd).size
    const zeros = Buffer.alloc(1 << 20)
    for (let at = 0; at < GROWN_BYTES; at += zeros.length) writeSync(fd, zeros, 0, zeros.length, end + at)
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function rawFlushes() {
  const dir = mkdtempSync(join(tmpdir(), 'predex-commit-flush-'))
  const fd = openSync(join(dir, 'flush'), 'w')
  const block = Buffer.alloc(4_096, 1)
  const blocks = 256
  try {
    for (let i = 0; i < blocks; i++) writeSync(fd, block, 0, block.length, i * block.length)
    fdatasyncSync(fd)
    const times = []
    for (let i = 0; i < commits; i++) {
      const started = performance.now()
      writeSync(fd, block, 0, block.length, (i % blocks) * block.length)
      fdatasyncSync(fd)
      times.push(performance.now() - started)
    }
    return times
  } finally {
    closeSync(fd)
    rmSync(dir, { recursive: true, force: true })
  }
}

function describe(times) {
  const sorted = [...times].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(3)
  const mean = (times.reduce((sum, t) => sum + t, 0) / times.length).toFixed(3)
  return `p50 ${at(0.5)}  p90 ${at(0.9)}  p99 ${at(0.99)}  mean ${mean} ms`
}

const VARIANTS = [
  ['lmdb', () => lmdbCommits({ metaSync: true, grown: false })],
  ['lmdb, no meta sync', () => lmdbCommits({ metaSync: false, grown: false })],
  ['lmdb, file grown first', () => lmdbCommits({ metaSync: true, grown: true })],
  ['4 KiB + fdatasync', rawFlushes],
]
console.log(`# ${commits} commits each, ${rounds} rounds (wall time per commit)`)
for (let round = 1; round <= rounds; round++) {
  for (const [name, run] of VARIANTS) console.log(`round ${round}  ${name.padEnd(24)} ${describe(run())}`)
}
