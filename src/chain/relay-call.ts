/**
 * A wallet's relay message sent to the settling exchange's `relay` (src/chain/contracts/
 * PredexExchange.sol) from the operator's key, which pays the gas: simulated first, so that a
 * message the exchange would refuse costs nothing and says why; then sent, and its receipt
 * awaited a bounded time. Loaded only for a real chain (it needs viem at run time).
 */
import { BaseError, ContractFunctionRevertedError, type Address, type Hex } from 'viem'
import type { RelayStruct } from '../crypto/eip712.js'
import { CHAIN_LEDGER_WAIT_MS } from '../limits.js'
import { artifactOf, exchangeAbiWithTokenErrors } from './artifacts.js'
import { settlerOf } from './exchange-orders.js'
import type { ChainClients } from './node-chain.js'

export type RelayCallResult =
  | { readonly ok: true; readonly transactionHash: Hex; readonly blockNumber: number }
  /** The exchange refused it: its error's name (`Error` for a `require` message), arguments and message. */
  | { readonly ok: false; readonly errorName: string; readonly args: readonly unknown[]; readonly reason: string }

/** The message as the exchange takes it. */
function relayCall(clients: ChainClients, struct: RelayStruct, signature: string) {
  return {
    address: settlerOf(clients.contracts), abi: artifactOf('PredexExchange').abi, functionName: 'relay',
    args: [{
      owner: struct.owner as Address, action: struct.action, conditionId: struct.conditionId as Hex,
      amount: BigInt(struct.amount), nonce: BigInt(struct.nonce), deadline: BigInt(struct.deadline),
    }, signature as Hex],
  } as const
}

export async function sendRelay(clients: ChainClients, struct: RelayStruct,
  signature: string): Promise<RelayCallResult> {
  const call = relayCall(clients, struct, signature)
  try {
    await clients.client.simulateContract({ ...call, abi: exchangeAbiWithTokenErrors(),
      account: clients.operator.account })
  } catch (error) {
    const reverted = error instanceof BaseError
      ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null
    if (!(reverted instanceof ContractFunctionRevertedError)) throw error
    const errorName = reverted.data?.errorName ?? 'Error'
    return { ok: false, errorName, args: reverted.data?.args ?? [], reason: reverted.reason ?? errorName }
  }
  const transactionHash = await clients.operator.writeContract(call)
  const receipt = await clients.client.waitForTransactionReceipt({ hash: transactionHash,
    timeout: CHAIN_LEDGER_WAIT_MS })
  if (receipt.status !== 'success') {
    const reason = `transaction ${transactionHash} reverted in its block`
    return { ok: false, errorName: 'Reverted', args: [], reason }
  }
  return { ok: true, transactionHash, blockNumber: Number(receipt.blockNumber) }
}

/** The owner's next relay nonce, as the exchange counts it. */
export async function relayNonceOnChain(clients: ChainClients, owner: string): Promise<number> {
  const nonce = await clients.client.readContract({ address: settlerOf(clients.contracts),
    abi: artifactOf('PredexExchange').abi, functionName: 'relayNonces', args: [owner as Address] }) as bigint
  return Number(nonce)
}
