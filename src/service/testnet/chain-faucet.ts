/**
 * The faucet on a real chain (`--chain local`; docs/testnet.md, "Faucet"): the operator mints the
 * test USDC to the wallet and, to a wallet without gas, sends test ETH, as two transactions. The
 * ledger learns of the mint as of any other fact, from the chain (chain-mirror.ts); the answer
 * waits, a bounded time, until it has, so that a client funded by the faucet can trade at once
 * and the address's cooldown (read from its last credit in the ledger) already counts.
 */
import type { Address } from 'viem'
import { artifactOf } from '../../chain/artifacts.js'
import { waitForSuccess } from '../../chain/chain-markets.js'
import type { ChainClients } from '../../chain/node-chain.js'
import { CHAIN_LEDGER_POLL_MS, CHAIN_LEDGER_WAIT_MS, FAUCET_GAS_MICROS } from '../../limits.js'
import { onChain } from './chain-call.js'
import type { ServiceContext } from '../context.js'
import type { FaucetReceipt } from './testnet.js'

const WEI_PER_MICRO = 10n ** 12n

export function faucetOnChain(context: ServiceContext, clients: ChainClients, address: string,
  usdcMicros: number): Promise<FaucetReceipt> {
  return onChain(() => mintAndSend(context, clients, address, usdcMicros))
}

async function mintAndSend(context: ServiceContext, clients: ChainClients, address: string,
  usdcMicros: number): Promise<FaucetReceipt> {
  const wallet = address as Address
  const creditsBefore = creditsOf(context, address)
  const sent = [await clients.operator.writeContract({ address: clients.contracts.collateral as Address,
    abi: artifactOf('TestUSDC').abi, functionName: 'mint', args: [wallet, BigInt(usdcMicros)] })]
  // Gas once, for a wallet that has none: enough for a new wallet, not a second source of it.
  const gasMicros = (await clients.client.getBalance({ address: wallet })) === 0n ? FAUCET_GAS_MICROS : 0
  if (gasMicros > 0) {
    sent.push(await clients.operator.sendTransaction({ to: wallet, value: BigInt(gasMicros) * WEI_PER_MICRO }))
  }
  await waitForSuccess(clients, sent)
  const receipt = await clients.client.getTransactionReceipt({ hash: sent[0]! })
  await ledgerCredited(context, address, creditsBefore)
  return { address, usdcMicros, gasMicros, transactionHash: receipt.transactionHash,
    blockNumber: Number(receipt.blockNumber) }
}

/** A wallet's ETH on the chain, in 10^-6 units (rounded down). */
export function gasOnChain(clients: ChainClients, address: string): Promise<number> {
  return onChain(async () => Number((await clients.client.getBalance({ address: address as Address })) / WEI_PER_MICRO))
}

function creditsOf(context: ServiceContext, address: string): number {
  return context.read.count('ledgerByAddress', address)
}

/** Waits until the ledger has a record more for the address, at most CHAIN_LEDGER_WAIT_MS. */
async function ledgerCredited(context: ServiceContext, address: string, before: number): Promise<void> {
  const deadline = context.nowMs() + CHAIN_LEDGER_WAIT_MS
  while (creditsOf(context, address) <= before && context.nowMs() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, CHAIN_LEDGER_POLL_MS))
  }
}
