/**
 * What a durable acknowledgement costs at each hop, each measured alone, one at a time, in the
 * same run as the host's figures (issue 29's per-hop table): so that a slow ack can be read as
 * "the disk", "LMDB as lmdb-js commits it" or "the trip between threads".
 *
 * - `lmdbSyncCommit`: one small write as a synchronous transaction (`transactionSync`) of an
 *   environment without overlappingSync: LMDB's own commit (data pages, fdatasync, meta page,
 *   sync) on the calling thread, as the journal commits (src/journal/journal.ts).
 * - `lmdbPutFlushed`: the same write as an lmdb-js `put` and its `flushed` with overlappingSync
 *   and separateFlushed, through lmdb-js's write thread: how the journal wrote before issue 29,
 *   kept beside the other for comparison.
 * - `hostRoundTrip`: one command at a time through a host with durability `async`: the ring,
 *   the worker's wake-up and apply, the answer's trip back; no wait for the disk.
 * - `hostDurable`: the same with durability `sync`: everything an ack waits for when alone.
 * - `durableHops`: that durable ack hop by hop (src/host/hop-trace.ts): into the ring until the
 *   worker takes it; apply until its group is handed to the journal thread (with the wait for
 *   the journal thread to be free); until the journal thread has it (its wake-up); its commit;
 *   until the answer is posted; the answer's trip to the main thread; from its arrival until the
 *   caller's `await` resumes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import { EngineHost } from '../src/host/engine-host.js'
import type { Hop } from '../src/host/hop-trace.js'
import type { Durability } from '../src/journal/journal.js'
import { percentile } from './stats.js'

export interface Floor {
  readonly p50Ms: number
  readonly p99Ms: number
}

/** A durable ack's hops, in order; they add up to `hostDurable` command by command. */
export const DURABLE_HOPS = ['submitted -> decoded', 'decoded -> handed', 'handed -> taken', 'taken -> committed',
  'committed -> posted', 'posted -> received', 'received -> resumed'] as const
export type DurableHop = (typeof DURABLE_HOPS)[number]

/** Each hop between two marks of the trace, in order; the last one ends when the caller resumes. */
export const TRACED_HOPS: readonly (readonly [DurableHop, Hop, Hop])[] = [
  ['submitted -> decoded', 'submitted', 'decoded'],
  ['decoded -> handed', 'decoded', 'handed'],
  ['handed -> taken', 'handed', 'taken'],
  ['taken -> committed', 'taken', 'committed'],
  ['committed -> posted', 'committed', 'posted'],
  ['posted -> received', 'posted', 'received'],
]

export interface AckFloors {
  readonly lmdbPutFlushed: Floor
  readonly lmdbSyncCommit: Floor
  readonly hostRoundTrip: Floor
  readonly hostDurable: Floor
  readonly durableHops: Readonly<Record<DurableHop, Floor>>
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

interface HostRun {
  readonly latencies: number[]
  readonly hops: Record<DurableHop, number[]>
}

async function hostLatencies(dir: string, commands: number, durability: Durability): Promise<HostRun> {
  const host = await EngineHost.start({ dataDir: dir, durability, hopTrace: true })
  const trace = host.hopTrace!
  const run: HostRun = { latencies: [],
    hops: Object.fromEntries(DURABLE_HOPS.map((hop) => [hop, []])) as unknown as Record<DurableHop, number[]> }
  const between = (requestId: number, from: Hop, to: Hop): number => trace.at(requestId, to) - trace.at(requestId, from)
  try {
    for (let i = 0; i < commands; i++) {
      const address = '0x' + (i + 1).toString(16).padStart(40, '0')
      const requestId = host.nextRequest
      const started = performance.now()
      await host.submit({ kind: 'credit', address, usdcMicros: 1, gasMicros: 0 })
      run.latencies.push(performance.now() - started)
      for (const [hop, from, to] of TRACED_HOPS) run.hops[hop].push(between(requestId, from, to))
      run.hops['received -> resumed'].push(performance.timeOrigin + performance.now() - trace.at(requestId, 'received'))
    }
  } finally {
    await host.stop()
  }
  return run
}

function durableFloors(run: HostRun): Pick<AckFloors, 'hostDurable' | 'durableHops'> {
  const hops = Object.fromEntries(DURABLE_HOPS.map((hop) => [hop, floorOf(run.hops[hop])])) as Record<DurableHop, Floor>
  return { hostDurable: floorOf(run.latencies), durableHops: hops }
}

/** Each floor over `count` operations after a warm-up, in fresh directories under `parent`. */
export async function measureAckFloors(parent: string, count = 600): Promise<AckFloors> {
  const dir = (): string => mkdtempSync(join(parent, 'predex-floor-'))
  const dirs = [dir(), dir(), dir(), dir()] as const
  try {
    return {
      lmdbPutFlushed: floorOf(await lmdbLatencies(dirs[0], WARM_UP + count, false)),
      lmdbSyncCommit: floorOf(await lmdbLatencies(dirs[1], WARM_UP + count, true)),
      hostRoundTrip: floorOf((await hostLatencies(dirs[2], WARM_UP + count, 'async')).latencies),
      ...durableFloors(await hostLatencies(dirs[3], WARM_UP + count, 'sync')),
    }
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }
}
