/**
 * Which thread spends the CPU (issue 29, point 5): the main thread, the engine worker, its journal
 * thread, the snapshot replica and the verification threads each learn their kernel thread id
 * (Linux: /proc/thread-self) and hand it to the main thread, which reads each one's CPU time from
 * /proc at scrape time (predex_thread_cpu_seconds_total). Everything else the process runs (V8's
 * compiler and collector threads, libuv's pool with lmdb's writes, native add-ons) is `other`:
 * the process's total minus the named threads, so the series add up to the process's CPU time
 * since it started (prom-client's process_cpu_seconds_total counts from the metrics' creation).
 *
 * A CPU profile cannot give this: V8 samples a thread by wall time, so under contention a thread
 * waiting for a core counts as busy, and the threads V8 and libuv run appear in no profile.
 */
import { readFileSync, readlinkSync } from 'node:fs'
import { THREADS_NAMED_MAX } from './limits.js'

export type ThreadRole = 'main' | 'engine' | 'journal' | 'snapshot' | 'verify'

/**
 * /proc reports utime and stime in USER_HZ ticks, fixed at 100 on Linux for every architecture
 * Node runs on (the kernel converts from its own HZ).
 */
const SECONDS_PER_TICK = 0.01

/** This thread's kernel id, or 0 where there is no /proc/thread-self (not Linux). */
export function ownThreadId(): number {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop()) || 0
  } catch {
    return 0
  }
}

/** CPU seconds (user + system) this process has spent, all its threads, ended ones included. */
export function processCpuSeconds(): number {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1e6
}

/** CPU seconds (user + system) thread `tid` of this process has spent, or null (no /proc, or it ended). */
export function threadCpuSeconds(tid: number): number | null {
  return statCpuSeconds(`/proc/self/task/${tid}/stat`)
}

/**
 * CPU seconds (user + system) from a /proc stat file: a process's (`/proc/<pid>/stat`, its threads
 * ended or not) or a thread's; null where there is no such file (not Linux, or it has ended).
 */
export function statCpuSeconds(statPath: string): number | null {
  let stat: string
  try {
    stat = readFileSync(statPath, 'latin1')
  } catch {
    return null
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * SECONDS_PER_TICK
}

/** A named thread: its role, and its CPU seconds when last read (kept once it has ended). */
interface Named {
  readonly role: ThreadRole
  seconds: number
}

/**
 * The named threads of this process and their CPU time by role. A handful of threads (one per
 * role, a verification thread per core): a restarted thread adds an entry, bounded by THREADS_NAMED_MAX.
 */
export class ThreadCpu {
  private readonly named = new Map<number, Named>()
  /** Each role's last answer, so that a counter never goes down (ticks against µs at the edges). */
  private readonly lastByRole = new Map<string, number>()

  /** The thread that makes it is `main`. */
  constructor() {
    this.add('main', ownThreadId())
  }

  /** Names thread `tid` (0: unknown, ignored). */
  add(role: ThreadRole, tid: number): void {
    if (tid === 0 || this.named.has(tid)) return
    if (this.named.size >= THREADS_NAMED_MAX) return
    this.named.set(tid, { role, seconds: 0 })
  }

  /**
   * CPU seconds by role, and `other` (`processSeconds`, the process's total, less the named
   * threads'), read now. A thread that has ended keeps what it was last read at.
   */
  read(processSeconds = processCpuSeconds()): Map<string, number> {
    const byRole = new Map<string, number>()
    let named = 0
    for (const [tid, thread] of this.named) {
      thread.seconds = threadCpuSeconds(tid) ?? thread.seconds
      byRole.set(thread.role, (byRole.get(thread.role) ?? 0) + thread.seconds)
      named += thread.seconds
    }
    byRole.set('other', Math.max(0, processSeconds - named))
    for (const [role, seconds] of byRole) {
      const monotonic = Math.max(seconds, this.lastByRole.get(role) ?? 0)
      this.lastByRole.set(role, monotonic)
      byRole.set(role, monotonic)
    }
    return byRole
  }
}
