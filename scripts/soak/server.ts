/**
 * The soak's server: Predex from dist/src/main.js as its own process on one data directory and one
 * REST port for the whole run, killed with SIGKILL and started again on the same directory, with
 * its resident set sampled from /proc while it runs.
 */
import { createServer } from 'node:net'
import { rssOf } from '../../bench/process-memory.js'
import { startChild, stopChild, type Child } from '../../bench/predex-server.js'

export const SOAK_ADMIN_KEY = 'soak-admin-key-' + 'x'.repeat(16)

export interface RssSample {
  /** Which start of the server (0: the first). */
  readonly incarnation: number
  /** Since the run began. */
  readonly elapsedMs: number
  /** Since this incarnation answered. */
  readonly upMs: number
  readonly rssBytes: number
  /**
   * The anonymous part of the resident set: the process's own memory (heaps, buffers). The rest is
   * file pages, mostly LMDB's memory map of the journal and the read store: page cache the kernel
   * takes back under pressure, which grows with the files however bounded the process is.
   */
  readonly rssAnonBytes: number
}

/** A port free now on 127.0.0.1 (the server keeps it across restarts, so clients keep their URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

export class SoakServer {
  readonly samples: RssSample[] = []
  incarnation = -1
  private child: Child | null = null
  private startedMs = 0
  private sampler: NodeJS.Timeout | null = null
  private readonly runStartedMs = performance.now()

  constructor(readonly dataDirectory: string, readonly port: number, private readonly extraArgs: readonly string[] = []) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`
  }

  get pid(): number | null {
    return this.child?.process.pid ?? null
  }

  async start(): Promise<void> {
    this.child = await startChild('src/main.js', ['--data-dir', this.dataDirectory, '--port', String(this.port),
      '--grpc-port', '0', '--no-demo', '--rate-limits', 'false', '--faucet-amount', '1000000',
      '--faucet-cooldown', '0', '--admin-key', SOAK_ADMIN_KEY, '--journal-retention', 'all', ...this.extraArgs],
    /REST listening on http:\/\/127\.0\.0\.1:(\d+)/)
    this.incarnation += 1
    this.startedMs = performance.now()
    this.sampler = setInterval(() => this.sample(), 1_000)
  }

  /** SIGKILL: no stop, no flush beyond what was already acknowledged. */
  async kill(): Promise<void> {
    const child = this.stopSampling()
    const exited = new Promise((resolve) => child.process.once('exit', resolve))
    child.process.kill('SIGKILL')
    await exited
  }

  /** SIGTERM: the clean stop (drain, flush, close). */
  async stop(): Promise<void> {
    await stopChild(this.stopSampling())
  }

  private stopSampling(): Child {
    if (this.sampler !== null) clearInterval(this.sampler)
    this.sampler = null
    const child = this.child
    if (child === null) throw new Error('the soak server is not running')
    this.child = null
    return child
  }

  private sample(): void {
    const pid = this.pid
    const memory = pid === null ? null : rssOf(pid)
    if (memory === null) return
    const now = performance.now()
    this.samples.push({ incarnation: this.incarnation, elapsedMs: now - this.runStartedMs, upMs: now - this.startedMs,
      ...memory })
  }
}
