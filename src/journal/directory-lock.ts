/**
 * One process at a time on a data directory. lmdb-js (3.5.6) writes the shared "last
 * transaction id" of the lock file (`mdb_env_open2`: `mti_txnid = meta.mm_txnid`) without the
 * writer's mutex whenever a process opens the environment, read-only or not. A process that opens
 * it while another one writes can move that id back by a transaction; the writer's next
 * transaction then starts from the older root and the newer transaction's records vanish,
 * acknowledged or not: a gap of one batch in the journal, and a start refused at the next
 * restart (scripts/lmdb-open-race.mjs shows it; docs/host.md). Within one process lmdb-js shares
 * the environment between threads, so only other processes are a danger.
 *
 * The lock is a file holding the owner's pid, created exclusively (`wx`). A lock whose process
 * is gone (kill -9, power loss) is stale and taken over; a live one refuses the open with
 * DataDirectoryInUseError, before LMDB is touched. A lock naming this process belongs to another
 * thread of it (the engine worker and the read model's catch-up share the environment): the
 * open goes ahead without taking ownership, and only the owner removes the file.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const LOCK_FILE = 'predex.lock'
const TAKEOVERS_MAX = 3

export class DataDirectoryInUseError extends Error {
  override readonly name = 'DataDirectoryInUseError'
  constructor(readonly dataDir: string, readonly pid: number) {
    super(`the data directory ${dataDir} is in use by process ${pid} (${join(dataDir, LOCK_FILE)}); ` +
      'stop that process first. Opening it meanwhile, even read-only, can lose its journal\'s latest ' +
      'transaction. If no such process runs Predex, remove the lock file.')
  }
}

export class DirectoryLock {
  private constructor(private readonly path: string, private readonly owned: boolean) {}

  /** Takes the lock of `dataDir` for this process, or throws DataDirectoryInUseError. */
  static acquire(dataDir: string): DirectoryLock {
    const path = join(dataDir, LOCK_FILE)
    for (let attempt = 0; attempt < TAKEOVERS_MAX; attempt++) {
      if (created(path)) return new DirectoryLock(path, true)
      const holder = holderOf(path)
      if (holder === null) continue // removed meanwhile: try to create it again
      if (holder === process.pid) return new DirectoryLock(path, false)
      if (isAlive(holder)) throw new DataDirectoryInUseError(dataDir, holder)
      rmSync(path, { force: true }) // stale: its process is gone
    }
    throw new Error(`could not take the lock ${path}: it keeps changing hands`)
  }

  release(): void {
    if (this.owned && holderOf(this.path) === process.pid) rmSync(this.path, { force: true })
  }
}

function created(path: string): boolean {
  let fd: number
  try {
    fd = openSync(path, 'wx')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
  try {
    writeSync(fd, `${process.pid}\n`)
  } finally {
    closeSync(fd)
  }
  return true
}

/** The pid in the lock file; null if there is none. A file without a pid yet is being written. */
function holderOf(path: string): number | null {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  const pid = Number.parseInt(text, 10)
  // An empty file: its creator is between `open` and `write`; treat it as held by someone alive.
  return Number.isSafeInteger(pid) && pid > 0 ? pid : -1
}

function isAlive(pid: number): boolean {
  if (pid === -1) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
