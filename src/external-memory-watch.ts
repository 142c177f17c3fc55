/**
 * A full collection when the process's external strings have grown by EXTERNAL_MEMORY_GROWTH_BYTES_MAX
 * since the last one. HTTP/2 header values of 64 bytes or more reach JavaScript as external
 * strings (node:http2 lends nghttp2's buffers to V8), which V8 allocates in old space and whose
 * bytes do not count toward a collection: gRPC calls with large metadata held them long after the
 * calls ended (measured: 20 000 calls with 60 000-byte metadata, 1.17 GB of such garbage and no
 * collection; issue 27, finding 5). The buffers are glibc's, and its heap keeps the high-water
 * mark of that garbage after a collection frees it, so the bound is small and checked often.
 * External strings are external memory less ArrayBuffers: V8 counts an ArrayBuffer's bytes toward
 * its own collections, and the churn of ordinary buffers must not force full ones. Checked every
 * EXTERNAL_MEMORY_CHECK_INTERVAL_MS; the timer never keeps a stopping process alive.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { heldOnce } from './held-once.js'
import { PeriodicCheck } from './periodic-check.js'
import { EXTERNAL_MEMORY_CHECK_INTERVAL_MS, EXTERNAL_MEMORY_GROWTH_BYTES_MAX } from './limits.js'

export interface ExternalMemoryWatchOptions {
  readonly growthBytesMax?: number
  readonly intervalMs?: number
  /** The process's external strings (externalStringBytes) unless told (tests). */
  readonly externalBytes?: () => number
  /** A full collection (fullCollector() unless told). */
  readonly collect?: () => void
}

export class ExternalMemoryWatch extends PeriodicCheck {
  /** External bytes after the last collection (or the lowest seen since). */
  private markBytes: number
  private readonly growthBytesMax: number
  private readonly externalBytes: () => number
  private collect: (() => void) | null

  constructor(options: ExternalMemoryWatchOptions = {}) {
    super(options.intervalMs ?? EXTERNAL_MEMORY_CHECK_INTERVAL_MS)
    this.growthBytesMax = options.growthBytesMax ?? EXTERNAL_MEMORY_GROWTH_BYTES_MAX
    this.externalBytes = options.externalBytes ?? externalStringBytes
    this.collect = options.collect ?? null
    this.markBytes = this.externalBytes()
  }

  /** One check (the timer calls it): collects when external memory grew past the bound. */
  check(): void {
    const bytes = this.externalBytes()
    if (bytes - this.markBytes < this.growthBytesMax) {
      this.markBytes = Math.min(this.markBytes, bytes)
      return
    }
    this.collect ??= fullCollector()
    this.collect()
    this.markBytes = this.externalBytes()
  }
}

/** External memory that is not ArrayBuffers' (V8 counts theirs): external strings, mostly. */
export function externalStringBytes(): number {
  const usage = process.memoryUsage()
  return usage.external - usage.arrayBuffers
}

/**
 * V8's full collection: `gc` when the process runs with --expose-gc, else the same function
 * exposed at run time (the flag then applies to contexts made after it, such as this one).
 */
export function fullCollector(): () => void {
  const exposed = (globalThis as { gc?: unknown }).gc
  if (typeof exposed === 'function') return exposed as () => void
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

/** The process's one watch, held by each server that runs in it. */
export const holdExternalMemoryWatch = heldOnce(() => new ExternalMemoryWatch())
