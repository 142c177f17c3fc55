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
  const dir = mkdtempSync(join(parent, 'predex-flush-'))
  const fd = openSync(join(dir, 'probe'), 'w')
  const block = Buffer.alloc(4096, 0x5a)
  const latenciesMs = new Float64Array(writes)
  try {
    for (let i = 0; i < writes; i++) {
      const start = performance.now()
      writeSync(fd, block, 0, block.length, (i % 64) * block.length)
      fdatasyncSync(fd)
      latenciesMs[i] = performance.now() - start
    }
  } finally {
    closeSync(fd)
    rmSync(dir, { recursive: true, force: true })
  }
  const sorted = Float64Array.from(latenciesMs).sort()
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), latenciesMs }
}
