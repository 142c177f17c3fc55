/** Calls to a real chain's node made for a client's request (src/service/testnet/chain-faucet.ts, market-ids.ts). */
import { ApiCode, PredexError } from '../../errors.js'
import { CHAIN_RETRY_AFTER_SECONDS } from '../../limits.js'
import { firstLineOf } from '../../stdx/error-text.js'

/**
 * A call to the chain's node for a request: its failure (the node down, slow past
 * CHAIN_RPC_TIMEOUT_MS, a transaction refused) is the request's CHAIN_UNAVAILABLE (503, retry),
 * never an INTERNAL; what the request may have sent before it stays on the chain.
 */
export async function onChain<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof PredexError) throw error
    const why = firstLineOf(error)
    throw new PredexError(ApiCode.CHAIN_UNAVAILABLE, `the chain did not answer: ${why}`,
      { retryAfterSeconds: CHAIN_RETRY_AFTER_SECONDS })
  }
}
