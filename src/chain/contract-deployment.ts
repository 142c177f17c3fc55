/**
 * Deploys Predex's contracts to an external chain by transactions, for `--chain rpc` (a local
 * chain has their code written in place instead: contract-placement.ts). Three contracts from
 * the deployer's key, which becomes the operator (the test USDC's minter, the exchange's settler):
 * the Conditional Tokens, the test USDC, and one PredexExchange that settles and relays, checking
 * orders under the addresses the clients sign for (src/crypto/contracts.ts), wherever it is
 * itself. The test USDC's standing allowance is for that exchange alone. Each needs the others'
 * addresses, so they are computed first from the deployer's nonces, and checked after.
 */
import { getContractAddress, type Address, type Hex, type PublicClient, type WalletClient, type Account,
  type Chain as ViemChain, type Transport } from 'viem'
import { contractsOf } from '../crypto/contracts.js'
import { CHAIN_DEPLOY_RECEIPT_WAIT_MS } from '../limits.js'
import { artifactOf, linkedConditionalTokens } from './artifacts.js'
import { exchangeAddresses } from './contract-placement.js'
import type { DeploymentFile } from './deployment.js'

export async function deployContracts(client: PublicClient, deployer: WalletClient<Transport, ViemChain, Account>,
  chainId: number): Promise<DeploymentFile> {
  const from = deployer.account.address
  const nonce = await client.getTransactionCount({ address: from, blockTag: 'pending' })
  const [conditionalTokens, collateral, settler] =
    [0, 1, 2].map((i) => getContractAddress({ from, nonce: BigInt(nonce + i) }))
  // The Conditional Tokens take the relay's approvals from the settling exchange alone (its address linked in).
  const ctf = { abi: artifactOf('ConditionalTokens').abi, bytecode: linkedConditionalTokens(settler!).bytecode }
  const usdc = artifactOf('TestUSDC')
  const exchange = artifactOf('PredexExchange')
  const sent: Hex[] = [
    await deployer.deployContract({ abi: ctf.abi, bytecode: ctf.bytecode, nonce }),
    await deployer.deployContract({ abi: usdc.abi, bytecode: usdc.bytecode, nonce: nonce + 1,
      args: [from, [settler!, settler!, settler!, settler!]] }),
    await deployer.deployContract({ abi: exchange.abi, bytecode: exchange.bytecode, nonce: nonce + 2,
      args: [collateral!, conditionalTokens!, from, exchangeAddresses(contractsOf(chainId))] }),
  ]
  const expected: Address[] = [conditionalTokens!, collateral!, settler!]
  for (const [i, hash] of sent.entries()) {
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: CHAIN_DEPLOY_RECEIPT_WAIT_MS })
    if (receipt.status !== 'success' || receipt.contractAddress?.toLowerCase() !== expected[i]!.toLowerCase()) {
      throw new Error(`deployment ${hash} did not create ${expected[i]} `
        + '(another transaction of the key got in between?)')
    }
  }
  return { collateral: collateral!.toLowerCase(), conditionalTokens: conditionalTokens!.toLowerCase(),
    settler: settler!.toLowerCase() }
}
