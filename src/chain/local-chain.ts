/**
 * `--chain local`: anvil started under the data directory (anvil-process.ts), Predex's contracts
 * at the addresses the clients know (contract-placement.ts), and its head block polled (one call
 * in flight, each bounded) so that /health answers from memory; a node that stops answering
 * shows as `rpc_error` with the last head known.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createPublicClient, createTestClient, createWalletClient, defineChain, http, type Account,
  type Chain as ViemChain, type Hex, type PublicClient, type TestClient, type Transport, type WalletClient } from 'viem'
import { nonceManager, privateKeyToAccount } from 'viem/accounts'
import { contractsOf, type ChainContracts } from '../crypto/contracts.js'
import { CHAIN_POLL_MS, CHAIN_RPC_TIMEOUT_MS, CHAIN_STATE_INTERVAL_SEC } from '../limits.js'
import type { Log } from '../log.js'
import { startAnvil, type AnvilNode } from './anvil-process.js'
import type { Chain, ChainFollowerStatus, ChainOptions, ChainStatus } from './chain.js'
import { placeContracts } from './contract-placement.js'
import { firstLineOf } from '../stdx/error-text.js'

/**
 * The local chain's operator: anvil's first development account, whose key every Foundry user
 * knows. It mints test USDC and settles trades on a chain that exists only on this machine; a
 * public network gets a key of its own.
 */
export const LOCAL_OPERATOR_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

export async function openLocalChain(options: ChainOptions, log: Log): Promise<Chain> {
  const dir = join(options.dataDir, 'chain')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const node = await startAnvil({ chainId: options.chainId, stateFile: join(dir, 'anvil-state.json'),
    blockMs: options.blockMs, stateIntervalSec: CHAIN_STATE_INTERVAL_SEC })
  try {
    return await LocalChain.open(node, options.chainId, options.blockMs, log)
  } catch (error) {
    await node.stop()
    throw error
  }
}

/** What a chain backend needs to talk to its node: reads, anvil's own calls, and the operator's transactions. */
export interface ChainClients {
  /** ms between two blocks: how often what follows the chain looks at it. */
  readonly blockMs: number
  readonly client: PublicClient
  readonly test: TestClient
  readonly operator: WalletClient<Transport, ViemChain, Account>
  readonly contracts: ChainContracts
}

export function clientsOf(rpcUrl: string, chainId: number, blockMs: number,
  operatorKey: Hex = LOCAL_OPERATOR_KEY): ChainClients {
  const chain = defineChain({ id: chainId, name: `predex-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } })
  const transport = http(rpcUrl, { timeout: CHAIN_RPC_TIMEOUT_MS, retryCount: 0 })
  // The nonce manager hands out nonces in order, so that transactions sent together do not collide.
  const account = privateKeyToAccount(operatorKey, { nonceManager })
  return {
    blockMs,
    client: createPublicClient({ chain, transport, pollingInterval: CHAIN_POLL_MS }),
    test: createTestClient({ chain, transport, mode: 'anvil' }),
    operator: createWalletClient({ chain, transport, account, pollingInterval: CHAIN_POLL_MS }),
    contracts: contractsOf(chainId),
  }
}

class LocalChain implements Chain {
  readonly kind = 'local' as const
  private headBlock: number | null = null
  private rpcError: string | null = null
  private polling = false
  private follower: (() => ChainFollowerStatus) | null = null
  private readonly timer: NodeJS.Timeout

  private constructor(private readonly node: AnvilNode, private readonly chainId: number,
    readonly clients: ChainClients) {
    this.timer = setInterval(() => void this.poll(), clients.blockMs)
    this.timer.unref()
  }

  static async open(node: AnvilNode, chainId: number, blockMs: number, log: Log): Promise<LocalChain> {
    const clients = clientsOf(node.rpcUrl, chainId, blockMs)
    const placed = await placeContracts(clients.client, clients.test, clients.contracts,
      clients.operator.account.address)
    log.info('local chain: anvil started, contracts in place', { rpcUrl: node.rpcUrl, anvilPid: node.pid, chainId,
      written: placed.filter((p) => p.written).map((p) => `${p.name} ${p.address}`),
      kept: placed.filter((p) => !p.written).length })
    const chain = new LocalChain(node, chainId, clients)
    await chain.poll()
    return chain
  }

  status(): ChainStatus {
    return { kind: 'local', rpcUrl: this.node.rpcUrl, chainId: this.chainId, headBlock: this.headBlock,
      rpcError: this.rpcError, follower: this.follower?.() ?? null }
  }

  followedBy(follower: () => ChainFollowerStatus): void {
    this.follower = follower
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.node.stop()
  }

  private async poll(): Promise<void> {
    if (this.polling) return
    this.polling = true
    try {
      this.headBlock = Number(await this.clients.client.getBlockNumber({ cacheTime: 0 }))
      this.rpcError = null
    } catch (error) {
      this.rpcError = firstLineOf(error)
    } finally {
      this.polling = false
    }
  }
}
