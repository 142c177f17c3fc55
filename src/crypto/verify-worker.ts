/**
 * A verification pool thread (piscina): verifies a batch of orders at a time, keeping its own
 * cache of hot signers' precomputed keys.
 */
import { SIGNER_CACHE_ENTRIES_MAX, SIGNER_HOT_AFTER } from '../limits.js'
import { SignerCache } from './signer-cache.js'
import { verifyOrder, type OrderToVerify, type Verdict } from './verify-order.js'

export interface VerifyTask {
  readonly chainId: number
  readonly orders: readonly OrderToVerify[]
  /** Whether to use the signer cache (the benchmark measures both). */
  readonly useCache: boolean
}

const cache = new SignerCache({ entriesMax: SIGNER_CACHE_ENTRIES_MAX, hotAfter: SIGNER_HOT_AFTER })

export default function verifyBatch(task: VerifyTask): Verdict[] {
  return task.orders.map((order) => verifyOrder(order, task.chainId, task.useCache ? cache : null))
}
