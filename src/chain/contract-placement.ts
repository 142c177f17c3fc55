/**
 * Puts Predex's contracts at the addresses Polymarket's clients know for the chain id
 * (src/crypto/contracts.ts): the collateral, the Conditional Tokens, and the exchange at each of
 * the four exchange addresses (V1 and V2, plain and neg-risk), so that a client signing for
 * chain 80002 signs for contracts that are there. The four hold the same code, which checks each
 * order under its own version's domain; Predex settles through the V1 address (SETTLER).
 *
 * On anvil no transaction is needed: each contract's constructor runs in an `eth_call` (a call
 * without a recipient returns the runtime code a creation would leave, immutables filled in), and
 * `anvil_setCode` writes that code at the fixed address. The contracts keep nothing from their
 * constructors in storage (src/chain/contracts), so the code alone is the whole contract. This is
 * the same on every start: code already in place is left alone, so a restart keeps every balance
 * (and code of an older build is replaced, its storage kept). The Conditional Tokens hold the
 * settling exchange's address, linked into their code (artifacts.ts, `linkedConditionalTokens`).
 */
import { encodeDeployData, type Address, type Hex, type PublicClient, type TestClient } from 'viem'
import type { ChainContracts } from '../crypto/contracts.js'
import { artifactOf, linkedConditionalTokens } from './artifacts.js'

export interface PlacedContract {
  readonly name: string
  readonly address: Address
  /** False when the same code was there already (a restart). */
  readonly written: boolean
}

interface Wanted {
  readonly name: string
  readonly address: Address
  readonly code: Hex
}

export async function placeContracts(client: PublicClient, test: TestClient, contracts: ChainContracts,
  operator: Address): Promise<PlacedContract[]> {
  const wanted = await wantedCode(client, contracts, operator)
  const placed: PlacedContract[] = []
  for (const { name, address, code } of wanted) {
    const current = await client.getCode({ address })
    const written = current?.toLowerCase() !== code.toLowerCase()
    if (written) await test.setCode({ address, bytecode: code })
    placed.push({ name, address, written })
  }
  return placed
}

async function wantedCode(client: PublicClient, contracts: ChainContracts, operator: Address): Promise<Wanted[]> {
  const collateral = contracts.collateral as Address
  const conditionalTokens = contracts.conditionalTokens as Address
  const usdc = artifactOf('TestUSDC')
  const exchange = artifactOf('PredexExchange')
  const exchanges = exchangeAddresses(contracts)
  const [usdcCode, exchangeCode] = await Promise.all([
    runtimeCode(client, encodeDeployData({ abi: usdc.abi, bytecode: usdc.bytecode, args: [operator, exchanges] })),
    runtimeCode(client, encodeDeployData({ abi: exchange.abi, bytecode: exchange.bytecode,
      args: [collateral, conditionalTokens, operator, exchanges] })),
  ])
  return [
    { name: 'TestUSDC', address: collateral, code: usdcCode },
    // The settling exchange (the V1 address) is the one the Conditional Tokens take the relay's approvals from.
    { name: 'ConditionalTokens', address: conditionalTokens,
      code: linkedConditionalTokens(contracts.exchange).deployedBytecode },
    ...exchanges.map((address, i) => ({ name: `PredexExchange (${EXCHANGE_NAMES[i]})`, address, code: exchangeCode })),
  ]
}

const EXCHANGE_NAMES = ['V1', 'V1 neg risk', 'V2', 'V2 neg risk'] as const

/** The four exchange addresses, in the order the contracts take them: V1, V1 neg-risk, V2, V2 neg-risk. */
export function exchangeAddresses(contracts: ChainContracts): [Address, Address, Address, Address] {
  return [contracts.exchange, contracts.negRiskExchange, contracts.exchangeV2, contracts.negRiskExchangeV2] as
    [Address, Address, Address, Address]
}

/** The runtime code a creation with `data` would leave, from a call that creates nothing. */
async function runtimeCode(client: PublicClient, data: Hex): Promise<Hex> {
  const { data: code } = await client.call({ data })
  if (code === undefined || code === '0x') throw new Error('a contract\'s constructor returned no code')
  return code
}
