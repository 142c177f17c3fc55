/**
 * The compiled contracts Predex places on a chain (src/chain/artifacts/*.json, written by
 * `node scripts/compile-contracts.mjs` from src/chain/contracts and checked against those sources
 * by test/unit/chain/artifacts.test.ts). Read once, on the first start with a real chain.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Abi, Hex } from 'viem'
import { packageRoot } from '../package-root.js'

export type ContractName = 'TestUSDC' | 'ConditionalTokens' | 'PredexExchange'

export interface Artifact {
  readonly contractName: ContractName
  readonly abi: Abi
  /** Creation code (constructor and runtime), without constructor arguments. */
  readonly bytecode: Hex
  /** Runtime code as compiled: immutables still zero. */
  readonly deployedBytecode: Hex
}

const loaded = new Map<ContractName, Artifact>()

export function artifactOf(name: ContractName): Artifact {
  let artifact = loaded.get(name)
  if (artifact === undefined) {
    const file = join(packageRoot().dir, 'src', 'chain', 'artifacts', `${name}.json`)
    artifact = JSON.parse(readFileSync(file, 'utf8')) as Artifact
    loaded.set(name, artifact)
  }
  return artifact
}

let exchangeAbi: Abi | null = null

/**
 * The exchange's ABI with the test USDC's errors: a settlement or relay the USDC refuses (a
 * wallet's balance or allowance short) then decodes by name (ERC20InsufficientAllowance), where
 * the exchange's ABI alone leaves a bare selector. The Conditional Tokens refuse with `require`
 * messages, which decode without an ABI.
 */
export function exchangeAbiWithTokenErrors(): Abi {
  exchangeAbi ??= [...artifactOf('PredexExchange').abi,
    ...artifactOf('TestUSDC').abi.filter((item) => item.type === 'error')]
  return exchangeAbi
}
