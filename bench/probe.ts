/**
 * A client that measures what a server gives everyone else while a load runs: GET /book every
 * 50 ms and a fresh signed order every 250 ms, each latency counted from when it was due (a late
 * answer delays the next request, and that delay counts too).
 *
 * `probeOnThread` runs it on a thread of its own. In the load generator's thread it measured the
 * generator as well: that event loop serves hundreds of connections of the flood, and its own
 * stalls (up to 264 ms in a run where the server's largest was 236 ms) went into the probe's
 * latencies. Its own thread has its own event loop and heap; only the CPU is shared.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import type { ApiCredentials } from '../src/api/shapes/credential.js'
import { l2Headers } from '../src/crypto/request-headers.js'

export interface ProbeOptions {
  /** http://127.0.0.1:<port> */
  readonly base: string
  readonly tokenId: string
  readonly address: string
  readonly credentials: ApiCredentials
  /** POST /order bodies of orders signed beforehand, placed in turn. */
  readonly orderBodies: readonly string[]
  readonly seconds: number
}

export interface Probe {
  readonly readMs: number[]
  readonly orderMs: number[]
  readonly orderStatuses: number[]
  /** The bodies of the probe's refused orders, to say why. */
  readonly refusals: string[]
}

const READ_EVERY_MS = 50
const ORDER_EVERY_MS = 250

const nowSec = (): number => Math.floor(Date.now() / 1000)
const sleepUntil = (due: number): Promise<unknown> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())))

export async function probe(options: ProbeOptions): Promise<Probe> {
  const result: Probe = { readMs: [], orderMs: [], orderStatuses: [], refusals: [] }
  const start = performance.now()
  const end = start + options.seconds * 1000
  const reads = async (): Promise<void> => {
    for (let due = start; due < end; due += READ_EVERY_MS) {
      await sleepUntil(due)
      await (await fetch(`${options.base}/book?token_id=${options.tokenId}`)).arrayBuffer()
      result.readMs.push(performance.now() - due)
    }
  }
  const placing = async (): Promise<void> => {
    for (let i = 0, due = start; i < options.orderBodies.length && due < end; i++, due += ORDER_EVERY_MS) {
      await sleepUntil(due)
      const body = options.orderBodies[i]!
      const response = await fetch(`${options.base}/order`, { method: 'POST', body,
        headers: l2Headers(options.credentials, options.address, 'POST', '/order', body, nowSec()) })
      const text = await response.text()
      if (response.status !== 200) result.refusals.push(`${response.status} ${text.slice(0, 200)}`)
      result.orderMs.push(performance.now() - due)
      result.orderStatuses.push(response.status)
    }
  }
  await Promise.all([reads(), placing()])
  return result
}

/**
 * `probe` on a thread of its own, from the compiled build (`execArgv: []`: a test runner's module
 * hooks are not needed by compiled code, and would cost the thread seconds to start).
 */
export function probeOnThread(options: ProbeOptions): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { probe: options }, execArgv: [] })
    worker.once('message', (result: Probe) => {
      resolve(result)
      void worker.terminate()
    })
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`the probe's thread exited (${code}) before answering`)))
  })
}

if (!isMainThread && (workerData as { probe?: ProbeOptions } | null)?.probe !== undefined) {
  void probe((workerData as { probe: ProbeOptions }).probe).then((result) => parentPort!.postMessage(result))
}
