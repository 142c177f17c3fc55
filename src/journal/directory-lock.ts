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
 * The lock is the kernel's: an exclusive lock on the open file `predex.lock` (file-lock.ts),
 * held for as long as the journal is open. The kernel drops it when its holder dies, however it
 * dies, so a restart right after kill -9 starts, and a pid in the file never blocks anything.
 * Taking it is atomic, so two processes that start together cannot both own the directory.
 *
 * The file's text only names the holder, for the refusal's message: `<pid> <start>`, where
 * `<start>` is when that process started (Linux: /proc's start time in clock ticks). A lock this
 * process's other thread holds (the engine worker's, while the read model's catch-up opens the
 * journal read-only) names this very process: the open goes ahead without owning the lock.
 * Pid and start time together name one process, so a pid reused by another process (a container
 * restart) is never taken for this one.
 *
 * The file stays in place when released: removing a file that another process has just opened
 * to lock would let a third one lock a new file of the same name, and both would own the directory.
 */
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { DATA_DIR_LOCK_WAIT_MS_MAX } from '../limits.js'
import { tryLockFile } from './file-lock.js'

export const LOCK_FILE = 'predex.lock'
const OWNER_ONLY_FILE = 0o600
/** A refused open rereads a holder caught between taking the lock and writing its name this often. */
const HOLDER_READS_MAX = 50
const LOCK_RETRY_MS = 5

export class DataDirectoryInUseError extends Error {
  override readonly name = 'DataDirectoryInUseError'
  /** `pid`: the holder's process, or null when it had not written its name yet. */
  constructor(readonly dataDir: string, readonly pid: number | null) {
    super(`the data directory ${dataDir} is in use by ${pid === null ? 'another process' : `process ${pid}`} `
      + `(it holds the lock on ${join(dataDir, LOCK_FILE)}); stop that process first. Opening it meanwhile, `
      + 'even read-only, can lose its journal\'s latest transaction.')
  }
}

export class DirectoryLock {
  /** `fd`: the open lock file this process owns the lock through; null when another thread owns it. */
  private constructor(private fd: number | null) {}

  /**
   * Takes the lock of `dataDir` for this process, waiting up to `waitMsMax` for a holder that is
   * exiting; or throws DataDirectoryInUseError naming the holder.
   */
  static acquire(dataDir: string, waitMsMax = DATA_DIR_LOCK_WAIT_MS_MAX): DirectoryLock {
    const path = join(dataDir, LOCK_FILE)
    const deadlineMs = performance.now() + waitMsMax
    for (;;) {
      const fd = tryOwn(path)
      if (fd !== null) return new DirectoryLock(fd)
      const holder = holderOf(path)
      if (holder === processIdentity()) return new DirectoryLock(null)
      if (performance.now() >= deadlineMs) throw new DataDirectoryInUseError(dataDir, pidOf(holder))
      sleepMs(LOCK_RETRY_MS)
    }
  }

  /** Gives the lock back (closing its file is what releases it); a lock of another thread is left alone. */
  release(): void {
    if (this.fd === null) return
    closeSync(this.fd)
    this.fd = null
  }
}

/** Opens the lock file and takes its lock, naming this process in it: the open file, or null if held elsewhere. */
function tryOwn(path: string): number | null {
  const fd = openSync(path, 'a+', OWNER_ONLY_FILE)
  let taken = false
  try {
    taken = tryLockFile(fd)
    if (!taken) return null
    ftruncateSync(fd, 0)
    writeSync(fd, `${processIdentity()}\n`, 0)
    return fd
  } finally {
    if (!taken) closeSync(fd)
  }
}

/** Blocks this thread: a start waiting for a lock has nothing else to do. */
function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * The holder's name as written in the lock file. The holder writes it right after taking the
 * lock, so an empty or half-written file is read again for a moment; null if it stays so.
 */
function holderOf(path: string): string | null {
  for (let read = 0; read < HOLDER_READS_MAX; read++) {
    const text = readFileSync(path, 'utf8')
    if (text.endsWith('\n')) return text.trim()
    sleepMs(1)
  }
  return null
}

function pidOf(holder: string | null): number | null {
  const pid = holder === null ? Number.NaN : Number.parseInt(holder, 10)
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null
}

let identity: string | null = null

/** `<pid> <start>`: this process, told apart from an earlier one that had the same pid. */
export function processIdentity(): string {
  identity ??= `${process.pid} ${processStart()}`
  return identity
}

/** When this process started: /proc's start time (field 22 of /proc/self/stat), or 0 where there is no /proc. */
function processStart(): string {
  let stat: string
  try {
    stat = readFileSync('/proc/self/stat', 'utf8')
  } catch {
    return '0'
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return fields[22 - 3] ?? '0'
}
