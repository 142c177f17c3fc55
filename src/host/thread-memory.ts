/**
 * A thread's V8 heap, for the memory benchmark (bench/growth.ts): each thread is an isolate of
 * its own, and the main thread's figures count none of the others. The engine host has three
 * more: the engine worker, its journal thread and the snapshot replica (a whole second engine).
 * A memory sample asks all of them (query.ts `memory`): a thread left out, and never collected,
 * keeps its garbage until V8 decides, and a sample then reads that garbage as growth (a growth
 * run read 282 -> 384 MB of own memory when the replica's and the journal thread's were not).
 */
import { getHeapStatistics } from 'node:v8'

export type ThreadName = 'engine' | 'journal' | 'snapshot'

export interface ThreadMemory {
  readonly thread: ThreadName
  readonly heapUsedBytes: number
  readonly heapTotalBytes: number
  /** The heap's pages in memory: used, plus free pages V8 keeps committed (its pool, not the state's). */
  readonly heapPhysicalBytes: number
  /** Memory outside the heap that this isolate's objects hold: ArrayBuffer backing stores, mostly. */
  readonly externalBytes: number
  /** Whether a full collection ran first (asked for, and the process runs with --expose-gc). */
  readonly collected: boolean
}

/** This thread's heap; with `collect`, after a full collection when the process runs with --expose-gc. */
export function threadMemory(thread: ThreadName, collect: boolean): ThreadMemory {
  const collected = collect && fullCollection()
  const heap = getHeapStatistics()
  return { thread, heapUsedBytes: heap.used_heap_size, heapTotalBytes: heap.total_heap_size,
    heapPhysicalBytes: heap.total_physical_size, externalBytes: heap.external_memory, collected }
}

/** A full collection of this thread's heap; false without --expose-gc (nothing collected). */
export function fullCollection(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) return false
  gc()
  return true
}
