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
 * - `bareShape`: the least any durable ack of the design card's shape crosses, with no Predex code:
 *   the main thread wakes a worker asleep in Atomics.wait (as the ring does), the worker commits
 *   one small record as a synchronous LMDB transaction and posts the answer, and the main thread's
 *   event loop takes it. Two hand-offs and a commit: the host adds a third hand-off (the journal
 *   thread), the engine and the codecs. Its p99 against the ack bound says whether the bound is
 *   within reach of this machine at all.
 * - `durableHops`: that durable ack hop by hop (src/host/hop-trace.ts): into the ring until the
 *   worker takes it; apply until its group is handed to the journal thread (with the wait for
 *   the journal thread to be free); until the journal thread has it (its wake-up); its commit;
 *   until the answer is posted; the answer's trip to the main thread; from its arrival until the
 *   caller's `await` resumes.
 * - `measureReplicatedAlone`: the durable ack and its hops again on a host whose command log is
 *   replicated (issue 34): its commit is the local one plus JetStream's acknowledgement.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { open } from 'lmdb'
import { EngineHost } from '../src/host/engine-host.js'
import type { Hop } from '../src/host/hop-trace.js'
import type { Durability } from '../src/journal/journal.js'
import type { ReplicationOptions } from '../src/replication/jetstream-log.js'
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
  readonly bareShape: Floor
  readonly durableHops: Readonly<Record<DurableHop, Floor>>
}

const WARM_UP = 100
/**
 * A host's warm-up: its first commands run while V8 still compiles the host's code on the same
 * two cores. Measured (three runs each, 1 000 acks after): after 100 commands the one-at-a-time
 * durable ack's p99 read 2.0-3.8 ms, after 2 000 0.87-1.48 ms, with every hop's p99 lower.
 */
const HOST_WARM_UP = 2_000
/** About the size of a small batch record. */
const VALUE = Buffer.alloc(256, 0x5a)

function floorOf(latenciesMs: readonly number[], warmUp = WARM_UP): Floor {
  const sorted = Float64Array.from(latenciesMs.slice(warmUp)).sort()
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

/**
 * The bare shape's worker (CommonJS, evaluated): asleep on the shared word until the main thread
 * bumps it, then one synchronous LMDB commit and a postMessage of the count it served.
 */
const BARE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const { open } = require(workerData.lmdb)
const root = open({ path: workerData.dir, noSubdir: false, encoding: 'binary', overlappingSync: false })
const word = new Int32Array(workerData.shared)
const value = Buffer.alloc(256, 0x5a)
parentPort.postMessage(0)
let seen = 0
for (;;) {
  Atomics.wait(word, 0, seen)
  seen = Atomics.load(word, 0)
  if (seen < 0) break
  root.transactionSync(() => root.putSync(seen, value))
  parentPort.postMessage(seen)
}
root.close()
`

async function bareShapeLatencies(dir: string, acks: number): Promise<number[]> {
  const shared = new SharedArrayBuffer(4)
  const word = new Int32Array(shared)
  const lmdb = createRequire(import.meta.url).resolve('lmdb')
  const worker = new Worker(BARE_WORKER, { eval: true, workerData: { dir, shared, lmdb } })
  let answered: () => void = () => undefined
  let failed: (error: Error) => void = () => undefined
  worker.on('message', () => answered())
  worker.on('error', (error) => failed(error))
  const answer = (): Promise<void> => new Promise((resolve, reject) => {
    answered = resolve
    failed = reject
  })
  const latencies: number[] = []
  try {
    await answer()
    for (let i = 1; i <= acks; i++) {
      const started = performance.now()
      const answering = answer()
      Atomics.store(word, 0, i)
      Atomics.notify(word, 0)
      await answering
      latencies.push(performance.now() - started)
    }
  } finally {
    const exited = new Promise((resolve) => worker.once('exit', resolve))
    Atomics.store(word, 0, -1)
    Atomics.notify(word, 0)
    await exited
  }
  return latencies
}

interface HostRun {
  readonly latencies: number[]
  readonly hops: Record<DurableHop, number[]>
}

async function hostLatencies(dir: string, commands: number, durability: Durability,
  replication: ReplicationOptions | null = null): Promise<HostRun> {
  const host = await EngineHost.start({ dataDir: dir, durability, hopTrace: true, replication })
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
  const hops = Object.fromEntries(DURABLE_HOPS.map((hop) => [hop, floorOf(run.hops[hop], HOST_WARM_UP)])) as
    Record<DurableHop, Floor>
  return { hostDurable: floorOf(run.latencies, HOST_WARM_UP), durableHops: hops }
}

/**
 * The durable ack alone and its hops, `count` after the warm-up, on a host writing to `replication`
 * (an empty stream: the host's directory is new), in a fresh directory under `parent`.
 */
export async function measureReplicatedAlone(parent: string, count: number, replication: ReplicationOptions):
  Promise<Pick<AckFloors, 'hostDurable' | 'durableHops'>> {
  const dir = mkdtempSync(join(parent, 'predex-floor-'))
  try {
    return durableFloors(await hostLatencies(dir, HOST_WARM_UP + count, 'sync', replication))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Each floor over `count` operations after a warm-up, in fresh directories under `parent`. */
export async function measureAckFloors(parent: string, count = 600): Promise<AckFloors> {
  const dir = (): string => mkdtempSync(join(parent, 'predex-floor-'))
  const dirs = [dir(), dir(), dir(), dir(), dir()] as const
  try {
    return {
      lmdbPutFlushed: floorOf(await lmdbLatencies(dirs[0], WARM_UP + count, false)),
      lmdbSyncCommit: floorOf(await lmdbLatencies(dirs[1], WARM_UP + count, true)),
      bareShape: floorOf(await bareShapeLatencies(dirs[4], WARM_UP + count)),
      hostRoundTrip: floorOf((await hostLatencies(dirs[2], HOST_WARM_UP + count, 'async')).latencies, HOST_WARM_UP),
      ...durableFloors(await hostLatencies(dirs[3], HOST_WARM_UP + count, 'sync')),
    }
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }
}
