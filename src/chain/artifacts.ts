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

/** The placeholder the Conditional Tokens' code holds for their relay exchange (conditional-tokens/ERC1155). */
const RELAY_EXCHANGE_PLACEHOLDER = '1234567890abcdef1234567890abcdef12345678'

/**
 * The Conditional Tokens' creation and runtime code with `relayExchange` (the settling exchange,
 * the one that may approve itself for owners on their signed Relay message) in place of the
 * placeholder: an immutable by linking, since solc 0.5 has none and the code alone must be the
 * whole contract where it is written in place (contract-placement.ts).
 */
export function linkedConditionalTokens(relayExchange: string): { bytecode: Hex; deployedBytecode: Hex } {
  const address = relayExchange.toLowerCase().replace(/^0x/, '')
  if (!/^[0-9a-f]{40}$/.test(address)) throw new RangeError(`not an address: ${relayExchange}`)
  const { bytecode, deployedBytecode } = artifactOf('ConditionalTokens')
  const link = (code: Hex): Hex => {
    const parts = code.toLowerCase().split(RELAY_EXCHANGE_PLACEHOLDER)
    if (parts.length < 2) throw new Error('the Conditional Tokens\' code holds no relay exchange placeholder')
    return parts.join(address) as Hex
  }
  return { bytecode: link(bytecode), deployedBytecode: link(deployedBytecode) }
}
