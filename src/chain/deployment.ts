/**
 * Where Predex's contracts are on a real chain. Orders are always signed for the exchange
 * addresses the clients know (src/crypto/contracts.ts: the EIP-712 domain names them), whatever
 * chain runs behind: PredexExchange checks them under those addresses, which it holds as
 * immutables, wherever it is itself. So a deployment is the signing addresses plus where the
 * contracts are:
 * - `--chain local`: at the signing addresses themselves (contract-placement.ts writes the code
 *   there), the V1 exchange settling;
 * - `--chain rpc`: wherever they were deployed (scripts/deploy-contracts.ts), named in the
 *   `--chain-contracts` file: the test USDC, the Conditional Tokens, and the settling exchange,
 *   which is then the one spender the test USDC's standing allowance is for.
 */
import { readFileSync } from 'node:fs'
import { contractsOf, type ChainContracts } from '../crypto/contracts.js'

export interface ChainDeployment extends ChainContracts {
  /** The PredexExchange that settles every trade and runs the relay; wallets approve it. */
  readonly settler: string
  /** The spenders the test USDC's one standing allowance is for (src/chain/contracts/TestUSDC.sol). */
  readonly usdcSpenders: readonly string[]
}

/** What a `--chain-contracts` file holds (the output of scripts/deploy-contracts.ts). */
export interface DeploymentFile {
  readonly collateral: string
  readonly conditionalTokens: string
  readonly settler: string
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const FILE_FIELDS = ['collateral', 'conditionalTokens', 'settler'] as const

/** A local chain's: every contract at the address the clients know. */
export function localDeployment(chainId: number): ChainDeployment {
  const contracts = contractsOf(chainId)
  return { ...contracts, settler: contracts.exchange, usdcSpenders: [contracts.exchange, contracts.negRiskExchange,
    contracts.exchangeV2, contracts.negRiskExchangeV2] }
}

/** An external chain's, from its `--chain-contracts` file; throws naming what is wrong with it. */
export function deploymentFromFile(path: string, chainId: number): ChainDeployment {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new Error(`--chain-contracts ${path}: not a readable JSON file (${(error as Error).message})`,
      { cause: error })
  }
  const file = parsed as Record<string, unknown>
  for (const field of FILE_FIELDS) {
    const value = typeof parsed === 'object' && parsed !== null ? file[field] : undefined
    if (typeof value !== 'string' || !ADDRESS.test(value)) {
      throw new Error(`--chain-contracts ${path}: "${field}" must be an address (0x and 40 hex digits), `
        + `as scripts/deploy-contracts.ts writes it`)
    }
  }
  const deployed = file as unknown as DeploymentFile
  const settler = deployed.settler.toLowerCase()
  return { ...contractsOf(chainId), collateral: deployed.collateral.toLowerCase(),
    conditionalTokens: deployed.conditionalTokens.toLowerCase(), settler, usdcSpenders: [settler] }
}
