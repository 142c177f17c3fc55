/**
 * A verification pool thread (piscina): verifies a batch of orders at a time with the backend the
 * task names. With noble it keeps its own cache of hot signers' precomputed keys; libsecp256k1
 * recovers faster than noble verifies against a precomputed key, so it needs none.
 */
import { setPriority } from 'node:os'
import { isMainThread, parentPort, workerData } from 'node:worker_threads'
import { SIGNER_CACHE_ENTRIES_MAX, SIGNER_HOT_AFTER, VERIFIER_THREAD_NICE } from '../limits.js'
import { SignerCache } from './signer-cache.js'
import { verifyOrder, type OrderToVerify, type Verdict } from './verify-order.js'
import { installSigBackend, type SigBackend } from './sig-backend.js'
import { ownThreadId } from '../thread-cpu.js'

export interface VerifyTask {
  readonly chainId: number
  readonly orders: readonly OrderToVerify[]
  /** Resolved on the main thread (never auto), so every thread runs what the server logged. */
  readonly backend: SigBackend
  /** Whether to use the signer cache (the benchmark measures both). */
  readonly useCache: boolean
}

/** What each thread tells the pool when it starts: its kernel id, for /metrics' CPU by thread. */
export interface VerifyThreadStarted {
  readonly verifyThreadId: number
}

/** What the pool tells each of its threads when it starts them. */
export interface VerifyThreadData {
  /** This thread's nice value (--sig-nice). */
  readonly nice: number
}

// Only on a pool thread: a nice value set on the main thread would lower the front end itself.
if (!isMainThread) {
  lowerThisThreadsPriority((workerData as VerifyThreadData | null)?.nice ?? VERIFIER_THREAD_NICE)
  // Piscina passes what is not its own on as the pool's 'message' event (verifier-pool.ts).
  parentPort?.postMessage({ verifyThreadId: ownThreadId() } satisfies VerifyThreadStarted)
}

/**
 * Verification is most of the server's CPU under load, and runs on as many threads as there are
 * cores: at the same priority the main thread (every request and read, and the shedding that
 * protects them) got a fraction of a core behind it, and its turns stretched to 100-170 ms under
 * twice the capacity. At a higher nice value the kernel runs the main thread and the engine worker
 * first and verification in what is left, so it loses nothing while they idle. On Linux a thread's
 * nice value is its own (setpriority on pid 0 is the calling thread), so only this thread is lowered.
 */
function lowerThisThreadsPriority(nice: number): void {
  if (nice === 0) return
  try {
    setPriority(nice)
  } catch {
    // Not permitted here (a sandbox): verification keeps the default priority, slower to shed, not wrong.
  }
}

const cache = new SignerCache({ entriesMax: SIGNER_CACHE_ENTRIES_MAX, hotAfter: SIGNER_HOT_AFTER })

export default function verifyBatch(task: VerifyTask): Verdict[] {
  const { backend } = installSigBackend(task.backend)
  const signers = task.useCache && backend === 'noble' ? cache : null
  return task.orders.map((order) => verifyOrder(order, task.chainId, signers))
}
