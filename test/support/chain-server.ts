/**
 * What the tests of a server with `--chain local` share (test/chain/): its node's URL, a viem
 * chain for it, a wallet's approvals sent from its own key, a funded trader, balances read from the
 * chain, and a bounded wait for what the ledger or settlement will show.
 */
import { createPublicClient, createWalletClient, http, maxUint256, type Address, type Chain, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { PredexClient } from '../../src/client/predex-client.js'
import { Wallet } from '../../src/crypto/wallet.js'
import { CHAINS } from '../../src/crypto/contracts.js'
import type { PredexProcess } from './predex-process.js'
import { waitUntil } from './eventually.js'

export { waitUntil } from './eventually.js'

export const CONTRACTS = CHAINS[80002]!

/** The server's local chain node (its /health). */
export async function rpcUrlOf(node: PredexProcess): Promise<string> {
  const response = await fetch(`${node.base}/health`, { signal: AbortSignal.timeout(5_000) })
  return ((await response.json()) as { chain: { rpc_url: string } }).chain.rpc_url
}

export function viemChainOf(rpcUrl: string): Chain {
  return { id: 80002, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } } }
}

/**
 * Sent from the wallet's own key, as on any chain: an unlimited USDC approval of `usdcSpender`
 * (any of the four exchanges: the test USDC keeps one allowance for them), and the outcome tokens'
 * approval of the settling exchange (the V1 address).
 */
export async function approveOnChain(rpcUrl: string, key: Hex, usdcSpender: string = CONTRACTS.exchange): Promise<void> {
  const wallet = createWalletClient({ transport: http(rpcUrl), account: privateKeyToAccount(key), chain: viemChainOf(rpcUrl) })
  const reader = createPublicClient({ transport: http(rpcUrl) })
  for (const hash of [
    await wallet.writeContract({ address: CONTRACTS.collateral as Address, abi: artifactOf('TestUSDC').abi,
      functionName: 'approve', args: [usdcSpender as Address, maxUint256] }),
    await wallet.writeContract({ address: CONTRACTS.conditionalTokens as Address,
      abi: artifactOf('ConditionalTokens').abi, functionName: 'setApprovalForAll', args: [CONTRACTS.exchange as Address, true] }),
  ]) await reader.waitForTransactionReceipt({ hash })
}

export async function usdcOnChain(rpcUrl: string, address: string): Promise<bigint> {
  return await createPublicClient({ transport: http(rpcUrl) }).readContract({ address: CONTRACTS.collateral as Address,
    abi: artifactOf('TestUSDC').abi, functionName: 'balanceOf', args: [address as Address] }) as bigint
}

export async function tokensOnChain(rpcUrl: string, address: string, tokenId: string): Promise<bigint> {
  return await createPublicClient({ transport: http(rpcUrl) }).readContract({ address: CONTRACTS.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'balanceOf', args: [address as Address, BigInt(tokenId)] }) as bigint
}

export interface ChainTrader {
  readonly key: Hex
  readonly address: Address
  /** The SDK, with the wallet and its API key. */
  readonly client: PredexClient
}

/** A new wallet with 100 test USDC from the faucet, its approvals sent and mirrored, and an API key. */
export async function chainTrader(node: PredexProcess, key: Hex = generatePrivateKey()): Promise<ChainTrader> {
  const client = new PredexClient({ baseUrl: node.base, wallet: new Wallet(key) })
  await client.faucet('100')
  await approveOnChain(await rpcUrlOf(node), key)
  await waitUntil(() => client.walletStatus(), (w) => w.allowance !== '0', 'the approval reaches the ledger')
  await client.createApiKey()
  return { key, address: privateKeyToAccount(key).address, client }
}
