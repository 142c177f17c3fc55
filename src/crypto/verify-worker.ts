/**
 * A verification pool thread (piscina): verifies a batch of orders at a time with the backend the
 * task names. With noble it keeps its own cache of hot signers' precomputed keys; libsecp256k1
 * recovers faster than noble verifies against a precomputed key, so it needs none.
 */
import { SIGNER_CACHE_ENTRIES_MAX, SIGNER_HOT_AFTER } from '../limits.js'
import { SignerCache } from './signer-cache.js'
import { verifyOrder, type OrderToVerify, type Verdict } from './verify-order.js'
import { installSigBackend, type SigBackend } from './sig-backend.js'

export interface VerifyTask {
  readonly chainId: number
  readonly orders: readonly OrderToVerify[]
  /** Resolved on the main thread (never auto), so every thread runs what the server logged. */
  readonly backend: SigBackend
  /** Whether to use the signer cache (the benchmark measures both). */
  readonly useCache: boolean
}

const cache = new SignerCache({ entriesMax: SIGNER_CACHE_ENTRIES_MAX, hotAfter: SIGNER_HOT_AFTER })

export default function verifyBatch(task: VerifyTask): Verdict[] {
  const { backend } = installSigBackend(task.backend)
  const signers = task.useCache && backend === 'noble' ? cache : null
  return task.orders.map((order) => verifyOrder(order, task.chainId, signers))
}
