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
