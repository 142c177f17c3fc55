/**
 * A process's resident memory as Linux counts it (/proc/PID/status), for the benches and the load
 * tests that judge a server's memory from outside it: the growth bench, the soak, the abuse and
 * overload tests. In bench/, which scripts/ builds on (never the other way round).
 */
import { readFileSync } from 'node:fs'

/** VmRSS and RssAnon of `pid` in bytes, or null when the process is gone. */
export function rssOf(pid: number): { rssBytes: number; rssAnonBytes: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kB = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024
    const memory = { rssBytes: kB('VmRSS'), rssAnonBytes: kB('RssAnon') }
    return Number.isFinite(memory.rssBytes) && Number.isFinite(memory.rssAnonBytes) ? memory : null
  } catch {
    return null
  }
}
