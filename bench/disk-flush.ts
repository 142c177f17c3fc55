/**
 * The floor under every durable acknowledgement: how long this machine's disk takes to make a
 * small write durable (a 4 KiB write, then fdatasync, as an LMDB commit's flush does), measured in
 * the directory the journal uses. An ack with durability `sync` waits for at least one such flush,
 * so an ack p99 cannot be lower than this p99, whatever the code does; the host bench reports it
 * beside the knee so that the report can say what limits it.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { percentile } from './stats.js'

export interface DiskFlush {
  readonly p50Ms: number
  readonly p99Ms: number
  readonly latenciesMs: Float64Array
}

/** `writes` flushes of 4 KiB in a fresh file under `parent`, spread over 64 blocks. */
export function measureDiskFlush(parent: string, writes = 300): DiskFlush {
  const { startsMs, endsMs } = flushesBackToBack(parent, (count) => count < writes)
  const latenciesMs = Float64Array.from(endsMs, (end, i) => end - startsMs[i]!)
  const sorted = Float64Array.from(latenciesMs).sort()
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), latenciesMs }
}

/**
 * Flushes one after the other (a 4 KiB write, then fdatasync, over 64 blocks of a fresh file
 * under `parent`) while `more(flushes so far)`; when each started and ended (performance.now).
 */
function flushesBackToBack(parent: string, more: (count: number) => boolean):
  { startsMs: Float64Array; endsMs: Float64Array } {
  const dir = mkdtempSync(join(parent, 'predex-flush-'))
  const fd = openSync(join(dir, 'probe'), 'w')
  const block = Buffer.alloc(4096, 0x5a)
  const starts: number[] = []
  const ends: number[] = []
  try {
    for (let i = 0; more(i); i++) {
      starts.push(performance.now())
      writeSync(fd, block, 0, block.length, (i % 64) * block.length)
      fdatasyncSync(fd)
      ends.push(performance.now())
    }
  } finally {
    closeSync(fd)
    rmSync(dir, { recursive: true, force: true })
  }
  return { startsMs: Float64Array.from(starts), endsMs: Float64Array.from(ends) }
}

/**
 * The disk as a command that arrives at any moment sees it. A durable ack waits for a flush that
 * starts after its command arrived (group commit: the flush in progress holds earlier commands),
 * so in an open loop at a steady rate its floor is the time from a random moment to the end of
 * the next flush, with the disk busy: the rest of the flush in progress, then one whole flush.
 * That weighs each flush by how long it lasted, as the steady arrivals do, where a per-flush p99
 * counts a 300 ms stall as one sample in hundreds. This disk stalls a flush for 50-800 ms a few
 * times in ten seconds (2026-12-02, scratch probes of 20 000 flushes: per-flush p99 0.5-1.3 ms,
 * the longest 85-835 ms); measureDiskFlush's 300 flushes, about 60 ms, seldom meet one. The probe's
 * own load does not make them: flushes paced at 1 000 a second met stalls as long and as often
 * (0.2-2.3 s of stalls over 20 ms in 8 s, against 0.3-0.7 s back to back, three runs of each).
 */
export interface DiskArrivals {
  /** Flushes made back to back (4 KiB write + fdatasync each). */
  readonly flushes: number
  readonly flushP99Ms: number
  readonly flushMaxMs: number
  /** What an arrival waits for the end of the next flush that starts after it (ms). */
  readonly arrivalP50Ms: number
  readonly arrivalP99Ms: number
}

/** Arrivals this far apart over the window (ms): 20 000 a second. */
const ARRIVAL_EVERY_MS = 0.05

/** Flushes back to back for `seconds` in a fresh file under `parent`, and what steady arrivals would wait. */
export function measureDiskArrivals(parent: string, seconds: number): DiskArrivals {
  const untilMs = performance.now() + seconds * 1000
  const { startsMs, endsMs } = flushesBackToBack(parent, () => performance.now() < untilMs)
  const flushes = Float64Array.from(endsMs, (end, i) => end - startsMs[i]!).sort()
  const waits = arrivalWaitsMs(startsMs, endsMs, ARRIVAL_EVERY_MS).sort()
  return { flushes: flushes.length, flushP99Ms: percentile(flushes, 0.99), flushMaxMs: flushes[flushes.length - 1] ?? 0,
    arrivalP50Ms: percentile(waits, 0.5), arrivalP99Ms: percentile(waits, 0.99) }
}

/**
 * For arrivals every `everyMs` from the first flush's start to the last one's, each one's wait
 * until the end of the first flush that starts at or after it (flushes in order, each starting
 * at or after the one before ends).
 */
export function arrivalWaitsMs(startsMs: Float64Array, endsMs: Float64Array, everyMs: number): Float64Array {
  if (!(startsMs.length === endsMs.length && everyMs > 0)) throw new Error('a start and an end a flush, and a step')
  const count = startsMs.length === 0 ? 0 : Math.floor((startsMs[startsMs.length - 1]! - startsMs[0]!) / everyMs) + 1
  const waits = new Float64Array(count)
  let next = 0
  for (let i = 0; i < count; i++) {
    const arrivalMs = startsMs[0]! + i * everyMs
    while (startsMs[next]! < arrivalMs) next++
    waits[i] = endsMs[next]! - arrivalMs
  }
  return waits
}
