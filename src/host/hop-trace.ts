/**
 * When each request passed each hop of the host (benchmarks only, `HostOptions.hopTrace`): the
 * main thread marks it submitted (written to the ring) and received (its outcome decoded), the
 * engine worker decoded (taken off the ring) and handed (its group given to the journal thread:
 * applied, and the journal thread free), the journal thread taken (the group off its port: the
 * thread awake), committed (its commit returned) and posted (its outcome sent back; for
 * durability `async`, the worker posts, before the write, and the journal thread marks nothing). One
 * SharedArrayBuffer the threads write, so a slow ack can be read hop by hop (bench/ack-floors.ts).
 * Times are `performance.timeOrigin + performance.now()`, in ms, comparable across the threads
 * of one process. A slot per request id modulo HOP_TRACE_SLOTS (src/limits.ts): a reader reads a
 * request before that many more have passed.
 */
import { HOP_TRACE_SLOTS } from '../limits.js'

export const HOPS = ['submitted', 'decoded', 'handed', 'taken', 'committed', 'posted', 'received'] as const
export type Hop = (typeof HOPS)[number]
const INDEX_OF = Object.fromEntries(HOPS.map((hop, i) => [hop, i])) as Readonly<Record<Hop, number>>

export class HopTrace {
  private readonly times: Float64Array

  constructor(readonly buffer: SharedArrayBuffer) {
    this.times = new Float64Array(buffer)
  }

  static allocate(): HopTrace {
    return new HopTrace(new SharedArrayBuffer(HOP_TRACE_SLOTS * HOPS.length * Float64Array.BYTES_PER_ELEMENT))
  }

  mark(requestId: number, hop: Hop): void {
    this.times[(requestId % HOP_TRACE_SLOTS) * HOPS.length + INDEX_OF[hop]] = performance.timeOrigin + performance.now()
  }

  /** When `requestId` passed `hop` (ms on the shared clock; 0: not yet). */
  at(requestId: number, hop: Hop): number {
    return this.times[(requestId % HOP_TRACE_SLOTS) * HOPS.length + INDEX_OF[hop]]!
  }
}
