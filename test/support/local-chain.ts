/**
 * A local chain for a test (issue 35): anvil from npm on a loopback port it picks itself, its
 * state in a temporary directory, Predex's contracts in place at chain 80002's addresses, stopped
 * when the test ends. Helpers fund a wallet (ETH from anvil, test USDC from the operator) and give
 * it the approvals trading needs, as a user would send them from their own wallet.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestClient, createWalletClient, http, parseEther, type Account, type Address, type Chain, type Hex,
  type TestClient, type Transport, type WalletClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { artifactOf } from '../../src/chain/artifacts.js'
import { startAnvil, type AnvilNode } from '../../src/chain/anvil-process.js'
import { waitForSuccess } from '../../src/chain/chain-markets.js'
import { placeContracts } from '../../src/chain/contract-placement.js'
import { localClientsOf } from '../../src/chain/local-chain.js'
import { rpcTransport, viemChainOf, type ChainClients } from '../../src/chain/node-chain.js'

export const LOCAL_CHAIN_ID = 80002

export interface LocalChainForTest extends ChainClients {
  readonly node: AnvilNode
  readonly dir: string
  /** anvil's own calls (balances, code), which a test may make and Predex never does. */
  readonly test: TestClient
}

export async function startLocalChain(t: { teardown: (fn: () => Promise<void> | void) => void },
  blockMs = 100): Promise<LocalChainForTest> {
  const dir = mkdtempSync(join(tmpdir(), 'predex-chain-'))
  const node = await startAnvil({ chainId: LOCAL_CHAIN_ID, stateFile: join(dir, 'anvil-state.json'), blockMs,
    stateIntervalSec: 1 })
  t.teardown(async () => {
    await node.stop()
    rmSync(dir, { recursive: true, force: true })
  })
  const clients = localClientsOf(node.rpcUrl, LOCAL_CHAIN_ID, blockMs)
  const test = createTestClient({ chain: viemChainOf(node.rpcUrl, LOCAL_CHAIN_ID), transport: rpcTransport(node.rpcUrl),
    mode: 'anvil' })
  await placeContracts(clients.client, test, clients.contracts, clients.operator.account.address)
  return { ...clients, node, dir, test }
}

export type UserWallet = WalletClient<Transport, Chain, Account>

export function userWallet(chain: LocalChainForTest, key: Hex): UserWallet {
  return createWalletClient({ chain: chain.operator.chain, transport: http(chain.node.rpcUrl),
    account: privateKeyToAccount(key), pollingInterval: 100 })
}

/** Gives `user` gas and `usdcMicros` of test USDC, and approves both exchanges of `version` for its USDC and tokens. */
export async function fundAndApprove(chain: LocalChainForTest, user: UserWallet, usdcMicros: bigint,
  version: 1 | 2 = 1): Promise<void> {
  const address = user.account.address
  await chain.test.setBalance({ address, value: parseEther('10') })
  const usdc = { address: chain.contracts.collateral as Address, abi: artifactOf('TestUSDC').abi }
  const ctf = { address: chain.contracts.conditionalTokens as Address, abi: artifactOf('ConditionalTokens').abi }
  const exchange = (version === 1 ? chain.contracts.exchange : chain.contracts.exchangeV2) as Address
  const sent = [
    await chain.operator.writeContract({ ...usdc, functionName: 'mint', args: [address, usdcMicros] }),
    await user.writeContract({ ...usdc, functionName: 'approve', args: [exchange, 2n ** 256n - 1n] }),
    await user.writeContract({ ...ctf, functionName: 'setApprovalForAll', args: [exchange, true] }),
  ]
  await waitForSuccess(chain, sent)
}

export async function usdcOf(chain: LocalChainForTest, address: Address): Promise<bigint> {
  return await chain.client.readContract({ address: chain.contracts.collateral as Address,
    abi: artifactOf('TestUSDC').abi, functionName: 'balanceOf', args: [address] }) as bigint
}

export async function tokensOf(chain: LocalChainForTest, address: Address, tokenId: string): Promise<bigint> {
  return await chain.client.readContract({ address: chain.contracts.conditionalTokens as Address,
    abi: artifactOf('ConditionalTokens').abi, functionName: 'balanceOf', args: [address, BigInt(tokenId)] }) as bigint
}
