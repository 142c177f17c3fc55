/**
 * What a durable acknowledgement costs at each hop, each measured alone, one at a time, in the
 * same run as the host's figures (issue 29's per-hop table): so that a slow ack can be read as
 * "the disk", "LMDB as lmdb-js commits it" or "the trip between threads".
 *
 * - `lmdbPutFlushed`: one lmdb-js `put` and its `flushed`, one transaction at a time, the
 *   environment opened as the journal opens it (overlappingSync, separateFlushed): the journal's
 *   own commit, without the host around it.
 * - `lmdbSyncCommit`: the same write as a synchronous transaction (`transactionSync`) of an
 *   environment without overlappingSync: LMDB's own commit (data pages, fdatasync, meta page,
 *   sync), on the calling thread, without lmdb-js's write thread.
 * - `hostRoundTrip`: one command at a time through a host with durability `async`: the ring,
 *   the worker's wake-up and apply, the answer's trip back; no wait for the disk.
 * - `hostDurable`: the same with durability `sync`: everything an ack waits for when alone.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import { EngineHost } from '../src/host/engine-host.js'
import type { Durability } from '../src/journal/journal.js'
import { percentile } from './stats.js'

export interface Floor {
  readonly p50Ms: number
  readonly p99Ms: number
}

export interface AckFloors {
  readonly lmdbPutFlushed: Floor
  readonly lmdbSyncCommit: Floor
  readonly hostRoundTrip: Floor
  readonly hostDurable: Floor
}

const WARM_UP = 100
/** About the size of a small batch record. */
const VALUE = Buffer.alloc(256, 0x5a)

function floorOf(latenciesMs: readonly number[]): Floor {
  const sorted = Float64Array.from(latenciesMs.slice(WARM_UP)).sort()
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) }
}

async function lmdbLatencies(dir: string, writes: number, synchronous: boolean): Promise<number[]> {
  const root = open({ path: dir, noSubdir: false, encoding: 'binary',
    ...(synchronous ? { overlappingSync: false } : { overlappingSync: true, separateFlushed: true }) })
  const latencies: number[] = []
  try {
    for (let i = 0; i < writes; i++) {
      const started = performance.now()
      if (synchronous) {
        root.transactionSync(() => root.putSync(i, VALUE))
      } else {
        const written = root.put(i, VALUE) as Promise<boolean> & { flushed: Promise<void> }
        await written
        await written.flushed
      }
      latencies.push(performance.now() - started)
    }
  } finally {
    await root.close()
  }
  return latencies
}

async function hostLatencies(dir: string, commands: number, durability: Durability): Promise<number[]> {
  const host = await EngineHost.start({ dataDir: dir, durability })
  const latencies: number[] = []
  try {
    for (let i = 0; i < commands; i++) {
      const address = '0x' + (i + 1).toString(16).padStart(40, '0')
      const started = performance.now()
      await host.submit({ kind: 'credit', address, usdcMicros: 1, gasMicros: 0 })
      latencies.push(performance.now() - started)
    }
  } finally {
    await host.stop()
  }
  return latencies
}

/** Each floor over `count` operations after a warm-up, in fresh directories under `parent`. */
export async function measureAckFloors(parent: string, count = 600): Promise<AckFloors> {
  const dir = (): string => mkdtempSync(join(parent, 'predex-floor-'))
  const dirs = [dir(), dir(), dir(), dir()] as const
  try {
    return {
      lmdbPutFlushed: floorOf(await lmdbLatencies(dirs[0], WARM_UP + count, false)),
      lmdbSyncCommit: floorOf(await lmdbLatencies(dirs[1], WARM_UP + count, true)),
      hostRoundTrip: floorOf(await hostLatencies(dirs[2], WARM_UP + count, 'async')),
      hostDurable: floorOf(await hostLatencies(dirs[3], WARM_UP + count, 'sync')),
    }
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }
}
