/**
 * `--chain local`: anvil started under the data directory (anvil-process.ts), Predex's contracts
 * at the addresses the clients know (contract-placement.ts), stopped with the exchange.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createTestClient } from 'viem'
import { CHAIN_STATE_INTERVAL_SEC } from '../limits.js'
import type { Log } from '../log.js'
import { startAnvil, type AnvilNode } from './anvil-process.js'
import type { Chain, ChainOptions } from './chain.js'
import { placeContracts } from './contract-placement.js'
import { localDeployment } from './deployment.js'
import { clientsOf, NodeChain, rpcTransport, viemChainOf, type ChainClients } from './node-chain.js'

/**
 * The local chain's operator: anvil's first development account, whose key every Foundry user
 * knows. It mints test USDC and settles trades on a chain that exists only on this machine; an
 * external network gets a key of its own (`--chain rpc`, rpc-chain.ts).
 */
export const LOCAL_OPERATOR_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

export async function openLocalChain(options: ChainOptions, log: Log): Promise<Chain> {
  const dir = join(options.dataDir, 'chain')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const node = await startAnvil({ chainId: options.chainId, stateFile: join(dir, 'anvil-state.json'),
    blockMs: options.blockMs, stateIntervalSec: CHAIN_STATE_INTERVAL_SEC })
  try {
    const clients = localClientsOf(node.rpcUrl, options.chainId, options.blockMs, options.confirmations)
    await placeAll(node, clients, log)
    const chain = new NodeChain('local', node.rpcUrl, clients, () => node.stop())
    await chain.poll()
    return chain
  } catch (error) {
    await node.stop()
    throw error
  }
}

/** A local chain's clients: its operator anvil's first account, every contract where the clients sign for it. */
export function localClientsOf(rpcUrl: string, chainId: number, blockMs: number,
  confirmations?: number): ChainClients {
  return clientsOf(rpcUrl, blockMs, LOCAL_OPERATOR_KEY, localDeployment(chainId), confirmations)
}

/** Writes the contracts' code in place (anvil's own call), logging what it wrote and what it kept. */
export async function placeAll(node: AnvilNode, clients: ChainClients, log: Log): Promise<void> {
  const test = createTestClient({ chain: viemChainOf(node.rpcUrl, clients.contracts.chainId),
    transport: rpcTransport(node.rpcUrl), mode: 'anvil' })
  const placed = await placeContracts(clients.client, test, clients.contracts, clients.operator.account.address)
  log.info('local chain: anvil started, contracts in place', { rpcUrl: node.rpcUrl, anvilPid: node.pid,
    chainId: clients.contracts.chainId, written: placed.filter((p) => p.written).map((p) => `${p.name} ${p.address}`),
    kept: placed.filter((p) => !p.written).length })
}
