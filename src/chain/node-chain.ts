/**
 * A real chain's node as Predex talks to it (`--chain local` and `--chain rpc`): the clients
 * for reads and for the operator's transactions, and the chain behind the test network
 * (chain.ts) with its head block polled (one call in flight, each bounded) so that /health
 * answers from memory; a node that stops answering shows as `rpc_error` with the last head known.
 */
import { createPublicClient, createWalletClient, defineChain, http, type Account, type Chain as ViemChain, type Hex,
  type PublicClient, type Transport, type WalletClient } from 'viem'
import { nonceManager, privateKeyToAccount } from 'viem/accounts'
import { CHAIN_CONFIRMATIONS, CHAIN_POLL_MS, CHAIN_RPC_TIMEOUT_MS } from '../limits.js'
import { firstLineOf } from '../stdx/error-text.js'
import type { Chain, ChainFollowerStatus, ChainKind, ChainStatus } from './chain.js'
import type { ChainDeployment } from './deployment.js'

/** What a chain backend needs to talk to its node: reads, and the operator's transactions. */
export interface ChainClients {
  /** ms between two blocks: how often what follows the chain looks at it. */
  readonly blockMs: number
  /** Blocks on top of one before what it holds is final for Predex (--chain-confirmations). */
  readonly confirmations: number
  readonly client: PublicClient
  readonly operator: WalletClient<Transport, ViemChain, Account>
  readonly contracts: ChainDeployment
}

export function viemChainOf(rpcUrl: string, chainId: number): ViemChain {
  return defineChain({ id: chainId, name: `predex-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } })
}

export function rpcTransport(rpcUrl: string): Transport {
  return http(rpcUrl, { timeout: CHAIN_RPC_TIMEOUT_MS, retryCount: 0 })
}

export function clientsOf(rpcUrl: string, blockMs: number, operatorKey: Hex, contracts: ChainDeployment,
  confirmations: number = CHAIN_CONFIRMATIONS): ChainClients {
  const chain = viemChainOf(rpcUrl, contracts.chainId)
  const transport = rpcTransport(rpcUrl)
  // The nonce manager hands out nonces in order, so that transactions sent together do not collide.
  const account = privateKeyToAccount(operatorKey, { nonceManager })
  return {
    blockMs,
    confirmations,
    client: createPublicClient({ chain, transport, pollingInterval: CHAIN_POLL_MS }),
    operator: createWalletClient({ chain, transport, account, pollingInterval: CHAIN_POLL_MS }),
    contracts,
  }
}

export class NodeChain implements Chain {
  private headBlock: number | null = null
  private rpcError: string | null = null
  private polling = false
  private follower: (() => ChainFollowerStatus) | null = null
  private readonly timer: NodeJS.Timeout

  /** `stopNode`: what stopping the chain stops besides polling (a local node; nothing for an external one). */
  constructor(readonly kind: Exclude<ChainKind, 'builtin'>, private readonly rpcUrl: string,
    readonly clients: ChainClients, private readonly stopNode: () => Promise<void>) {
    this.timer = setInterval(() => void this.poll(), clients.blockMs)
    this.timer.unref()
  }

  status(): ChainStatus {
    return { kind: this.kind, rpcUrl: this.rpcUrl, chainId: this.clients.contracts.chainId, headBlock: this.headBlock,
      confirmations: this.clients.confirmations, rpcError: this.rpcError, follower: this.follower?.() ?? null }
  }

  followedBy(follower: () => ChainFollowerStatus): void {
    this.follower = follower
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.stopNode()
  }

  async poll(): Promise<void> {
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
